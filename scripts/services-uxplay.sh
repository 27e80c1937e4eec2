# UxPlay 1.74 as a second real AirPlay video receiver for the tests: the uxplay-* subcommands of
# scripts/services.sh, which sources this file (it uses that script's say, die, live_pid,
# is_alive, exists, log_tail, terminate and launch). Not meant to be run on its own.
#
# uxplay-build builds UxPlay once from ../shared/peers/uxplay-*.tar.gz (GPL-3.0, never committed
# here) into .build/uxplay, cached by the tarball's SHA-256; nothing is fetched. uxplay-start runs
# it in a network namespace of its own (`lo` with multicast and a 224.0.0.0/4 route for its own
# mDNS responder, and a veth pair whose two ends stay inside, fixed MACs, no route out), with an
# Xvfb display for its ximagesink (captured with x11grab) and a PulseAudio daemon with only a
# null sink (its sound has a monitor source). UxPlay binds 0.0.0.0: only the namespace sees it.
# Measured here (Debian 12, 2 cores): build 13 s; ready about 1 s after uxplay-start.

uxplay_dir="$state_dir/uxplay"
uxplay_env_file="$state_dir/uxplay.env"
uxplay_build_dir="$root_dir/.build/uxplay"
uxplay_peers_dir="${SEAMCHECK_PEERS_DIR:-$root_dir/../shared/peers}"
uxplay_netns="${SEAMCHECK_UXPLAY_NETNS:-seamcheck-uxplay-$(printf '%s' "$root_dir" | sha1sum | cut -c1-8)}"
uxplay_netns_marker="$uxplay_dir/netns"
uxplay_if=scu0
uxplay_peer_if=scu1
uxplay_mac=02:53:43:55:00:01
uxplay_peer_mac=02:53:43:55:00:02
uxplay_address=10.78.0.1
uxplay_peer_address=10.78.0.2
uxplay_base_port=7000                          # -p 7000: TCP 7000 (RAOP), 7001 (AirPlay), 7100
uxplay_airplay_port=7001
uxplay_name="${SEAMCHECK_UXPLAY_NAME:-Seamcheck UxPlay}"
uxplay_pin="${SEAMCHECK_UXPLAY_PIN:-}"          # empty: no -pin (no pairing asked for)
uxplay_pulse_socket="$uxplay_dir/pulse.sock"
uxplay_display_file="$uxplay_dir/display"
uxplay_ready_timeout_s="${SEAMCHECK_UXPLAY_TIMEOUT:-30}"

# name, comm: the processes uxplay-start starts, stopped in reverse order.
uxplay_daemons=("xvfb Xvfb" "pulse pulseaudio" "uxplay uxplay")

uxplay_pid_file() { echo "$uxplay_dir/$1.pid"; }
uxplay_daemon_log() { echo "$uxplay_dir/$1.log"; }
uxplay_netns_exists() { [ -e "/run/netns/$uxplay_netns" ]; }
uxplay_binary() { echo "$uxplay_build_dir/out/uxplay"; }

uxplay_lock() {
  mkdir -p "$uxplay_dir"
  exec 9>"$state_dir/uxplay.lock"
  flock -w 90 9 || die "another scripts/services.sh uxplay-* holds $state_dir/uxplay.lock for 90s"
}

uxplay_tarball() {
  local found
  found="$(ls "$uxplay_peers_dir"/uxplay-*.tar.gz 2>/dev/null | sort | tail -n 1)"
  [ -n "$found" ] || die "no UxPlay source in $uxplay_peers_dir (uxplay-*.tar.gz); set SEAMCHECK_PEERS_DIR to the folder that holds it"
  echo "$found"
}

