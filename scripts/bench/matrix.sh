#!/usr/bin/env bash
# Matrix benchmark (issue 7): `seamcheck matrix run` on matrices of 50, 100 and 200 cases x the
# 6 bundled device classes. Each case is a pair of small generated files (a primary and an
# interstitial) drawn from 8 primaries and 12 interstitials, so inputs are shared across cases.
# Reports wall time per size, the probes performed (must equal the distinct inputs) and how time
# grows from 50 to 200 cases (goal: linear or better).
# Runs alone (builds a release binary) or from scripts/bench.sh, which sets SEAMCHECK.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

SEAMCHECK_BIN="${SEAMCHECK_BIN:-${SEAMCHECK:-}}"
if [ -z "$SEAMCHECK_BIN" ]; then
  SEAMCHECK_BIN="$(scripts/release-build.sh)"
fi
work="${BENCH_DIR:-$PWD/.build/bench}/matrix"
mkdir -p "$work/media"

# 8 primaries and 12 interstitials, 1 s each: varied frame rates, codecs, layouts and rates.
gen() { # name video-rate video-codec audio-codec sample-rate layout
  local out="$work/media/$1.mp4"
  [ -s "$out" ] && return
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=320x180:rate=$2:duration=1" \
    -f lavfi -i "sine=sample_rate=$5:duration=1,aformat=channel_layouts=$6" \
    -c:v "$3" -preset ultrafast -pix_fmt yuv420p -c:a "$4" -ar "$5" "$out" </dev/null
}
i=0
for spec in "30000/1001 libx264 aac 48000 stereo" "25 libx264 aac 48000 stereo" "24 libx264 aac 48000 stereo" \
            "30000/1001 libx264 aac 44100 stereo"; do
  set -- $spec
  gen "primary-$i" "$@"; gen "primary-$((i + 4))" "$@"; i=$((i + 1))
done
i=0
for spec in "30000/1001 libx264 aac 48000 stereo" "25 libx264 aac 48000 stereo" "30000/1001 libx265 aac 48000 stereo" \
            "30000/1001 libx264 ac3 48000 stereo" "30000/1001 libx264 aac 48000 5.1" "60 libx264 aac 48000 stereo"; do
  set -- $spec
  gen "ad-$i" "$@"; gen "ad-$((i + 6))" "$@"; i=$((i + 1))
done

matrix() { # cases -> path
  local n=$1 path="$work/matrix-$1.yaml"
  {
    echo "name: bench-$n"
    echo "defaults: {timeout: 120}"
    echo "deviceClasses: [apple-tv-4k, apple-tv-hd, mac, smart-tv-dolby-vision, smart-tv-low-end, speaker-audio-only]"
    echo "cases:"
    for c in $(seq 0 $((n - 1))); do
      echo "  - {id: case-$c, primary: media/primary-$((c % 8)).mp4, interstitials: [media/ad-$(((c * 7) % 12)).mp4]}"
    done
  } > "$path"
  echo "$path"
}

printf "%-6s %-7s %-9s %-8s %-9s %-7s\n" cases cells wall_s probes distinct ms/case
declare -A wall
for n in 50 100 200; do
  m=$(matrix "$n")
  distinct=$(grep -oE 'media/[a-z0-9-]+\.mp4' "$m" | sort -u | wc -l)
  best=""
  for round in 1 2 3; do
    rm -f "$work/bench.sqlite"*
    t0=$(date +%s.%N)
    status=0
    "$SEAMCHECK_BIN" matrix run "$m" --db "$work/bench.sqlite" --output "$work/reports-$n" --format json \
      --profiles-dir DeviceProfiles >"$work/out-$n.json" 2>"$work/err-$n.txt" || status=$?
    t1=$(date +%s.%N)
    [ "$status" -le 1 ] || { echo "matrix-bench: run failed ($status): $(cat "$work/err-$n.txt")" >&2; exit 1; }
    t=$(python3 -c "print($t1 - $t0)")
    best=$(python3 -c "print(min(float('$t'), float('${best:-1e9}')))")
  done
  wall[$n]=$best
  read -r probes cells <<<"$(python3 -c "
import json; d = json.load(open('$work/out-$n.json'))
print(d['run']['probesPerformed'], sum(d['summary'].values()))")"
  printf "%-6s %-7s %-9.3f %-8s %-9s %-7.2f\n" "$n" "$cells" "$best" "$probes" "$distinct" "$(python3 -c "print($best / $n * 1000)")"
  [ "$probes" = "$distinct" ] || { echo "matrix-bench: $probes probes for $distinct distinct inputs" >&2; exit 1; }
done
python3 - "${wall[50]}" "${wall[200]}" <<'PY'
import sys
t50, t200 = float(sys.argv[1]), float(sys.argv[2])
ratio = t200 / t50
print(f"growth 50 -> 200 cases: x{ratio:.2f} in wall time for x4 cases "
      f"({'linear or better' if ratio <= 4.4 else 'WORSE than linear'}; goal: <= x4)")
PY
