#!/usr/bin/env bash
# Installs the Debian packages Seamcheck builds and tests against, when any is missing.
# Idempotent: a machine that has them all runs no apt-get at all.
set -euo pipefail

packages=(
  pkg-config curl libcurl4-openssl-dev libsqlite3-dev
  ffmpeg libavformat-dev libavcodec-dev libavutil-dev libavfilter-dev
  # Capture analysis (lab measure): libswscale's header; libswscale6 and libavdevice59 come with ffmpeg.
  libswscale-dev
  dbus avahi-daemon avahi-utils libavahi-client-dev
  # OpenSSL's libcrypto for SRP's modular exponentiation in pairing (and UxPlay's build).
  libssl-dev
  python3 python3-venv iproute2 strace
  fonts-dejavu-core
  # Real AirPlay receivers for the discovery tests (Tests/EndToEndTests/DiscoverRealReceiverTests):
  # an AirPlay 1 speaker, and a screen-mirroring receiver with the GStreamer plugins it needs.
  shairport-sync uxplay gstreamer1.0-libav gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  # HLS clients and the browser for the lab tests (Tests/EndToEndTests/Lab*Tests).
  gstreamer1.0-tools gstreamer1.0-plugins-base chromium chromium-driver fonts-liberation2
  # A real AirPlay video receiver for the lab runs (scripts/services.sh kodi-start,
  # Tests/EndToEndTests/KodiReceiverTests): Kodi under Xvfb with Mesa's software GL and a
  # PulseAudio null sink, in a network namespace (iproute2, util-linux's unshare).
  kodi xvfb libgl1-mesa-dri libegl-mesa0 libglx-mesa0 pulseaudio
  # UxPlay 1.74 built from ../shared/peers (scripts/services.sh uxplay-build; Debian's 1.62 has
  # no /play): its build packages, and ximagesink (gstreamer1.0-x) for a picture Xvfb can show.
  cmake libplist-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-x
  # The shared results store's server for its tests and benchmark (scripts/services.sh postgres-start).
  postgresql
  # The HTTP load of the lab server benchmarks (scripts/bench/lab-serve.sh, lab-serve-postgres.sh).
  wrk
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -q >&2
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2
  # shairport-sync's package ships a system service; the tests run their own instance on the
  # loopback-only test avahi-daemon. A machine whose package start was not refused
  # (policy-rc.d) must not keep a receiver announcing itself on its network.
  if [[ " ${missing[*]} " == *" shairport-sync "* ]]; then
    if [ "$(cat /proc/1/comm 2>/dev/null)" = systemd ]; then
      "${sudo_cmd[@]}" systemctl disable --now shairport-sync.service >&2 || true
    elif [ -x /etc/init.d/shairport-sync ] && [ -s /run/shairport-sync/shairport-sync.pid ] \
      && [ "$(cat "/proc/$(cat /run/shairport-sync/shairport-sync.pid)/comm" 2>/dev/null)" = shairport-sync ]; then
      "${sudo_cmd[@]}" /etc/init.d/shairport-sync stop >&2 || true
    fi
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "setup: no 'swift' on PATH. Install the Swift 6 toolchain (swift.org) and retry." >&2
  exit 1
fi
