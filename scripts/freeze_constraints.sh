#!/usr/bin/env bash
# Write scripts/constraints.txt from the current .venv, after the whole suite passed in it.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  head -3 scripts/constraints.txt
  .venv/bin/python -m pip freeze --exclude-editable | grep -v -e '^-e' -e ' @ '
} > scripts/constraints.txt.new
mv scripts/constraints.txt.new scripts/constraints.txt
