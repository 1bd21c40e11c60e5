#!/usr/bin/env bash
# Stand-in hosts for `npx tsx bench/bullmqThroughput.ts --netns` (root only):
#   bench/netnsHosts.sh up 8     network namespaces gepa-h1..8, each joined to this one by a veth
#                                pair (10.77.I.1 here <-> 10.77.I.2 there)
#   bench/netnsHosts.sh down 8   removes them
set -euo pipefail
case "$1" in
  up) for i in $(seq 1 "$2"); do
        ip netns add gepa-h$i; ip link add gepa-h$i-a type veth peer name gepa-h$i-b
        ip link set gepa-h$i-b netns gepa-h$i
        ip addr add 10.77.$i.1/24 dev gepa-h$i-a; ip link set gepa-h$i-a up
        ip netns exec gepa-h$i ip addr add 10.77.$i.2/24 dev gepa-h$i-b
        ip netns exec gepa-h$i ip link set gepa-h$i-b up; ip netns exec gepa-h$i ip link set lo up
      done ;;
  down) for i in $(seq 1 "$2"); do ip link del gepa-h$i-a 2>/dev/null || true; ip netns del gepa-h$i 2>/dev/null || true; done ;;
esac
