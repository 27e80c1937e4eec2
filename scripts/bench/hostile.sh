#!/usr/bin/env bash
# Hostile playlists that fuzzing found to be slow (issue 14), timed whole process on the release
# build, best of RUNS. Run through scripts/bench.sh, or alone with SEAMCHECK=path/to/seamcheck.
#
#   amplification  twelve EXT-X-DEFINE doublings give a 60 KiB value, used in 20 X-ASSET-URIs
#                  of a 3.5 KB playlist                                      goal: lint <= 0.3 s
#                  (and in 100, and in 1,100: up to the 64 MiB substitution cap, for report size)
#   same-id merge  100 DATERANGE tags sharing one ID, 254 attributes each    goal: lint <= 1 s
#   renditions     two variants with the same 20,000 date ranges             goal: lint <= 1 s
#
# The asset URIs point at a local path that does not exist: nothing leaves the machine, and
# each asset fails at once (lint reports it unreachable), so the time is seamcheck's own.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
: "${SEAMCHECK:?set SEAMCHECK to the seamcheck binary (scripts/bench.sh does)}"
BENCH_DIR="${BENCH_DIR:-$PWD/.build/bench}"
RUNS="${RUNS:-3}"
dir="$BENCH_DIR/hostile"
mkdir -p "$dir"

python3 - "$dir" <<'PY'
import os, sys
out = sys.argv[1]
head = ["#EXTM3U", "#EXT-X-VERSION:11", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD"]
segments = ["#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z"] + [f"#EXTINF:6,\nm{i}.ts" for i in range(5)]

def amplification(uses):
    defines = ['#EXT-X-DEFINE:NAME="a0",VALUE="0123456789abcde"']
    defines += [f'#EXT-X-DEFINE:NAME="a{k}",VALUE="{{$a{k - 1}}}{{$a{k - 1}}}"' for k in range(1, 13)]
    tags = [f'#EXT-X-DATERANGE:ID="{i}",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:44Z",'
            f'X-ASSET-URI="file:///nonexistent/{{$a12}}/{i}"' for i in range(uses)]
    return head + defines + segments + tags + ["#EXT-X-ENDLIST"]

def merge(tags, attributes):
    lines = head + segments
    for t in range(tags):
        attrs = ",".join(f"X-{t:02d}{a:03d}=1" for a in range(attributes - 2))
        lines.append(f'#EXT-X-DATERANGE:ID="x",START-DATE="2020-01-02T21:55:44Z",{attrs}')
    return lines + ["#EXT-X-ENDLIST"]

def renditions(ranges):
    media = head + segments + [f'#EXT-X-DATERANGE:ID="r{i}",CLASS="com.example.marker",START-DATE="2020-01-02T21:55:44Z",DURATION=1'
                               for i in range(ranges)] + ["#EXT-X-ENDLIST"]
    multivariant = ["#EXTM3U", '#EXT-X-STREAM-INF:BANDWIDTH=1000000', "v1.m3u8", '#EXT-X-STREAM-INF:BANDWIDTH=2000000', "v2.m3u8"]
    return {"renditions.m3u8": multivariant, "v1.m3u8": media, "v2.m3u8": media}

files = {"amplification-20.m3u8": amplification(20), "amplification-100.m3u8": amplification(100),
         "amplification-1100.m3u8": amplification(1100),
         "merge-100x254.m3u8": merge(100, 254), **renditions(20000)}
for name, lines in files.items():
    with open(os.path.join(out, name), "w") as f:
        f.write("\n".join(lines) + "\n")
PY

timed() { # best wall time in seconds of a command (stdout discarded; exit 1 = findings is fine)
  python3 - "$RUNS" "$@" <<'PY'
import subprocess, sys, time
runs, command = int(sys.argv[1]), sys.argv[2:]
best = float("inf")
for _ in range(runs):
    t = time.perf_counter()
    code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    best = min(best, time.perf_counter() - t)
    if code not in (0, 1): sys.exit(f"{' '.join(command[:3])}: exit {code}")
print(f"{best:.2f}")
PY
}
report() { # name, goal (s or -), seconds, bytes of JSON
  local verdict=""
  if [ "$2" != "-" ]; then
    verdict=$(python3 -c "import sys; print('met' if float(sys.argv[1]) <= float(sys.argv[2]) else 'NOT met')" "$3" "$2")
    verdict="   goal <= $2 s: $verdict"
  fi
  printf '%-44s %6s s  %9s bytes of JSON%s\n' "$1" "$3" "$4" "$verdict"
}
measure() { # name, goal, command, playlist
  local seconds bytes
  seconds=$(timed "$SEAMCHECK" "$3" "$dir/$4" --format json)
  bytes=$("$SEAMCHECK" "$3" "$dir/$4" --format json 2>/dev/null | wc -c || true)
  report "$1" "$2" "$seconds" "$bytes"
}

for f in amplification-20.m3u8 merge-100x254.m3u8 renditions.m3u8 v1.m3u8; do
  echo "$f: $(wc -c < "$dir/$f") bytes"
done
measure "amplification, 20 uses: lint" 0.3 lint amplification-20.m3u8
measure "amplification, 100 uses: lint" - lint amplification-100.m3u8
measure "amplification, 1,100 uses (the 64 MiB cap): lint" - lint amplification-1100.m3u8
measure "same-id merge, 100 x 254: lint" 1 lint merge-100x254.m3u8
measure "same-id merge, 100 x 254: inspect" - inspect merge-100x254.m3u8
measure "renditions, 2 x 20,000 date ranges: lint" 1 lint renditions.m3u8
