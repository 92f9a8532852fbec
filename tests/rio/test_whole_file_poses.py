"""RIO poses decoded as one whole file (``_whole_file_records``, ``_all_poses``) against the
per-line fast path and the plain path: the same poses (every bit, same array layout), lines,
metadata, counts and errors."""

import json

import numpy as np
import pytest

import scenebench.benchmarks.rio.predictions as P
from scenebench.errors import InputError

from .test_fast_decoding import GOOD, KNOWN, VARIANTS, T


def _outcome(path, **kw):
    try:
        got = P.read_pose_predictions(path, KNOWN, **kw)
    except InputError as exc:
        return ("error", str(exc))
    return (
        "ok",
        {k: (v.tobytes(), v.strides, v.dtype.str) for k, v in got.poses.items()},
        list(got.poses),
        got.lines,
        got.meta,
        got.ignored_other_split,
    )


POSE_ONLY = [
    {"rescan": "scanA", "instance": i, "pose": (T + np.pad(np.full((3, 1), 0.1 * i), ((0, 1), (3, 0)))).tolist()} for i in (1, 2, 3)
] + [{"rescan": "scanB", "instance": 1, "pose": np.round(T, 6).tolist()}]

LAYOUTS = {
    "plain": lambda lines: "\n".join(lines) + "\n",
    "no final newline": lambda lines: "\n".join(lines),
    "blank line": lambda lines: "\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:]) + "\n",
    "whitespace line": lambda lines: "\n".join(lines[:2]) + "\n   \n" + "\n".join(lines[2:]) + "\n",
    "two records on a line": lambda lines: lines[0] + " " + lines[1] + "\n\n" + "\n".join(lines[2:]) + "\n",
    "crlf": lambda lines: "\r\n".join(lines) + "\r\n",
    "leading space": lambda lines: " " + "\n".join(lines) + "\n",
    "record split over two lines": lambda lines: lines[0][:-1] + "\n}" + "\n" + "\n".join(lines[1:]) + "\n",
}


def _three_ways(p, monkeypatch, **kw):
    whole = _outcome(p, **kw)
    with monkeypatch.context() as m:
        m.setattr(P, "_whole_file_records", lambda path: None)
        per_line = _outcome(p, **kw)

        def plain_only(raw):
            raise ValueError("plain path")

        m.setattr(P, "_fast_decoder", lambda: plain_only)
        plain = _outcome(p, **kw)
    return whole, per_line, plain


@pytest.mark.parametrize("extra", VARIANTS)
@pytest.mark.parametrize("base", ["mixed forms", "poses only"])
@pytest.mark.parametrize("evaluated", [None, ["scanA"]])
def test_whole_file_gives_what_the_other_paths_give(tmp_path, monkeypatch, extra, base, evaluated):
    good = GOOD if base == "mixed forms" else POSE_ONLY
    p = tmp_path / "p.jsonl"
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in good[:2] + extra + good[2:]))
    whole, per_line, plain = _three_ways(p, monkeypatch, evaluated=evaluated)
    assert whole == per_line
    assert whole[0] == plain[0] and (whole[0] == "error" and whole == plain or whole[2:] == plain[2:])


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_line_layouts(tmp_path, monkeypatch, layout):
    p = tmp_path / "p.jsonl"
    p.write_text(LAYOUTS[layout]([json.dumps(r) for r in POSE_ONLY]))
    whole, per_line, plain = _three_ways(p, monkeypatch)
    assert whole == per_line and whole[0] == plain[0]
    if layout in ("plain", "no final newline"):
        assert P._whole_file_records(p) is not None
    else:
        assert P._whole_file_records(p) is None  # the per-line reader takes (or refuses) it


@pytest.mark.parametrize(
    "text", [b'{"rescan": "scan\xc3\xa9", "instance": 1, "pose": [[1]]}\n', b'{"rescan": "scan\xff", "instance": 1}\n', b""]
)
def test_odd_bytes(tmp_path, monkeypatch, text):
    p = tmp_path / "p.jsonl"
    p.write_bytes(text)
    whole, per_line, plain = _three_ways(p, monkeypatch, allow_empty=True)
    assert whole == per_line == plain


def test_the_usual_file_takes_the_column_path(tmp_path, monkeypatch):
    p = tmp_path / "p.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in POSE_ONLY))
    monkeypatch.setattr(P, "_fast_decoder", lambda: pytest.fail("per-line decoding ran"))
    got = P.read_pose_predictions(p, KNOWN, evaluated=["scanA"])
    assert list(got.poses) == [("scanA", 1), ("scanA", 2), ("scanA", 3)] and got.ignored_other_split == 1
    assert got.lines == {("scanA", 1): 1, ("scanA", 2): 2, ("scanA", 3): 3}
