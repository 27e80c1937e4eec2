#!/usr/bin/env bash
# Builds the release seamcheck the benchmarks run and prints its path: `.build-release`, with the
# Swift runtime and Foundation linked statically (`--static-swift-stdlib`, as `make install`
# builds it). Dynamically linked, a process spends ~8 ms of a 15 ms start-up loading and
# relocating libswiftCore, Foundation and ICU (docs/benchmarks.md, issue 36). Every script that
# builds `.build-release` builds it here: a build with other flags recompiles every module.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
flags=(-c release --static-swift-stdlib --scratch-path .build-release)
status=0
swift build "${flags[@]}" --product seamcheck > >(grep -v -- '-D_REENTRANT' >&2) 2>&1 || status=$?
[ "$status" -eq 0 ] || { echo "release-build: swift build failed (exit $status)" >&2; exit 1; }
bin="$(swift build "${flags[@]}" --show-bin-path)/seamcheck"
echo "$bin"
