# Kodi as a real AirPlay video receiver for the tests: the kodi-* subcommands of
# scripts/services.sh, which sources this file (it uses that script's say, die, live_pid,
# is_alive, exists, log_tail, terminate and launch). Not meant to be run on its own.
#
# Everything runs in a network namespace this script creates: `lo`, and a veth pair whose two
# ends both stay inside (fixed MACs, so Kodi's device id is stable), with no default route, so
# nothing Kodi or its avahi-daemon sends can leave the namespace. Inside it: a private D-Bus bus,
# an avahi-daemon with its own /run/avahi-daemon (a tmpfs in a mount namespace of its own, since
# that path is compiled in), Xvfb, a PulseAudio daemon with only a null sink (without a sink Kodi
# blocks 10 s on every play), and kodi.bin with guisettings.xml written before its first start.
# Measured here (Debian 12, Kodi 20.1, 2 cores): ready 4-7 s after kodi-start, 3-5 s after kodi-kill.

kodi_dir="$state_dir/kodi"
kodi_env_file="$state_dir/kodi.env"
kodi_netns="${SEAMCHECK_KODI_NETNS:-seamcheck-kodi-$(printf '%s' "$root_dir" | sha1sum | cut -c1-8)}"
kodi_netns_marker="$kodi_dir/netns"           # names the namespace this script created
kodi_if=sck0                                   # the end avahi and Kodi use
kodi_peer_if=sck1
kodi_mac=02:53:43:4b:00:01                     # locally administered; Kodi's device id
kodi_peer_mac=02:53:43:4b:00:02
kodi_address=10.77.0.1
kodi_peer_address=10.77.0.2
kodi_airplay_port=36667                        # Kodi's AirPlay port (not 7000), fixed in Kodi 20
kodi_jsonrpc_port=8080
kodi_name="${SEAMCHECK_KODI_NAME:-Seamcheck Kodi}"
kodi_bus_socket="$kodi_dir/dbus.sock"
kodi_bus_address="unix:path=$kodi_bus_socket"
kodi_pulse_socket="$kodi_dir/pulse.sock"
kodi_home="$kodi_dir/home"
kodi_log="$kodi_home/.kodi/temp/kodi.log"
kodi_display_file="$kodi_dir/display"
kodi_ready_timeout_s="${SEAMCHECK_KODI_TIMEOUT:-45}"

# name, comm: the processes kodi-start starts, stopped in reverse order.
kodi_daemons=("dbus dbus-daemon" "avahi avahi-daemon" "xvfb Xvfb" "pulse pulseaudio" "kodi kodi.bin")

kodi_pid_file() { echo "$kodi_dir/$1.pid"; }
kodi_daemon_log() { echo "$kodi_dir/$1.log"; }

# Runs "$@" inside the namespace with its bus.
kodi_in_ns() {
  ip netns exec "$kodi_netns" env DBUS_SYSTEM_BUS_ADDRESS="$kodi_bus_address" "$@"
}

kodi_netns_exists() { [ -e "/run/netns/$kodi_netns" ]; }

kodi_lock() {
  mkdir -p "$kodi_dir"
  exec 9>"$state_dir/kodi.lock"
  flock -w 90 9 || die "another scripts/services.sh kodi-* holds $state_dir/kodi.lock for 90s"
}

