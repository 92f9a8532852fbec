"""``scenebench run`` through the real CLI entry point: tables, resume, bad input as one clear line."""

import json
import subprocess
import sys

from fixtures import make_surprise3d
from typer.testing import CliRunner

from scenebench.cli import build_app

app = build_app()
from scenebench.runtime.execute import parse_model_args


def test_parse_model_args():
    assert parse_model_args(["a=1", "b=x", "c=[1, 2]", "d=true"]) == {"a": 1, "b": "x", "c": [1, 2], "d": True}


def test_run_surprise3d_prints_the_table_and_resumes(tmp_path):
    data = make_surprise3d(tmp_path / "s3d")
    args = ["run", "surprise3d", "--data", str(data), "--model", "oracle", "--out", str(tmp_path / "run"), "--no-progress"]
    res = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "6 new, 0 reused" in res.output and "mIoU" in res.output and "100.00" in res.output
    assert (tmp_path / "run" / "surprise3d_predictions.jsonl").exists()
    res = CliRunner().invoke(app, [*args, "--protocol", "official"], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "0 new, 6 reused" in res.output and "protocol: official" in res.output
    assert json.loads((tmp_path / "run" / "results.json").read_text())["protocol"] == "official"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "scenebench", *args], capture_output=True, text=True, timeout=120)


def test_bad_inputs_are_one_clear_line(tmp_path):
    data = make_surprise3d(tmp_path / "s3d")
    base = ["run", "surprise3d", "--data", str(data), "--out", str(tmp_path / "r"), "--no-progress"]
    for extra, expect in [
        (["--model", "baseline:prio"], "did you mean baseline:prior"),
        (["--model", "random", "--tasks", "nope"], "tasks present: cs, hi, rel_pos"),
        (["--model", "random", "--model-arg", "novalue"], "KEY=VALUE"),
        (["--model", "random", "--backend", "spark"], "local or ray"),
        (["--model", "openai:x"], "needs --base-url"),
    ]:
        p = _cli(*base, *extra)
        assert p.returncode == 2, (extra, p.stdout, p.stderr)
        assert expect in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = _cli("run", "3dbench", "--data", str(tmp_path / "missing"), "--model", "oracle", "--no-progress")
    assert p.returncode == 2 and "does not exist" in p.stderr
    p = _cli("run", "surprise3d", "--data", str(data), "--model", "oracle", "--limit")  # a usage error, not a traceback
    assert p.returncode == 2 and "requires an argument" in p.stderr and "Traceback" not in p.stderr
