"""Judged numbers name their judge everywhere they are shown (issue 27 item 3): Markdown, LaTeX,
the HTML report's first screen, the console and results.json; the bundled judge's warning too."""

import io
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console
from tests.bench3d.fixtures import make_bench
from tests.bench3d.test_scorer import FakeJudge, write_answers

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.benchmarks.bench3d.report import print_3dbench
from scenebench.judges.naming import judge_identity
from scenebench.report.html import build_payload
from scenebench.report.runs import load_run, load_runs
from scenebench.report.tables import tables_for, to_latex, to_markdown
from scenebench.results import Results

from .conftest import toy_scores, write_run

BUNDLED = "local:SmolLM2-135M-Instruct.Q4_1@0123456789ab"


def _judged_run(tmp_path, model_id=BUNDLED):
    path = write_run(tmp_path / "judged", toy_scores(0))
    res = Results.load(path)
    # results written before the warning was kept: the report derives it from the model id
    res.extra["judge"] = {"model_id": model_id, "endpoint": "http://127.0.0.1:8080/v1", "prompt_versions": {"score": "score-v2"}}
    res.save(path / "results.json")
    return path


def test_markdown_and_latex_name_the_judge_and_carry_the_bundled_warning(tmp_path):
    tabs = tables_for(load_runs([_judged_run(tmp_path)]))
    named = f"judged by {BUNDLED} at http://127.0.0.1:8080/v1 (prompts score score-v2)"
    md, tex = to_markdown(tabs), to_latex(tabs)
    assert named in md and "not fit for reported numbers" in md
    assert "judged by local:SmolLM2-135M-Instruct.Q4\\_1@0123456789ab" in tex and "not fit for reported numbers" in tex


def test_a_large_judge_is_named_without_the_warning(tmp_path):
    md = to_markdown(tables_for(load_runs([_judged_run(tmp_path, "openai:gpt-4o-2024-08-06")])))
    assert "judged by openai:gpt-4o-2024-08-06" in md and "not fit" not in md


def test_html_first_screen_names_the_judge(tmp_path):
    data = build_payload([load_run(_judged_run(tmp_path))], views=False)
    run = data["runs"][0]
    assert run["judge_notes"] == [f"judged by {BUNDLED} at http://127.0.0.1:8080/v1 (prompts score score-v2)"]
    assert len(run["judge_warnings"]) == 1 and "not fit for reported numbers" in run["judge_warnings"][0]


def test_judge_identity_redacts_the_endpoint_password():
    judge = SimpleNamespace(
        model_id=BUNDLED, prompt_versions={"score": "score-v2"}, _client=SimpleNamespace(base_url="http://u:secret@h:1/v1")
    )
    ident = judge_identity(judge)
    assert ident["endpoint"] == "http://u:***@h:1/v1" and ident["prompt_versions"] == {"score": "score-v2"}
    assert "not fit for reported numbers" in ident["warning"]


def test_scored_run_records_the_judge_and_the_console_names_it(tmp_path):
    bench = make_bench(tmp_path / "b", ["scene_caption"])
    ans = write_answers(tmp_path / "a.jsonl", ["scene_caption"])
    judge = FakeJudge()
    judge.model_id = BUNDLED
    res = score_3dbench(bench, ans, judge=judge, out=tmp_path / "r", n_resamples=0)
    assert res.extra["judge"]["model_id"] == BUNDLED and res.extra["judge"]["endpoint"] is None
    assert sum("not fit for reported numbers" in w for w in res.warnings) == 1
    buf = io.StringIO()
    print_3dbench(res, Console(file=buf, width=300, markup=False))
    out = buf.getvalue()
    assert f"judge: judged by {BUNDLED}" in out and out.count("not fit for reported numbers") == 1


@pytest.mark.browser
@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_browser_first_screen_shows_the_judge_and_its_warning(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package (test extra)")
    from scenebench.report.html import write_html_report

    from .test_browser import ARGS

    out = write_html_report([_judged_run(tmp_path)], tmp_path / "report.html", views=False)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        try:
            pg = b.new_page()
            errors: list[str] = []
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.goto(out.as_uri())
            pg.wait_for_selector("body[data-ready='1']", timeout=15000)
            header = pg.locator("#sb-meta").inner_text()
        finally:
            b.close()
    assert f"judged by {BUNDLED} at http://127.0.0.1:8080/v1" in header and "not fit for reported numbers" in header
    assert not errors


def test_compare_names_the_judges(tmp_path, capsys):
    from scenebench.cli import main
    from scenebench.report.compare import compare_runs, comparison_markdown

    a = _judged_run(tmp_path / "a")
    b = _judged_run(tmp_path / "b")
    (c,) = compare_runs(load_runs([a, b], ["A", "B"]), n_resamples=100)
    assert set(c.judges) == {"A", "B"} and c.judges["A"][0].startswith(f"judged by {BUNDLED}") and "not fit" in c.judges["A"][1]
    assert f"judged by {BUNDLED}" in comparison_markdown([c])
    main(["compare", str(a), str(b), "--label", "A", "--label", "B", "--resamples", "100"])
    out = capsys.readouterr().out
    assert f"judge: A: judged by {BUNDLED}" in out and "warning: B: judge" in out and "not fit for reported numbers" in out
