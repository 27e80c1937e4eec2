#!/usr/bin/env bash
# The README's demo command: installs what is missing, builds seamcheck, then
#  1. generates a sample primary and three interstitials as files with ffmpeg (one matching, two
#     that differ), audits them against every device profile, and writes Reports/demo.json,
#     Reports/demo.md and Reports/demo.html;
#  2. generates an HLS primary that schedules four interstitials (EXT-X-DATERANGE), serves it on
#     127.0.0.1 with the test HTTP server, audits the playlist URL per device class and writes
#     Reports/demo-playlist.{json,md,html};
#  3. the receiver lab on loopback: generates the small lab suite, serves it with `lab serve`, lets
#     two stand-in receivers (Tests/Server/lab_receiver.py, from 127.0.0.41 and .42, pinned in an
#     inventory) play three cases, records verdicts, and writes Reports/demo-lab.{md,html}
#     (predicted versus observed) and the calibration it proposes;
#  4. an unattended lab run against a real AirPlay receiver (as root only: it needs `ip netns`):
#     starts Kodi headless in a network namespace of its own (scripts/services.sh kodi-start),
#     runs `seamcheck lab run` inside that namespace on `control`, two stitched cases and two
#     behaviour cases of the same suite (about a minute and a half), with Kodi pinned to a device
#     class by an inventory the demo writes (so each cell is predicted, then measured), and writes
#     Reports/demo-lab-run.html (measured verdicts and a timeline per cell) and
#     Reports/demo-behaviour.html (the conformance table). Without root, or when Kodi cannot
#     start, it says why and is skipped.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup-deps.sh
echo "demo: building seamcheck" >&2
swift build 2>&1 | grep -v -- '-D_REENTRANT' | tail -n 1 >&2
bin="$(swift build --show-bin-path)/seamcheck"

media=.build/demo-media
mkdir -p "$media" Reports
make_clip() { # name, seconds, video size, frame rate, video encoder args, audio rate, layout, audio encoder args
  local out="$media/$1"
  [ -s "$out" ] && return 0
  echo "demo: generating $out" >&2
  # shellcheck disable=SC2086
  ffmpeg -nostdin -v error -y \
    -f lavfi -i "testsrc2=size=$3:rate=$4:duration=$2" \
    -f lavfi -i "sine=frequency=440:sample_rate=$6:duration=$2,aformat=channel_layouts=$7" \
    $5 -pix_fmt yuv420p $8 -ar "$6" -shortest "$out.part.mp4"
  mv "$out.part.mp4" "$out"
}
x264="-c:v libx264 -preset veryfast -profile:v high"
x265="-c:v libx265 -preset ultrafast -tag:v hvc1 -x265-params log-level=error"
make_clip primary.mp4            10 1280x720 30000/1001 "$x264" 48000 stereo "-c:a aac"
make_clip ad-matching.mp4         5 1280x720 30000/1001 "$x264" 48000 stereo "-c:a aac"
make_clip ad-hevc-25fps.mp4       5 1280x720 25         "$x265" 48000 stereo "-c:a aac"
make_clip ad-ac3-5.1-44k.mp4      5 1280x720 30000/1001 "$x264" 44100 5.1    "-c:a ac3"

args=(audit --primary "$media/primary.mp4"
      --interstitial "$media/ad-matching.mp4"
      --interstitial "$media/ad-hevc-25fps.mp4"
      --interstitial "$media/ad-ac3-5.1-44k.mp4"
      --fail-on never)
"$bin" "${args[@]}" --format table
"$bin" "${args[@]}" --format json --output Reports/demo.json
"$bin" "${args[@]}" --format markdown --output Reports/demo.md
"$bin" "${args[@]}" --format html --output Reports/demo.html
echo >&2
echo "demo: reports written: Reports/demo.json Reports/demo.md Reports/demo.html" >&2

