#!/usr/bin/env bash
# Runs the built XCTest bundle as three processes at once (scripts/test.sh):
#   receivers  the classes that drive a real receiver in real time (Kodi, UxPlay; one process, so
#              that Kodi started once per process and UxPlay once per class are shared as before,
#              and the test that runs both never meets another process's copy);
#   waiting    the classes that mostly wait: stand-in receivers playing in real time, the
#              dashboard watched in Chromium, runs waiting out a locked database, stand-in
#              receivers vanishing (LabRunTests: with it in the rest, a clean-clone CI read rest
#              660 s, receivers 596 s, waiting 295 s). Not MatrixWorkerTests: it stops and starts
#              the one PostgreSQL server, so it stays in the process of every other test that uses it;
#   rest       everything else, CPU-bound, niced so that the two real-time shards keep their pace.
# The shards share only what is safe to share (the test avahi-daemon, PostgreSQL with a database
# per test, the media cache, written by rename). Measured before the third shard: 846 s and 769 s
# for two shards side by side, where one process took both.
#
#   scripts/test-shards.sh LOG      every shard; their output goes to LOG (the rest first, then the
#                                   others as they end), and to stdout as each shard ends
#   SEAMCHECK_TEST_SHARDS=1         one process, every test (as `swift test` runs them)
#   SEAMCHECK_REALTIME_TESTS=REGEX  the classes of the receivers' shard (default below)
#   SEAMCHECK_WAITING_TESTS=REGEX   the classes of the waiting shard (default below)
#   SEAMCHECK_TEST_CLASSES=REGEX    only the classes (Module.Class) that match
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log=${1:?usage: scripts/test-shards.sh LOG}
bundle=$(ls -d .build/debug/*PackageTests.xctest 2>/dev/null | head -n 1)
[ -x "$bundle" ] || { echo "test: no test bundle under .build/debug (swift build --build-tests first)" >&2; exit 1; }
receivers=${SEAMCHECK_REALTIME_TESTS:-'Kodi|UxPlay|Fcup'}
waiting=${SEAMCHECK_WAITING_TESTS:-'BehaviourRunTests|BehaviourReceiverSelfTests|NothingLostTests|LabDashboardBrowserTests|\.LabRunTests$'}
# Run after the shards, alone: the live ground truths (ffplay seen through x11grab and heard through
# PulseAudio) need a machine that is not starved: their truth is what a player was told to do, and a
# starved player does something else (beside the shards a 200 ms A/V truth read 117 ms, and with the
# machine loaded further a 250 ms pause was shown for 449 ms).
alone=${SEAMCHECK_ALONE_TESTS:-'SoundAccuracyTests|CaptureAccuracyTests'}

if [ "${SEAMCHECK_TEST_SHARDS:-3}" = 1 ]; then
  "$bundle" 2>&1 | tee "$log"
  exit "${PIPESTATUS[0]}"
fi

# Test classes (Module.Class), split by the regexes.
classes=$("$bundle" --list-tests | grep -E '^[A-Za-z]+Tests\.[A-Za-z0-9_]+/' | sed 's#/.*##' | sort -u \
  | grep -E "${SEAMCHECK_TEST_CLASSES:-.}")
alone_classes=$(echo "$classes" | grep -E "$alone" | paste -sd, -)
classes=$(echo "$classes" | grep -vE "$alone")
receiver_classes=$(echo "$classes" | grep -E "$receivers" | paste -sd, -)
waiting_classes=$(echo "$classes" | grep -vE "$receivers" | grep -E "$waiting" | paste -sd, -)
rest=$(echo "$classes" | grep -vE "$receivers" | grep -vE "$waiting" | paste -sd, -)
[ -n "$rest$receiver_classes$waiting_classes$alone_classes" ] || { echo "test: no test classes listed by $bundle" >&2; exit 1; }

# Starts a shard in the background: its log file and pid, in the arrays below.
shard_names=() shard_logs=() shard_pids=()
start_shard() { # name classes
  [ -n "$2" ] || return 0
  local shard_log
  shard_log=$(mktemp)
  ( started=$SECONDS; "$bundle" "$2"; rc=$?; echo "test: the $1 shard took $((SECONDS - started)) s"; exit "$rc" ) >"$shard_log" 2>&1 &
  shard_names+=("$1") shard_logs+=("$shard_log") shard_pids+=($!)
}
start_shard receivers "$receiver_classes"
start_shard waiting "$waiting_classes"

status=0
if [ -n "$rest" ]; then
  started=$SECONDS
  nice -n 5 "$bundle" "$rest" 2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  echo "test: the rest shard took $((SECONDS - started)) s" | tee -a "$log"
else
  : >"$log"
fi
for i in "${!shard_pids[@]}"; do
  echo "test: waiting for the ${shard_names[$i]} shard" >&2
  wait "${shard_pids[$i]}" || status=1
  tee -a "$log" <"${shard_logs[$i]}"
  rm -f "${shard_logs[$i]}"
done
if [ -n "$alone_classes" ]; then
  echo "test: the classes that run alone: $alone_classes" >&2
  started=$SECONDS
  "$bundle" "$alone_classes" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  echo "test: alone took $((SECONDS - started)) s" | tee -a "$log"
fi
# The ten slowest classes, where the next cut of CI time is.
awk '/^Test Suite .[A-Za-z0-9_]+. (passed|failed) at/ { name = $3; gsub(/\047/, "", name); getline
       if (match($0, /in [0-9.]+ \(/)) { t = substr($0, RSTART + 3, RLENGTH - 5); printf "%8.1f s  %s\n", t, name } }' "$log" \
  | grep -v -E ' (Selected|All) tests$|\.xctest$' | sort -rn | head -n 10 | sed 's/^/test: slowest: /' >&2 || true
exit "$status"
