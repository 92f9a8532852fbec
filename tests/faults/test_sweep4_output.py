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


# -- item 7 (and 10: warnings): hostile numbers in answers ----------------------------------------------

BIG, HUGE = "9" * 400, "9" * 5000


def _hostile_answers(path: Path) -> Path:
    six = lambda v: "[" + ", ".join([v] * 6) + "]"  # noqa: E731
    rows = [
        ("cnt-0", "counting", f"{BIG} chairs"),  # int(float(...)): OverflowError before
        ("cnt-1", "counting", f"The answer is {HUGE}"),  # int(...): ValueError (4,300-digit limit) before
        ("nav-0", "navigation", "[1e308, 1e308], [-1e308, 1e308], [1e308, -1e308]"),
        ("nav-1", "navigation", f"[{BIG}, 0], [nan, 1]"),
        ("vg-0", "visual_grounding", six("1e308")),
        ("vg-1", "visual_grounding", six(BIG)),
        ("det-0", "detection", "chair: [1e308, -1e308, 1e308, 1e308, 1e308, 1e308]"),
        ("det-1", "detection", "chair " + six(BIG)),
        ("room-0", "room_detection", "LivingRoom " + six("1e308")),
        ("room-1", "room_detection", "LivingRoom " + six(HUGE)),
    ]
    path.write_text("".join(json.dumps({"question_id": q, "task": t, "text": x}) + "\n" for q, t, x in rows))
    return path


@pytest.mark.parametrize("protocol", ["strict", "official"])
def test_hostile_numbers_are_failed_answers_without_a_crash_or_a_warning(tmp_path, protocol):
    from fixtures import make_bench3d

    data = make_bench3d(tmp_path / "b3d", with_train=False)
    answers = _hostile_answers(tmp_path / "answers.jsonl")
    run = tmp_path / "run"
    p = cli("score", "3dbench", "--data", data, "--predictions", answers, "--out", run, "--protocol", protocol, "--allow-missing",
            "--bootstrap", "50", "--no-progress")  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "Warning" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    res = json.loads((run / "results.json").read_text())
    by_task = res["counts_by_group"]["by_task"]
    if protocol == "strict":  # every answer is out of bounds: none is read
        assert res["counts"]["n_invalid"] == 10 and res["counts"]["n_scored"] == 0
        assert "numeric_warnings" not in res.get("extra", {})
    else:  # the released arithmetic is kept: scored, and every one of them wrong
        assert res["counts"]["n_scored"] + res["counts"]["n_invalid"] == 10
        # the box and path rules run under np.errstate (issue 27.5), so they raise nothing to count; any
        # other numpy warning would be counted, not printed (test_counted_numeric_warnings_pass_other_warnings_on)
        assert res["extra"].get("numeric_warnings", 1) >= 1
        with __import__("scenebench.io.store", fromlist=["SampleStore"]).SampleStore(run / "samples.sqlite") as st:
            for sid, rec in st.iter("score"):
                if sid.startswith("navigation:"):
                    assert rec["values"]["success"] == 0.0, sid
    assert set(by_task) >= {"counting", "navigation"}


def test_number_bounds_by_hand():
    from scenebench.benchmarks.bench3d import parsing as P
    from scenebench.io.numbers import whole_number, within_bounds

    assert whole_number("007") == 7 and whole_number("3.000") == 3 and whole_number("3.5") is None
    assert whole_number("9" * 18) == 10**18 - 1 and whole_number("9" * 19) is None and whole_number("0" * 50 + "4") == 4
    assert within_bounds([1e9, -1e9]) and not within_bounds([1e9 + 1]) and not within_bounds([float("nan")])
    assert P.parse_count(BIG) is None and P.parse_count(f"answer is {HUGE}") is None and P.parse_count("answer is 3") == 3
    assert P.parse_count(f"3 chairs, or {BIG}") is None  # an unreadable number: no guess among the rest
    assert P.parse_boxes("[1e10, 0, 0, 1, 1, 1]") == [] and P.parse_boxes("[1e9, 0, 0, 1, 1, 1]") == [[1e9, 0, 0, 1, 1, 1]]
    assert P.parse_point("(0, 2e9, 0)") is None and P.parse_waypoints("[1e308, 0], [1, 1]") == []
    assert P.parse_boxes(f"[{BIG}, 0, 0, 1, 1, 1]", "official")[0][0] == float("inf")  # released float(): unbounded


def test_counted_numeric_warnings_pass_other_warnings_on():
    import warnings

    from scenebench.runtime.scoring import counted_numeric_warnings

    with warnings.catch_warnings(record=True) as outer:
        warnings.simplefilter("always")
        with counted_numeric_warnings() as n:
            np.array([1e308]) * 10  # overflow
            np.array([0.0]) / 0.0  # invalid
            with np.errstate(all="ignore"):
                np.array([1e308]) * 10  # deliberately ignored: not counted
            np.nanmean(np.array([np.nan]))  # a RuntimeWarning of the warnings module
            warnings.warn("keep me", UserWarning, stacklevel=1)
    assert n[0] == 3
    assert [str(w.message) for w in outer] == ["keep me"]


# -- item 10: TSV ids and option ranges ----------------------------------------------------------------


def test_list_ids_tsv_escapes_tabs_and_newlines(tmp_path):
    from fixtures import make_surprise3d

    data = make_surprise3d(tmp_path / "s3d")
    ann = json.loads((data / "surprise-3d-val.json").read_text())
    ann[0]["question_type"] = "hi\tevil\nrow\\"
    (data / "evil.json").write_text(json.dumps(ann))
    p = cli("validate", "surprise3d", "--annotations", data / "evil.json", "--list-ids")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == len(ann) + 1 and all(line.count("\t") == 3 for line in lines)
    assert lines[1].endswith("\thi\\tevil\\nrow\\\\")
    from scenebench.io.files import tsv_row

    assert tsv_row("a\tb", "c\r\nd", 3) == "a\\tb\tc\\r\\nd\t3\n"


@pytest.mark.parametrize(
    "args",
    [
        ("score", "rio-matching", "--descriptors", ".", "--bootstrap", "-1"),
        ("score", "rio-matching", "--descriptors", ".", "--negatives", "0"),
        ("score", "rio", "--data", ".", "--predictions", "p.jsonl", "--bootstrap", "-1"),
        ("run", "rio", "--data", ".", "--model", "oracle", "--bootstrap", "-1"),
        ("score", "3dbench", "--data", ".", "--predictions", "p.jsonl", "--limit", "0"),
    ],
)
def test_out_of_range_options_are_refused(tmp_path, args):
    p = cli(*args, "--out", tmp_path / "run")
    assert p.returncode == 2 and "Invalid value" in p.stderr and "range" in p.stderr, p.stderr
    assert not (tmp_path / "run").exists()  # refused before anything is recorded
