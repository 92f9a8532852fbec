"""Issue 29, items 5 and 10: what scenebench prints for hostile data. Markdown tables escape HTML and
link syntax (rendered with markdown-it, with its own link filter switched off so only scenebench's
escaping protects); ``--list-ids`` TSV escapes tabs and newlines; hostile numbers print no raw numpy
warnings (they are counted in ``extra.numeric_warnings``); out-of-range options are refused."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from fixtures import make_rio

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "[click me](javascript:alert(3))",
    "![pic](data:text/html;base64,PHNjcmlwdD4=)",
    "<javascript:alert(4)>",
    "a|b\\[x](javascript:alert(5))",
    "[ref]: javascript:alert(6)",
]


def cli(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})},
    )


def _render(md_text: str) -> str:
    from markdown_it import MarkdownIt

    md = MarkdownIt("gfm-like", {"linkify": False})
    md.validateLink = lambda url: True  # a permissive renderer: the escaping alone must hold
    return md.render(md_text)


def _check_safe(html: str) -> None:
    tags = set(re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", html))
    assert tags <= {"p", "table", "thead", "tbody", "tr", "th", "td", "strong", "ul", "li", "em", "code"}, tags
    hrefs = re.findall(r'(?:href|src)="([^"]*)"', html)
    assert all(h.startswith(("http://", "https://")) for h in hrefs), hrefs


@pytest.fixture
def rio_run(tmp_path):
    data = make_rio(tmp_path / "3rscan")
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"rescan": "scan0", "instance": i, "pose": np.eye(4).tolist()}) + "\n" for i in (1, 2, 3)))
    runs = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        p = cli("score", "rio", "--data", data, "--predictions", pred, "--out", out, "--bootstrap", "0", "--no-progress")
        assert p.returncode == 0, p.stderr
        runs.append(out)
    return runs


def test_report_markdown_escapes_html_and_links(rio_run):
    pytest.importorskip("markdown_it")
    p = cli("report", *rio_run, "--no-html", "--markdown", "--label", HOSTILE[0], "--label", HOSTILE[2])
    assert p.returncode == 0, p.stderr
    html = _render(p.stdout)
    _check_safe(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "[click me](javascript:alert(3))" in html  # shown as text


def test_markdown_table_cells_titles_and_notes_are_literal():
    pytest.importorskip("markdown_it")
    from scenebench.report.tables import Cell, Table, md_escape, to_markdown

    t = Table(title=HOSTILE[1], row_header=["Method", "group"], leaf=HOSTILE[3:5], notes=HOSTILE[5:])
    t.rows = [([HOSTILE[0], HOSTILE[2]], [Cell(1.0), Cell(None)]), ([HOSTILE[6], "line\nbreak"], [Cell(0.5), Cell(2.0)])]
    t.higher, t.units, t.counts = [True, True], ["", ""], [False, False]
    text = to_markdown([t], ci=False)
    html = _render(text)
    _check_safe(html)
    for h in HOSTILE:  # every hostile string is shown, literally
        shown = h.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        assert shown in html or h == HOSTILE[5], h
    assert "a|b\\[x](javascript:alert(5))" in html  # the backslash of the data is a literal backslash
    assert md_escape("line\nbreak") == "line break"


def test_compare_markdown_escapes_labels(rio_run):
    pytest.importorskip("markdown_it")
    p = cli("compare", *rio_run, "--markdown", "--resamples", "100", "--label", HOSTILE[1], "--label", HOSTILE[2])
    assert p.returncode == 0, p.stderr
    _check_safe(_render(p.stdout))
