#!/usr/bin/env bash
# Discovery benchmark (issue 5). Publishes 20 receivers on loopback (each an _airplay._tcp and a
# _raop._tcp service with real TXT sets: 40 services), then, BENCH_REPS times (default 7):
#   - seamcheck discover --format json      (both types, resolved, merged, classified; one process)
#   - avahi-browse -rpkt for both types IN PARALLEL (two processes started together; wall time
#     until both exit): the fair baseline, since seamcheck also browses both types at once
#   - the same two avahi-browse runs one after the other (for reference only)
# and prints each median and the ratio seamcheck / parallel avahi-browse (goal <= 1.0).
# The three are run in a rotating order so that none always goes first.
#
# Runs alone (builds a release binary with --scratch-path .build-release) or from
# scripts/bench.sh, which sets SEAMCHECK (SEAMCHECK_BIN is honoured too). Uses the daemon that
# DBUS_SYSTEM_BUS_ADDRESS points at if it answers, else the test avahi-daemon of
# scripts/services.sh, starting it (and stopping it after) if needed.
# Stops only the publishers it started.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

reps="${BENCH_REPS:-7}"
receivers=20
bin="${SEAMCHECK_BIN:-${SEAMCHECK:-}}"
if [ -z "$bin" ]; then
  bin="$(scripts/release-build.sh)"
fi
for tool in avahi-publish avahi-browse python3; do
  command -v "$tool" >/dev/null || { echo "discover-bench: $tool is missing (scripts/setup-deps.sh)" >&2; exit 1; }
done

work="${BENCH_DIR:-.build/bench}/discover"
mkdir -p "$work"
started_services=0
publishers=()
cleanup() {
  for pid in "${publishers[@]}"; do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "avahi-publish" ] && kill -TERM "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  if [ "$started_services" = 1 ]; then scripts/services.sh stop || true; fi
}
trap cleanup EXIT

avahi_answers() {
  dbus-send --system --print-reply=literal --reply-timeout=2000 --dest=org.freedesktop.Avahi / \
    org.freedesktop.Avahi.Server.GetState 2>/dev/null | grep -q "int32 2"
}
# A daemon the caller already points at (DBUS_SYSTEM_BUS_ADDRESS) is used as it is.
if [ -z "${DBUS_SYSTEM_BUS_ADDRESS:-}" ] || ! avahi_answers; then
  if ! scripts/services.sh status >/dev/null 2>&1; then
    scripts/services.sh start
    started_services=1
  fi
  # shellcheck disable=SC1091
  source .build/services/env
fi

# Real TXT sets (reference/airplay-discovery.md), cycled over the receivers.
txt_sets=(
  "model=AppleTV6,2|features=0x4A7FFFF7,0x4155FDE|flags=0x10644|srcvers=380.20.1|osvers=12.2.1"
  "manufacturer=LG|model=55UQ80006LD|srcvers=377.40.00|rsf=0x3|features=0x7F8AD0,0x38BCF46|flags=0x244"
  "manufacturer=Roku|model=3810X|srcvers=377.28.01|flags=0x644|rsf=0x3|features=0x7F8AD0,0x10BCF46"
  "model=AudioAccessory1,1|osvers=14.3|srcvers=530.6|flags=0x1a404|features=0x4A7FCA00,0x3C356BD0"
  "manufacturer=Sonos|model=Bookshelf|srcvers=366.0|flags=0x4|rsf=0x0|features=0x445F8A00,0x1C340"
)
tag=$(printf '%02X%02X' $((RANDOM % 256)) $((RANDOM % 256)))
echo "discover-bench: publishing $receivers receivers ($((receivers * 2)) services), tag $tag" >&2
for i in $(seq 1 "$receivers"); do
  n=$(printf '%02X' "$i")
  id="02:BE:${tag:0:2}:${tag:2:2}:00:$n"
  name="Bench $tag $n"
  IFS='|' read -r -a txt <<<"${txt_sets[$(( (i - 1) % ${#txt_sets[@]} ))]}"
  model=""
  for pair in "${txt[@]}"; do [[ "$pair" == model=* ]] && model="${pair#model=}"; done
  avahi-publish -s "$name" _airplay._tcp $((7200 + i)) "deviceid=$id" "${txt[@]}" >"$work/pub-a-$i.log" 2>&1 &
  publishers+=($!)
  avahi-publish -s "02BE${tag}00${n}@$name" _raop._tcp $((7200 + i)) "am=$model" "cn=0,1,2,3" "et=0,3,5" "sr=44100" "ss=16" "ch=2" \
    >"$work/pub-r-$i.log" 2>&1 &
  publishers+=($!)
