#!/usr/bin/env bash
# Matrix workers benchmark (issue 25): a 400-case matrix drained by 1 worker and by 4 workers
# (`matrix run --worker`, each --jobs 2) through one PostgreSQL (scripts/services.sh
# postgres-start; started here when not running, and stopped again). Each case is a primary and
# an interstitial among 20 small generated files, reached through a symlink of its own so that
# every case probes two inputs of its own (800 distinct inputs). Reports the wall time of each,
# their ratio (1 worker / 4 workers; on this 2-core machine the goal is bounded by the cores),
# the CPU (user + system of the worker processes) per case, and checks every case is recorded once.
# Runs alone (builds a release binary) or from scripts/bench.sh, which sets SEAMCHECK.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

SEAMCHECK_BIN="${SEAMCHECK_BIN:-${SEAMCHECK:-}}"
if [ -z "$SEAMCHECK_BIN" ]; then
  SEAMCHECK_BIN="$(scripts/release-build.sh)"
fi
work="${BENCH_DIR:-$PWD/.build/bench}/matrix-workers"
cases="${BENCH_WORKER_CASES:-400}"
mkdir -p "$work/media" "$work/links"

started=0
if ! scripts/services.sh postgres-status >/dev/null 2>&1; then
  scripts/services.sh postgres-start >&2
  started=1
fi
cleanup() { if [ "$started" = 1 ]; then scripts/services.sh postgres-stop >&2 || true; fi; }
trap cleanup EXIT
# shellcheck disable=SC1091
source .build/services/postgres.env

gen() { # name video-rate video-codec audio-codec
  local out="$work/media/$1.mp4"
  [ -s "$out" ] && return
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=320x180:rate=$2:duration=1" \
    -f lavfi -i "sine=sample_rate=48000:duration=1" -c:v "$3" -preset ultrafast -pix_fmt yuv420p -c:a "$4" "$out" </dev/null
}
for i in 0 1 2 3 4 5 6 7; do gen "primary-$i" 30000/1001 libx264 aac; done
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
  case $((i % 4)) in 0) gen "ad-$i" 30000/1001 libx264 aac ;; 1) gen "ad-$i" 25 libx264 aac ;;
                     2) gen "ad-$i" 30000/1001 libx264 ac3 ;; 3) gen "ad-$i" 60 libx264 aac ;; esac
done
write_matrix() { # path ad-prefix
  local path="$1" prefix="$2"
  {
  echo "name: workers-$cases"
  echo "defaults: {timeout: 120}"
  echo "deviceClasses: [apple-tv-4k, apple-tv-hd, mac, smart-tv-low-end]"
  echo "cases:"
  for c in $(seq 0 $((cases - 1))); do
    ln -sf "../media/primary-$((c % 8)).mp4" "$work/links/p-$c.mp4"
    ln -sf "../media/ad-$(((c * 7) % 12)).mp4" "$work/links/a-$c.mp4"
    echo "  - {id: case-$c, primary: links/p-$c.mp4, interstitials: [\"${prefix}a-$c.mp4\"]}"
  done
  } > "$path"
}
m="$work/matrix-$cases.yaml"
write_matrix "$m" "links/"

run_workers() { # workers round [matrix] -> "wall cpu"
  local workers=$1 name="bench_w$1_$2_$$" m="${3:-$m}"
  "$SEAMCHECK_TEST_POSTGRES_BIN/createdb" -h "$SEAMCHECK_TEST_POSTGRES_SOCKET_DIR" -p "$SEAMCHECK_TEST_POSTGRES_PORT" -U seamcheck "$name"
  local url="postgres://seamcheck@localhost:$SEAMCHECK_TEST_POSTGRES_PORT/$name?host=$SEAMCHECK_TEST_POSTGRES_SOCKET_DIR"
  "$SEAMCHECK_BIN" db migrate --db "$url" 2>/dev/null
  python3 - "$workers" "$SEAMCHECK_BIN" "$m" "$url" "$work" <<'PY'
import os, subprocess, sys, time
workers, binary, matrix, url, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
start = time.monotonic()
children = []
for n in range(workers):
    out = open(f"{work}/worker-{n}.json", "w"); err = open(f"{work}/worker-{n}.err", "w")
    children.append(subprocess.Popen([binary, "matrix", "run", matrix, "--db", url, "--worker", "--run-name", "bench", "--jobs", "2",
                                      "--format", "json", "--output", f"{work}/reports-{n}", "--profiles-dir", "DeviceProfiles"],
                                     stdout=out, stderr=err))
cpu = 0.0
for child in children:
    _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code > 1:
        sys.exit(f"worker exited {code}: " + open(f"{work}/worker-{children.index(child)}.err").read())
    cpu += usage.ru_utime + usage.ru_stime
print(f"{time.monotonic() - start:.3f} {cpu:.3f}")
PY
  local once
  once=$("$SEAMCHECK_TEST_POSTGRES_BIN/psql" -h "$SEAMCHECK_TEST_POSTGRES_SOCKET_DIR" -p "$SEAMCHECK_TEST_POSTGRES_PORT" -U seamcheck -d "$name" \
    -tAc "SELECT count(*) = $cases AND count(DISTINCT caseId) = $cases FROM matrixCase")
  "$SEAMCHECK_TEST_POSTGRES_BIN/dropdb" -h "$SEAMCHECK_TEST_POSTGRES_SOCKET_DIR" -p "$SEAMCHECK_TEST_POSTGRES_PORT" -U seamcheck "$name"
  [ "$once" = t ] || { echo "matrix-workers-bench: not every case recorded exactly once" >&2; exit 1; }
}

table() { # rounds matrix label
  local rounds=$1 matrix=$2 label=$3 best bestcpu w c
  echo "$label"
  printf "%-8s %-6s %-9s %-9s %-11s\n" workers cases wall_s cpu_s cpu_ms/case
  for workers in 1 4; do
    best=""
    for round in $(seq 1 "$rounds"); do
      read -r w c <<<"$(run_workers "$workers" "$round" "$matrix")"
      if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $w < $best else 1)"; then best=$w; bestcpu=$c; fi
    done
    wall[$workers]=$best; cpu[$workers]=$bestcpu
    printf "%-8s %-6s %-9.3f %-9.3f %-11.2f\n" "$workers" "$cases" "$best" "$bestcpu" "$(python3 -c "print($bestcpu / $cases * 1000)")"
  done
  python3 - "${wall[1]}" "${wall[4]}" "$(nproc)" <<'PY'
import sys
one, four, cores = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"wall time 1 worker / 4 workers: x{one / four:.2f} on {cores} cores (every worker runs --jobs 2)")
PY
}

declare -A wall cpu
table 3 "$m" "local files (CPU-bound):"

# The interstitials over HTTP, 50 ms a request, from the test server (stopped at the end).
server_out="$work/server.out"
python3 Tests/Server/test_http_server.py --root "$work" --lifetime 900 >"$server_out" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 1 100); do grep -q '^PORT ' "$server_out" && break; sleep 0.05; done
port=$(awk '/^PORT /{print $2; exit}' "$server_out")
[ -n "$port" ] || { echo "matrix-workers-bench: the test HTTP server did not start" >&2; exit 1; }
net="$work/matrix-$cases-http.yaml"
write_matrix "$net" "http://127.0.0.1:$port/slow/0.05/links/"
table 1 "$net" "interstitials over HTTP, 50 ms a request (network-bound):"
