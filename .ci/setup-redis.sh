# Run by `npm test` (scripts/testSetup.ts) when redis-server is missing, as root or under CI:
# installs Debian's redis-server for the BullMQ tests. Nothing is started here: each Redis test
# file starts a private redis-server on a free loopback port and stops it when the file ends
# (test/support/testRedis.ts), so none is left running after `npm test`.
gepa_apt() {
  if [ "$(id -u)" -eq 0 ]; then DEBIAN_FRONTEND=noninteractive "$@"; else sudo DEBIAN_FRONTEND=noninteractive "$@"; fi
}

if ! command -v redis-server >/dev/null 2>&1; then
  echo "installing Debian's redis-server for the bullmq executor tests"
  gepa_apt apt-get update || true
  gepa_apt apt-get install -y --no-install-recommends redis-server || echo "WARNING: could not install redis-server"
fi
command -v redis-server >/dev/null 2>&1
