#!/usr/bin/env bash
# Capture analysis benchmark (issue 21): `seamcheck lab measure` on a 60 s 720p30 capture (the
# full-scale primary with its frame codes, encoded again at 30 fps as H.264 4 Mbit/s with AAC, as a
# recorder of a receiver's output would), BENCH_REPS times (default 5). Prints the median wall
# time and how many times real time that is (goal: at least 4x on 2 cores, to run live beside a
# receiver), and checks every frame was read.
#
# Runs alone (builds a release binary with --scratch-path .build-release) or from
# scripts/bench.sh, which sets SEAMCHECK (SEAMCHECK_BIN is honoured too).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

reps="${BENCH_REPS:-5}"
bin="${SEAMCHECK_BIN:-${SEAMCHECK:-}}"
if [ -z "$bin" ]; then
  bin="$(scripts/release-build.sh)"
fi
work="${BENCH_DIR:-.build/bench}/capture"
mkdir -p "$work"

# The suite's encodes are cached; the capture is made once.
"$bin" lab streams --output "$work/suite" --case control >&2
capture="$work/capture-720p30-60s.mp4"
if [ ! -s "$capture" ]; then
  ffmpeg -nostdin -v error -y -i "$work/suite/primary/encoded.m3u8" -r 30 -c:v libx264 -preset veryfast -b:v 4M \
    -c:a aac "$capture.partial.mp4"
  mv "$capture.partial.mp4" "$capture"
fi
seconds=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$capture")

: >"$work/times.txt"
for _ in $(seq 1 "$reps"); do
  t0=$(date +%s%N)
  "$bin" lab measure "$capture" --streams "$work/suite" --format json >"$work/measure.json"
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 )) >>"$work/times.txt"
done

python3 - "$work/times.txt" "$work/measure.json" "$seconds" "$reps" <<'PY'
import json, statistics, sys
times = [int(line) / 1e6 for line in open(sys.argv[1])]
doc = json.load(open(sys.argv[2]))
length = float(sys.argv[3])
median = statistics.median(times)
shown = sum(s["framesShown"] for s in doc["segments"])
print(f"lab measure on a {length:.1f} s 720p30 capture ({doc['capture']['frames']} frames, read at "
      f"{doc['capture']['width']}x{doc['capture']['height']}), median of {sys.argv[4]} runs:")
print(f"  {median:.2f} s (min {min(times):.2f}, max {max(times):.2f}): {length / median:.1f}x real time (goal >= 4x)")
print(f"  {shown} coded frames read, {doc['unreadableFrames']} unreadable, {doc['blackFrames']} black")
if doc["result"] != "measured" or doc["unreadableFrames"] > 0:
    sys.exit("capture-bench: not every frame was read")
PY