echo >&2
echo "demo: generating an HLS stream with interstitials and serving it on 127.0.0.1" >&2
stream=.build/demo-stream
mkdir -p "$stream"
server_log=$(mktemp)
python3 Tests/Server/test_http_server.py --root "$stream" --lifetime 600 >"$server_log" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -f "$server_log"' EXIT
for _ in $(seq 1 100); do grep -q PORT "$server_log" && break; sleep 0.05; done
port=$(awk '/PORT/ {print $2}' "$server_log")
python3 scripts/sample_stream.py "$stream" "http://127.0.0.1:$port/files" >&2
playlist="http://127.0.0.1:$port/files/primary/main.m3u8"
echo "demo: seamcheck audit $playlist" >&2
"$bin" audit "$playlist" --fail-on never --format table
for format in json markdown html; do
  ext=$format; [ "$format" = markdown ] && ext=md
  "$bin" audit "$playlist" --fail-on never --format "$format" --output "Reports/demo-playlist.$ext"
done
echo >&2
echo "demo: reports written: Reports/demo-playlist.json Reports/demo-playlist.md Reports/demo-playlist.html" >&2

echo >&2
echo "demo: the receiver lab (small suite, two stand-in receivers on loopback)" >&2
lab=.build/demo-lab
mkdir -p "$lab"
"$bin" lab streams --scale small --output "$lab/suite" >&2
cat > "$lab/inventory.yaml" <<'YAML'
receivers:
  - name: Demo Low-end TV
    deviceClass: smart-tv-low-end
    addresses: ["127.0.0.41"]
  - name: Demo Apple TV
    deviceClass: apple-tv-4k
    addresses: ["127.0.0.42"]
YAML
rm -f "$lab/lab.sqlite" "$lab/lab.sqlite-wal" "$lab/lab.sqlite-shm"
"$bin" lab serve --streams "$lab/suite" --bind 127.0.0.1 --port 0 --db "$lab/lab.sqlite" --inventory "$lab/inventory.yaml" \
  --no-browse --log-level warning 2> "$lab/serve.log" &
lab_pid=$!
trap 'kill "$server_pid" "$lab_pid" 2>/dev/null || true; rm -f "$server_log"' EXIT
for _ in $(seq 1 100); do grep -q "lab: serving" "$lab/serve.log" && break; sleep 0.05; done
lab_url=$(grep -o 'http://127.0.0.1:[0-9]*' "$lab/serve.log" | head -1)
echo "demo: lab page at $lab_url/ (open it in a browser while the demo runs)" >&2
# Exit 1 from a stand-in means it could not play all of a case: the low-end TV skips the HEVC ad.
for c in control video-codec-hevc capability-ladder; do
  python3 Tests/Server/lab_receiver.py "$lab_url/cases/$c/master.m3u8" --source 127.0.0.41 \
    --video-codecs h264 --ranges SDR --audio-codecs aac --max-channels 2 >/dev/null || true
  python3 Tests/Server/lab_receiver.py "$lab_url/cases/$c/master.m3u8" --source 127.0.0.42 \
    --video-codecs h264,hevc --ranges SDR,HDR10,HLG --audio-codecs aac,ac3,eac3 --max-channels 6 >/dev/null || true
done
kill -TERM "$lab_pid"; wait "$lab_pid" || true
db=(--db "$lab/lab.sqlite")
"$bin" lab record "${db[@]}" --receiver "Demo Low-end TV" --case control --verdict seamless >&2
"$bin" lab record "${db[@]}" --receiver "Demo Low-end TV" --case video-codec-hevc --verdict skipped --note "HEVC ad not fetched" >&2
"$bin" lab record "${db[@]}" --receiver "Demo Apple TV" --case control --verdict seamless >&2
"$bin" lab record "${db[@]}" --receiver "Demo Apple TV" --case video-codec-hevc --verdict glitch --seconds 0.4 >&2
"$bin" lab sessions "${db[@]}" --format table
"$bin" lab report "${db[@]}" --format table
"$bin" lab report "${db[@]}" --format markdown --output Reports/demo-lab.md
"$bin" lab report "${db[@]}" --format html --output Reports/demo-lab.html
"$bin" profiles calibrate "${db[@]}" --min-observations 1 --format table
echo >&2
echo "demo: lab reports written: Reports/demo-lab.md Reports/demo-lab.html" >&2

