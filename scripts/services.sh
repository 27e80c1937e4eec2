#!/usr/bin/env bash
# Starts, stops and reports a private D-Bus bus and a loopback-only avahi-daemon for tests.
#
#   scripts/services.sh start    start both (or reuse the ones an earlier start left running),
#                                wait until avahi answers, write .build/services/env
#   scripts/services.sh stop     SIGTERM only the processes this script started, wait for them
#   scripts/services.sh status   print what runs; exit 0 when avahi answers, 3 when not
#
#   scripts/services.sh kodi-start   a real AirPlay video receiver: Kodi under Xvfb with a
#                                    PulseAudio null sink, in a network namespace of its own with
#                                    its own D-Bus and avahi-daemon; waits until its AirPlay port,
#                                    its _airplay._tcp record and its JSON-RPC answer, writes
#                                    .build/services/kodi.env. When the namespace and daemons of an
#                                    earlier start still run, starts only what is missing (Kodi
#                                    again after kodi-kill).
#   scripts/services.sh kodi-kill    SIGKILL Kodi only (a receiver that went away); the rest stays
#   scripts/services.sh kodi-stop    stop everything kodi-start started, delete its namespace
#   scripts/services.sh kodi-status  print what runs; exit 0 when Kodi answers, 3 when not
#
#   scripts/services.sh uxplay-build  build UxPlay 1.74 from ../shared/peers into .build/uxplay (once;
#                                    cached by the tarball's hash; nothing fetched)
#   scripts/services.sh uxplay-start  a second real AirPlay video receiver: UxPlay -hls under Xvfb
#                                    (ximagesink) with a PulseAudio null sink, in a network namespace
#                                    of its own with its own mDNS; SEAMCHECK_UXPLAY_PIN=CODE adds
#                                    -pin CODE; writes .build/services/uxplay.env
#   scripts/services.sh uxplay-kill | uxplay-stop | uxplay-status   as for Kodi
#
#   scripts/services.sh link-start   a sender's namespace with a veth pair into each running Kodi /
#                                    UxPlay namespace (10.77.1.1, 10.78.1.1), so one lab run in it
#                                    plays to both (scripts/services-link.sh); writes
#                                    .build/services/link.env; link-stop | link-status
#
#   scripts/services.sh postgres-start | postgres-stop | postgres-status
#                                    a private PostgreSQL on 127.0.0.1 and a Unix socket, for the
#                                    shared results store's tests (scripts/services-postgres.sh);
#                                    writes .build/services/postgres.env
#
# After `start`, `source .build/services/env` points DBUS_SYSTEM_BUS_ADDRESS at the private bus,
# which libavahi-client, avahi-browse and avahi-publish all honour. Needs root (avahi-daemon
# refuses to run otherwise; it runs in mount and network namespaces of its own); needs no
# systemd and no /dev/log. Nothing leaves loopback: the daemon listens on its namespace's `lo`
# only, IPv4 only, with wide-area DNS and host publishing off. A system avahi-daemon may run
# beside it, untouched.
set -euo pipefail

# The real repository, also when this script is reached through a symlink.
root_dir="$(cd -P "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
state_dir="$root_dir/.build/services"
bus_socket="$state_dir/dbus.sock"
bus_address="unix:path=$bus_socket"
bus_conf="$state_dir/dbus.conf"
avahi_conf="$state_dir/avahi-daemon.conf"
dbus_pid_file="$state_dir/dbus.pid"
avahi_pid_file="$state_dir/avahi.pid"
dbus_log="$state_dir/dbus.log"
avahi_log="$state_dir/avahi.log"
env_file="$state_dir/env"
ready_timeout_s=15
stop_timeout_s=10

say() { echo "services: $*" >&2; }
die() { say "error: $*"; exit 1; }

# Prints the PID stored in file $1 when that process is alive (not a zombie) and its
# /proc/PID/comm is $2; prints nothing otherwise.
live_pid() {
  local file="$1" comm="$2" pid
  [ -f "$file" ] || return 0
  pid="$(tr -dc '0-9' <"$file")"
  [ -n "$pid" ] || return 0
  is_alive "$pid" "$comm" && echo "$pid"
  return 0
}

# True when process $1 exists, is not a zombie, and its comm is $2.
is_alive() {
  local pid="$1" comm="$2" state
  [ -r "/proc/$pid/comm" ] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ] || return 1
  # Field 3 of /proc/PID/stat is the state; comm (field 2) has no spaces for our daemons.
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo X)"
  [ "$state" != "Z" ] && [ "$state" != "X" ]
}

