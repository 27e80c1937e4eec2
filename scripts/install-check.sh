#!/usr/bin/env bash
# The install path as CI exercises it, quickly: scripts/install.sh with the debug binary (the
# release static build is `make install`'s, minutes on 2 cores) into a temporary prefix, then
# the installed binary must run outside the checkout, find its profiles under the prefix, and
# have bash, zsh and fish completions that name its commands.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
binary="${1:-.build/debug/seamcheck}"
prefix=$(mktemp -d)
away=$(mktemp -d)
trap 'rm -rf "$prefix" "$away"' EXIT
fail() { echo "install-check: $*" >&2; exit 1; }

scripts/install.sh --prefix "$prefix" --binary "$binary" 2>/dev/null || fail "scripts/install.sh failed"
profiles=$(cd "$away" && env -u SEAMCHECK_PROFILES_DIR "$prefix/bin/seamcheck" profiles list 2>&1) || fail "profiles list failed: $profiles"
echo "$profiles" | grep -q "smart-tv-low-end" || fail "the installed binary did not find its profiles: $profiles"
[ -s "$prefix/share/seamcheck/DeviceProfiles/lab/measurement.yaml" ] || fail "the lab's measurement thresholds were not installed (DeviceProfiles/lab/measurement.yaml)"
grep -q "config" "$prefix/share/bash-completion/completions/seamcheck" || fail "bash completion lacks the config command"
grep -q "_seamcheck" "$prefix/share/zsh/site-functions/_seamcheck" || fail "zsh completion is not a _seamcheck function"
grep -q "complete -c .seamcheck" "$prefix/share/fish/vendor_completions.d/seamcheck.fish" || fail "fish completion is missing"
bash -c "source '$prefix/share/bash-completion/completions/seamcheck'" || fail "the bash completion does not load"
echo "install-check: ok (binary, profiles under share/seamcheck, bash/zsh/fish completions)"
