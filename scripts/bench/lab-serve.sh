#!/usr/bin/env bash
# Lab server benchmark (issue 10): `seamcheck lab serve` versus nginx (Debian), both serving the
# same generated suite folder on 127.0.0.1, loaded by wrk with 8 concurrent keep-alive clients
# fetching the suite's media segments through the cases' paths, as receivers do, for 10 s each,
# in one run. Reports requests/s and MB/s for each and their ratio (goal: >= 0.5 of nginx), then
# the same for every playlist of the suite (issue 36, goal >= 0.5 of nginx), and checks that
# every request wrk completed is in seamcheck's results database. The ceiling of the stack comes
# first, under the playlists' load: a Hummingbird route and a bare SwiftNIO server answering a
# constant body of the playlists' mean size (`lab serve --bench-ceiling`, hidden). With
# SEAMCHECK_BEFORE set to another seamcheck binary (an older build), it is loaded the same way
# in the same run, for a before-and-after from one run; with LAB_BENCH_NO_FAST_PATH=1, the same
# binary with every request through Hummingbird's router (`--bench-no-fast-path`, hidden) too.
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
  swift build -c release --scratch-path .build-release --product seamcheck >&2
  SEAMCHECK="$(swift build -c release --scratch-path .build-release --show-bin-path)/seamcheck"
fi
work="$(realpath -m "${BENCH_DIR:-.build/bench}/lab-serve")"
mkdir -p "$work"
seconds="${LAB_BENCH_SECONDS:-10}"
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
run_wrk() {
  WRK_PATHS="$work/paths.txt" wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/rotate.lua" "http://127.0.0.1:$1" > "$work/wrk-$2.txt"
  WRK_PATHS="$work/playlists.txt" wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/rotate.lua" "http://127.0.0.1:$1" > "$work/wrk-$2-playlists.txt"
}

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
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -g 'daemon off;' &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null || true' EXIT
wait_for "$nginx_port" || { echo "lab-serve-bench: nginx did not start" >&2; cat "$work/nginx/error.log" >&2; exit 1; }
run_wrk "$nginx_port" nginx
kill "$nginx_pid"; wait "$nginx_pid" 2>/dev/null || true

