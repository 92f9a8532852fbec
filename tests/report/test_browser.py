"""The HTML report in a real browser: Debian's chromium driven by Playwright (no browser download).

Screenshots go to tests/screenshots/ (gitignored) for a human to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scenebench.report.html import write_html_report

from . import toyviews
from .conftest import toy_scores, write_run

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[1] / "screenshots"
BACKGROUND = (23, 26, 30)  # viewer.js clears to #171a1e

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    mp = pytest.MonkeyPatch()
    toyviews.install(mp)
    root = tmp_path_factory.mktemp("browser")
    a = write_run(root / "baseline", toy_scores(0))
    b = write_run(root / "improved", toy_scores(1, shift=0.15))
    out = write_html_report([a, b], root / "report.html")
    mp.undo()
    return out


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package (test extra)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, report):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    pg = ctx.new_page()
    pg.problems = []  # type: ignore[attr-defined]
    pg.requests = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda e: pg.problems.append(str(e)))
    pg.on("console", lambda m: pg.problems.append(m.text) if m.type == "error" else None)
    pg.on("request", lambda r: pg.requests.append(r.url))
    pg.goto(report.as_uri())
    pg.wait_for_selector("body[data-ready='1']", timeout=15000)
    yield pg
    ctx.close()


def shot(page, name: str, selector: str | None = None) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    (page.locator(selector).screenshot(path=str(path)) if selector else page.screenshot(path=str(path), full_page=True))
    assert path.stat().st_size > 5000
    return path


def canvas_stats(page) -> dict:
    """Pixel counts of the viewer canvas: not background, and exactly each overlay colour."""
    from scenebench.report import viewer as vw

    cols = {"green": vw.BOTH, "blue": vw.GT, "orange": vw.PRED, "yellow": vw.ANCHOR, "black": vw.HALO}
    return page.evaluate(
        """(cols) => {
        const c = document.getElementById('sb-canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const out = {fg: 0, total: d.length / 4, hash: 0, drawn: +c.dataset.drawn, labels: c.dataset.labels || '', mode: c.dataset.mode};
        for (const k in cols) out[k] = 0;
        let h = 0;
        for (let i = 0; i < d.length; i += 4) {
          const r = d[i], g = d[i + 1], b = d[i + 2];
          if (r !== 23 || g !== 26 || b !== 30) out.fg++;
          for (const k in cols) if (r === cols[k][0] && g === cols[k][1] && b === cols[k][2]) out[k]++;
          h = (h * 31 + r + 7 * g + 13 * b) >>> 0;
        }
        out.hash = h;
        return out;
    }""",
        cols,
    )


def test_summary_and_charts_render(page):
    assert page.locator("table.summary").count() == 4  # per run: overall and by question_type
    assert "baseline" in page.locator("#sb-summary").inner_text()
    charts = page.locator("#sb-charts svg.chart")
    assert charts.count() == 2  # overall + by question_type
    assert page.locator("#sb-charts rect.bar").count() >= 2 * 3
    widths = page.eval_on_selector_all("#sb-charts rect.bar", "rs => rs.map(r => +r.getAttribute('width'))")
    assert max(widths) > 50
    assert page.locator("#sb-charts line.whisker").count() > 0
    assert page.locator("#sb-dist rect.bar").count() > 3
    page.select_option("#sb-metric", "MedErr")
    assert "MedErr by question_type" in page.locator("#sb-charts").inner_text()
    shot(page, "report_full")
    assert page.problems == []  # type: ignore[attr-defined]
    assert all(u.startswith("file://") or u.startswith("data:") for u in page.requests)  # type: ignore[attr-defined]


def test_clicking_a_sample_shows_it_with_a_rendered_3d_view(page):
    page.click("tr.sample-row[data-sample='scene3:1']")
    page.wait_for_selector("#sb-canvas")
    assert page.locator("#sb-detail h3").inner_text() == "scene3:1"
    assert "where is the thing in scene3:1?" in page.locator("#sb-detail dd[data-key='question']").inner_text()
    assert page.locator("tr.sample-row.selected").get_attribute("data-sample") == "scene3:1"
    s = canvas_stats(page)
    assert s["drawn"] > 1000 and s["fg"] > 0.05 * s["total"]
    assert s["green"] > 20 and s["orange"] > 20  # masks: agreement and prediction-only points drawn in their colours
    assert "moved object" in page.locator(".legend").inner_text()
    shot(page, "sample_detail", "#sb-browser")
    # orbit: dragging changes the picture; hiding the scene leaves only overlays
    box = page.locator("#sb-canvas").bounding_box()
    page.mouse.move(box["x"] + 300, box["y"] + 200)
    page.mouse.down()
    page.mouse.move(box["x"] + 420, box["y"] + 260, steps=5)
    page.mouse.up()
    page.wait_for_timeout(100)
    s2 = canvas_stats(page)
    assert s2["hash"] != s["hash"] and s2["fg"] > 0.05 * s2["total"]
    page.locator(".legend input[type=checkbox]").first.uncheck()
    s3 = canvas_stats(page)
    assert s3["fg"] < s2["fg"] and s3["green"] > 0
    shot(page, "sample_orbited", "#sb-canvas")
    assert page.problems == []  # type: ignore[attr-defined]


def test_script_in_a_prediction_shows_as_text_and_never_runs(page):
    title = page.title()
    page.click("tr.sample-row[data-sample='scene0:0']")
    page.wait_for_selector("#sb-canvas")
    pred = page.locator("#sb-detail dd[data-key='prediction']").inner_text()
    assert pred.startswith("<script>document.title='pwned'") and "onerror" in pred
    assert page.evaluate("window.__pwned") is None and page.title() == title == "scenebench report: toy"
    assert page.locator("#sb-detail script, #sb-detail img").count() == 0
    page.fill("#f-text", "pwned")
    assert page.locator("tr.sample-row").count() == 1
    shot(page, "escaped_prediction", "#sb-detail")


def test_filters_and_run_switch(page):
    assert page.locator("tr.sample-row").count() == 30
    page.select_option("#f-status", "missing")
    assert page.locator("tr.sample-row").count() == 1
    page.select_option("#f-status", "")
    page.select_option("#f-groups select[data-group='question_type']", "abs")
    assert page.locator("tr.sample-row").count() == 6
    page.select_option("#f-groups select[data-group='question_type']", "")
    page.select_option("#f-field", "iou")
    page.fill("#f-min", "0.5")
    n = page.locator("tr.sample-row").count()
    vals = page.eval_on_selector_all("tr.sample-row td.num", "tds => tds.map(t => +t.textContent)")
    assert 0 < n < 30 and min(vals) >= 0.5
    page.select_option("#f-sort", "desc")
    vals = page.eval_on_selector_all("tr.sample-row td.num", "tds => tds.map(t => +t.textContent)")
    assert vals == sorted(vals, reverse=True)
    page.select_option("#f-run", "1")
    page.click("tr.sample-row >> nth=0")
    page.wait_for_selector("#sb-detail table.others")
    assert "improved" in page.locator("#sb-detail table.others").inner_text()
    assert page.problems == []  # type: ignore[attr-defined]


def _bench3d_report(root: Path) -> tuple[Path, str]:
    from scenebench.benchmarks.bench3d.api import score_3dbench

    from .test_views_bench3d import ANSWERS, answers_file, make_bench

    score_3dbench(make_bench(root / "bench"), answers_file(root / "answers.jsonl", ANSWERS), out=root / "run", n_resamples=50)
    return write_html_report(root / "run", root / "report.html"), "navigation:nav-0"  # sample ids are <task>:<question_id>


def _rio_report(root: Path) -> tuple[Path, str]:
    import json

    from scenebench.benchmarks.rio.api import score_rio

    from .test_views_rio import RESCAN, room, turn

    room(root / "3rscan")
    (root / "poses.jsonl").write_text(json.dumps({"rescan": RESCAN, "instance": 2, "pose": turn(20, [1.2, 0.5, 0.0]).tolist()}) + "\n")
    score_rio(root / "3rscan", root / "poses.jsonl", out=root / "run", progress=False, n_resamples=50)
    return write_html_report(root / "run", root / "report.html"), f"{RESCAN}/2"


@pytest.mark.parametrize("make", [_bench3d_report, _rio_report], ids=["3dbench", "rio"])
def test_benchmark_reports_render_their_views(browser, tmp_path, make):
    out, sample = make(tmp_path)
    pg = browser.new_page(viewport={"width": 1500, "height": 1000})
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(out.as_uri())
    pg.wait_for_selector("body[data-ready='1']", timeout=15000)
    assert pg.locator("#sb-charts svg.chart").count() >= 2 and pg.locator("#sb-charts rect.bar").count() >= 2
    pg.click(f"tr.sample-row[data-sample='{sample}']")
    pg.wait_for_selector("#sb-canvas")
    s = canvas_stats(pg)
    assert s["drawn"] > 500 and s["fg"] > 0.01 * s["total"]
    assert pg.locator(".legend label").count() >= 3  # scene + GT + prediction layers
    shot(pg, f"{make.__name__.strip('_')}_sample", "#sb-browser")
    pg.close()
    assert errors == []