echo >&2
echo "demo: an unattended lab run: seamcheck plays cases to a real AirPlay receiver (Kodi) and measures them" >&2
run_db="$lab/run.sqlite"
run_cases=(control video-codec-hevc-stitched channel-layout-5.1-stitched behaviour-resume-offset-zero behaviour-restrict-jump)
kodi_log="$lab/kodi-start.log"
kodi_ready=no
if [ "$(id -u)" -ne 0 ]; then
  echo "demo: SKIPPED the unattended lab run: Kodi runs in a network namespace of its own (ip netns), which" >&2
  echo "demo:   needs root; rerun as root (sudo scripts/demo.sh) to see it. The steps above are complete." >&2
elif scripts/services.sh kodi-status >/dev/null 2>&1; then
  echo "demo: using the Kodi already running (scripts/services.sh kodi-status); it is left running" >&2
  kodi_ready=yes
else
  # Stops only what kodi-start started for the demo (its daemons and namespace), on any exit.
  trap 'kill "$server_pid" "$lab_pid" 2>/dev/null || true; rm -f "$server_log"; scripts/services.sh kodi-stop 2>/dev/null || true' EXIT
  echo "demo: starting Kodi headless in a network namespace of its own (scripts/services.sh kodi-start)" >&2
  if scripts/services.sh kodi-start 2> "$kodi_log"; then
    kodi_ready=yes
  else
    echo "demo: SKIPPED the unattended lab run: Kodi could not start; the end of $kodi_log:" >&2
    tail -n 8 "$kodi_log" | sed 's/^/demo:   /' >&2
    echo "demo:   fix what it says (scripts/setup-deps.sh installs kodi, xvfb, pulseaudio) and rerun; the steps above are complete." >&2
  fi
fi
if [ "$kodi_ready" = yes ]; then
  # shellcheck disable=SC1091
  source .build/services/kodi.env
  echo "demo: \"$SEAMCHECK_KODI_NAME\" answers AirPlay on $SEAMCHECK_KODI_AIRPLAY in namespace $SEAMCHECK_KODI_NETNS" >&2
  rm -f "$run_db" "$run_db-wal" "$run_db-shm"
  run_db_arg=(--db "$run_db")
  # Kodi advertises AirPlay 1 video only (no feature bit 49), so no bundled class matches it
  # (`seamcheck discover` says so, and what to pin): the demo pins it by its device id to the
  # strictest third-party class, so that the report shows each case's prediction against what
  # was measured (DeviceProfiles/README.md, "Lab inventory").
  {
    echo "receivers:"
    if [ -n "${SEAMCHECK_KODI_DEVICE_ID:-}" ]; then
      echo "  - deviceId: \"$SEAMCHECK_KODI_DEVICE_ID\""
    else
      echo "  - name: \"$SEAMCHECK_KODI_NAME\""
    fi
    echo "    deviceClass: smart-tv-low-end"
    echo "    note: Kodi in its network namespace (AirPlay 1 video, FFmpeg decoders), pinned by scripts/demo.sh"
  } > "$lab/kodi-inventory.yaml"
  case_args=()
  for c in "${run_cases[@]}"; do case_args+=(--case "$c"); done
  # Kodi's picture too: its Xvfb display read with x11grab, so each switch is also measured from
  # the frame codes, with a filmstrip in the report (docs/lab-measure.md).
  if [ -s .build/services/kodi/display ]; then
    case_args+=(--capture ":$(tr -dc '0-9' < .build/services/kodi/display)" --capture-option framerate=30)
  fi
  # And its sound: Kodi plays into a PulseAudio null sink whose monitor is read live, so each switch
  # is also heard (the gap, the A/V offset; docs/lab-measure.md, "The sound").
  if [ -S .build/services/kodi/pulse.sock ]; then
    case_args+=(--capture-audio "pulse:seamcheck_null.monitor?server=unix:$PWD/.build/services/kodi/pulse.sock")
  fi
  echo "demo: seamcheck lab run --receiver \"$SEAMCHECK_KODI_NAME\" ${case_args[*]}  (inside the namespace, about a minute and a half)" >&2
  # Inside the namespace, with its bus: the run finds Kodi through the namespace's avahi-daemon.
  status=0
  ip netns exec "$SEAMCHECK_KODI_NETNS" env DBUS_SYSTEM_BUS_ADDRESS="$SEAMCHECK_KODI_DBUS" \
    "$bin" lab run "${run_db_arg[@]}" --streams "$lab/suite" --receiver "$SEAMCHECK_KODI_NAME" "${case_args[@]}" \
    --inventory "$lab/kodi-inventory.yaml" \
    --format table || status=$?
  if [ "$status" -ne 0 ]; then
    echo "demo: error: seamcheck lab run against Kodi exited $status; Kodi's own log: $SEAMCHECK_KODI_LOG" >&2
    exit "$status"
  fi
  "$bin" lab runs "${run_db_arg[@]}" --format table
  "$bin" lab report "${run_db_arg[@]}" --streams "$lab/suite" --format table
  "$bin" lab report "${run_db_arg[@]}" --streams "$lab/suite" --format html --output Reports/demo-lab-run.html
  echo >&2
  echo "demo: lab run report written: Reports/demo-lab-run.html (measured verdicts, a timeline per cell, the picture's stalls and filmstrips)" >&2
  # Two behaviour cases: what Kodi does with an interstitial mid-roll and a JUMP-restricted ad the
  # sender seeks past (docs/lab-behaviour.md): Kodi ignores EXT-X-DATERANGE, and the table says so.
  "$bin" lab report --behaviour "${run_db_arg[@]}" --streams "$lab/suite" --format table
  "$bin" lab report --behaviour "${run_db_arg[@]}" --streams "$lab/suite" --format html --output Reports/demo-behaviour.html
  echo "demo: behaviour table written: Reports/demo-behaviour.html (receivers x interstitial features, with the evidence)" >&2
