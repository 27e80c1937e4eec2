#!/usr/bin/env bash
# Lab server request log into PostgreSQL against SQLite (issue 25): `seamcheck lab serve` on
# 127.0.0.1 with --db a fresh SQLite file, then with --db a fresh PostgreSQL database over TCP
# (scripts/services.sh postgres-start; started here when not running, and stopped again), each
# loaded by the same wrk run: 8 keep-alive clients fetching every playlist of the suite's cases
# (small bodies, so requests per second, and logging them, dominate) for 10 s. Alternates the two
# stores over ROUNDS rounds (default 3) and reports, for each, requests served per second (wrk's)
# and requests logged per second (rows committed, over the time from wrk's start until the server
# exited with its log committed: a log that falls behind pays here), the median ratio of logged
# requests/s PostgreSQL / SQLite (goal: >= 0.8), and whether every request wrk completed is a row.
# Runs alone (builds a release binary) or from scripts/bench.sh, which sets SEAMCHECK.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

command -v wrk >/dev/null || {
  echo "lab-serve-postgres-bench: installing wrk" >&2
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends wrk >&2
}
SEAMCHECK="${SEAMCHECK:-}"
if [ -z "$SEAMCHECK" ]; then
  SEAMCHECK="$(scripts/release-build.sh)"
fi
work="$(realpath -m "${BENCH_DIR:-.build/bench}/lab-serve-postgres")"
mkdir -p "$work"
seconds="${LAB_BENCH_SECONDS:-10}"
rounds="${LAB_BENCH_ROUNDS:-3}"
connections=8

started=0
if ! scripts/services.sh postgres-status >/dev/null 2>&1; then
  scripts/services.sh postgres-start >&2
  started=1
fi
lab_pid=""
cleanup() {
  [ -n "$lab_pid" ] && kill "$lab_pid" 2>/dev/null || true
  if [ "$started" = 1 ]; then scripts/services.sh postgres-stop >&2 || true; fi
}
trap cleanup EXIT
# shellcheck disable=SC1091
source .build/services/postgres.env

"$SEAMCHECK" lab streams --output "$work/suite" >&2
(cd "$work/suite" && find -L cases -name '*.m3u8' | sort | sed 's|^|/|') > "$work/playlists.txt"
echo "playlists: $(wc -l < "$work/playlists.txt") paths"
# shellcheck source=wrk-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/wrk-common.sh"
write_rotate_lua "$work"
# The TCP URL of a new database (as a station on another machine reaches the server), password included.
new_database() {
  "$SEAMCHECK_TEST_POSTGRES_BIN/createdb" -h "$SEAMCHECK_TEST_POSTGRES_SOCKET_DIR" -p "$SEAMCHECK_TEST_POSTGRES_PORT" -U seamcheck "$1"
  python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
    "$SEAMCHECK_TEST_POSTGRES_URL" "$1"
}
count_rows() { # store database -> rows in labRequest
  if [ "$1" = sqlite ]; then
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM labRequest").fetchone()[0])' "$2"
  else
    "$SEAMCHECK_TEST_POSTGRES_BIN/psql" -h "$SEAMCHECK_TEST_POSTGRES_SOCKET_DIR" -p "$SEAMCHECK_TEST_POSTGRES_PORT" -U seamcheck \
      -d "$2" -tAc "SELECT count(*) FROM labRequest"
  fi
}

# One round of one store: serve, load, stop (SIGTERM commits what is waiting), count the rows.
run_store() { # store round
  local store=$1 round=$2 db name port
  if [ "$store" = sqlite ]; then
    db="$work/lab-$round.sqlite"; rm -f "$db" "$db-wal" "$db-shm"; name="$db"
  else
    name="bench_labserve_${round}_$$"; db="$(new_database "$name")"
    "$SEAMCHECK" db migrate --db "$db" >/dev/null 2>&1
  fi
  port=$(free_port)
  "$SEAMCHECK" lab serve --streams "$work/suite" --bind 127.0.0.1 --port "$port" --db "$db" \
    --token-file "$work/token" --no-browse --log-level warning 2> "$work/lab-serve-$store-$round.log" &
  lab_pid=$!
  wait_for "$port" || { echo "lab-serve-postgres-bench: lab serve ($store) did not start" >&2; cat "$work/lab-serve-$store-$round.log" >&2; exit 1; }
  # The start-up probe above is one request of its own: counted with wrk's.
  local t0; t0=$(date +%s.%N)
  WRK_PATHS="$work/playlists.txt" wrk -t2 -c"$connections" -d"${seconds}s" -s "$work/rotate.lua" "http://127.0.0.1:$port" \
    > "$work/wrk-$store-$round.txt"
  kill -TERM "$lab_pid"; wait "$lab_pid" || true; lab_pid=""
  echo "$(count_rows "$store" "$name") $(python3 -c "import time, sys; print(time.time() - float(sys.argv[1]))" "$t0")" \
    > "$work/rows-$store-$round.txt"
}

for round in $(seq 1 "$rounds"); do
  run_store sqlite "$round"
  run_store postgres "$round"
done

python3 - "$work" "$connections" "$seconds" "$rounds" <<'PY'
import re, statistics, sys
work, connections, seconds, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def figures(store, r):
    text = open(f"{work}/wrk-{store}-{r}.txt").read()
    requests = int(re.search(r"(\d+) requests in", text).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    rows, elapsed = open(f"{work}/rows-{store}-{r}.txt").read().split()
    return requests, rps, int(errors.group(1)) if errors else 0, int(rows), int(rows) / float(elapsed)
print(f"wrk -t2 -c{connections} -d{seconds}s over the suite's playlists, lab serve on 127.0.0.1, {rounds} rounds alternating:")
ratios, missing = [], False
for r in range(1, rounds + 1):
    s_req, s_rps, s_err, s_rows, s_lps = figures("sqlite", r)
    p_req, p_rps, p_err, p_rows, p_lps = figures("postgres", r)
    ratios.append(p_lps / s_lps)
    # wrk's completed requests plus the start-up probe; wrk's count leaves out requests cut at the end.
    for name, req, rows in (("sqlite", s_req, s_rows), ("postgres", p_req, p_rows)):
        if rows < req + 1:
            missing = True
    print(f"  round {r}: SQLite {s_rps:,.0f} req/s served, {s_lps:,.0f} logged/s ({s_req} requests, {s_rows} rows, {s_err} errors); "
          f"PostgreSQL {p_rps:,.0f} served, {p_lps:,.0f} logged/s ({p_req} requests, {p_rows} rows, {p_err} errors); "
          f"logged ratio {p_lps / s_lps:.2f}")
print(f"  median ratio of requests logged per second, PostgreSQL/SQLite: {statistics.median(ratios):.2f} (goal >= 0.8)")
print("  every request wrk completed is a row in its database" if not missing else "  -- MISSING REQUESTS in a database")
if missing:
    sys.exit(1)
PY
