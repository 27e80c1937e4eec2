#!/usr/bin/env bash
# HAP-python from PyPI into .build/hap-venv: a real HAP accessory (the accessory side of pair-setup,
# pair-verify and the encrypted channel) for the AirPlay pairing tests. Idempotent: a venv that
# already has the pinned version installs nothing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

hap_version="5.2.0"
venv=".build/hap-venv"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" - "$hap_version" <<'PY' 2>/dev/null
import importlib.metadata, sys
sys.exit(0 if importlib.metadata.version("HAP-python") == sys.argv[1] else 1)
PY
then
  exit 0
fi
echo "hap-venv: installing HAP-python==$hap_version from PyPI into $venv" >&2
mkdir -p .build
python3 -m venv "$venv" >&2 || { echo "hap-venv: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
"$venv/bin/pip" install --quiet --disable-pip-version-check "HAP-python==$hap_version" >&2
