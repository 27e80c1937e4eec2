"""Validates SARIF 2.1.0 logs: pydantic-sarif's schema models (generated from the OASIS
sarif-schema-2.1.0.json), plus what generated models drop: URI syntax (RFC 3986) of every
artifactLocation.uri and informationUri, unique rule ids, and a result's ruleIndex naming its ruleId.

    python scripts/sarif-validate.py FILE...   (run with `scripts/python-venv.sh sarif`'s python)

Prints "FILE: valid" or each problem, and exits 1 when any file is invalid.
"""
import json
import re
import sys

from pydantic import ValidationError
from pydantic_sarif.model import StaticAnalysisResultsFormatSarifVersion210JsonSchema as SarifLog

# RFC 3986 URI-reference characters: unreserved, reserved and percent-encodings only.
URI_CHARS = re.compile(r"^([A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")


def extra_problems(log):
    problems = []
    for r, run in enumerate(log.get("runs", [])):
        driver = run.get("tool", {}).get("driver", {})
        rules = driver.get("rules", [])
        ids = [rule.get("id") for rule in rules]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            problems.append(f"runs[{r}].tool.driver.rules: duplicate ids {duplicates}")
        uris = [("tool.driver.informationUri", driver.get("informationUri"))]
        uris += [(f"originalUriBaseIds.{k}.uri", v.get("uri")) for k, v in run.get("originalUriBaseIds", {}).items()]
        for n, result in enumerate(run.get("results", [])):
            index = result.get("ruleIndex")
            if index is not None and (index >= len(rules) or rules[index].get("id") != result.get("ruleId")):
                problems.append(f"runs[{r}].results[{n}].ruleIndex {index} does not name ruleId {result.get('ruleId')}")
            for m, location in enumerate(result.get("locations", [])):
                artifact = location.get("physicalLocation", {}).get("artifactLocation", {})
                uris.append((f"results[{n}].locations[{m}].physicalLocation.artifactLocation.uri", artifact.get("uri")))
        for where, uri in uris:
            if uri is not None and not URI_CHARS.match(uri):
                problems.append(f"runs[{r}].{where}: not a URI reference: {uri!r}")
    return problems


def main(paths):
    invalid = False
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        problems = []
        try:
            SarifLog.model_validate_json(text)
        except ValidationError as error:
            problems += [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()]
        try:
            problems += extra_problems(json.loads(text))
        except ValueError as error:
            problems.append(f"not JSON: {error}")
        if problems:
            invalid = True
            print(f"{path}: invalid")
            for problem in problems:
                print(f"  {problem}")
        else:
            print(f"{path}: valid")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
