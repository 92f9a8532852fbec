"""The documented example plugin (docs/examples) runs through the real CLI, resumes, and scores."""

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from scenebench.cli import build_app

app = build_app()

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def test_example_plugin_through_the_cli(b3d_dir, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    args = [
        "run",
        "3dbench",
        "--data",
        str(b3d_dir),
        "--model",
        "plugin:scenebench_example_model:LargestObjectModel",
        "--model-arg",
        "min_size=0.3",
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    res = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "18 new, 0 reused" in res.output and "visual_grounding" in res.output
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["model_options"] == {"seed": 0, "min_size": 0.3} and meta["model_settings"] == {"min_size": 0.3, "version": 1}
    answers = [json.loads(x) for x in (tmp_path / "run" / "answers.jsonl").read_text().splitlines()]
    assert {a["task"] for a in answers} >= {"counting", "detection", "navigation"}
    # it answers (it declares the ground-truth perception it reads; before, 18 of 18 answers were empty)
    empty = [a["task"] for a in answers if not a["text"]]
    assert len(empty) == 2 and set(empty) == {"classification"}  # object clouds have no object list
    assert "the model abstained on 2 of 18 samples" in res.output and "read ground-truth annotation" in res.output
    assert meta["ground_truth_perception"] is True
    again = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert again.exit_code == 0 and "0 new, 18 reused" in again.output
    other = CliRunner().invoke(app, args[:-4] + ["min_size=0.5", "--out", str(tmp_path / "run"), "--no-progress"])
    assert other.exit_code != 0 and "other inputs or settings" in str(other.exception or other.output)
    sys.modules.pop("scenebench_example_model", None)


def test_example_plugin_refuses_a_misspelled_option(b3d_dir, tmp_path, monkeypatch, capsys):
    import pytest

    from scenebench.cli import main

    monkeypatch.syspath_prepend(str(EXAMPLES))
    args = ["run", "3dbench", "--data", str(b3d_dir), "--model", "plugin:scenebench_example_model:LargestObjectModel"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "--model-arg", "min_sise=0.3", "--out", str(tmp_path / "run"), "--no-progress"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("error:") and len(err.strip().splitlines()) == 1
    assert "takes no option 'min_sise'" in err and "accepted: seed, min_size" in err
    assert not (tmp_path / "run" / "answers.jsonl").exists()
    sys.modules.pop("scenebench_example_model", None)