# Builds .build/uxplay/out/uxplay unless the build there came from a tarball with the same hash.
uxplay_build() {
  local tarball hash stamp="$uxplay_build_dir/source.sha256" tool
  for tool in cmake make cc pkg-config tar sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing; run scripts/setup-deps.sh (UxPlay's build packages)"
  done
  tarball="$(uxplay_tarball)"
  hash="$(sha256sum "$tarball" | cut -c1-64)"
  if [ -x "$(uxplay_binary)" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
    say "UxPlay already built from $(basename "$tarball") ($(uxplay_binary))"
    return 0
  fi
  local started_at source
  started_at="$(date +%s)"
  rm -rf "$uxplay_build_dir"
  mkdir -p "$uxplay_build_dir/src"
  tar -xzf "$tarball" -C "$uxplay_build_dir/src" || die "cannot unpack $tarball"
  source="$(find "$uxplay_build_dir/src" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
  [ -f "$source/CMakeLists.txt" ] || die "$tarball holds no CMakeLists.txt at its top folder"
  if ! cmake -S "$source" -B "$uxplay_build_dir/out" -DNO_MARCH_NATIVE=ON -DNO_X11_DEPS=ON >"$uxplay_build_dir/build.log" 2>&1 \
    || ! make -j2 -C "$uxplay_build_dir/out" >>"$uxplay_build_dir/build.log" 2>&1; then
    log_tail "$uxplay_build_dir/build.log" >&2
    die "UxPlay did not build (log: $uxplay_build_dir/build.log); its Debian packages come from scripts/setup-deps.sh"
  fi
  echo "$hash" >"$stamp"
  say "built UxPlay from $(basename "$tarball") in $(($(date +%s) - started_at)) s: $(uxplay_binary)"
}

uxplay_fail() {
  local name
  say "error: $*"
  for name in uxplay pulse xvfb; do log_tail "$(uxplay_daemon_log "$name")" >&2; done
  uxplay_stop_ours
  exit 1
}

uxplay_wait() { wait_while_alive uxplay_fail "$@"; }

uxplay_make_netns() {
  make_receiver_netns uxplay_fail SEAMCHECK_UXPLAY_NETNS "$uxplay_netns" "$uxplay_netns_marker" \
    "$uxplay_if" "$uxplay_mac" "$uxplay_address" "$uxplay_peer_if" "$uxplay_peer_mac" "$uxplay_peer_address"
  # UxPlay's own mDNS responder (lib/mdnsd) sends to 224.0.0.251: multicast on `lo` and a route there.
  ip -n "$uxplay_netns" link set lo multicast on \
    && { ip -n "$uxplay_netns" route show 224.0.0.0/4 | grep -q . || ip -n "$uxplay_netns" route add 224.0.0.0/4 dev lo; } \
    || uxplay_fail "cannot set up multicast on lo in network namespace $uxplay_netns"
}

# A display number of its own from 20 up (not -displayfd's first free from 0): an X server in a
# network namespace has its abstract socket there but its /tmp/.X11-unix/XN path on the host's
# /tmp, and Kodi's Xvfb (in its namespace, from :0) would lose its path to a second :0, through
# which the host (lab run beside both, link-start) captures it.
uxplay_start_xvfb() {
  local number=20
  rm -f "$uxplay_display_file"
  while [ -e "/tmp/.X11-unix/X$number" ] || [ -e "/tmp/.X$number-lock" ]; do number=$((number + 1)); done
  launch ip netns exec "$uxplay_netns" Xvfb ":$number" -screen 0 1280x720x24 -nolisten tcp -noreset \
    </dev/null >"$(uxplay_daemon_log xvfb)" 2>&1 9>&- &
  echo $! >"$(uxplay_pid_file xvfb)"
  uxplay_wait $! 10 "Xvfb" test -S "/tmp/.X11-unix/X$number"
  echo "$number" >"$uxplay_display_file"
}

uxplay_start_pulse() {
  rm -f "$uxplay_pulse_socket"
  mkdir -p "$uxplay_dir/run"
  launch ip netns exec "$uxplay_netns" env HOME="$uxplay_dir/run" XDG_RUNTIME_DIR="$uxplay_dir/run" \
    pulseaudio --daemonize=no --system=no --use-pid-file=no --exit-idle-time=-1 --disallow-exit -n \
    --log-target=stderr -L "module-null-sink sink_name=seamcheck_null" \
    -L "module-native-protocol-unix socket=$uxplay_pulse_socket auth-anonymous=1" \
    </dev/null >"$(uxplay_daemon_log pulse)" 2>&1 9>&- &
  echo $! >"$(uxplay_pid_file pulse)"
  uxplay_wait $! 10 "pulseaudio" test -S "$uxplay_pulse_socket"
}

uxplay_answers() {
  ip netns exec "$uxplay_netns" curl -sf -o /dev/null --max-time 2 \
    -H "X-Apple-Session-ID: 00000000-0000-0000-0000-000000000000" "http://$uxplay_address:$uxplay_airplay_port/server-info"
}

uxplay_start_uxplay() {
  local display pin_args=()
  display=":$(tr -dc '0-9' <"$uxplay_display_file")"
  [ -z "$uxplay_pin" ] || pin_args=(-pin "$uxplay_pin")
  mkdir -p "$uxplay_dir/home"
  # -nh: the name as given; -p: fixed ports; -m: a fixed device id; -reset 15 is its default.
  launch ip netns exec "$uxplay_netns" env HOME="$uxplay_dir/home" DISPLAY="$display" \
    PULSE_SERVER="unix:$uxplay_pulse_socket" \
    "$(uxplay_binary)" -n "$uxplay_name" -nh -hls -p "$uxplay_base_port" -m "$uxplay_mac" \
    -vs ximagesink -as pulsesink "${pin_args[@]}" \
    </dev/null >"$(uxplay_daemon_log uxplay)" 2>&1 9>&- &
  local pid=$!
  echo "$pid" >"$(uxplay_pid_file uxplay)"
  uxplay_wait "$pid" "$uxplay_ready_timeout_s" "UxPlay's AirPlay server ($uxplay_address:$uxplay_airplay_port)" uxplay_answers
}

uxplay_write_env() {
  {
    printf 'export SEAMCHECK_UXPLAY_NETNS=%q\n' "$uxplay_netns"
    printf 'export SEAMCHECK_UXPLAY_NAME=%q\n' "$uxplay_name"
    printf 'export SEAMCHECK_UXPLAY_ADDRESS=%q\n' "$uxplay_address"
    printf 'export SEAMCHECK_UXPLAY_AIRPLAY=%q\n' "$uxplay_address:$uxplay_airplay_port"
    printf 'export SEAMCHECK_UXPLAY_DEVICE_ID=%q\n' "${uxplay_mac^^}"
    printf 'export SEAMCHECK_UXPLAY_PIN=%q\n' "$uxplay_pin"
    printf 'export SEAMCHECK_UXPLAY_DISPLAY=%q\n' ":$(tr -dc '0-9' <"$uxplay_display_file")"
    printf 'export SEAMCHECK_UXPLAY_PULSE=%q\n' "unix:$uxplay_pulse_socket"
    printf 'export SEAMCHECK_UXPLAY_PID=%q\n' "$(cat "$(uxplay_pid_file uxplay)")"
    printf 'export SEAMCHECK_UXPLAY_LOG=%q\n' "$(uxplay_daemon_log uxplay)"
  } >"$uxplay_env_file"
}

uxplay_start() {
  [ "$(id -u)" -eq 0 ] || die "UxPlay's network namespace needs root; rerun with sudo."
  local tool
  for tool in ip Xvfb pulseaudio curl setsid flock sha1sum; do
    command -v "$tool" >/dev/null 2>&1 \
      || die "'$tool' is missing; install xvfb pulseaudio iproute2 curl (scripts/setup-deps.sh)."
  done
  uxplay_build
  mkdir -p "$uxplay_dir"
  local started_at entry name comm pid all_live=1
  started_at="$(date +%s.%N)"
  for entry in "xvfb Xvfb" "pulse pulseaudio"; do
    read -r name comm <<<"$entry"
    [ -n "$(live_pid "$(uxplay_pid_file "$name")" "$comm")" ] || all_live=0
  done
  uxplay_netns_exists && [ -f "$uxplay_netns_marker" ] || all_live=0
  if [ "$all_live" = 1 ]; then
    pid="$(live_pid "$(uxplay_pid_file uxplay)" uxplay)"
    if [ -n "$pid" ] && uxplay_answers; then
      uxplay_write_env
      say "UxPlay already running (pid $pid) in network namespace $uxplay_netns  (source $uxplay_env_file)"
      return 0
    fi
    [ -z "$pid" ] || terminate "$pid" uxplay uxplay
  else
    uxplay_stop_ours
    uxplay_make_netns
    uxplay_start_xvfb
    uxplay_start_pulse
  fi
  uxplay_start_uxplay
  uxplay_write_env
  say "started UxPlay (pid $(cat "$(uxplay_pid_file uxplay)")) in network namespace $uxplay_netns in $(awk -v a="$started_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  say "AirPlay: $uxplay_address:$uxplay_airplay_port  (source $uxplay_env_file)"
}

uxplay_in_netns() { [ "$(ip netns identify "$1" 2>/dev/null)" = "$uxplay_netns" ]; }

# Stops every process of ours (UxPlay first), then deletes the namespace if this script made it.
uxplay_stop_ours() {
  local i name comm pid stopped=""
  for ((i = ${#uxplay_daemons[@]} - 1; i >= 0; i--)); do
    read -r name comm <<<"${uxplay_daemons[$i]}"
    pid="$(live_pid "$(uxplay_pid_file "$name")" "$comm")"
    if [ -n "$pid" ] && uxplay_in_netns "$pid"; then
      terminate "$pid" "$comm" "$comm"
      stopped="$stopped $comm (pid $pid)"
    fi
    rm -f "$(uxplay_pid_file "$name")"
  done
  rm -f "$uxplay_env_file" "$uxplay_pulse_socket" "$uxplay_display_file"
  if uxplay_netns_exists && [ -f "$uxplay_netns_marker" ]; then
    local others
    others="$(ip netns pids "$uxplay_netns" 2>/dev/null | tr '\n' ' ')"
    [ -z "$others" ] || say "processes not started by uxplay-start still run in $uxplay_netns (pids: $others); they keep its network"
    ip netns del "$uxplay_netns" && stopped="$stopped namespace $uxplay_netns"
  fi
  rm -f "$uxplay_netns_marker"
  [ -z "$stopped" ] || say "stopped$stopped"
  return 0
}

uxplay_stop() { uxplay_stop_ours; }

uxplay_kill() {
  local pid
  pid="$(live_pid "$(uxplay_pid_file uxplay)" uxplay)"
  [ -n "$pid" ] && uxplay_in_netns "$pid" || { say "UxPlay is not running"; return 0; }
  kill -KILL "$pid"
  while is_alive "$pid" uxplay; do sleep 0.05; done
  say "killed UxPlay (pid $pid); \`scripts/services.sh uxplay-start\` starts it again"
}

uxplay_status() {
  local entry name comm pid ok=1
  echo "namespace:    $uxplay_netns ($(uxplay_netns_exists && echo present || echo absent))"
  echo "build:        $( [ -x "$(uxplay_binary)" ] && uxplay_binary || echo "not built (scripts/services.sh uxplay-build)")"
  for entry in "${uxplay_daemons[@]}"; do
    read -r name comm <<<"$entry"
    pid="$(live_pid "$(uxplay_pid_file "$name")" "$comm")"
    printf '%-13s %s\n' "$comm:" "$( [ -n "$pid" ] && echo "running (pid $pid)" || echo "not running")"
  done
  if uxplay_netns_exists && uxplay_answers; then
    echo "airplay:      answers on $uxplay_address:$uxplay_airplay_port"
  else
    echo "airplay:      no answer"
    ok=0
  fi
  [ "$ok" = 1 ] && return 0
  return 3
}
