#!/usr/bin/env bash
# Lab server benchmark (issue 10): `seamcheck lab serve` versus nginx (Debian), both serving the
# same generated suite folder on 127.0.0.1, loaded by wrk with 8 concurrent keep-alive clients
# fetching the suite's media segments through the cases' paths, as receivers do, then every
# playlist of the suite (issue 36). Reports requests/s and MB/s for each and the ratio to nginx
# (goal: >= 0.5), and checks that every request wrk completed is in seamcheck's results database.
# The ceiling of the stack is loaded with the playlists too: a Hummingbird route and a bare
# SwiftNIO server answering a constant body of the playlists' mean size (`lab serve
# --bench-ceiling`, hidden). SEAMCHECK_BEFORE=<an older seamcheck> loads an older build the same
# way; LAB_BENCH_NO_FAST_PATH=1 this build with every request through Hummingbird's router
# (`--bench-no-fast-path`, hidden). The machine is shared and its load moves within seconds, so
# every server runs from the start and the loads are interleaved: LAB_BENCH_ROUNDS rounds (3) of
# LAB_BENCH_SECONDS (5) s per server, each server's median reported.
# Runs alone (builds a release binary) or from scripts/bench.sh, which sets SEAMCHECK.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

scripts/setup-deps.sh
missing=()
for tool in wrk nginx; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "lab-serve-bench: installing wrk and nginx-light" >&2
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends wrk nginx-light >&2
fi
SEAMCHECK="${SEAMCHECK:-}"
if [ -z "$SEAMCHECK" ]; then
  SEAMCHECK="$(scripts/release-build.sh)"
fi
work="$(realpath -m "${BENCH_DIR:-.build/bench}/lab-serve")"
mkdir -p "$work"
seconds="${LAB_BENCH_SECONDS:-5}"
rounds="${LAB_BENCH_ROUNDS:-3}"
connections=8

# The suite: generated (and timed) once; later runs reuse the cache.
t0=$(date +%s.%N)
"$SEAMCHECK" lab streams --output "$work/suite" >&2
t1=$(date +%s.%N)
python3 - "$work/suite" "$t0" "$t1" <<'PY'
import os, sys
root, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
size = files = 0
for d, _, names in os.walk(root):
    for n in names:
        p = os.path.join(d, n)
        if not os.path.islink(p):
            size += os.path.getsize(p); files += 1
print(f"suite: {files} files, {size / 1e6:.1f} MB; lab streams took {t1 - t0:.1f} s (cached after the first run)")
PY

# Every media segment, as receivers reach it: through each case's folder.
python3 - "$work/suite" > "$work/paths.txt" <<'PY'
import json, os, sys
root = sys.argv[1]
manifest = json.load(open(os.path.join(root, "lab.json")))
for case in manifest["cases"]:
    folder = os.path.join(root, "cases", case["id"])
    for d, dirs, names in os.walk(folder, followlinks=True):
        for n in sorted(names):
            if n.endswith((".m4s", ".ts", ".mp4")):
                print("/" + os.path.relpath(os.path.join(d, n), root))
PY
# Every playlist of every case: small bodies, so requests per second (and logging) dominate.
(cd "$work/suite" && find -L cases -name '*.m3u8' | sort | sed 's|^|/|') > "$work/playlists.txt"
echo "playlists: $(wc -l < "$work/playlists.txt") paths"
echo "segments: $(wc -l < "$work/paths.txt") paths, mean size $(python3 -c "
import os,sys
paths=[l.strip() for l in open('$work/paths.txt')]
print(f'{sum(os.path.getsize(\"$work/suite\"+p) for p in paths)/len(paths)/1e3:.0f} kB')")"
# shellcheck source=wrk-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/wrk-common.sh"
write_rotate_lua "$work"
rm -f "$work"/wrk-*.txt

# nginx: the same folder, sendfile, keep-alive, an access log like ours (buffered).
nginx_port=$(free_port)
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<CONF
worker_processes auto;
$( [ "$(id -u)" -eq 0 ] && echo "user root;" )
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
  types { application/vnd.apple.mpegurl m3u8; video/iso.segment m4s; video/mp4 mp4; video/mp2t ts; application/json json; }
  sendfile on; tcp_nopush on; keepalive_timeout 60; keepalive_requests 1000000;
  access_log $work/nginx/access.log combined buffer=64k;
  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy; fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
  server { listen 127.0.0.1:$nginx_port; root $work/suite; }
}
CONF
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -g 'daemon off;' &
pids+=($!)
wait_for "$nginx_port" || { echo "lab-serve-bench: nginx did not start" >&2; cat "$work/nginx/error.log" >&2; exit 1; }

