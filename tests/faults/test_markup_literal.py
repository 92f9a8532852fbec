"""Issue 15, item 4: user text (paths, question types, labels) is printed literally, never read as
Rich markup (``[exp1]`` vanished; ``[/x]`` crashed with MarkupError). Through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from fixtures import make_surprise3d


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "250"},
    )


def test_a_path_with_brackets_in_an_error_is_printed_as_is(tmp_path):
    missing = tmp_path / "runs" / "[exp1]" / "answers.jsonl"
    p = cli("validate", "surprise3d", "--annotations", missing)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "[exp1]" in p.stderr and "MarkupError" not in p.stderr, p.stderr


def test_question_type_and_compare_label_with_closing_tags(tmp_path):
    data = make_surprise3d(tmp_path / "s3d")
    ann = data / "surprise-3d-val.json"
    doc = json.loads(ann.read_text())
    for rec in doc:
        if rec.get("question_type") == "cs":
            rec["question_type"] = "cs[/x]"
    ann.write_text(json.dumps(doc))
    runs = []
    for model in ("oracle", "random"):
        run = tmp_path / f"run-{model}"
        p = cli("run", "surprise3d", "--data", data, "--model", model, "--out", run, "--no-progress")
        assert p.returncode == 0, (p.stdout, p.stderr)
        assert "cs[/x]" in p.stdout, p.stdout  # the per-type table row
        runs.append(run)
    p = cli("compare", *runs, "--label", "exp[/1]", "--label", "[bold]b[/bold]", "--resamples", "100")
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "exp[/1]" in p.stdout and "[bold]b[/bold]" in p.stdout and "cs[/x]" in p.stdout
