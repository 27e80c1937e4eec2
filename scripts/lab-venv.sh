#!/usr/bin/env bash
# The Python packages the lab page test drives Chromium with, from PyPI into .build/lab-venv.
# Idempotent: a venv that already imports the pinned Selenium installs nothing. Selenium is
# given Debian's chromedriver (scripts/setup-deps.sh), so it never downloads a driver or browser.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

selenium_version="4.38.0"
venv=".build/lab-venv"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" - "$selenium_version" <<'PY' 2>/dev/null
import importlib.metadata, sys
sys.exit(0 if importlib.metadata.version("selenium") == sys.argv[1] else 1)
PY
then
  exit 0
fi
echo "lab-venv: installing selenium==$selenium_version from PyPI into $venv" >&2
mkdir -p .build
python3 -m venv "$venv" >&2 || { echo "lab-venv: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
"$venv/bin/pip" install --quiet --disable-pip-version-check "selenium==$selenium_version" >&2
