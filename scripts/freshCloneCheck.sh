#!/usr/bin/env bash
# Issue 38's acceptance: the README's two commands work on a fresh clone. Clones this
# repository's committed HEAD into a new temporary folder (nothing of this checkout's ignored
# files comes along: no node_modules, no gepa, no model), runs `npm install && npm run demo` and
# `npm install && npm test` there, and checks that no process is left running in the clone
# (the Redis tests' own redis-server included). Exits 0 when both commands did.
# Arguments go to vitest after `npm test --` (e.g. test files, to try a few), the whole suite by
# default. The clone is removed on success; --keep keeps it.
set -euo pipefail
keep=0
if [ "${1:-}" = "--keep" ]; then keep=1; shift; fi
src=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
commit=$(git -C "$src" rev-parse HEAD)
dir=$(mktemp -d "${TMPDIR:-/tmp}/gepa-fresh-XXXXXX")/gepa-actors
echo "== fresh clone of $commit in $dir"
git clone --quiet --no-hardlinks "$src" "$dir"
git -C "$dir" checkout --quiet --detach "$commit"
cd "$dir"

echo "== npm install && npm run demo"
npm install --no-audit --no-fund && npm run demo
echo "== npm install && npm test${*:+ -- $*}"
npm install --no-audit --no-fund && npm test ${*:+-- "$@"}

# Anything still running from inside the clone (its cwd there) outlived npm test. This shell
# leaves the clone first, so that it and its subshells are not counted.
cd /
left=""
for proc in /proc/[0-9]*; do
  case "$(readlink "$proc/cwd" 2>/dev/null || true)" in
    "$dir"|"$dir"/*) left="$left ${proc#/proc/}:$(tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | cut -c1-80)" ;;
  esac
done
if [ -n "$left" ]; then
  echo "fresh clone check: processes left running in $dir after npm test:$left" >&2
  exit 1
fi
echo "fresh clone check: both commands exited 0 on a fresh clone of $commit; nothing left running"
if [ "$keep" = 0 ]; then rm -rf "$(dirname "$dir")"; else echo "kept $dir"; fi