# Every server up at once, each named: NAME PORT.
servers=("nginx $nginx_port")
start_lab() {  # NAME BINARY [ARGUMENTS...]: lab serve on a fresh database
  local name=$1 binary=$2; shift 2
  rm -f "$work/$name.sqlite" "$work/$name.sqlite-wal" "$work/$name.sqlite-shm"
  local port; port=$(free_port)
  "$binary" lab serve --streams "$work/suite" --bind 127.0.0.1 --port "$port" --db "$work/$name.sqlite" \
    --no-browse --log-level warning "$@" 2> "$work/lab-serve-$name.log" &
  pids+=($!)
  wait_for "$port" || { echo "lab-serve-bench: $binary lab serve ($name) did not start" >&2; cat "$work/lab-serve-$name.log" >&2; exit 1; }
  servers+=("$name $port")
}
start_lab seamcheck "$SEAMCHECK"
[ "${LAB_BENCH_NO_FAST_PATH:-0}" != 1 ] || start_lab no-fast-path "$SEAMCHECK" --bench-no-fast-path
[ -z "${SEAMCHECK_BEFORE:-}" ] || start_lab before "$SEAMCHECK_BEFORE"
playlist_bytes=$(python3 -c "
import os
paths=[l.strip() for l in open('$work/playlists.txt')]
print(round(sum(os.path.getsize('$work/suite'+p) for p in paths)/len(paths)))")
playlist_servers=("${servers[@]}")
for kind in hummingbird nio; do  # the ceiling: the same binary and event loops, a constant body
  port=$(free_port)
  "$SEAMCHECK" lab serve --bench-ceiling "$kind:$playlist_bytes" --bind 127.0.0.1 --port "$port" 2> "$work/ceiling-$kind.log" &
  pids+=($!)
  wait_for "$port" || { echo "lab-serve-bench: the $kind ceiling did not start" >&2; cat "$work/ceiling-$kind.log" >&2; exit 1; }
  playlist_servers+=("ceiling-$kind $port")
done

load() {  # PATHS-FILE NAME PORT ROUND KIND
  WRK_PATHS="$1" wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/rotate.lua" "http://127.0.0.1:$3" > "$work/wrk-$2-$5-$4.txt"
}
for round in $(seq 1 "$rounds"); do
  for server in "${servers[@]}"; do load "$work/paths.txt" $server "$round" segments; done
  for server in "${playlist_servers[@]}"; do load "$work/playlists.txt" $server "$round" playlists; done
done
for p in "${pids[@]:1}"; do kill -TERM "$p" 2>/dev/null || true; done
for p in "${pids[@]:1}"; do wait "$p" 2>/dev/null || true; done
kill "${pids[0]}" 2>/dev/null || true; wait "${pids[0]}" 2>/dev/null || true

python3 - "$work" "$connections" "$seconds" "$rounds" "$(cut -d' ' -f1 /proc/loadavg)" "$playlist_bytes" <<'PY'
import glob, os, re, sqlite3, statistics, sys
work, connections, seconds, rounds, load, playlist_bytes = sys.argv[1:7]
def run(path):
    text = open(path).read()
    requests = int(re.search(r"(\d+) requests in", text).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    value, unit = re.search(r"Transfer/sec:\s+([\d.]+)(\w+)", text).groups()
    mbps = float(value) * {"B": 1e-6, "KB": 1.024e-3, "MB": 1.048576, "GB": 1073.741824}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return requests, rps, mbps, int(errors.group(1)) if errors else 0
def figures(name, kind):
    runs = [run(p) for p in sorted(glob.glob(f"{work}/wrk-{name}-{kind}-*.txt"))]
    if not runs:
        return None
    return (sum(r[0] for r in runs), statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs),
            sum(r[3] for r in runs), [round(r[1]) for r in runs])
print(f"wrk -t2 -c{connections}, {rounds} interleaved rounds of {seconds} s per server, 127.0.0.1, medians (each round's req/s in brackets):")
labels = {"nginx": "nginx 1.22 (sendfile, buffered access log)", "seamcheck": "seamcheck lab serve (every request to SQLite)",
          "no-fast-path": "the same without the playlist fast path", "before": "before (SEAMCHECK_BEFORE)",
          "ceiling-hummingbird": f"ceiling: Hummingbird, one route, a constant {playlist_bytes}-byte body, no log",
          "ceiling-nio": f"ceiling: SwiftNIO HTTP/1, one handler, a constant {playlist_bytes}-byte body, no log"}
result = {}
for kind in ("segments", "playlists"):
    print(f"{kind}:" + (" (small bodies: seamcheck fills in the origin and cuts live windows; nginx sends the file)" if kind == "playlists" else ""))
    nginx = figures("nginx", kind)
    for name, label in labels.items():
        f = figures(name, kind)
        if f is None:
            continue
        result[(name, kind)] = f
        print(f"  {label}: {f[1]:,.0f} req/s, {f[2]:,.1f} MB/s, {f[1] / nginx[1]:.2f}x nginx ({f[0]} requests, {f[3]} errors) {f[4]}")
sp, np_ = result[("seamcheck", "playlists")][1], result[("nginx", "playlists")][1]
print(f"playlists: seamcheck/nginx {sp / np_:.2f} (goal >= 0.5: {'met' if sp / np_ >= 0.5 else 'NOT met'}); "
      f"segments {result[('seamcheck', 'segments')][1] / result[('nginx', 'segments')][1]:.2f}; load average {float(load):.2f} at the end")
for ceiling in ("ceiling-hummingbird", "ceiling-nio"):
    print(f"  seamcheck's playlists are {sp / result[(ceiling, 'playlists')][1]:.2f} of the {ceiling[8:]} ceiling")
db = sqlite3.connect(f"{work}/seamcheck.sqlite")
logged = db.execute("SELECT count(*) FROM labRequest").fetchone()[0]
served = db.execute("SELECT count(*) FROM labRequest WHERE status = 200 AND completed = 1").fetchone()[0]
total = result[("seamcheck", "segments")][0] + result[("seamcheck", "playlists")][0]
print(f"logged: {logged} requests in the database ({served} complete 200s) for {total} that wrk completed"
      + (" -- MISSING REQUESTS" if logged < total else ": every request logged"))
if logged < total:
    sys.exit(1)
PY
