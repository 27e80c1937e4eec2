#!/usr/bin/env bash
# Parsing a media playlist of 50,000 segments and 1,000 date ranges: seamcheck versus the Python
# m3u8 package (installed from PyPI into a venv under .build/bench). Run through scripts/bench.sh,
# or alone with SEAMCHECK=path/to/seamcheck.
#
# Two comparisons of like with like, best of RUNS each:
#   in-process     m3u8.load(FILE) inside Python  versus  seamcheck's parser inside seamcheck
#                  (`seamcheck inspect --bench-parse N FILE`): parsing alone, no start-up
#   whole process  `python -c "import m3u8; m3u8.load(FILE)"`  versus
#                  `seamcheck inspect FILE --format json > /dev/null` (start-up, read, parse, the
#                  interstitial schedule, JSON out). seamcheck's start-up is the dynamic loader
#                  (FFmpeg and libcurl are opened only by commands that probe or fetch), the Swift
#                  runtime and Foundation (`seamcheck --help`, the whole command tree, is timed too).
#                  And `seamcheck lint FILE --offline --format json` (the spec rules too; offline:
#                  the 1,000 ads' hosts are not asked). Goal (issue 36): lint at least 20x.
#   scaling        the same lint of the same playlist made with 100,000 and 200,000 segments (and
#                  2,000 and 4,000 date ranges): linear work keeps the ms per 10,000 segments level.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
: "${SEAMCHECK:?set SEAMCHECK to the seamcheck binary (scripts/bench.sh does)}"
BENCH_DIR="${BENCH_DIR:-$PWD/.build/bench}"
RUNS="${RUNS:-5}"
SEGMENTS=50000
DATERANGES=1000
mkdir -p "$BENCH_DIR"
playlist="$BENCH_DIR/hls-parse-${SEGMENTS}.m3u8"

# The playlist: 2 s segments, a PROGRAM-DATE-TIME every 1,000 segments, a discontinuity every
# 5,000, and 1,000 interstitial date ranges (3 attribute styles, X- attributes of every type).
# Only X-ASSET-URI: inspect fetches X-ASSET-LIST documents, and a benchmark must not touch the network.
make_playlist() { # PATH SEGMENTS DATERANGES
python3 - "$1" "$2" "$3" <<'PY'
import sys, datetime
path, segments, ranges = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
def iso(seconds):
    return (start + datetime.timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD",
         '#EXT-X-MAP:URI="init.mp4"']
step = segments * 2.0 / ranges
for r in range(ranges):
    at = r * step + 1.0
    if r % 3 == 0:
        attrs = f'X-ASSET-URI="https://ads.example/{r}.m3u8?_HLS_interstitial_id=ad{r}",X-RESUME-OFFSET=0,X-RESTRICT="SKIP,JUMP"'
    elif r % 3 == 1:
        attrs = f'X-ASSET-URI="https://ads.example/pod/{r}.m3u8",X-SNAP="OUT,IN",CUE="ONCE",X-PLAYOUT-LIMIT=30.5'
    else:
        attrs = f'X-ASSET-URI="https://ads.example/{r}.m3u8",X-TIMELINE-OCCUPIES="RANGE",X-TIMELINE-STYLE="PRIMARY",X-CONTENT-MAY-VARY="NO"'
    lines.append(f'#EXT-X-DATERANGE:ID="ad{r}",CLASS="com.apple.hls.interstitial",START-DATE="{iso(at)}",DURATION=15.0,'
                 f'{attrs},X-COM-EXAMPLE-BEACON=0x{r:08X},X-COM-EXAMPLE-CAMPAIGN="c{r % 17}",X-COM-EXAMPLE-WEIGHT={r / 7:.3f}')
for i in range(segments):
    if i % 1000 == 0:
        lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{iso(i * 2)}")
    if i and i % 5000 == 0:
        lines.append("#EXT-X-DISCONTINUITY")
    lines.append("#EXTINF:2.002,")
    lines.append(f"segment_{i:06d}.m4s")
lines.append("#EXT-X-ENDLIST")
open(path, "w").write("\n".join(lines) + "\n")
PY
}
make_playlist "$playlist" "$SEGMENTS" "$DATERANGES"
echo "playlist: $playlist ($(wc -c < "$playlist") bytes, $SEGMENTS segments, $DATERANGES date ranges)"

