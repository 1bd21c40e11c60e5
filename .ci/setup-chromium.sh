# Sourced by .ci/run: the report test renders report.html in Debian's chromium (driven by
# playwright-core with executablePath), so install it when /usr/bin/chromium is missing. If it
# cannot be installed, say so and go on: the report test then fails in CI with that message.
gepa_apt_chromium() {
  if [ "$(id -u)" -eq 0 ]; then DEBIAN_FRONTEND=noninteractive "$@"; else sudo DEBIAN_FRONTEND=noninteractive "$@"; fi
}

if [ ! -x /usr/bin/chromium ]; then
  echo "installing Debian's chromium for the report test"
  # Shared with the other setup scripts: refresh the package lists once per CI shell.
  if [ -z "${GEPA_CI_APT_UPDATED:-}" ]; then
    gepa_apt_chromium apt-get update && export GEPA_CI_APT_UPDATED=1 || true
  fi
  gepa_apt_chromium apt-get install -y --no-install-recommends chromium || echo "WARNING: could not install chromium; the report test will fail in CI"
fi
