#!/usr/bin/env bash
# Runs the built XCTest bundle as two processes at once (scripts/test.sh): the tests that drive a
# real receiver in real time (Kodi, UxPlay, the behaviour stand-ins at 3x, the dashboard watched in
# Chromium) and the runs that wait out a locked database mostly wait, so they run beside everything
# else instead of after it (measured: 690 s and 954 s side by side, where one process took both). Each shard is one process, so a
# receiver a suite starts once is shared by its tests as before; the shards share only what is safe
# to share (the test avahi-daemon, PostgreSQL with a database per test, the media cache, written
# by rename).
#
#   scripts/test-shards.sh LOG      both shards; their output goes to LOG (the receivers' shard
#                                   after the other's), and to stdout as each shard ends
#   SEAMCHECK_TEST_SHARDS=1         one process, every test (as `swift test` runs them)
#   SEAMCHECK_REALTIME_TESTS=REGEX  the classes of the real-time shard (default below)
#   SEAMCHECK_TEST_CLASSES=REGEX    only the classes (Module.Class) that match
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log=${1:?usage: scripts/test-shards.sh LOG}
bundle=$(ls -d .build/debug/*PackageTests.xctest 2>/dev/null | head -n 1)
[ -x "$bundle" ] || { echo "test: no test bundle under .build/debug (swift build --build-tests first)" >&2; exit 1; }
realtime=${SEAMCHECK_REALTIME_TESTS:-'Kodi|UxPlay|Fcup|BehaviourRunTests|BehaviourReceiverSelfTests|NothingLostTests|LabDashboardBrowserTests'}

if [ "${SEAMCHECK_TEST_SHARDS:-2}" = 1 ]; then
  "$bundle" 2>&1 | tee "$log"
  exit "${PIPESTATUS[0]}"
fi

# Test classes (Module.Class), split by the regex.
classes=$("$bundle" --list-tests | grep -E '^[A-Za-z]+Tests\.[A-Za-z0-9_]+/' | sed 's#/.*##' | sort -u \
  | grep -E "${SEAMCHECK_TEST_CLASSES:-.}")
slow=$(echo "$classes" | grep -E "$realtime" | paste -sd, -)
rest=$(echo "$classes" | grep -vE "$realtime" | paste -sd, -)
[ -n "$rest" ] || { echo "test: no test classes listed by $bundle" >&2; exit 1; }

slow_log=$(mktemp)
slow_status=0
slow_pid=
if [ -n "$slow" ]; then
  "$bundle" "$slow" >"$slow_log" 2>&1 &
  slow_pid=$!
fi
"$bundle" "$rest" 2>&1 | tee "$log"
rest_status=${PIPESTATUS[0]}
if [ -n "$slow_pid" ]; then
  echo "test: waiting for the real-time shard ($(echo "$slow" | tr ',' '\n' | wc -l) classes)" >&2
  wait "$slow_pid" || slow_status=$?
  cat "$slow_log" | tee -a "$log"
fi
rm -f "$slow_log"
# The ten slowest classes with their shard's wall time, where the next cut of CI time is.
awk '/^Test Suite .[A-Za-z0-9_]+. (passed|failed) at/ { name = $3; gsub(/\047/, "", name); getline
       if (match($0, /in [0-9.]+ \(/)) { t = substr($0, RSTART + 3, RLENGTH - 5); printf "%8.1f s  %s\n", t, name } }' "$log" \
  | grep -v -E ' (Selected|All) tests$|\.xctest$' | sort -rn | head -n 10 | sed 's/^/test: slowest: /' >&2 || true
[ "$rest_status" = 0 ] && [ "$slow_status" = 0 ]