venv="$BENCH_DIR/venv-m3u8"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import m3u8" 2>/dev/null; then
  echo "installing the m3u8 package from PyPI into $venv" >&2
  python3 -m venv "$venv" >&2 || { echo "hls-parse: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "m3u8==6.0.0" >&2
fi
m3u8_version=$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('m3u8'))")

python_ms=$("$venv/bin/python" - "$playlist" "$RUNS" <<'PY'
import sys, time, m3u8
path, runs = sys.argv[1], int(sys.argv[2])
best = float("inf")
for _ in range(runs):
    t = time.perf_counter()
    p = m3u8.load(path)
    best = min(best, time.perf_counter() - t)
assert len(p.segments) == 50000, len(p.segments)
print(f"{best * 1000:.1f}")
PY
)

python_process_ms=$(python3 - "$venv/bin/python" "$playlist" "$RUNS" <<'PY'
import subprocess, sys, time
python, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
best = float("inf")
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run([python, "-c", f"import m3u8; m3u8.load({path!r})"], check=True)
    best = min(best, time.perf_counter() - t)
print(f"{best * 1000:.1f}")
PY
)

timed_process() { # best wall time in ms of a command, stdout discarded
  python3 - "$RUNS" "$@" <<'PY'
import subprocess, sys, time
runs, command = int(sys.argv[1]), sys.argv[2:]
best = float("inf")
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    best = min(best, time.perf_counter() - t)
print(f"{best * 1000:.1f}")
PY
}
run_ms=$(timed_process "$SEAMCHECK" inspect "$playlist" --format json)
lint_ms=$(timed_process "$SEAMCHECK" lint "$playlist" --offline --format json --fail-on never)
startup_ms=$(timed_process "$SEAMCHECK" --help)
scaling=""
for segments in 100000 200000; do
  make_playlist "$BENCH_DIR/hls-parse-$segments.m3u8" "$segments" "$((segments / 50))"
  scaling+=" $segments:$(timed_process "$SEAMCHECK" lint "$BENCH_DIR/hls-parse-$segments.m3u8" --offline --format json --fail-on never)"
done

parse_line=$("$SEAMCHECK" inspect --bench-parse "$((RUNS * 4))" "$playlist" 2>&1 >/dev/null)
parse_ms=$(echo "$parse_line" | sed -E 's/^parse: best ([0-9.]+) ms.*/\1/')

echo "in-process:    m3u8 $m3u8_version m3u8.load ${python_ms} ms   seamcheck parser ${parse_ms} ms"
echo "whole process: python + m3u8.load ${python_process_ms} ms   seamcheck inspect --format json ${run_ms} ms (of which start-up ~${startup_ms} ms)"
echo "               seamcheck lint --offline --format json ${lint_ms} ms"
python3 - "$python_ms" "$parse_ms" "$python_process_ms" "$run_ms" "$lint_ms" "$(cut -d' ' -f1 /proc/loadavg)" "$startup_ms" $scaling <<'PY'
import sys
py, parse, py_process, run, lint, load, startup = map(float, sys.argv[1:8])
sizes = [(50000, lint)] + [(int(n), float(ms)) for n, ms in (item.split(":") for item in sys.argv[8:])]
print("scaling lint:  " + "   ".join(f"{n:,} segments {ms:.1f} ms ({(ms - startup) / n * 10000:.1f} ms per 10,000 after start-up)" for n, ms in sizes))
print(f"ratio in-process (parsing):  {py / parse:.1f}x   goal >= 20x: {'met' if py / parse >= 20 else 'NOT met'}")
print(f"ratio whole process inspect: {py_process / run:.1f}x")
print(f"ratio whole process lint:    {py_process / lint:.1f}x   goal >= 20x: {'met' if py_process / lint >= 20 else 'NOT met'}   (load average {load:.2f})")
PY
