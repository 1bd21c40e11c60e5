# Run by `npm test` (scripts/testSetup.ts) when Chromium is missing, as root or under CI: the
# report tests render report.html in Debian's chromium (driven by playwright-core with
# executablePath), so install it when /usr/bin/chromium is missing. If it cannot be installed, say
# so: the report tests then skip, or fail under CI=true.
gepa_apt_chromium() {
  if [ "$(id -u)" -eq 0 ]; then DEBIAN_FRONTEND=noninteractive "$@"; else sudo DEBIAN_FRONTEND=noninteractive "$@"; fi
}

if [ ! -x /usr/bin/chromium ]; then
  echo "installing Debian's chromium for the report test"
  gepa_apt_chromium apt-get update || true
  gepa_apt_chromium apt-get install -y --no-install-recommends chromium || echo "WARNING: could not install chromium; the report tests will skip, or fail under CI=true"
fi
