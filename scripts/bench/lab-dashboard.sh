#!/usr/bin/env bash
# The lab dashboard at scale (issue 34): a results database holding 24 receivers x 60 cases x 30
# runs (43 200 cells, each with a measurement), served by `seamcheck lab serve` on 127.0.0.1.
# Prints the time to the dashboard's first paint as a browser gets it (the page, then the grid of
# the newest verdict per cell and the run history, fetched in parallel), the grid of one run,
# the compare of two runs, and the live feed with 20 viewers plus 5 that never read while 2000
# cells arrive: the events each reader got and the server's RSS before and after.
# Runs alone (builds a release binary) or from scripts/bench.sh, which sets SEAMCHECK.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

SEAMCHECK="${SEAMCHECK:-}"
if [ -z "$SEAMCHECK" ]; then
  SEAMCHECK="$(scripts/release-build.sh)"
fi
work="$(realpath -m "${BENCH_DIR:-.build/bench}/lab-dashboard")"
rm -rf "$work"; mkdir -p "$work/suite"
cat > "$work/suite/lab.json" <<'JSON'
{"schemaVersion":1,"generator":"bench","originPlaceholder":"{LAB_ORIGIN}","primaryTimeline":[],"cases":[]}
JSON
db="$work/lab.sqlite"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SEAMCHECK" lab serve --streams "$work/suite" --bind 127.0.0.1 --port "$port" --db "$db" --station bench \
  --no-browse --log-level warning 2> "$work/lab-serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/dashboard" && break; sleep 0.1; done

python3 - "$db" "$pid" "$port" <<'PY'
import json, random, socket, sqlite3, sys, threading, time, urllib.request
db, pid, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
RECEIVERS, CASES, RUNS = 24, 60, 30
random.seed(34)
con = sqlite3.connect(db, timeout=30)
def measurement(verdict, stall):
    m = {"outcome": verdict, "reason": f"{verdict} (bench)", "stalls": [], "jumps": [], "failedPolls": 0, "playToFirstFrameMs": 900.0}
    if verdict == "stall":
        m["stalls"] = [{"position": 6, "startMs": 6000, "durationMs": stall, "kind": "position-frozen", "transition": "ad start 6 s", "resumed": True}]
        m["transitionStallMs"] = stall
    return json.dumps(m)
def add_cell(cur, run, r, c, t, verdict=None):
    verdict = verdict or random.choices(["seamless", "stall", "failed"], [8, 3, 1])[0]
    software = json.dumps({"sourceVersion": f"377.{40 + (run_index(run) // 10)}", "model": f"TV{r}"})
    cur.execute("""INSERT INTO labCell (runId, receiver, deviceId, deviceClass, address, caseId, attempt, startedAt, finishedAt, url,
                   outcome, done, series, requests, measurement, station, software) VALUES (?,?,?,?,?,?,1,?,?,?,?,1,?,?,?,?,?)""",
                (run, f"Receiver {r:02d}", None, ["apple-tv-4k", "smart-tv-low-end", "mac"][r % 3], f"10.0.0.{r}", f"case-{c:02d}",
                 t, t + 15, "http://x/", verdict, json.dumps({"playSentAt": t, "pollIntervalMs": 250, "samples": [], "commands": []}), "[]",
                 measurement(verdict, random.choice([300.0, 1200.0])), "bench", software))
def run_index(run): return int(run.split("-")[1]) if run.split("-")[1].isdigit() else RUNS
start = time.time() - RUNS * 86400
cur = con.cursor()
for k in range(RUNS):
    run = f"run-{k:02d}"
    t0 = start + k * 86400
    cur.execute("""INSERT INTO labRun (id, startedAt, finishedAt, state, heartbeatAt, leaseSeconds, server, receivers, cases, pollIntervalMs,
                   cellsTotal, host, station) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)""",
                (run, t0, t0 + 3600, "finished", t0 + 3600, 30, "http://x", json.dumps([f"Receiver {r:02d}" for r in range(RECEIVERS)]),
                 json.dumps([f"case-{c:02d}" for c in range(CASES)]), 250, RECEIVERS * CASES, "bench", "bench"))
    for r in range(RECEIVERS):
        for c in range(CASES):
            add_cell(cur, run, r, c, t0 + r + c)
con.commit()
print(f"seeded {RECEIVERS} receivers x {CASES} cases x {RUNS} runs = {RECEIVERS * CASES * RUNS} cells")

base = f"http://127.0.0.1:{port}"
def fetch(path):
    t = time.perf_counter()
    body = urllib.request.urlopen(base + path, timeout=60).read()
    return time.perf_counter() - t, len(body)
def first_paint():
    t = time.perf_counter()
    fetch("/dashboard")
    results = {}
    threads = [threading.Thread(target=lambda p=p: results.__setitem__(p, fetch(p))) for p in ["/api/dashboard/grid?run=latest", "/api/dashboard/runs"]]
    for th in threads: th.start()
    for th in threads: th.join()
    return time.perf_counter() - t, results
fetch("/api/dashboard/grid?run=latest")  # warm the page cache of the database file
for attempt in range(3):
    total, parts = first_paint()
    grid_s, grid_bytes = parts["/api/dashboard/grid?run=latest"]
    runs_s, _ = parts["/api/dashboard/runs"]
    print(f"first paint (page + latest grid + run history): {total * 1000:.0f} ms (grid {grid_s * 1000:.0f} ms, {grid_bytes // 1024} KiB; runs {runs_s * 1000:.0f} ms)")
for path in ["/api/dashboard/grid?run=run-29", "/api/dashboard/compare?a=run-28&b=run-29"]:
    s, n = fetch(path)
    print(f"{path}: {s * 1000:.0f} ms, {n // 1024} KiB")

def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024
def viewer(read, counts, index):
    s = socket.create_connection(("127.0.0.1", port))
    if not read: s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /api/dashboard/events HTTP/1.1\r\nHost: bench\r\n\r\n")
    counts[index] = 0
    if not read:
        viewers_held.append(s)
        return
    s.settimeout(30)
    buf = b""
    while counts[index] < CELLS:
        try: chunk = s.recv(65536)
        except socket.timeout: break
        if not chunk: break
        buf += chunk
        counts[index] += chunk.count(b"event: cell")
    s.close()
CELLS = 2000
viewers_held = []
counts = {}
time.sleep(1)
before = rss_mb()
readers = [threading.Thread(target=viewer, args=(True, counts, i)) for i in range(20)]
for th in readers: th.start()
for i in range(5): viewer(False, counts, 100 + i)
time.sleep(1)
t = time.perf_counter()
run = "run-live"
cur.execute("""INSERT INTO labRun (id, startedAt, state, heartbeatAt, leaseSeconds, server, receivers, cases, pollIntervalMs, cellsTotal, host, station)
               VALUES (?,?,?,?,?,?,?,?,?,?,?,?)""", (run, time.time(), "running", time.time(), 3600, "http://x", "[]", "[]", 250, CELLS, "bench", "bench"))
con.commit()
for i in range(CELLS):
    add_cell(cur, run, i % RECEIVERS, i // RECEIVERS, time.time())
    if i % 50 == 49: con.commit(); time.sleep(0.05)
con.commit()
for th in readers: th.join()
peak = rss_mb()
got = sorted(counts[i] for i in range(20))
print(f"live feed: {CELLS} cells stored in {time.perf_counter() - t:.1f} s; 20 readers got {got[0]}-{got[-1]} cell events each; "
      f"5 viewers never read; server RSS {before:.0f} MB before, {peak:.0f} MB after")
for s in viewers_held: s.close()
PY
