#!/usr/bin/env bash
# Core-only install (no extras) with the OLDEST and the NEWEST typer that pyproject's pin allows
# (floor and cap are read from pyproject.toml), each in a fresh venv, then the CLI-level tests: usage errors as one line with exit
# code 2, --help, Ctrl-C (exit 130, resume), unexpected errors (one line + traceback log), a busy run
# folder. typer >= 0.2x vendors click and does not install it: the CLI must not need `import click`.
#
#   scripts/ci_core.sh            # both typer versions
#   KEEP=1 scripts/ci_core.sh     # keep the venvs (in $CORE_VENVS, default a temp dir) for a rerun
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# The pin's floor, e.g. 0.15.4 from "typer>=0.15.4,<1". (typer 0.12.0-0.15.3 declare click>=8.0 but fail
# to start with click >= 8.2, "Secondary flag is not valid for non-boolean flag"; 0.15.4 caps click.)
OLDEST_TYPER=${OLDEST_TYPER:-$(sed -n 's/^ *"typer>=\([0-9.]*\),.*/\1/p' pyproject.toml)}
[ -n "$OLDEST_TYPER" ] || { echo "cannot read typer's floor from pyproject.toml" >&2; exit 1; }
TYPER_CAP=$(sed -n 's/^ *"typer>=[0-9.]*,<\([0-9.]*\)".*/\1/p' pyproject.toml)
[ -n "$TYPER_CAP" ] || { echo "cannot read typer's cap from pyproject.toml" >&2; exit 1; }
TESTS=(tests/core/test_cli_light.py tests/core/test_cli_errors.py)
ROOT=${CORE_VENVS:-$(mktemp -d "${TMPDIR:-/tmp}/scenebench-core.XXXXXX")}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$ROOT"' EXIT

run_one() {  # $1: label, $2: typer requirement
  local venv="$ROOT/$1"
  echo "== core-only venv with $2 ($venv)"
  [ -x "$venv/bin/python" ] || "$PY" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -e . "$2" "pytest>=8,<10" "pytest-timeout>=2.3"
  "$venv/bin/python" - <<'PY'
import importlib.metadata as md, importlib.util as u
print("typer", md.version("typer"), "| click installed:", u.find_spec("click") is not None)
heavy = [m for m in ("torch", "open3d", "ray", "openai", "xllamacpp", "trimesh", "playwright") if u.find_spec(m)]
assert not heavy, f"not a core-only venv: {heavy}"
PY
  # -p no:cacheprovider: the worktree may be read-only to CI.
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "${TESTS[@]}"
}

run_one oldest "typer==$OLDEST_TYPER"
run_one newest "typer>=$OLDEST_TYPER,<$TYPER_CAP"
echo "core-only CLI tests passed with typer $OLDEST_TYPER and the newest typer < $TYPER_CAP"
