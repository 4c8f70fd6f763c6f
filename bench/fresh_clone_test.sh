#!/usr/bin/env bash
# `make test` on a fresh clone with an empty pip cache (issue 22: <= 10 minutes on a quiet machine,
# the llama-cpp-python compile included; Chromium already installed).
#
# Usage: bench/fresh_clone_test.sh [REVISION]   (default HEAD; run from the checkout)
# Clones the committed files into a temporary folder, points pip at an empty cache of its own, runs
# `make test` there and prints the wall time of the whole and of its phases, with the load average
# before and after. Nothing of the checkout or of the user's pip cache is touched.
set -euo pipefail
rev="${1:-HEAD}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/cap-fresh-clone-XXXXXX)"
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/cap"
# the tests read ../shared (the public data beside the checkout, as on CI): the same folder, linked
[ -d "$repo/../shared" ] && ln -s "$(cd "$repo/../shared" && pwd)" "$work/shared"
git -C "$work/cap" checkout -q "$rev"
export PIP_CACHE_DIR="$work/pip-cache" PIP_DISABLE_PIP_VERSION_CHECK=1
unset PYTHONPATH
echo "fresh clone of $(git -C "$work/cap" rev-parse --short HEAD) in $work; load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
set +e
( cd "$work/cap" && make test 2>&1; echo "$?" > "$work/status" ) | while IFS= read -r line; do
  printf '%4ds  %s\n' "$(( $(date +%s) - start ))" "$line"
done > "$work/make-test.log"
end=$(date +%s)
set -e
status=$(cat "$work/status")
grep -E "^ *[0-9]+s  (.*(passed|failed| error)|Successfully (installed|built)|.*pip (install|wheel)|.*pytest)" \
  "$work/make-test.log" | cut -c1-160 || true
echo "make test: $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s (exit $status); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
