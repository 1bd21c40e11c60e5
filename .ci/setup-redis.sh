# Sourced by .ci/run: the bullmq executor tests need a Redis. Install Debian's redis-server when
# it is missing, start a private one on a free loopback port (no persistence, stopped when the
# CI shell exits) and export GEPA_TEST_REDIS_URL. If Redis cannot be had, say so and go on:
# the tests then skip with a message.
gepa_apt() {
  if [ "$(id -u)" -eq 0 ]; then DEBIAN_FRONTEND=noninteractive "$@"; else sudo DEBIAN_FRONTEND=noninteractive "$@"; fi
}

if ! command -v redis-server >/dev/null 2>&1; then
  echo "installing Debian's redis-server for the bullmq executor tests"
  # Another setup script may have refreshed the package lists already in this shell.
  if [ -z "${GEPA_CI_APT_UPDATED:-}" ]; then
    gepa_apt apt-get update && export GEPA_CI_APT_UPDATED=1 || true
  fi
  gepa_apt apt-get install -y --no-install-recommends redis-server || echo "WARNING: could not install redis-server; the Redis tests will skip"
fi

if command -v redis-server >/dev/null 2>&1; then
  gepa_redis_port=""
  for gepa_try in $(seq 0 49); do
    gepa_candidate=$(( 20000 + ($$ * 7 + gepa_try * 131) % 30000 ))
    # Nothing answers on a free port.
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$gepa_candidate") 2>/dev/null; then
      gepa_redis_port=$gepa_candidate
      break
    fi
  done
  if [ -n "$gepa_redis_port" ] && redis-server --port "$gepa_redis_port" --bind 127.0.0.1 --save '' --appendonly no \
      --daemonize yes --pidfile "/tmp/gepa-redis-$gepa_redis_port.pid" --logfile "/tmp/gepa-redis-$gepa_redis_port.log"; then
    for gepa_try in $(seq 1 50); do
      if redis-cli -p "$gepa_redis_port" ping 2>/dev/null | grep -q PONG; then break; fi
      sleep 0.1
    done
    export GEPA_TEST_REDIS_URL="redis://127.0.0.1:$gepa_redis_port"
    echo "redis-server on $GEPA_TEST_REDIS_URL"
    # Stop it with the CI shell, keeping any exit trap set before us.
    gepa_prev_exit_trap=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
    trap "redis-cli -p $gepa_redis_port shutdown nosave >/dev/null 2>&1 || true; $gepa_prev_exit_trap" EXIT
  else
    echo "WARNING: could not start redis-server; the Redis tests will skip"
  fi
fi
