"""scripts/doc_figures.py: the table rewriting (hand-made input) and the docs' marker blocks (no demo run)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("doc_figures", ROOT / "scripts" / "doc_figures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_rewrite_replaces_only_between_the_markers():
    df = _script()
    text = (
        "intro | a | b |\n"
        "<!-- figures:begin demo -->\n| old | 1 |\nstale line\n<!-- figures:end -->\n"
        "middle 12.5\n"
        "<!-- figures:begin baselines -->\n<!-- figures:end -->\n"
        "tail, no newline"
    )
    out = df.rewrite_blocks(text, {"demo": "| new | 2 |", "baselines": "B\n\n"})
    assert out == (
        "intro | a | b |\n"
        "<!-- figures:begin demo -->\n| new | 2 |\n<!-- figures:end -->\n"
        "middle 12.5\n"
        "<!-- figures:begin baselines -->\nB\n<!-- figures:end -->\n"
        "tail, no newline"
    )
    assert df.rewrite_blocks(out, {"demo": "| new | 2 |", "baselines": "B"}) == out  # a second run changes nothing
    assert df.rewrite_blocks("no markers\n", {"demo": "x"}) == "no markers\n"


def test_rewrite_refuses_unknown_and_unclosed_blocks():
    df = _script()
    with pytest.raises(ValueError, match=r"README.md: unknown figures block 'demo2'"):
        df.rewrite_blocks("<!-- figures:begin demo2 -->\n<!-- figures:end -->\n", {"demo": "x"}, where="README.md")
    with pytest.raises(ValueError, match=r"doc.md: figures block 'demo' has no <!-- figures:end -->"):
        df.rewrite_blocks("<!-- figures:begin demo -->\n| x |\n", {"demo": "x"}, where="doc.md")


def test_markdown_table_layout():
    df = _script()
    assert df.markdown_table(["model", "mIoU"], [["`a`", "1.0"]]) == "| model | mIoU |\n|---|---:|\n| `a` | 1.0 |"


def test_the_docs_hold_every_block_the_script_writes():
    df = _script()
    found = [name for rel in df.DOCS for name in df.block_names((ROOT / rel).read_text(encoding="utf-8"))]
    assert sorted(found) == ["baselines", "demo"]
    # every block is closed and filled with a table
    for rel in df.DOCS:
        text = (ROOT / rel).read_text(encoding="utf-8")
        filled = df.rewrite_blocks(text, {"demo": "X", "baselines": "X"}, where=rel)
        assert filled.count("<!-- figures:end -->") == text.count("<!-- figures:end -->")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `baseline:cluster` |" in readme.split("<!-- figures:begin demo -->")[1].split("<!-- figures:end -->")[0]
