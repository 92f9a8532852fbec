#!/usr/bin/env bash
# Install scenebench into ./.venv (core + the ray-casting extra) and run the built-in demo:
# synthetic houses -> all three benchmarks -> baselines -> comparison table and HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[render]"
exec .venv/bin/scenebench demo "$@"
