"""Issue 15, item 6: a lone surrogate (``"\\ud800"``: valid JSON, not encodable text) is refused where it
is read, naming the file, record and key, instead of a UnicodeEncodeError later (validate, score, report)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from fixtures import make_bench3d, make_surprise3d

from scenebench.errors import InputError
from scenebench.io.files import iter_jsonl, read_json


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "250"},
    )


def test_readers_name_the_key(tmp_path):
    f = tmp_path / "a.json"
    f.write_text('[{"ok": "caf\\u00e9 \\ud83d\\ude00", "bad": "x\\ud800y"}]')  # a real pair is fine, a lone half is not
    with pytest.raises(InputError, match=r"at \$\[0\]\.bad.*lone surrogate \\ud800"):
        read_json(f)
    f.write_text('{"k\\udfff": 1}')
    with pytest.raises(InputError, match="key"):
        read_json(f)
    g = tmp_path / "a.jsonl"
    g.write_text('{"t": "fine \\ud83d\\ude00"}\n{"t": ["a", "\\ud800"]}\n')
    with pytest.raises(InputError, match=r"line 2, at \$\.t\[1\]"):
        list(iter_jsonl(g))


def test_surprise3d_validate_and_score_refuse_clearly(tmp_path):
    data = make_surprise3d(tmp_path / "s3d")
    ann = data / "surprise-3d-val.json"
    doc = json.loads(ann.read_text())
    doc[0]["description"] += "\ud800"
    ann.write_text(json.dumps(doc))  # json.dumps writes the lone surrogate as the escape \ud800
    p = cli("validate", "surprise3d", "--annotations", ann, "--scenes", data / "scenes")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "surprise-3d-val.json" in p.stderr and "$[0].description" in p.stderr and "surrogate" in p.stderr
    pred = tmp_path / "p.jsonl"
    pred.write_text('{"sample_id": "x", "mask_indices": [0]}\n')
    p = cli("score", "surprise3d", "-a", ann, "-s", data / "scenes", "-p", pred, "--out", tmp_path / "run", "--no-progress")
    assert p.returncode == 2 and "surrogate" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_3dbench_answer_with_a_lone_surrogate_is_refused_before_scoring(tmp_path):
    data = make_bench3d(tmp_path / "b3d", with_train=False)
    ids = [
        (r["question_id"], t)
        for t, f in (("counting", "Counting.json"), ("classification", "Classification.json"))
        for r in json.loads((data / f).read_text())
    ]
    answers = tmp_path / "answers.jsonl"
    rows = [{"question_id": q, "task": t, "text": "A"} for q, t in ids]
    rows[1]["text"] = "B \ud800"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = cli("score", "3dbench", "--data", data, "--predictions", answers, "--tasks", "counting,classification", "--out", tmp_path / "run")
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "answers.jsonl" in p.stderr and "line 2" in p.stderr and "surrogate" in p.stderr, p.stderr
