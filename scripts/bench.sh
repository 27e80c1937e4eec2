#!/usr/bin/env bash
# Runs every benchmark section in scripts/bench/*.sh in one go, after one release build.
# Each section gets SEAMCHECK (the release binary) and BENCH_DIR (a scratch directory under
# .build/bench) in its environment and prints its own figures.
#
#   scripts/bench.sh              every section
#   scripts/bench.sh hls-parse    only the named sections
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup-deps.sh  # the Debian packages, strace and python3-venv included
echo "bench: building seamcheck (release, .build-release, static Swift runtime: scripts/release-build.sh)" >&2
SEAMCHECK="$(scripts/release-build.sh)" || { echo "bench: release build failed" >&2; exit 1; }
export SEAMCHECK
export BENCH_DIR="$PWD/.build/bench"
mkdir -p "$BENCH_DIR"

sections=()
if [ "$#" -gt 0 ]; then
  for name in "$@"; do sections+=("scripts/bench/${name%.sh}.sh"); done
else
  for file in scripts/bench/*.sh; do sections+=("$file"); done
fi

status=0
for section in "${sections[@]}"; do
  [ -f "$section" ] || { echo "bench: no section $section" >&2; status=1; continue; }
  echo "== $(basename "$section" .sh)"
  bash "$section" || { echo "bench: $(basename "$section" .sh) failed" >&2; status=1; }
done
exit "$status"
