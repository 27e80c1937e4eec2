# Sourced by scripts/services.sh: a private PostgreSQL for the tests and benchmarks of the shared
# results store (docs/postgres.md).
#
#   postgres-start   initdb (once) a cluster under .build/services/postgres/data, owned by the
#                    system user seamcheck-pg (made if missing: PostgreSQL refuses to run as root),
#                    start it on 127.0.0.1 on a free port and on a Unix socket in
#                    .build/services/postgres, with database `seamcheck` for user `seamcheck`
#                    (password in the env file: TCP logins need it, the socket trusts), and write
#                    .build/services/postgres.env
#   postgres-stop    stop the server this script started (pg_ctl stop -m fast)
#   postgres-status  print what runs; exit 0 when the server answers, 3 when not
#
# synchronous_commit=off: like the SQLite store's synchronous=NORMAL, a crashed server may lose
# the last transactions but never corrupts; fsync stays on.

pg_dir="$state_dir/postgres"
pg_data="$pg_dir/data"
pg_log="$pg_dir/server.log"
pg_env="$state_dir/postgres.env"
pg_user="seamcheck-pg"
pg_port_file="$pg_dir/port"
pg_password_file="$pg_dir/password"

pg_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/pg_ctl" ] && { echo "$dir"; return 0; }
  done
  command -v pg_ctl >/dev/null 2>&1 && { dirname "$(command -v pg_ctl)"; return 0; }
  return 1
}

# fd 8 (the lock) closed: the server must not hold it after this script exits.
pg_as() { runuser -u "$pg_user" -- "$@" 8>&-; }

pg_lock() {
  mkdir -p "$state_dir"
  exec 8>"$state_dir/postgres.lock"
  flock -w 60 8 || die "another scripts/services.sh holds $state_dir/postgres.lock for 60s"
}

pg_ready() {
  local bin="$1" port="$2"
  "$bin/pg_isready" -q -h "$pg_dir" -p "$port" -d seamcheck -U seamcheck >/dev/null 2>&1
}

pg_write_env() {
  local bin="$1" port="$2" password
  password="$(cat "$pg_password_file")"
  {
    printf 'export SEAMCHECK_TEST_POSTGRES_URL=%q\n' "postgres://seamcheck:$password@127.0.0.1:$port/seamcheck?sslmode=disable"
    printf 'export SEAMCHECK_TEST_POSTGRES_SOCKET_URL=%q\n' "postgres://seamcheck@localhost:$port/seamcheck?host=$pg_dir"
    printf 'export SEAMCHECK_TEST_POSTGRES_BIN=%q\n' "$bin"
    printf 'export SEAMCHECK_TEST_POSTGRES_PORT=%q\n' "$port"
    printf 'export SEAMCHECK_TEST_POSTGRES_SOCKET_DIR=%q\n' "$pg_dir"
  } >"$pg_env"
}

pg_start() {
  [ "$(id -u)" -eq 0 ] || die "postgres-start runs as root (it runs the server as user $pg_user); rerun with sudo."
  local bin port password
  bin="$(pg_bin)" || die "PostgreSQL is not installed (Debian: apt-get install postgresql; scripts/setup-deps.sh)."
  command -v runuser >/dev/null 2>&1 || die "'runuser' is missing (util-linux)."
  id "$pg_user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$pg_user" \
    || die "could not create the system user $pg_user"
  mkdir -p "$pg_dir"
  chown "$pg_user" "$pg_dir"
  chmod 0755 "$pg_dir"
  if [ -f "$pg_port_file" ] && pg_ready "$bin" "$(cat "$pg_port_file")"; then
    port="$(cat "$pg_port_file")"
    pg_write_env "$bin" "$port"
    say "postgres already running on 127.0.0.1:$port (source $pg_env)"
    return 0
  fi
  if [ ! -f "$pg_data/PG_VERSION" ]; then
    rm -rf "$pg_data"
    password="$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
    printf '%s' "$password" >"$pg_password_file"
    chmod 0600 "$pg_password_file"
    local pwfile="$pg_dir/initdb.pw"
    printf '%s\n' "$password" >"$pwfile"
    chown "$pg_user" "$pwfile"
    pg_as "$bin/initdb" -D "$pg_data" -U seamcheck --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C.UTF-8 >"$pg_dir/initdb.log" 2>&1 \
      || { rm -f "$pwfile"; log_tail "$pg_dir/initdb.log" >&2; die "initdb failed"; }
    rm -f "$pwfile"
  fi
  # The port of the last start when it is still free (a restarted server keeps its URL), else a free one.
  port="$(python3 - "$(cat "$pg_port_file" 2>/dev/null || echo 0)" <<'PY'
import socket, sys
s = socket.socket()
# As the server binds (SO_REUSEADDR): a port its last run left in TIME_WAIT is free for it.
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
PY
)"
  echo "$port" >"$pg_port_file"
  pg_as "$bin/pg_ctl" -D "$pg_data" -l "$pg_log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $pg_dir -c synchronous_commit=off -c max_connections=100" start >/dev/null \
    || { log_tail "$pg_log" >&2; die "the PostgreSQL server did not start"; }
  if ! "$bin/psql" -h "$pg_dir" -p "$port" -U seamcheck -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'seamcheck'" | grep -q 1; then
    "$bin/createdb" -h "$pg_dir" -p "$port" -U seamcheck seamcheck || die "could not create database seamcheck"
  fi
  pg_write_env "$bin" "$port"
  say "started postgres on 127.0.0.1:$port and socket $pg_dir (source $pg_env)"
}

pg_stop() {
  local bin
  bin="$(pg_bin)" || { say "postgres not installed"; return 0; }
  if [ -f "$pg_data/postmaster.pid" ]; then
    pg_as "$bin/pg_ctl" -D "$pg_data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    say "stopped postgres"
  else
    say "postgres not running"
  fi
  rm -f "$pg_env"
}

pg_status() {
  local bin port
  bin="$(pg_bin)" || { echo "postgres: not installed"; return 3; }
  port="$(cat "$pg_port_file" 2>/dev/null || true)"
  if [ -n "$port" ] && pg_ready "$bin" "$port"; then
    echo "postgres: running on 127.0.0.1:$port, socket $pg_dir"
    return 0
  fi
  echo "postgres: not running"
  return 3
}
