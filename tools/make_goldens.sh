#!/usr/bin/env bash
# Development tool (not part of the test suite): regenerate tests/goldens/ from the reference renderer.
#
# Renders every templates/*.jinja x tests/contexts/*.json with Jinja2 configured as transformers'
# apply_chat_template configures it (the oracle's make_goldens.py, strftime_now frozen at 2026-01-15 09:05:03)
# and replaces tests/goldens/ with the result: <template>__<context>.txt (the output, byte for byte) or .error
# ("<ExceptionClass>: <message>"), plus index.json. Needs jinja2; review `git diff tests/goldens` afterwards.
#
#   tools/make_goldens.sh                      # oracle at ../shared/oracle (relative to the repository root)
#   ORACLE=/path/to/oracle tools/make_goldens.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
oracle="${ORACLE:-$root/../shared/oracle}"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# make_goldens.py reads CORPUS/templates and CORPUS/contexts and writes CORPUS/goldens
mkdir "$work/templates" "$work/contexts"
cp "$root"/templates/*.jinja "$work/templates/"
cp "$root"/tests/contexts/*.json "$work/contexts/"
"$python" "$oracle/make_goldens.py" "$work"
rm -rf "$root/tests/goldens"
cp -r "$work/goldens" "$root/tests/goldens"
echo "wrote $(ls "$root/tests/goldens" | wc -l) files to tests/goldens"
