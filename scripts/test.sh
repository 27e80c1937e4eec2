#!/usr/bin/env bash
# The README's test command: installs what is missing, starts a private D-Bus and a loopback-only
# avahi-daemon, builds, runs every test, fuzzes each target for a few seconds (scripts/fuzz.sh), and
# stops only the services it started.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup-deps.sh
# What waits on the network or builds on its own goes beside the Swift build (measured from a fresh
# clone: the three Python environments take about 95 s, mostly downloading): the Python packages the
# tests use (Selenium, the SARIF models, HAP-python) from PyPI into .build, and UxPlay from
# ../shared/peers. Their logs are printed only when they fail.
side_log=$(mktemp)
(
  for venv in lab sarif hap; do scripts/python-venv.sh "$venv" >/dev/null || exit 1; done
  if [ -d ../shared/peers ] || [ -n "${SEAMCHECK_PEERS_DIR:-}" ]; then scripts/services.sh uxplay-build >/dev/null || exit 1; fi
) >"$side_log" 2>&1 &
side_pid=$!

started_services=0
started_postgres=0
# Kodi (the real AirPlay receiver of the lab tests) is started and stopped by the tests themselves
# (KodiReceiver); one that a test left behind is stopped here, unless it ran before this script.
kodi_before=0
scripts/services.sh kodi-status 2>/dev/null | grep -q '(present)' && kodi_before=1
cleanup() {
  if [ "$kodi_before" = 0 ]; then scripts/services.sh kodi-stop >/dev/null 2>&1 || true; fi
  if [ "$started_services" = 1 ]; then scripts/services.sh stop || true; fi
  if [ "$started_postgres" = 1 ]; then scripts/services.sh postgres-stop || true; fi
}
trap cleanup EXIT

if scripts/services.sh status >/dev/null 2>&1; then
  echo "test: reusing the running test avahi-daemon" >&2
else
  scripts/services.sh start
  started_services=1
fi
# The PostgreSQL of the shared results store's tests (TestPostgres); one already running is reused.
if ! scripts/services.sh postgres-status >/dev/null 2>&1; then
  scripts/services.sh postgres-start
  started_postgres=1
fi
# shellcheck disable=SC1091
source .build/services/env
# Missing services (avahi, Kodi, UxPlay, PostgreSQL, Chromium) fail the tests instead of skipping them.
export SEAMCHECK_REQUIRE_SERVICES=1

swift build --build-tests 2>&1 | grep -v -- '-D_REENTRANT' || { echo "test: build failed" >&2; exit 1; }
if ! wait "$side_pid"; then
  cat "$side_log" >&2
  echo "test: setting up the Python environments or building UxPlay failed (above)" >&2
  exit 1
fi
rm -f "$side_log"
# The fuzz binary builds while the tests run (they mostly wait on media playing in real time).
fuzz_build_pid=
if [ "${SEAMCHECK_SKIP_FUZZ:-0}" != 1 ]; then
  fuzz_build_log=$(mktemp)
  nice -n 10 scripts/fuzz.sh --build-only >"$fuzz_build_log" 2>&1 &
  fuzz_build_pid=$!
fi

# The SARIF validator (pydantic-sarif, in .build/sarif-venv) the reporting tests use.
SEAMCHECK_SARIF_PYTHON=$(scripts/python-venv.sh sarif)
export SEAMCHECK_SARIF_PYTHON

log=$(mktemp)
status=0
# XCTest only (no Swift Testing tests exist), as two processes at once: the real-time receiver
# tests beside the rest (scripts/test-shards.sh).
scripts/test-shards.sh "$log" || status=1

# The install path: the built binary into a temporary prefix, its profiles and completions.
scripts/install-check.sh .build/debug/seamcheck || status=1
# A few seconds of fuzzing per target (scripts/fuzz.sh; longer runs are for people): a crash or a
# hang fails the run.
fuzz_status=0
if [ -n "$fuzz_build_pid" ]; then
  if wait "$fuzz_build_pid"; then
    scripts/fuzz.sh --jobs 2 --seconds "${SEAMCHECK_FUZZ_SECONDS:-5}" || fuzz_status=1
  else
    cat "$fuzz_build_log" >&2
    fuzz_status=1
  fi
  rm -f "$fuzz_build_log"
fi

# Stop what this run started now, so that the summary below is the last line printed.
cleanup
started_services=0
started_postgres=0

# One plain closing line for CI, from XCTest's own totals, summed over the shards: the line after
# each "Test Suite 'Selected tests' passed|failed" ("Executed 138 tests, with 1 test skipped and 0
# failures (0 unexpected) in ...").
summary=$(awk '/^Test Suite .(All|Selected) tests. (passed|failed)/ { getline; print }' "$log" | awk '
  { n = n + $2
    if (match($0, /[0-9]+ tests? skipped/)) { split(substr($0, RSTART, RLENGTH), a, " "); s = s + a[1] }
    if (match($0, /[0-9]+ failures?/)) { split(substr($0, RSTART, RLENGTH), b, " "); f = f + b[1] } }
  END { if (n > 0) printf "Executed %d tests, with %d tests skipped and %d failures (both shards)\n", n, s, f }' || true)
# The failures again, last, so that a CI log cut to its tail still says which test failed and why.
failures=$(grep -E "(: error: |^Test Case '.*' failed)" "$log" | head -n 40 || true)
# XCTest's total counts failed assertions; a test is counted once. grep -c prints 0 and exits 1
# when nothing failed: `|| true` keeps set -e from ending the script there.
failed_tests=$(grep -cE "^Test Case '.*' failed" "$log" || true)
if [ -n "$failures" ]; then
  echo "test: failures (repeated from above):"
  echo "$failures"
fi
rm -f "$log"
if [ -n "$summary" ]; then
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  failed=$(echo "$summary" | sed -E 's/.* ([0-9]+) failures? .*/\1/')
  # Failed tests rather than failed assertions, when the log names them.
  if [ "$failed" != 0 ] && [ "${failed_tests:-0}" -gt 0 ]; then failed=$failed_tests; fi
  skipped=0
  if echo "$summary" | grep -qE '[0-9]+ tests? skipped'; then
    skipped=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests? skipped.*/\1/')
  fi
  [ "$fuzz_status" = 0 ] || echo "test: fuzzing found a problem (see above)" >&2
  echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
  [ "$failed" = 0 ] && [ "$fuzz_status" = 0 ] || status=1
else
  echo "test: no XCTest summary found" >&2
  status=1
fi
exit "$status"