# True when process $1 exists and is not a zombie: for start-up, when /proc/PID/comm may still
# name the shell or setsid that is about to exec the daemon.
exists() {
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || echo X)"
  [ "$state" != "Z" ] && [ "$state" != "X" ]
}

# wait_while_alive FAIL PID SECONDS WHAT CMD...: waits up to SECONDS for CMD to succeed while
# process PID lives; otherwise calls FAIL (which stops what its start began and exits) naming WHAT.
# Wall-clock bounded: one try may itself take seconds.
wait_while_alive() {
  local fail="$1" pid="$2" seconds="$3" what="$4" deadline
  shift 4
  deadline=$(($(date +%s) + seconds))
  until "$@" >/dev/null 2>&1; do
    exists "$pid" || "$fail" "$what: the process (pid $pid) exited during start-up"
    [ "$(date +%s)" -lt "$deadline" ] || "$fail" "$what: not ready within ${seconds}s"
    sleep 0.1
  done
}

# make_receiver_netns FAIL ENVVAR NETNS MARKER IF MAC ADDRESS PEER_IF PEER_MAC PEER_ADDRESS:
# a receiver's network namespace with a veth pair made inside it (ip -n: neither end ever exists
# on the host), both ends addressed in one /30 and up, and lo up; MARKER records that this script
# made it, so a namespace of the same name made by someone else is refused (ENVVAR names the
# setting that picks another name). The peer named last is created first, so IF has the lower
# index (Kodi takes the MAC of the first interface with an address for its device id).
make_receiver_netns() {
  local fail="$1" envvar="$2" netns="$3" marker="$4" ifname="$5" mac="$6" address="$7"
  local peer_if="$8" peer_mac="$9" peer_address="${10}"
  if [ -e "/run/netns/$netns" ]; then
    [ -f "$marker" ] || die "network namespace $netns exists but was not created by this
  script (no $marker); delete it (\`ip netns del $netns\`) or set $envvar."
    return 0
  fi
  ip netns add "$netns" || die "cannot create network namespace $netns (needs root and iproute2)"
  echo "$netns" >"$marker"
  ip -n "$netns" link add "$peer_if" address "$peer_mac" type veth peer name "$ifname" address "$mac" \
    && ip -n "$netns" addr add "$address/30" dev "$ifname" \
    && ip -n "$netns" addr add "$peer_address/30" dev "$peer_if" \
    && ip -n "$netns" link set lo up \
    && ip -n "$netns" link set "$ifname" up \
    && ip -n "$netns" link set "$peer_if" up \
    || "$fail" "cannot set up the veth pair in network namespace $netns"
}

# Prints avahi's state number over the private bus (2 = running), or nothing.
avahi_state() {
  dbus-send --bus="$bus_address" --print-reply=literal --reply-timeout=2000 \
    --dest=org.freedesktop.Avahi / org.freedesktop.Avahi.Server.GetState 2>/dev/null \
    | awk '{print $NF}' || true
}

log_tail() {
  local file="$1"
  [ -s "$file" ] || { echo "  ($file is empty)"; return; }
  echo "  last lines of $file:"
  tail -n 15 "$file" | sed 's/^/    /'
}

write_env() {
  printf 'export DBUS_SYSTEM_BUS_ADDRESS=%q\n' "$bus_address" >"$env_file"
}

# Sends SIGTERM to process $1 (if it is still our $2) and waits for it to exit.
terminate() {
  local pid="$1" comm="$2" name="$3" waited=0
  is_alive "$pid" "$comm" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  while is_alive "$pid" "$comm"; do
    if [ "$waited" -ge $((stop_timeout_s * 10)) ]; then
      say "$name (pid $pid) ignored SIGTERM for ${stop_timeout_s}s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

stop_ours() {
  local apid dpid
  apid="$(live_pid "$avahi_pid_file" avahi-daemon)"
  dpid="$(live_pid "$dbus_pid_file" dbus-daemon)"
  [ -z "$apid" ] || terminate "$apid" avahi-daemon avahi-daemon
  [ -z "$dpid" ] || terminate "$dpid" dbus-daemon dbus-daemon
  rm -f "$avahi_pid_file" "$dbus_pid_file" "$env_file" "$bus_socket"
  [ -n "$apid$dpid" ] && say "stopped${apid:+ avahi-daemon (pid $apid)}${dpid:+ dbus-daemon (pid $dpid)}"
  return 0
}

# Prints a D-Bus system-bus configuration listening on address $1, open to every local client
# (a private bus on a socket under .build); $2 says whose it is.
bus_config() {
  cat <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- $2 -->
<busconfig>
  <type>system</type>
  <listen>$1</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
}

# Prints an avahi-daemon.conf for host name $1 on interface $2 only, IPv4, nothing published but
# what clients register, no wide-area, no reflector; $3 says whose it is.
avahi_config() {
  cat <<EOF
# $3 (written by scripts/services.sh).
[server]
host-name=$1
use-ipv4=yes
use-ipv6=no
allow-interfaces=$2
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-domain=no
publish-aaaa-on-ipv4=no
publish-a-on-ipv6=no
[reflector]
enable-reflector=no
EOF
}

write_configs() {
  bus_config "$bus_address" "Private bus for Seamcheck's tests (written by scripts/services.sh): anyone may connect,
     own any name and talk to anyone. It listens on a socket under .build only." >"$bus_conf"
  avahi_config seamcheck-ci lo "Loopback-only avahi-daemon for Seamcheck's tests" >"$avahi_conf"
}

# Runs a daemon in a new session with TERM, INT and HUP unblocked and at their defaults: a
# caller such as a Swift test (Foundation's Process on a libdispatch thread) may pass on a signal
# mask that blocks SIGTERM, and a daemon that inherits it could then only be stopped by SIGKILL.
# Call it only in the background (`launch ... &`): it execs, so $! is the daemon's PID.
launch() {
  if env --default-signal=TERM true 2>/dev/null; then
    exec env --default-signal=TERM,INT,HUP setsid "$@"
  else
    exec setsid "$@"
  fi
}

start_dbus() {
  rm -f "$bus_socket"
  # Started in the background from a non-interactive shell, env and setsid exec in place: $! is
  # the daemon's own PID, and the daemon leaves the caller's process group and session.
  launch dbus-daemon --config-file="$bus_conf" --nofork --nopidfile \
    </dev/null >"$dbus_log" 2>&1 9>&- &
  local pid=$! waited=0
  echo "$pid" >"$dbus_pid_file"
  until [ -S "$bus_socket" ]; do
    if ! exists "$pid" || [ "$waited" -ge 50 ]; then
      say "error: dbus-daemon did not create $bus_socket"
      log_tail "$dbus_log" >&2
      stop_ours
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

start_avahi() {
  # --no-drop-root and --no-chroot: the private bus socket lives under the repository, which
  # user avahi may not be allowed to reach, and a chrooted daemon could not reconnect to it.
  # A system avahi-daemon may run beside it (every Debian desktop): it holds /run/avahi-daemon
  # (pid file and socket, compiled in) and publishes its host name on lo too, whose 127.0.0.1
  # records the two daemons would fight over (an endless host name conflict). So the test
  # daemon gets namespaces of its own, as services-kodi.sh gives Kodi's: a mount namespace with
  # a tmpfs on /run/avahi-daemon, and a network namespace with only its own loopback up. Clients
  # reach it over the private bus, a socket under .build, and it answers them from what they
  # register with it: nothing needs multicast between it and the host. The system daemon and
  # the system bus are never touched. The mount point must exist; an empty one is harmless.
  mkdir -p /run/avahi-daemon
  launch unshare --net --mount --propagation private sh -c \
    'ip link set lo up && mount -t tmpfs -o size=1m,mode=0755 seamcheck-test-avahi /run/avahi-daemon && exec "$@"' avahi \
    env DBUS_SYSTEM_BUS_ADDRESS="$bus_address" avahi-daemon -f "$avahi_conf" \
    --no-rlimits --no-proc-title --no-drop-root --no-chroot \
    </dev/null >"$avahi_log" 2>&1 9>&- &
  local pid=$! waited=0
  echo "$pid" >"$avahi_pid_file"
  while [ "$(avahi_state)" != "2" ]; do
    if ! exists "$pid"; then
      say "error: avahi-daemon (pid $pid) exited during start-up"
      log_tail "$avahi_log" >&2
      stop_ours
      exit 1
    fi
    if [ "$waited" -ge $((ready_timeout_s * 10)) ]; then
      say "error: avahi-daemon (pid $pid) did not reach state 2 (running) within ${ready_timeout_s}s"
      log_tail "$avahi_log" >&2
      stop_ours
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

cmd_start() {
  [ "$(id -u)" -eq 0 ] || die "avahi-daemon must be started as root; rerun with sudo."
  local tool
  for tool in dbus-daemon dbus-send avahi-daemon setsid flock unshare mount ip; do
    command -v "$tool" >/dev/null 2>&1 \
      || die "'$tool' is missing; install dbus avahi-daemon avahi-utils (scripts/setup-deps.sh)."
  done
  mkdir -p "$state_dir"

  local apid dpid
  apid="$(live_pid "$avahi_pid_file" avahi-daemon)"
  dpid="$(live_pid "$dbus_pid_file" dbus-daemon)"
  if [ -n "$apid" ] && [ -n "$dpid" ] && [ "$(avahi_state)" = "2" ]; then
    write_env
    say "already running: dbus-daemon (pid $dpid), avahi-daemon (pid $apid)"
    say "bus: $bus_address  (source $env_file)"
    return 0
  fi
  # A half-alive or stale pair from an earlier start: clear it and start both afresh.
  stop_ours

  write_configs
  start_dbus
  start_avahi
  write_env
  say "started dbus-daemon (pid $(cat "$dbus_pid_file")), avahi-daemon (pid $(cat "$avahi_pid_file"))"
  say "bus: $bus_address  (source $env_file)"
}

cmd_stop() {
  if [ -z "$(live_pid "$avahi_pid_file" avahi-daemon)$(live_pid "$dbus_pid_file" dbus-daemon)" ]; then
    rm -f "$avahi_pid_file" "$dbus_pid_file" "$env_file" "$bus_socket"
    say "not running"
    return 0
  fi
  stop_ours
}

cmd_status() {
  local apid dpid state
  apid="$(live_pid "$avahi_pid_file" avahi-daemon)"
  dpid="$(live_pid "$dbus_pid_file" dbus-daemon)"
  echo "dbus-daemon:  $( [ -n "$dpid" ] && echo "running (pid $dpid)" || echo "not running")"
  echo "avahi-daemon: $( [ -n "$apid" ] && echo "running (pid $apid)" || echo "not running")"
  echo "bus:          $bus_address"
  state="$( [ -n "$dpid" ] && avahi_state || true)"
  echo "avahi state:  ${state:-no answer}"
  [ -n "$apid" ] && [ -n "$dpid" ] && [ "$state" = "2" ] && return 0
  return 3
}

# One start or stop at a time (parallel test runs); the daemons get fd 9 closed.
lock() {
  mkdir -p "$state_dir"
  exec 9>"$state_dir/lock"
  flock -w 30 9 || die "another scripts/services.sh holds $state_dir/lock for 30s"
}

case "${1:-}" in
  start) lock; cmd_start ;;
  stop) lock; cmd_stop ;;
  status) cmd_status ;;
  kodi-start|kodi-stop|kodi-kill|kodi-status)
    # shellcheck source=scripts/services-kodi.sh
    . "$root_dir/scripts/services-kodi.sh"
    case "$1" in
      kodi-start) kodi_lock; kodi_start ;;
      kodi-stop) kodi_lock; kodi_stop ;;
      kodi-kill) kodi_lock; kodi_kill ;;
      kodi-status) kodi_status ;;
    esac ;;
  uxplay-build|uxplay-start|uxplay-stop|uxplay-kill|uxplay-status)
    # shellcheck source=scripts/services-uxplay.sh
    . "$root_dir/scripts/services-uxplay.sh"
    case "$1" in
      uxplay-build) uxplay_lock; uxplay_build ;;
      uxplay-start) uxplay_lock; uxplay_start ;;
      uxplay-stop) uxplay_lock; uxplay_stop ;;
      uxplay-kill) uxplay_lock; uxplay_kill ;;
      uxplay-status) uxplay_status ;;
    esac ;;
  link-start|link-stop|link-status)
    # shellcheck source=scripts/services-link.sh
    . "$root_dir/scripts/services-link.sh"
    case "$1" in
      link-start) link_start ;;
      link-stop) link_stop ;;
      link-status) link_status ;;
    esac ;;
  postgres-start|postgres-stop|postgres-status)
    # shellcheck source=scripts/services-postgres.sh
    . "$root_dir/scripts/services-postgres.sh"
    case "$1" in
      postgres-start) pg_lock; pg_start ;;
      postgres-stop) pg_lock; pg_stop ;;
      postgres-status) pg_status ;;
    esac ;;
  *) echo "usage: $0 start|stop|status|kodi-start|kodi-stop|kodi-kill|kodi-status|uxplay-build|uxplay-start|uxplay-stop|uxplay-kill|uxplay-status|link-start|link-stop|link-status|postgres-start|postgres-stop|postgres-status" >&2; exit 2 ;;
esac
