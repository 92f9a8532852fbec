"""Issue 15, item 8: the smaller reliability items, each with a test that fails without its fix.
(``SCENE_ID_RE`` is in test_path_ids.py, the stale report.html in test_stale_runs.py.)"""

from __future__ import annotations

import ast
import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "models"))
from fixtures import make_bench3d, make_rio


def cli(*args, env=None, preexec_fn=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "250", **(env or {})},
        preexec_fn=preexec_fn,
    )


def test_circular_refuses_question_ids_holding_rot(tmp_path):
    data = make_bench3d(tmp_path / "b3d", with_train=False)
    f = data / "Counting.json"
    recs = json.loads(f.read_text())
    recs[0]["question_id"] = "X#rot0"
    f.write_text(json.dumps(recs))
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"question_id": "X#rot0", "task": "counting", "text": "A"}) + "\n")
    p = cli("score", "3dbench", "--data", data, "--predictions", answers, "--tasks", "counting", "--circular", "--out", tmp_path / "run")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Counting.json" in p.stderr and "'X#rot0'" in p.stderr and "field 'question_id'" in p.stderr, p.stderr


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_atomic_writes_honour_the_umask(tmp_path, umask, mode):
    from scenebench.io.files import atomic_write_json

    old = os.umask(umask)
    try:
        atomic_write_json(tmp_path / "x.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "x.json").stat().st_mode) == mode


def test_run_folder_files_are_0644_under_umask_022(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"rescan": "scan0", "instance": 1, "pose": np.eye(4).tolist()}) + "\n")
    p = cli(
        "score",
        "rio",
        "--data",
        data,
        "--predictions",
        pred,
        "--out",
        tmp_path / "run",
        "--bootstrap",
        "0",
        "--no-progress",
        preexec_fn=lambda: os.umask(0o022),
    )
    assert p.returncode == 0, p.stderr
    for name in ("run.json", "results.json"):
        assert stat.S_IMODE((tmp_path / "run" / name).stat().st_mode) == 0o644, name


def test_rio_translation_of_1e300_is_a_miss_without_a_numpy_warning(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    pred = tmp_path / "p.jsonl"
    T = np.eye(4)
    T[0, 3] = 1e300
    pred.write_text("".join(json.dumps({"rescan": "scan0", "instance": i, "pose": T.tolist()}) + "\n" for i in (1, 2, 3)))
    p = cli(
        "score",
        "rio",
        "--data",
        data,
        "--predictions",
        pred,
        "--out",
        tmp_path / "run",
        "--bootstrap",
        "20",
        "--no-progress",
        env={"PYTHONWARNINGS": "error::RuntimeWarning"},
    )
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "RuntimeWarning" not in p.stderr and "overflow" not in p.stderr
    res = json.loads((tmp_path / "run" / "results.json").read_text())
    assert res["counts"]["n_scored"] == 2


def test_translation_error_is_exact_for_huge_values():
    from scenebench.metrics.pose import centroid_translation_error, translation_error

    assert translation_error(np.array([3e300, 4e300, 0.0]), np.zeros(3)) == pytest.approx(5e300)
    assert translation_error(np.array([3.0, 4.0, 0.0]), np.zeros(3)) == 5.0
    assert translation_error(np.zeros(3), np.zeros(3)) == 0.0
    assert translation_error(np.array([np.inf, 0.0, 0.0]), np.zeros(3)) == np.inf
    T = np.eye(4)
    T[:3, 3] = [1e300, 0, 0]
    assert centroid_translation_error(T, np.eye(4), np.ones(3)) == pytest.approx(1e300)


def test_redact_url():
    from scenebench.redact import redact_options, redact_url

    assert redact_url("https://u:p@h.example:8443/v1?x=1") == "https://u:***@h.example:8443/v1?x=1"
    assert redact_url("http://h/v1") == "http://h/v1"
    assert redact_options({"base_url": "http://a:b@h/v1", "api_key": "sk-1", "temperature": 0, "max_tokens": 24}) == {
        "base_url": "http://a:***@h/v1",
        "api_key": "***",
        "temperature": 0,
        "max_tokens": 24,
    }


def test_every_missing_extra_message_names_a_real_extra():
    """``require(module, extra)`` calls name an extra of pyproject.toml (or ``core``); the message says
    ``pip install 'scenebench[EXTRA]'`` for an extra and never offers a ``scenebench[core]`` that does not exist."""
    from scenebench.errors import MissingExtraError

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    calls = []
    for f in (ROOT / "src" / "scenebench").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("require", "MissingExtraError"):
                args = [a.value for a in node.args[:2] if isinstance(a, ast.Constant)]
                if len(args) == 2:
                    calls.append((f.name, *args))
    assert len(calls) >= 10
    for fname, module, extra in calls:
        assert extra in extras or extra == "core", (fname, module, extra)
        msg = str(MissingExtraError(module, extra))
        if extra == "core":
            assert "scenebench[" not in msg and "core dependency" in msg
        else:
            assert f"pip install 'scenebench[{extra}]'" in msg


def test_redact_argv():
    from scenebench.redact import redact_argv

    assert redact_argv(
        [
            "scenebench",
            "run",
            "--base-url",
            "http://a:pw@h/v1",
            "--api-key",
            "sk-1",
            "--token=t",
            "--judge-base-url=http://b:q@h/v1",
            "--max-tokens",
            "24",
        ]
    ) == [
        "scenebench",
        "run",
        "--base-url",
        "http://a:***@h/v1",
        "--api-key",
        "***",
        "--token=***",
        "--judge-base-url=http://b:***@h/v1",
        "--max-tokens",
        "24",
    ]