fi

# The dashboard (docs/lab-dashboard.md): two short unattended runs on a stand-in AirPlay receiver
# (Tests/Server/behaviour_receiver.py on 127.0.0.51, 3x real time, no root needed), conforming and
# then ignoring CUE, into the same database as the Kodi run; `lab report --compare` and the
# dashboard show the regression. On a terminal `lab serve` stays up until Ctrl-C; otherwise it is
# checked once and stopped.
echo >&2
echo "demo: the lab dashboard: two runs on a stand-in receiver, then lab serve over the demo's runs" >&2
standin_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for behaviour in conforming ignore-cue; do
  python3 Tests/Server/behaviour_receiver.py --host 127.0.0.51 --port "$standin_port" --behaviour "$behaviour" --speed 3 \
    --lifetime 300 > "$lab/standin.out" 2>&1 &
  standin_pid=$!
  for _ in $(seq 1 100); do grep -q READY "$lab/standin.out" && break; sleep 0.1; done
  "$bin" lab run --db "$run_db" --streams "$lab/suite" --bind 127.0.0.1 --receiver "127.0.0.51:$standin_port" \
    --case control --case behaviour-cue-pre --poll-interval 100 --format table || true
  kill "$standin_pid" 2>/dev/null || true; wait "$standin_pid" 2>/dev/null || true
done
"$bin" lab report --db "$run_db" --compare previous latest --format table
rm -f "$lab/dashboard.log"
"$bin" lab serve --streams "$lab/suite" --bind 127.0.0.1 --port 0 --db "$run_db" --no-browse --log-level warning \
  2> "$lab/dashboard.log" &
dashboard_pid=$!
# Stops the dashboard too on any exit, keeping what the trap already did (Kodi's stop, when the demo started it).
exit_trap=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
trap "kill \"\$dashboard_pid\" 2>/dev/null || true; $exit_trap" EXIT
for _ in $(seq 1 100); do grep -q "dashboard at" "$lab/dashboard.log" && break; sleep 0.05; done
dashboard_url=$(grep -o 'http://127.0.0.1:[0-9]*/dashboard' "$lab/dashboard.log" | head -1)
runs=$(curl -sf "${dashboard_url%/dashboard}/api/dashboard/runs" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["runs"]))')
echo "demo: the lab dashboard, with the demo's $runs runs: $dashboard_url" >&2
if [ -t 0 ] && [ -t 2 ]; then
  echo "demo: (open it in a browser; Ctrl-C stops it)" >&2
  wait "$dashboard_pid" || true
fi
kill "$dashboard_pid" 2>/dev/null || true
