# Run by `npm test` (scripts/testSetup.ts) when `ip` is missing, as root or under CI: installs
# Debian's iproute2 for test/fleetFaults.test.ts, which puts Redis and each worker in a network
# namespace of its own (root only; the test skips with a printed reason where namespaces are not
# allowed). Nothing is created here: the test makes its namespaces and removes them
# (test/support/netnsHosts.ts).
gepa_apt() {
  if [ "$(id -u)" -eq 0 ]; then DEBIAN_FRONTEND=noninteractive "$@"; else sudo DEBIAN_FRONTEND=noninteractive "$@"; fi
}

if ! command -v ip >/dev/null 2>&1; then
  echo "installing Debian's iproute2 for the fleet fault tests"
  gepa_apt apt-get update || true
  gepa_apt apt-get install -y --no-install-recommends iproute2 || echo "WARNING: could not install iproute2"
fi
command -v ip >/dev/null 2>&1
