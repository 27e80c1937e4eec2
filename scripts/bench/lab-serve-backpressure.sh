#!/usr/bin/env bash
# Lab server under clients that stop reading (issue 20, item 2): `seamcheck lab serve` on
# 127.0.0.1 serving one 64 MiB segment; each round opens 100 connections that send a GET for it
# and never read, holds them a few seconds, then closes them (unread data: the kernel resets them).
# Prints the server's RSS (VmRSS) before, during and after each round, and what the request log
# says the cut requests got (the bytes the socket took, at most the kernel buffers past what the
# client held). Bounded: 100 clients, LAB_BP_ROUNDS rounds (default 4) of about 10 s, loopback only.
# Runs alone (builds a release binary) or from scripts/bench.sh, which sets SEAMCHECK.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

SEAMCHECK="${SEAMCHECK:-}"
if [ -z "$SEAMCHECK" ]; then
  SEAMCHECK="$(scripts/release-build.sh)"
fi
work="$(realpath -m "${BENCH_DIR:-.build/bench}/lab-serve-backpressure")"
rounds="${LAB_BP_ROUNDS:-4}"
clients=100
rm -rf "$work"; mkdir -p "$work/suite/primary"
# A minimal suite: the manifest and one 64 MiB file of random bytes (not sparse: read from the page cache).
head -c $((64 << 20)) /dev/urandom > "$work/suite/primary/big.m4s"
cat > "$work/suite/lab.json" <<'JSON'
{"schemaVersion":1,"generator":"bench","originPlaceholder":"{LAB_ORIGIN}","primaryTimeline":[],"cases":[]}
JSON

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SEAMCHECK" lab serve --streams "$work/suite" --bind 127.0.0.1 --port "$port" --db "$work/lab.sqlite" \
  --no-browse --idle-timeout 120 --log-level warning 2> "$work/lab-serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/lab.json" && break; sleep 0.1; done
curl -sf -o /dev/null "http://127.0.0.1:$port/lab.json" || { echo "lab-serve-backpressure: server did not start" >&2; cat "$work/lab-serve.log" >&2; exit 1; }

python3 - "$pid" "$port" "$clients" "$rounds" <<'PY'
import socket, sys, time
pid, port, clients, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
warm = socket.create_connection(("127.0.0.1", port))
warm.sendall(b"GET /primary/big.m4s HTTP/1.1\r\nHost: bench\r\n\r\n")
got = 0
while got < (64 << 20):
    chunk = warm.recv(1 << 20)
    if not chunk: break
    got += len(chunk)
warm.close()
time.sleep(1)
print(f"{clients} non-reading clients on a 64 MiB file, {rounds} rounds; server RSS in MB:")
print(f"  after one full read: {rss_mb():.0f}")
for r in range(1, rounds + 1):
    before = rss_mb()
    socks = []
    for _ in range(clients):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /primary/big.m4s HTTP/1.1\r\nHost: bench\r\n\r\n")
        socks.append(s)
    peak = before
    for _ in range(30):
        time.sleep(0.2)
        peak = max(peak, rss_mb())
    for s in socks:
        s.close()
    time.sleep(3)
    print(f"  round {r}: before {before:.0f}, during (peak) {peak:.0f}, after close {rss_mb():.0f}")
PY
kill -TERM "$pid"; wait "$pid" || true
python3 - "$work/lab.sqlite" "$clients" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT bytes FROM labRequest WHERE path = '/primary/big.m4s' AND completed = 0").fetchall()
if rows:
    values = sorted(r[0] for r in rows)
    mib = 1 << 20
    print(f"request log: {len(values)} cut requests; bytes the log says each got: min {values[0] / mib:.1f} MiB, "
          f"median {values[len(values) // 2] / mib:.1f} MiB, max {values[-1] / mib:.1f} MiB "
          f"(a client held at most its receive buffer; the rest is the server's send buffer)")
else:
    print("request log: no cut request logged")
PY