# The ceiling: the same release binary, the same event loops, nothing but a constant body.
playlist_bytes=$(python3 -c "
import os
paths=[l.strip() for l in open('$work/playlists.txt')]
print(round(sum(os.path.getsize('$work/suite'+p) for p in paths)/len(paths)))")
for kind in hummingbird nio; do
  port=$(free_port)
  "$SEAMCHECK" lab serve --bench-ceiling "$kind:$playlist_bytes" --bind 127.0.0.1 --port "$port" 2> "$work/ceiling-$kind.log" &
  ceiling_pid=$!
  wait_for "$port" || { echo "lab-serve-bench: the $kind ceiling did not start" >&2; cat "$work/ceiling-$kind.log" >&2; exit 1; }
  WRK_PATHS="$work/playlists.txt" wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/rotate.lua" "http://127.0.0.1:$port" > "$work/wrk-ceiling-$kind.txt"
  kill "$ceiling_pid"; wait "$ceiling_pid" 2>/dev/null || true
done

# seamcheck lab serve: a fresh database, no browsing (nothing to map on loopback).
rm -f "$work/lab.sqlite" "$work/lab.sqlite-wal" "$work/lab.sqlite-shm"
lab_port=$(free_port)
"$SEAMCHECK" lab serve --streams "$work/suite" --bind 127.0.0.1 --port "$lab_port" --db "$work/lab.sqlite" \
  --no-browse --log-level warning 2> "$work/lab-serve.log" &
lab_pid=$!
trap 'kill $lab_pid 2>/dev/null || true' EXIT
wait_for "$lab_port" || { echo "lab-serve-bench: seamcheck lab serve did not start" >&2; cat "$work/lab-serve.log" >&2; exit 1; }
run_wrk "$lab_port" seamcheck
kill -TERM "$lab_pid"; wait "$lab_pid" || true

# Other servers loaded the same way: an older build, this one without the playlist fast path.
run_other() {  # NAME BINARY [ARGUMENTS...]
  local name=$1 binary=$2; shift 2
  rm -f "$work/$name.sqlite" "$work/$name.sqlite-wal" "$work/$name.sqlite-shm" "$work/wrk-$name.txt"
  local port; port=$(free_port)
  "$binary" lab serve --streams "$work/suite" --bind 127.0.0.1 --port "$port" --db "$work/$name.sqlite" \
    --no-browse --log-level warning "$@" 2> "$work/lab-serve-$name.log" &
  other_pid=$!
  trap 'kill $other_pid 2>/dev/null || true' EXIT
  wait_for "$port" || { echo "lab-serve-bench: $binary lab serve ($name) did not start" >&2; exit 1; }
  run_wrk "$port" "$name"
  kill -TERM "$other_pid"; wait "$other_pid" || true
}
rm -f "$work/wrk-before.txt" "$work/wrk-no-fast-path.txt"
[ -z "${SEAMCHECK_BEFORE:-}" ] || run_other before "$SEAMCHECK_BEFORE"
[ "${LAB_BENCH_NO_FAST_PATH:-0}" != 1 ] || run_other no-fast-path "$SEAMCHECK" --bench-no-fast-path

python3 - "$work" "$connections" "$seconds" "$(cut -d' ' -f1 /proc/loadavg)" "$playlist_bytes" <<'PY'
import re, sqlite3, sys
work, connections, seconds, load, playlist_bytes = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
def figures(name):
    text = open(f"{work}/wrk-{name}.txt").read()
    requests = int(re.search(r"(\d+) requests in", text).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    value, unit = re.search(r"Transfer/sec:\s+([\d.]+)(\w+)", text).groups()
    mbps = float(value) * {"B": 1e-6, "KB": 1.024e-3, "MB": 1.048576, "GB": 1073.741824}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return requests, rps, mbps, int(errors.group(1)) if errors else 0
n_req, n_rps, n_mbps, n_err = figures("nginx")
s_req, s_rps, s_mbps, s_err = figures("seamcheck")
np_req, np_rps, np_mbps, np_err = figures("nginx-playlists")
sp_req, sp_rps, sp_mbps, sp_err = figures("seamcheck-playlists")
db = sqlite3.connect(f"{work}/lab.sqlite")
logged = db.execute("SELECT count(*) FROM labRequest").fetchone()[0]
served = db.execute("SELECT count(*) FROM labRequest WHERE status = 200 AND completed = 1").fetchone()[0]
print(f"wrk -t2 -c{connections} -d{seconds}s over the suite's segments, 127.0.0.1, one run:")
print(f"  nginx 1.22 (sendfile, buffered access log): {n_rps:,.0f} req/s, {n_mbps:,.1f} MB/s ({n_req} requests, {n_err} errors)")
print(f"  seamcheck lab serve (every request to SQLite): {s_rps:,.0f} req/s, {s_mbps:,.1f} MB/s ({s_req} requests, {s_err} errors)")
print(f"  ratio seamcheck/nginx: {s_rps / n_rps:.2f} req/s, {s_mbps / n_mbps:.2f} MB/s (goal >= 0.5)")
print(f"playlists (small bodies; seamcheck fills in the origin and cuts live windows, kept per origin and window step; nginx sends the file):")
print(f"  nginx {np_rps:,.0f} req/s; seamcheck {sp_rps:,.0f} req/s; ratio {sp_rps / np_rps:.2f} (goal >= 0.5: "
      f"{'met' if sp_rps / np_rps >= 0.5 else 'NOT met'}; {np_err}/{sp_err} errors; load average {load:.2f})")
import os
for other, label in (("no-fast-path", "without the playlist fast path (--bench-no-fast-path)"), ("before", "before (SEAMCHECK_BEFORE)")):
    if not os.path.exists(f"{work}/wrk-{other}.txt"):
        continue
    _, b_rps, _, b_err = figures(other)
    _, bp_rps, _, bp_err = figures(f"{other}-playlists")
    print(f"  {label}: playlists {bp_rps:,.0f} req/s ({bp_rps / np_rps:.2f}x nginx), "
          f"segments {b_rps:,.0f} req/s ({b_rps / n_rps:.2f}x nginx); {bp_err}/{b_err} errors")
for kind, name in (("hummingbird", "Hummingbird, one route"), ("nio", "SwiftNIO HTTP/1, one handler")):
    _, c_rps, _, c_err = figures(f"ceiling-{kind}")
    print(f"  ceiling: {name}, a constant {playlist_bytes}-byte body, no log: {c_rps:,.0f} req/s, "
          f"{c_rps / np_rps:.2f}x nginx ({c_err} errors); seamcheck is {sp_rps / c_rps:.2f} of it")
total = s_req + sp_req
print(f"  logged: {logged} requests in the database ({served} complete 200s) for {total} that wrk completed"
      + (" -- MISSING REQUESTS" if logged < total else ": every request logged"))
if logged < total:
    sys.exit(1)
PY