kodi_binary() {
  local candidate
  for candidate in /usr/lib/*/kodi/kodi.bin /usr/lib/kodi/kodi.bin; do
    [ -x "$candidate" ] && { echo "$candidate"; return 0; }
  done
  return 1
}

# Fails (after stopping what this start began) with the log tails of every daemon.
kodi_fail() {
  local name
  say "error: $*"
  for name in kodi pulse xvfb avahi dbus; do log_tail "$(kodi_daemon_log "$name")" >&2; done
  [ ! -f "$kodi_log" ] || log_tail "$kodi_log" >&2
  kodi_stop_ours
  exit 1
}

kodi_wait() { wait_while_alive kodi_fail "$@"; }

kodi_make_netns() {
  make_receiver_netns kodi_fail SEAMCHECK_KODI_NETNS "$kodi_netns" "$kodi_netns_marker" \
    "$kodi_if" "$kodi_mac" "$kodi_address" "$kodi_peer_if" "$kodi_peer_mac" "$kodi_peer_address"
}

kodi_write_configs() {
  mkdir -p "$kodi_home/.kodi/userdata" "$kodi_dir/run"
  bus_config "$kodi_bus_address" "Private bus of Kodi's network namespace (written by scripts/services.sh kodi-start)." \
    >"$kodi_dir/dbus.conf"
  avahi_config seamcheck-kodi "$kodi_if" "avahi-daemon of Kodi's network namespace, kodi-start" >"$kodi_dir/avahi-daemon.conf"
  # Read once, at Kodi's first start: later starts keep what Kodi wrote back.
  [ -f "$kodi_home/.kodi/userdata/guisettings.xml" ] || cat >"$kodi_home/.kodi/userdata/guisettings.xml" <<EOF
<settings version="2">
    <setting id="services.devicename">$kodi_name</setting>
    <setting id="services.airplay">true</setting>
    <setting id="services.airplayvideosupport">true</setting>
    <setting id="services.useairplaypassword">false</setting>
    <setting id="services.zeroconf">true</setting>
    <setting id="services.webserver">true</setting>
    <setting id="services.webserverport">$kodi_jsonrpc_port</setting>
    <setting id="services.webserverauthentication">false</setting>
    <setting id="services.upnp">false</setting>
    <setting id="services.esenabled">false</setting>
    <setting id="lookandfeel.enablerssfeeds">false</setting>
    <setting id="general.addonupdates">2</setting>
    <setting id="general.addonnotifications">false</setting>
</settings>
EOF
}

kodi_start_dbus() {
  rm -f "$kodi_bus_socket"
  launch ip netns exec "$kodi_netns" dbus-daemon --config-file="$kodi_dir/dbus.conf" --nofork --nopidfile \
    </dev/null >"$(kodi_daemon_log dbus)" 2>&1 9>&- &
  echo $! >"$(kodi_pid_file dbus)"
  kodi_wait $! 5 "dbus-daemon in $kodi_netns" test -S "$kodi_bus_socket"
}

kodi_avahi_running() {
  [ "$(dbus-send --bus="$kodi_bus_address" --print-reply=literal --reply-timeout=2000 \
    --dest=org.freedesktop.Avahi / org.freedesktop.Avahi.Server.GetState 2>/dev/null | awk '{print $NF}')" = 2 ]
}

kodi_start_avahi() {
  # avahi-daemon's pid file and socket live in /run/avahi-daemon, compiled in: a tmpfs there,
  # in a mount namespace of its own, keeps it from meeting the host's daemon (or the loopback
  # one `start` runs). The mount point must exist; an empty directory changes nothing.
  mkdir -p /run/avahi-daemon
  launch ip netns exec "$kodi_netns" unshare --mount --propagation private sh -c \
    'mount -t tmpfs -o size=1m,mode=0755 seamcheck-kodi-avahi /run/avahi-daemon && exec "$@"' avahi \
    env DBUS_SYSTEM_BUS_ADDRESS="$kodi_bus_address" avahi-daemon -f "$kodi_dir/avahi-daemon.conf" \
    --no-rlimits --no-proc-title --no-drop-root --no-chroot \
    </dev/null >"$(kodi_daemon_log avahi)" 2>&1 9>&- &
  echo $! >"$(kodi_pid_file avahi)"
  kodi_wait $! 15 "avahi-daemon in $kodi_netns" kodi_avahi_running
}

kodi_start_xvfb() {
  rm -f "$kodi_display_file"
  # -displayfd: Xvfb picks a free display number and writes it to fd 3. Local clients only.
  launch ip netns exec "$kodi_netns" Xvfb -displayfd 3 -screen 0 1280x720x24 -nolisten tcp -noreset \
    </dev/null >"$(kodi_daemon_log xvfb)" 2>&1 3>"$kodi_display_file" 9>&- &
  echo $! >"$(kodi_pid_file xvfb)"
  kodi_wait $! 10 "Xvfb" grep -q '[0-9]' "$kodi_display_file"
}

kodi_start_pulse() {
  rm -f "$kodi_pulse_socket"
  launch ip netns exec "$kodi_netns" env HOME="$kodi_dir/run" XDG_RUNTIME_DIR="$kodi_dir/run" \
    pulseaudio --daemonize=no --system=no --use-pid-file=no --exit-idle-time=-1 --disallow-exit -n \
    --log-target=stderr -L "module-null-sink sink_name=seamcheck_null" \
    -L "module-native-protocol-unix socket=$kodi_pulse_socket auth-anonymous=1" \
    </dev/null >"$(kodi_daemon_log pulse)" 2>&1 9>&- &
  echo $! >"$(kodi_pid_file pulse)"
  kodi_wait $! 10 "pulseaudio" test -S "$kodi_pulse_socket"
}

kodi_airplay_answers() {
  kodi_in_ns curl -sf -o /dev/null --max-time 2 "http://$kodi_address:$kodi_airplay_port/server-info"
}

kodi_jsonrpc_answers() {
  kodi_in_ns curl -sf --max-time 2 -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"JSONRPC.Ping"}' "http://$kodi_address:$kodi_jsonrpc_port/jsonrpc" \
    | grep -q pong
}

# The name as avahi-browse -p prints it: every character but letters, digits, '-' and '_' as \DDD.
kodi_escaped_name() {
  local i c out=""
  for ((i = 0; i < ${#kodi_name}; i++)); do
    c="${kodi_name:i:1}"
    case "$c" in
      [A-Za-z0-9_-]) out+="$c" ;;
      *) out+="$(printf '\\%03d' "'$c")" ;;
    esac
  done
  printf '%s' "$out"
}

# Prints the deviceid TXT value of Kodi's resolved _airplay._tcp record; fails when there is none.
kodi_advertised_device_id() {
  local id
  # Parsable output escapes a name's spaces and punctuation as \DDD (decimal).
  id="$(kodi_in_ns timeout 3 avahi-browse -prt _airplay._tcp 2>/dev/null \
    | NAME="$(kodi_escaped_name)" awk -F';' '$1 == "=" && $4 == ENVIRON["NAME"] { print $10 }' \
    | grep -o '"deviceid=[^"]*"' | head -n 1 | sed 's/^"deviceid=//; s/"$//')"
  [ -n "$id" ] && echo "$id"
}

kodi_start_kodi() {
  local binary display
  binary="$(kodi_binary)" || die "Kodi is not installed (no kodi.bin); run scripts/setup-deps.sh"
  display=":$(tr -dc '0-9' <"$kodi_display_file")"
  launch ip netns exec "$kodi_netns" env HOME="$kodi_home" DISPLAY="$display" \
    DBUS_SYSTEM_BUS_ADDRESS="$kodi_bus_address" DBUS_SESSION_BUS_ADDRESS="$kodi_bus_address" \
    KODI_AE_SINK=PULSE PULSE_SERVER="unix:$kodi_pulse_socket" LIBGL_ALWAYS_SOFTWARE=1 \
    "$binary" --windowing=x11 \
    </dev/null >"$(kodi_daemon_log kodi)" 2>&1 9>&- &
  local pid=$!
  echo "$pid" >"$(kodi_pid_file kodi)"
  kodi_wait "$pid" "$kodi_ready_timeout_s" "Kodi's AirPlay server ($kodi_address:$kodi_airplay_port)" kodi_airplay_answers
  kodi_wait "$pid" "$kodi_ready_timeout_s" "Kodi's JSON-RPC (port $kodi_jsonrpc_port)" kodi_jsonrpc_answers
  kodi_wait "$pid" "$kodi_ready_timeout_s" "Kodi's _airplay._tcp record on the namespace's avahi" kodi_advertised_device_id
}

kodi_write_env() {
  local device_id
  device_id="$(kodi_advertised_device_id || true)"
  {
    printf 'export SEAMCHECK_KODI_NETNS=%q\n' "$kodi_netns"
    printf 'export SEAMCHECK_KODI_DBUS=%q\n' "$kodi_bus_address"
    printf 'export SEAMCHECK_KODI_NAME=%q\n' "$kodi_name"
    printf 'export SEAMCHECK_KODI_ADDRESS=%q\n' "$kodi_address"
    printf 'export SEAMCHECK_KODI_PEER_ADDRESS=%q\n' "$kodi_peer_address"
    printf 'export SEAMCHECK_KODI_INTERFACE=%q\n' "$kodi_if"
    printf 'export SEAMCHECK_KODI_AIRPLAY=%q\n' "$kodi_address:$kodi_airplay_port"
    printf 'export SEAMCHECK_KODI_DEVICE_ID=%q\n' "$device_id"
    printf 'export SEAMCHECK_KODI_JSONRPC=%q\n' "http://$kodi_address:$kodi_jsonrpc_port/jsonrpc"
    printf 'export SEAMCHECK_KODI_PID=%q\n' "$(cat "$(kodi_pid_file kodi)")"
    printf 'export SEAMCHECK_KODI_LOG=%q\n' "$kodi_log"
  } >"$kodi_env_file"
}

kodi_start() {
  [ "$(id -u)" -eq 0 ] || die "Kodi's network namespace needs root; rerun with sudo."
  local tool
  for tool in ip unshare dbus-daemon dbus-send avahi-daemon avahi-browse Xvfb pulseaudio curl setsid flock sha1sum; do
    command -v "$tool" >/dev/null 2>&1 \
      || die "'$tool' is missing; install kodi xvfb pulseaudio avahi-daemon avahi-utils dbus iproute2 curl (scripts/setup-deps.sh)."
  done
  kodi_binary >/dev/null || die "Kodi is not installed (no kodi.bin); run scripts/setup-deps.sh"
  mkdir -p "$kodi_dir"
  local started_at entry name comm pid
  started_at="$(date +%s.%N)"

  # Reuse what an earlier start left running when all of it lives; otherwise start afresh.
  local all_live=1
  for entry in "dbus dbus-daemon" "avahi avahi-daemon" "xvfb Xvfb" "pulse pulseaudio"; do
    read -r name comm <<<"$entry"
    [ -n "$(live_pid "$(kodi_pid_file "$name")" "$comm")" ] || all_live=0
  done
  kodi_netns_exists && [ -f "$kodi_netns_marker" ] || all_live=0
  if [ "$all_live" = 1 ] && kodi_avahi_running; then
    pid="$(live_pid "$(kodi_pid_file kodi)" kodi.bin)"
    if [ -n "$pid" ] && kodi_airplay_answers; then
      kodi_write_env
      say "Kodi already running (pid $pid) in network namespace $kodi_netns  (source $kodi_env_file)"
      return 0
    fi
    [ -z "$pid" ] || terminate "$pid" kodi.bin kodi.bin
  else
    kodi_stop_ours
    kodi_write_configs
    kodi_make_netns
    kodi_start_dbus
    kodi_start_avahi
    kodi_start_xvfb
    kodi_start_pulse
  fi
  kodi_start_kodi
  kodi_write_env
  say "started Kodi (pid $(cat "$(kodi_pid_file kodi)")) in network namespace $kodi_netns in $(awk -v a="$started_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  say "AirPlay: $kodi_address:$kodi_airplay_port  (source $kodi_env_file)"
}

# True when process $1 runs in this checkout's namespace: a PID file copied with .build from
# another checkout names that checkout's processes, which are not ours to stop.
kodi_in_netns() {
  [ "$(ip netns identify "$1" 2>/dev/null)" = "$kodi_netns" ]
}

# Stops every process of ours (Kodi first), then deletes the namespace if this script made it.
kodi_stop_ours() {
  local i entry name comm pid stopped=""
  for ((i = ${#kodi_daemons[@]} - 1; i >= 0; i--)); do
    read -r name comm <<<"${kodi_daemons[$i]}"
    pid="$(live_pid "$(kodi_pid_file "$name")" "$comm")"
    if [ -n "$pid" ] && kodi_in_netns "$pid"; then
      terminate "$pid" "$comm" "$comm"
      stopped="$stopped $comm (pid $pid)"
    fi
    rm -f "$(kodi_pid_file "$name")"
  done
  rm -f "$kodi_env_file" "$kodi_bus_socket" "$kodi_pulse_socket" "$kodi_display_file"
  if kodi_netns_exists && [ -f "$kodi_netns_marker" ]; then
    local others
    others="$(ip netns pids "$kodi_netns" 2>/dev/null | tr '\n' ' ')"
    [ -z "$others" ] || say "processes not started by kodi-start still run in $kodi_netns (pids: $others); they keep its network"
    ip netns del "$kodi_netns" && stopped="$stopped namespace $kodi_netns"
  fi
  rm -f "$kodi_netns_marker"
  [ -z "$stopped" ] || say "stopped$stopped"
  return 0
}

kodi_stop() { kodi_stop_ours; }

kodi_kill() {
  local pid
  pid="$(live_pid "$(kodi_pid_file kodi)" kodi.bin)"
  [ -n "$pid" ] && kodi_in_netns "$pid" || { say "Kodi is not running"; return 0; }
  kill -KILL "$pid"
  while is_alive "$pid" kodi.bin; do sleep 0.05; done
  say "killed Kodi (pid $pid); \`scripts/services.sh kodi-start\` starts it again"
}

kodi_status() {
  local entry name comm pid ok=1
  echo "namespace:    $kodi_netns ($(kodi_netns_exists && echo present || echo absent))"
  for entry in "${kodi_daemons[@]}"; do
    read -r name comm <<<"$entry"
    pid="$(live_pid "$(kodi_pid_file "$name")" "$comm")"
    printf '%-13s %s\n' "$comm:" "$( [ -n "$pid" ] && echo "running (pid $pid)" || echo "not running")"
  done
  if kodi_netns_exists && kodi_airplay_answers; then
    echo "airplay:      answers on $kodi_address:$kodi_airplay_port"
  else
    echo "airplay:      no answer"
    ok=0
  fi
  [ "$ok" = 1 ] && return 0
  return 3
}
