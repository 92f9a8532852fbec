#!/usr/bin/env bash
# The README's test command: install everything into ./.venv (scripts/setup.sh), then run the whole
# pytest suite, slow end-to-end tests included. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 RAY_USAGE_STATS_ENABLED=0
exec .venv/bin/python -m pytest -q "$@"
