# Run by `npm test` (scripts/testSetup.ts) when gepa is missing, as root or under CI: the
# reference differential tests (test/referenceGepa.test.ts) run gepa 0.1.4 itself. Install
# Python 3 with pip from Debian when missing, then the pinned PyPI release into
# bench/reference/.gepa-0.1.4 (git-ignored; reused when present). If it cannot be had, say so:
# the tests then skip, or fail under CI=true.
gepa_py_apt() {
  if [ "$(id -u)" -eq 0 ]; then DEBIAN_FRONTEND=noninteractive "$@"; else sudo DEBIAN_FRONTEND=noninteractive "$@"; fi
}

if ! command -v python3 >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
  echo "installing Debian's python3 and python3-pip for the reference differential tests"
  gepa_py_apt apt-get update || true
  gepa_py_apt apt-get install -y --no-install-recommends python3 python3-pip || echo "WARNING: could not install python3-pip"
fi
npx tsx bench/reference/gepaInstall.ts || echo "WARNING: could not install gepa 0.1.4; test/referenceGepa.test.ts will skip, or fail under CI=true"
