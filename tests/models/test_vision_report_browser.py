"""The HTML report shows the views an openai-vision model saw, in a real browser (Debian chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openai", reason="needs the judge extra (openai client)")

from vision_data import VisionServer, make_s3d  # noqa: E402

from scenebench.models.sources.base import make_source  # noqa: E402
from scenebench.runtime.runner import run_benchmark  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"),
]


def test_sample_panel_shows_the_marked_views(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package (test extra)")
    from scenebench.report.html import write_html_report

    data = make_s3d(tmp_path / "s3d")
    server = VisionServer()
    try:
        server.answers["Where are the novels kept?"] = "Mark 1"
        run_benchmark(
            make_source("surprise3d", data=str(data)),
            "openai-vision:fake-vlm",
            tmp_path / "run",
            model_options={"base_url": server.base_url, "cache_dir": str(tmp_path / "cache")},
            progress=False,
        )
    finally:
        server.close()
    report = write_html_report([tmp_path / "run"], tmp_path / "report.html", views=False)
    sample = next(s for s in make_source("surprise3d", data=str(data)).samples() if s.query == "Where are the novels kept?").sample_id
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(report.as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=15000)
        page.click(f"tr.sample-row[data-sample='{sample}']")
        page.wait_for_selector("#sb-detail .thumbs img")
        # the browser decoded every image (the page's CSP allows data: images only): 5 views of 320x240
        sizes = page.eval_on_selector_all("#sb-detail .thumbs img", "imgs => imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
        assert sizes == [[True, 320, 240]] * 5
        assert page.locator("#sb-detail h4", has_text="views the model saw").count() == 1
        # pixels: the marks' yellow boxes are in the thumbnails as drawn
        yellow = page.evaluate("""() => Array.from(document.querySelectorAll('#sb-detail .thumbs img')).map(img => {
            const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
            const g = c.getContext('2d'); g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data; let n = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] > 240 && d[i + 1] > 240 && d[i + 2] < 30) n++;
            return n; })""")
        assert len(yellow) == 5 and min(yellow) > 20, yellow
        browser.close()
    assert problems == []
