#!/usr/bin/env bash
# The README's test command: install everything into ./.venv (scripts/setup.sh), then run the whole
# pytest suite, slow end-to-end tests included, on every core (pytest-xdist; SCENEBENCH_TEST_WORKERS
# overrides, 0 runs in one process), printing the 20 slowest tests. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 RAY_USAGE_STATS_ENABLED=0
# --dist loadgroup: tests marked xdist_group share one worker (module fixtures that hold a server)
exec .venv/bin/python -m pytest -q -n "${SCENEBENCH_TEST_WORKERS:-auto}" --dist loadgroup --durations=20 "$@"
