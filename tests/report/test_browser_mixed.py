"""One report holding runs of several benchmarks (what `scenebench demo` writes): the header,
charts and sample panel keep each benchmark's runs together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenebench.report.html import write_html_report

from .conftest import toy_scores, write_run
from .test_browser import CHROMIUM, browser, shot  # noqa: F401  (browser is a fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
]


def _with_type_in_detail(scores):
    """Like SURPRISE3D, whose detail repeats the question type it is also broken down by."""
    for s in scores:
        s.detail["question_type"] = s.groups["question_type"]
    return scores


@pytest.fixture(scope="module")
def mixed_report(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mixed")
    runs = [
        write_run(root / "toy-a", _with_type_in_detail(toy_scores(0))),
        write_run(root / "toy-b", toy_scores(1, shift=0.1)),
        write_run(root / "toy-c", toy_scores(2, shift=0.2)),
        write_run(root / "other-a", toy_scores(3, n_scenes=2), benchmark="other"),
    ]
    # 3DBench resamples houses where the others resample scenes
    res = runs[3] / "results.json"
    data = json.loads(res.read_text())
    data["confidence_intervals"]["cluster_key"] = "house id"
    res.write_text(json.dumps(data))
    return write_html_report(runs, root / "report.html", views=False)


@pytest.fixture
def page(browser, mixed_report):  # noqa: F811
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    pg = ctx.new_page()
    pg.problems = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    pg.on("console", lambda m: pg.problems.append(m.text) if m.type == "error" else None)
    pg.goto(mixed_report.as_uri())
    pg.wait_for_selector("body[data-ready='1']", timeout=15000)
    yield pg
    assert pg.problems == []  # type: ignore[attr-defined]
    ctx.close()


def test_header_groups_runs_by_benchmark_and_shows_each_warning_once(page):
    shot(page, "mixed_header", "header")
    assert page.locator("#sb-meta > li").count() == 2  # one line per benchmark, not per run
    toy = page.locator("#sb-meta > li[data-benchmark='toy']")
    assert toy.locator(".run").count() == 3
    warns = page.locator("#sb-meta li.warn").all_inner_texts()
    # every run carries the same warning: once per benchmark, naming whom it applies to
    assert warns == ["all toy runs: 1 sample excluded: empty GT mask", "other-a: 1 sample excluded: empty GT mask"]


def test_sample_panel_lists_only_runs_of_the_samples_benchmark(page):
    page.select_option("#f-run", "1")
    page.click("tr.sample-row >> nth=0")
    page.wait_for_selector("#sb-detail table.others")
    text = page.locator("#sb-detail table.others").inner_text()
    assert "not in run" not in text and "other-a" not in text
    assert page.locator("#sb-detail table.others tr").count() == 1 + 3
    # a lone run of its benchmark has nothing to compare with
    page.select_option("#f-run", "3")
    page.click("tr.sample-row >> nth=0")
    assert page.locator("#sb-detail table.others").count() == 0


def test_run_picker_groups_runs_under_their_benchmark(page):
    groups = page.eval_on_selector_all("#f-run optgroup", "gs => gs.map(g => [g.label, g.children.length])")
    assert groups == [["toy", 3], ["other", 1]]


def test_charts_compare_runs_of_one_benchmark_at_a_time(page):
    assert page.locator("#sb-bench").is_visible()
    legend = page.locator("#sb-charts .chart-legend").inner_text()
    assert "toy-a" in legend and "toy-c" in legend and "other-a" not in legend
    assert "n/a" not in page.locator("#sb-charts").inner_text()
    page.select_option("#sb-bench", "other")
    assert page.locator("#sb-charts svg.chart").count() >= 2
    assert "toy-a" not in page.locator("#sb-charts").inner_text()
    shot(page, "mixed_charts_other", "#sb-charts")


def test_summary_puts_a_benchmarks_runs_side_by_side_and_folds_their_tables(page):
    assert page.locator("#sb-summary h3.bench").all_inner_texts() == ["toy", "other"]
    rows = page.locator("#sb-summary table.overview[data-benchmark='toy'] tbody tr")
    assert rows.count() == 3 and "toy-b" in rows.nth(1).inner_text()
    assert page.locator("#sb-summary table.overview").count() == 1  # a lone run needs no side-by-side table
    folded = page.locator("#sb-summary details.run-tables")
    assert folded.count() == 3 and not folded.first.locator("table.summary").first.is_visible()
    folded.first.locator("summary").click()
    assert folded.first.locator("table.summary").first.is_visible()
    assert page.locator("#sb-summary > table.summary").first.is_visible()  # the lone "other" run: tables shown


def test_overall_chart_title_fits_with_many_runs(page):
    title = page.locator("#sb-charts [data-chart='overall'] text.chart-title").text_content()
    assert title == "Overall"


def test_sample_panel_shows_counts_as_integers_and_no_repeated_breakdown(page):
    page.click("tr.sample-row[data-sample='scene0:1']")
    score = page.locator("#sb-detail dd[data-key='score']").inner_text()
    assert "a25 = 1 " in score or "a25 = 0 " in score  # an indicator, not "1.0000"
    assert "iou = 0." in score  # graded values keep their decimals
    assert page.locator("#sb-detail dd[data-key='question_type']").count() == 1


def test_interval_method_is_stated_per_benchmark_when_they_differ(page):
    text = page.locator("#sb-generated").inner_text()
    assert "toy: 95% cluster_bootstrap_percentile over scene_id" in text
    assert "other: 95% cluster_bootstrap_percentile over house id" in text


def test_sample_without_a_view_says_the_report_caps_views(browser, tmp_path):  # noqa: F811
    from . import toyviews

    mp = pytest.MonkeyPatch()
    toyviews.install(mp)
    try:
        out = write_html_report(write_run(tmp_path / "run", toy_scores(0)), tmp_path / "report.html", max_views=4)
    finally:
        mp.undo()
    pg = browser.new_page()
    pg.goto(out.as_uri())
    pg.wait_for_selector("body[data-ready='1']", timeout=15000)
    pg.locator("tr.sample-row", has_not_text="●").first.click()
    note = pg.locator("#sb-detail .viewer .note").inner_text()
    assert "views for 4 of 30 samples" in note and "--max-views" in note
    pg.close()
