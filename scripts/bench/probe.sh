#!/usr/bin/env bash
# Probe benchmark (issue 4): in one run,
#  1. 200 small generated files probed by one seamcheck process versus one
#     `ffprobe -v error -show_streams -of json` per file;
#  2. bytes read to probe a ~200 MB MP4 (moov at the end and at the front), locally (strace: sum
#     of read/pread64 results) and over HTTP from the loopback test server (bytes it sent).
# Goals: >= 30x faster than the ffprobe loop; < 3 MB read for the 200 MB MP4.
# Runs alone (builds a release binary) or from scripts/bench.sh, which sets SEAMCHECK_BIN.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

scripts/setup-deps.sh
command -v strace >/dev/null || { echo "probe-bench: strace is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
SEAMCHECK_BIN="${SEAMCHECK_BIN:-${SEAMCHECK:-}}"
if [ -z "$SEAMCHECK_BIN" ]; then
  SEAMCHECK_BIN="$(scripts/release-build.sh)"
fi
work="${BENCH_DIR:-.build/bench}/probe"
mkdir -p "$work/small"

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l 2>/dev/null || python3 -c "print($2 - $1)"; }

# 1. 200 small files: 5 distinct encodings, copied to 200 names.
if [ ! -s "$work/small/clip-199.mp4" ]; then
  echo "probe-bench: generating 200 small files" >&2
  i=0
  for spec in "libx264 30000/1001 aac 48000" "libx264 25 aac 44100" "libx265 30000/1001 aac 48000" \
              "libx264 24 ac3 48000" "libx264 60 aac 48000"; do
    set -- $spec
    ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=320x180:rate=$2:duration=2" \
      -f lavfi -i "sine=sample_rate=$4:duration=2" -c:v "$1" -preset ultrafast -x265-params log-level=error -c:a "$3" \
      "$work/small/seed-$i.mp4" 2>/dev/null
    i=$((i + 1))
  done
  for n in $(seq 0 199); do cp "$work/small/seed-$((n % 5)).mp4" "$work/small/clip-$n.mp4"; done
fi
files=()
for n in $(seq 0 199); do files+=("$work/small/clip-$n.mp4"); done

# Warm the page cache and both programs once, then time each three times; keep the best.
"$SEAMCHECK_BIN" probe "${files[@]}" --format json >/dev/null
ffprobe -v error -show_streams -of json "${files[0]}" >/dev/null
best_sc=999999; best_ff=999999
for round in 1 2 3; do
  t0=$(now); "$SEAMCHECK_BIN" probe "${files[@]}" --format json >/dev/null; t1=$(now)
  sc=$(python3 -c "print($t1 - $t0)")
  t0=$(now); for f in "${files[@]}"; do ffprobe -v error -show_streams -of json "$f" >/dev/null; done; t1=$(now)
  ff=$(python3 -c "print($t1 - $t0)")
  best_sc=$(python3 -c "print(min($best_sc, $sc))"); best_ff=$(python3 -c "print(min($best_ff, $ff))")
done
python3 - "$best_sc" "$best_ff" <<'PY'
import sys
sc, ff = float(sys.argv[1]), float(sys.argv[2])
print(f"probe 200 files: seamcheck (one process) {sc:.3f} s ({sc / 200 * 1000:.2f} ms/file); "
      f"ffprobe loop {ff:.3f} s ({ff / 200 * 1000:.1f} ms/file); ratio {ff / sc:.1f}x (goal >= 30x)")
PY

# 2. Bytes read for a ~200 MB MP4.
big="$work/big-moov-end.mp4"
if [ ! -s "$big" ]; then
  echo "probe-bench: generating a ~200 MB MP4" >&2
  ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30:duration=100 \
    -f lavfi -i sine=sample_rate=48000:duration=100 -c:v libx264 -preset ultrafast -crf 0 -c:a aac "$big"
  ffmpeg -nostdin -v error -y -i "$big" -c copy -movflags +faststart "$work/big-moov-front.mp4"
fi
size=$(stat -c %s "$big")

strace_bytes() { # total bytes returned by read/pread64 calls of the process
  strace -f -e trace=read,pread64 -o "$work/strace.log" "$@" >/dev/null 2>&1
  awk '/= [0-9]+$/ { n += $NF } END { print n + 0 }' "$work/strace.log"
}
# The binary's own start-up reads (shared libraries, profiles) are measured on a tiny file and subtracted.
baseline=$(strace_bytes "$SEAMCHECK_BIN" probe "${files[0]}" --format json)
tiny=$(stat -c %s "${files[0]}")

server_log=$(mktemp)
python3 Tests/Server/test_http_server.py --root "$work" --lifetime 300 >"$server_log" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q PORT "$server_log" && break; sleep 0.05; done
port=$(awk '/PORT/ {print $2}' "$server_log")

for layout in moov-end moov-front; do
  file="$work/big-$layout.mp4"
  local_bytes=$(( $(strace_bytes "$SEAMCHECK_BIN" probe "$file" --format json) - baseline + tiny ))
  curl -s "http://127.0.0.1:$port/__reset" >/dev/null
  # FFmpeg's own count of the bytes it consumed (AVIOContext.bytes_read), via --stats.
  http_read=$("$SEAMCHECK_BIN" probe "http://127.0.0.1:$port/files/big-$layout.mp4" --format json --stats 2>&1 >/dev/null \
    | sed -nE 's/.*: ([0-9]+) bytes read.*/\1/p')
  # What the server pushed before FFmpeg closed: includes loopback socket buffers it never read.
  http_sent=$(curl -s "http://127.0.0.1:$port/__log" | python3 -c "import json,sys; print(sum(r['bytes'] for r in json.load(sys.stdin)))")
  requests=$(curl -s "http://127.0.0.1:$port/__log" | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")
  python3 - "$layout" "$size" "$local_bytes" "$http_read" "$http_sent" "$requests" <<'PY'
import sys
layout, size, local, read, sent, requests = sys.argv[1], *map(int, sys.argv[2:])
mb = lambda b: b / 1e6
print(f"bytes read, {size / 1e6:.0f} MB MP4 ({layout}): local {mb(local):.2f} MB ({local / size * 100:.2f} %); "
      f"HTTP {mb(read):.2f} MB consumed ({read / size * 100:.2f} %) in {requests} request(s), "
      f"{mb(sent):.2f} MB sent by the server incl. socket buffers (goal < 3 MB, 1.5 %)")
PY
done
