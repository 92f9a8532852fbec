"""Intervals from fewer than 10 scenes are not shown as evidence (issue 41): `score`/`run` print the
value marked, the Markdown and LaTeX tables mark the cell and say why, the HTML report leaves the
interval out with a warning; results.json keeps the interval and records the scene counts.
Before: `100.00 [100.00, 100.00]` from 2 scenes, while `compare` refuses them under 10 scenes."""

from __future__ import annotations

import io

import pytest
from fixtures import make_surprise3d
from rich.console import Console

import scenebench
from scenebench.report.console import print_results
from scenebench.report.html import evidence_intervals
from scenebench.report.runs import load_run
from scenebench.report.tables import tables_by_benchmark, to_latex, to_markdown
from scenebench.results import MIN_CI_SCENES, Results


@pytest.fixture(scope="module")
def two_scene_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("few")
    data = make_surprise3d(root / "s3d")  # 2 scenes, 3 questions each
    scenebench.run("surprise3d", "oracle", data=data, out=root / "run")
    return root / "run"


def test_results_record_the_scenes_behind_each_block(two_scene_run):
    res = Results.load(two_scene_run)
    assert res.extra["n_scenes"]["overall"] == 2 < MIN_CI_SCENES
    assert set(res.extra["n_scenes"]["by_question_type"]) == set(res.metrics["by_question_type"])
    assert res.confidence_intervals.overall["mIoU"] == [100.0, 100.0]  # kept in the data
    assert not res.ci_is_evidence() and res.scene_count() == 2


def test_the_console_summary_marks_the_value_and_prints_no_interval(two_scene_run):
    buf = io.StringIO()
    print_results(Results.load(two_scene_run), console=Console(file=buf, width=200))
    out = buf.getvalue()
    assert "[100.00, 100.00]" not in out and "100.00 †" in out
    assert "† no interval: fewer than 10 scenes (overall: 2 scenes)" in out


def test_markdown_latex_and_html_leave_the_interval_out_and_say_why(two_scene_run):
    run = load_run(two_scene_run)
    tables = tables_by_benchmark([run])
    md = to_markdown(tables, ci=True)
    assert "[100.0, 100.0]" not in md and "100.0 †" in md and "no interval: fewer than 10 scenes (overall: 2 scenes)" in md
    tex = to_latex(tables, ci=True)
    assert "scriptsize[" not in tex and "$^\\dagger$" in tex and "fewer than 10 scenes" in tex
    ci = evidence_intervals(run.results)
    assert ci["overall"] == {} and all(b == {} for b in ci["by_question_type"].values())
