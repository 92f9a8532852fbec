"""The report a researcher reads first, in a real browser (Debian chromium + Playwright): one file
over all of `scenebench demo`'s runs (three benchmarks), written by `scenebench report`.

Checks what issue 17 asked for: a section per benchmark and one run picker; RIO's moved and static
columns and the identity-pose warning; every moved RIO instance with a view, drawn as boxes with
axes, reference beside rescan; SURPRISE3D anchors outlined and labelled (pixel check); 3DBench text
tasks in the charts; a non-oracle histogram by default; counts as integers; top-down views with a
full-scene toggle; overlays visible on dark and light scenes; no console errors, no network.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scenebench.cli import main
from scenebench.commands.demo import demo_benchmarks
from scenebench.report import viewer as vw
from scenebench.report.html import write_html_report
from scenebench.report.views import VIEW_BUILDERS, ViewSet

from .conftest import toy_scores, write_run
from .test_browser import CHROMIUM, browser, canvas_stats, shot  # noqa: F401  (browser is a fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
    # the first test also builds the module's demo (generate + every baseline): 400 s on a loaded 2-core box
    pytest.mark.timeout(1500),
]


@pytest.fixture(scope="module")
def demo(tmp_path_factory, shared_demo) -> tuple[Path, list[Path]]:
    # the demo folder is built once per test run and shared with tests/models/test_demo.py
    from scenebench.commands.demo import demo_benchmarks, models_for

    names = [f"{s.name}-{m.replace(':', '-')}" for s in demo_benchmarks() for m in models_for(s.name)]
    runs = [shared_demo.root / "runs" / n for n in names]
    html = tmp_path_factory.mktemp("demo-report") / "report.html"
    with shared_demo.lock():
        main(["report", *map(str, runs), "--html", str(html), "--no-ci"])
    return html, runs


@pytest.fixture
def page(browser, demo):  # noqa: F811
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    pg = ctx.new_page()
    pg.problems = []  # type: ignore[attr-defined]
    pg.requests = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    pg.on("console", lambda m: pg.problems.append(m.text) if m.type == "error" else None)
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(demo[0].as_uri())
    pg.wait_for_selector("body[data-ready='1']", timeout=60000)
    yield pg
    assert pg.problems == []  # type: ignore[attr-defined]
    assert all(u.startswith(("file://", "data:")) for u in pg.requests), pg.requests  # type: ignore[attr-defined]
    ctx.close()


def _run_option(page, bench: str, label: str) -> str:
    # a label may carry a marker after the model, e.g. 'random [ground-truth perception]'
    return page.eval_on_selector(
        f"#f-run optgroup[label='{bench}']",
        "(g, l) => Array.from(g.children).find(o => o.textContent === l || o.textContent.startsWith(l + ' [')).value",
        label,
    )


def _results(runs: list[Path], name: str) -> dict:
    return json.loads(next(r for r in runs if r.name == name).joinpath("results.json").read_text())


@pytest.mark.slow
def test_one_file_a_section_per_benchmark_and_one_run_picker(page, demo):
    html, runs = demo
    assert html.is_file() and not list(html.parent.glob("report_files"))  # one self-contained file
    # the demo's benchmarks, in catalog order (the report's section order): derived, not listed here
    benches = [s.name for s in demo_benchmarks()]
    assert page.locator("#sb-summary h3.bench").all_inner_texts() == benches
    groups = page.eval_on_selector_all("#f-run optgroup", "gs => gs.map(g => [g.label, g.children.length])")
    assert [g for g, _ in groups] == benches and sum(n for _, n in groups) == len(runs) >= 15
    assert page.locator("select#f-run").count() == 1
    shot(page, "demo_summary", "#sb-summary")


@pytest.mark.slow
def test_rio_summary_has_moved_and_static_columns_and_warns_about_the_identity_pose(page, demo):
    _, runs = demo
    table = page.locator("table.overview[data-benchmark='rio']")
    res = _results(runs, "rio-random")
    # Static columns only when rigid[] lists unmoved objects; the generator lists moved ones only.
    n_static = 4 if "static" in res["metrics"]["by_motion"] else 0
    assert table.locator("th[data-part='moved']").count() == 4 and table.locator("th[data-part='static']").count() == n_static
    row = table.locator("tbody tr", has_text="random")
    cell = row.locator("td[data-metric='MTE'][data-part='moved']").inner_text().split()[0]
    assert float(cell) == pytest.approx(res["metrics"]["by_motion"]["moved"]["MTE"], abs=0.006)
    if any(r.name == "rio-baseline-fpfh" for r in runs):  # open3d installed: FPFH finds moved objects the identity misses
        fp, prior = _results(runs, "rio-baseline-fpfh"), _results(runs, "rio-baseline-prior")
        warn = page.locator("#sb-meta li.identity").all_inner_texts()
        beats = prior["metrics"]["overall"]["recall_10cm_10deg"] > fp["metrics"]["overall"]["recall_10cm_10deg"]
        worse_moved = prior["metrics"]["by_motion"]["moved"]["recall_10cm_10deg"] < fp["metrics"]["by_motion"]["moved"]["recall_10cm_10deg"]
        assert bool(warn) == (beats and worse_moved)
        if warn:
            assert warn[0].startswith("baseline:prior (identity pose: nothing moved) beats baseline:fpfh on all instances")


@pytest.mark.slow
def test_every_moved_rio_instance_has_a_view_with_pose_boxes_axes_and_the_reference_beside(page):
    page.select_option("#f-run", _run_option(page, "rio", "random"))
    page.select_option("#f-groups select[data-group='motion']", "moved")
    rows = page.locator("tr.sample-row")
    n = rows.count()
    assert n > 0 and page.locator("tr.sample-row", has_text="●").count() == n - page.locator("tr.sample-row.status-excluded").count()
    page.locator("tr.sample-row", has_text="●").first.click()
    page.wait_for_selector("#sb-canvas")
    s = canvas_stats(page)
    assert s["mode"] == "top" and s["blue"] > 20 and s["orange"] > 20 and s["black"] > 50  # GT and prediction, outlined
    labels = s["labels"].split("|")
    assert any(t.endswith("(reference)") for t in labels) and any(t.endswith(" GT") for t in labels) and "prediction" in labels
    legend = page.locator(".legend").inner_text()
    assert "reference scan" in legend and "GT pose box axes" in legend and "predicted pose box axes" in legend
    shot(page, "demo_rio_moved", "#sb-detail")
    page.locator(".full-toggle").check()
    s2 = canvas_stats(page)
    assert s2["mode"] == "full" and s2["hash"] != s["hash"]


@pytest.mark.slow
def test_surprise3d_anchor_objects_are_outlined_and_labelled(page):
    page.select_option("#f-run", _run_option(page, "surprise3d", "random"))
    found = False
    for qt in ("rel_pos", "abs", "first_view"):
        page.select_option("#f-groups select[data-group='question_type']", qt)
        for i in range(page.locator("tr.sample-row", has_text="●").count()):
            page.locator("tr.sample-row", has_text="●").nth(i).click()
            page.wait_for_selector("#sb-canvas")
            note = page.locator("#sb-detail .viewer .note").inner_text()
            if "; anchors: " in note:
                found = True
                break
        if found:
            break
    assert found, "no demo question names a labelled object"
    names = note.split("; anchors: ")[1].split(" (first")[0].split(", ")
    s = canvas_stats(page)
    assert s["yellow"] > 30  # the anchor boxes and their labels, in the anchor colour
    assert set(names) <= set(s["labels"].split("|"))
    assert "anchors: objects the question names" in page.locator(".legend").inner_text()
    shot(page, "demo_s3d_anchors", "#sb-detail")
    # hiding the anchors removes their pixels
    page.locator(".legend label[data-group='anchors: objects the question names'] input").uncheck()
    assert canvas_stats(page)["yellow"] < s["yellow"] / 4


@pytest.mark.slow
def test_3dbench_text_tasks_are_charted_and_counts_are_integers(page):
    page.select_option("#sb-bench", "3dbench")
    text = " ".join(page.eval_on_selector_all("#sb-charts svg.chart text.cat", "ts => ts.map(t => t.textContent)"))
    for task in ("object_caption", "scene_caption", "scene_qa", "relation"):
        assert task in text  # without a judge: their text metric, named as such
    assert "scene_caption · bleu4_py (no judge)" in text
    # the overall block also holds mean_rule / mean_judged (issue 27.2): find the count by its metric
    row = page.locator("table.overview[data-benchmark='3dbench'] tbody tr").first
    assert row.locator("td.num[data-metric='n_tasks']").first.inner_text() == "8"


@pytest.mark.slow
def test_histogram_opens_on_a_non_oracle_runs_primary_metric(page):
    assert "oracle" not in page.locator("#f-run option:checked").inner_text()
    title = page.locator("#sb-dist text.chart-title").text_content()
    assert title.startswith("per-sample correct (3dbench · ")  # classification's primary metric, accuracy
    assert "oracle" not in title


def _contrast_views(run, sample_ids, opts) -> ViewSet:
    """Two scenes, one near black and one white, with the same GT and predicted blobs."""
    vs = ViewSet()
    rng = np.random.default_rng(0)
    pts = np.c_[rng.uniform(0, 4, (20000, 2)), np.zeros(20000)]
    for sid in sample_ids:
        shade = 12 if sid.endswith(":0") else 255
        key = f"contrast:{shade}"
        vs.scenes[key] = vw.scene_payload(pts, np.full((len(pts), 3), shade), key=key)
        blob = rng.normal([1.5, 2.0, 0.3], 0.15, (600, 3))
        vs.views[sid] = {
            "scene": key,
            "note": f"shade {shade}",
            "layers": [
                vw.cloud_layer("GT", blob, vw.GT, key="gt"),
                vw.cloud_layer("prediction", blob + [1.0, 0, 0], vw.PRED, key="pred"),
                vw.box_layer("anchor", [0.3, 0.3, 0, 0.9, 0.9, 0.5], vw.ANCHOR, text="anchor"),
            ],
        }
    return vs


def test_overlays_stand_out_on_dark_and_light_scenes(browser, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setitem(VIEW_BUILDERS._paths, "contrast", "x:y")
    monkeypatch.setitem(VIEW_BUILDERS._loaded, "contrast", _contrast_views)
    scores = [s for s in toy_scores(0, n_scenes=1, per_scene=2, evil=False)]
    out = write_html_report(write_run(tmp_path / "run", scores, benchmark="contrast"), tmp_path / "r.html")
    pg = browser.new_page(viewport={"width": 1500, "height": 1000})
    pg.goto(out.as_uri())
    pg.wait_for_selector("body[data-ready='1']", timeout=15000)
    stats = {}
    for sid in ("scene0:0", "scene0:1"):
        pg.click(f"tr.sample-row[data-sample='{sid}']")
        pg.wait_for_selector("#sb-canvas")
        stats[sid] = canvas_stats(pg)
        shot(pg, f"contrast_{sid.replace(':', '_')}", "#sb-canvas")
    pg.close()
    for s in stats.values():
        # each overlay keeps its exact colour over hundreds of pixels, ringed by its black outline
        assert s["blue"] > 300 and s["orange"] > 300 and s["yellow"] > 30 and s["black"] > 300
    # the outline is what separates them from a white scene: it is there on both
    assert stats["scene0:1"]["black"] > 300


@pytest.mark.slow
def test_histogram_of_a_0_1_value_labels_its_bars_0_and_1(page):
    # x-axis labels are centred under their bars (the y-axis counts are right-aligned)
    ticks = page.eval_on_selector_all("#sb-dist svg text.tick[text-anchor='middle']", "ts => ts.map(t => t.textContent)")
    assert ticks == ["0", "1", "correct"]
