#!/usr/bin/env bash
# Static checks CI runs before the tests (tools installed by scripts/setup.sh, versions pinned in
# the `test` extra): ruff lint and format, mypy (strict on metrics, io, geometry, runtime) and the
# import-layer contracts. The same checks run as local pre-commit hooks (.pre-commit-config.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== ruff check";        .venv/bin/ruff check src tests benchmarks fuzz scripts docs/examples
echo "== ruff format";       .venv/bin/ruff format --check src tests benchmarks fuzz scripts docs/examples
echo "== mypy";              .venv/bin/mypy
echo "== import contracts";  .venv/bin/lint-imports
