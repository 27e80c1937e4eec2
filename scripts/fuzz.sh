#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer through Swift's -sanitize=fuzzer) of the playlist parser and
# schedule, the asset-list decoder, URI resolution and the spec linter.
#
#   scripts/fuzz.sh                       every target for 10 s each
#   scripts/fuzz.sh --seconds 600 lint    one target for 10 minutes
#   scripts/fuzz.sh --jobs 2 ...          targets side by side (one core each)
#   scripts/fuzz.sh --build-only          build the fuzz binary and stop (scripts/test.sh builds
#                                         it while the tests run)
#
# The fuzz package (Fuzz/) builds in .build-fuzz, apart from the main build. Each target starts
# from the committed seeds (Fuzz/Corpus/TARGET) plus what earlier runs found
# (.build-fuzz/corpus/TARGET), with the dictionary Fuzz/seamcheck.dict. A crash, a hang
# (-timeout) or a slow input stops that target with its input saved under
# .build-fuzz/artifacts/TARGET/; reproduce it with
#   SEAMCHECK_FUZZ_TARGET=TARGET .build-fuzz/debug/seamcheck-fuzz FILE
# and turn it into a regression test. Exit status: 0 when every target ran clean.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=10
jobs=1
build_only=0
targets=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    parser|asset-list|uri|lint) targets+=("$1"); shift ;;
    *) echo "fuzz: unknown argument $1 (targets: parser, asset-list, uri, lint)" >&2; exit 2 ;;
  esac
done
[ "${#targets[@]}" -gt 0 ] || targets=(parser asset-list uri lint)

scratch="$PWD/.build-fuzz"
echo "fuzz: building Fuzz/ with -sanitize=fuzzer ($scratch)" >&2
(cd Fuzz && swift build --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer 2>&1 | grep -v -- '-D_REENTRANT' >&2) \
  || { echo "fuzz: build failed" >&2; exit 1; }
binary="$(cd Fuzz && swift build --scratch-path "$scratch" --show-bin-path)/seamcheck-fuzz"
[ "$build_only" = 0 ] || exit 0

run_target() { # target -> a summary line on stdout; status 1 when it found something
  local target="$1" corpus="$scratch/corpus/$1" artifacts="$scratch/artifacts/$1/" log="$scratch/logs/$1.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  local status=0
  # -timeout: one input taking 10 s is a hang; -report_slow_units: 2 s is reported as slow.
  SEAMCHECK_FUZZ_TARGET="$target" "$binary" "$corpus" "Fuzz/Corpus/$target" \
    -dict=Fuzz/seamcheck.dict -max_total_time="$seconds" -timeout=10 -report_slow_units=2 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1 || status=$?
  local runs cov slow
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1 || true)
  slow=$(grep -c 'Slowest unit' "$log" || true)
  echo "$target: ${runs:-?} runs in ${seconds} s, ${cov:-cov: ?}, corpus $(find "$corpus" -type f | wc -l) files, slow units $slow, exit $status"
  if [ "$status" != 0 ]; then
    grep -E 'ERROR|==[0-9]+==|Fatal error|Test unit written' "$log" | head -n 5 >&2 || true
    echo "$target: see $log" >&2
    return 1
  fi
}

failed=0
# In batches of $jobs targets side by side.
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  pids=()
  for target in "${targets[@]:i:jobs}"; do
    run_target "$target" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
done
exit "$failed"
