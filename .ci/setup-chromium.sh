# Sourced by .ci/run: the report test renders report.html in Debian's chromium (driven by
# playwright-core with executablePath), so install it when it is missing. Needs root or sudo.
if [ ! -x /usr/bin/chromium ]; then
  echo "installing Debian's chromium for the report test"
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
  else
    sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
  fi
fi
