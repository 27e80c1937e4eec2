#!/usr/bin/env bash
# The Python packages the tests use, from PyPI, each set in its own venv under .build/NAME-venv,
# pinned here and nowhere else. Prints the venv's python. Idempotent: a venv whose recorded
# requirements equal these installs nothing.
#   lab    Selenium, driving Debian's Chromium and chromedriver (the lab page and report tests);
#          it is given that chromedriver, so it never downloads a driver or browser
#   sarif  pydantic-sarif: models generated from the OASIS sarif-schema-2.1.0.json (unknown keys,
#          enums, required keys, minimums, GUID patterns); scripts/sarif-validate.py adds the two
#          checks generated models lose (uniqueItems, "format": "uri")
#   hap    HAP-python: a real HAP accessory (pair-setup, pair-verify, the encrypted channel) for the
#          AirPlay pairing tests
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

name=${1:?usage: scripts/python-venv.sh lab|sarif|hap}
case "$name" in
  lab) requirements=("selenium==4.38.0") ;;
  sarif) requirements=("pydantic-sarif==0.1.1" "pydantic>=2.1.1,<3") ;;
  hap) requirements=("HAP-python==5.2.0") ;;
  *) echo "python-venv: unknown venv '$name' (lab, sarif or hap)" >&2; exit 2 ;;
esac
venv=".build/$name-venv"
stamp="$venv/seamcheck-requirements.txt"
wanted=$(printf '%s\n' "${requirements[@]}")
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "python-venv: installing ${requirements[*]} from PyPI into $venv" >&2
  mkdir -p .build
  python3 -m venv "$venv" >&2 || { echo "python-venv: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}" >&2
  echo "$wanted" > "$stamp"
fi
echo "$PWD/$venv/bin/python"