done
for log in "$work"/pub-[ar]-*.log; do
  for _ in $(seq 1 150); do grep -q "Established" "$log" && break; grep -q "Failed" "$log" && break; sleep 0.1; done
  grep -q "Established" "$log" || { echo "discover-bench: a publisher failed: $(cat "$log")" >&2; exit 1; }
done

# Both tools must see all of them before anything is timed.
"$bin" discover --format json >"$work/discover.json"
python3 - "$work/discover.json" "$tag" "$receivers" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ours = [r for r in doc["receivers"] if r["name"].startswith(f"Bench {sys.argv[2]} ")]
merged = [r for r in ours if r["services"] == ["_airplay._tcp", "_raop._tcp"] and r["deviceClass"]]
if len(merged) != int(sys.argv[3]) or not doc["complete"]:
    sys.exit(f"discover-bench: seamcheck saw {len(merged)} merged and classified receivers of {sys.argv[3]}")
PY
for type in _airplay._tcp _raop._tcp; do
  seen=$(avahi-browse -rpkt "$type" | grep -c "^=.*Bench\\\\032$tag" || true)
  [ "$seen" -ge "$receivers" ] || { echo "discover-bench: avahi-browse saw $seen of $receivers $type services" >&2; exit 1; }
done

now() { date +%s%N; }
run_seamcheck() { "$bin" discover --format json >/dev/null; }
run_parallel() { avahi-browse -rpkt _airplay._tcp >/dev/null & local a=$!; avahi-browse -rpkt _raop._tcp >/dev/null & local r=$!; wait "$a" "$r"; }
run_sequential() { avahi-browse -rpkt _airplay._tcp >/dev/null; avahi-browse -rpkt _raop._tcp >/dev/null; }
# Process start-up alone, to tell it apart from discovery: `--version` does nothing else.
startup_seamcheck() { "$bin" --version >/dev/null; }
startup_avahi_browse() { avahi-browse --version >/dev/null; }
names=(run_seamcheck run_parallel run_sequential)
: >"$work/times.txt"
for rep in $(seq 1 "$reps"); do
  for k in 0 1 2; do
    fn="${names[$(( (rep + k) % 3 ))]}"
    t0=$(now); "$fn"; t1=$(now)
    echo "$fn $(( (t1 - t0) / 1000 ))" >>"$work/times.txt"
  done
  for fn in startup_seamcheck startup_avahi_browse; do
    t0=$(now); "$fn"; t1=$(now)
    echo "$fn $(( (t1 - t0) / 1000 ))" >>"$work/times.txt"
  done
done

python3 - "$work/times.txt" "$reps" "$receivers" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    name, micros = line.split()
    times.setdefault(name, []).append(int(micros) / 1e6)
sc = statistics.median(times["run_seamcheck"])
par = statistics.median(times["run_parallel"])
seq = statistics.median(times["run_sequential"])
print(f"discover {sys.argv[3]} receivers ({2 * int(sys.argv[3])} services), median of {sys.argv[2]} runs:")
print(f"  seamcheck discover (merged + classified)   {sc:.3f} s  (min {min(times['run_seamcheck']):.3f}, max {max(times['run_seamcheck']):.3f})")
print(f"  avahi-browse -rpkt x2, in parallel         {par:.3f} s  (min {min(times['run_parallel']):.3f}, max {max(times['run_parallel']):.3f})")
print(f"  avahi-browse -rpkt x2, one after the other {seq:.3f} s")
up_sc = statistics.median(times["startup_seamcheck"])
up_ab = statistics.median(times["startup_avahi_browse"])
print(f"  process start-up alone (--version): seamcheck {up_sc * 1000:.0f} ms, avahi-browse {up_ab * 1000:.0f} ms")
print(f"  ratio seamcheck / parallel avahi-browse: {sc / par:.3f} (goal <= 1.0); / sequential: {sc / seq:.3f}")
print(f"  the same without each program's start-up: {(sc - up_sc) / (par - up_ab):.3f}")
PY
