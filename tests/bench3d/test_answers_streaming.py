"""Answers are indexed by byte offset and read back when scored, never held whole in memory."""

import json

import pytest

from scenebench.benchmarks.bench3d.predictions import Answers, read_answers
from scenebench.errors import InputError
from scenebench.io.files import iter_jsonl_offsets


def test_offsets_read_back_the_same_records(tmp_path):
    p = tmp_path / "a.jsonl"
    recs = [{"question_id": f"q{i}", "task": "Counting", "text": "é" * i + f" answer {i}"} for i in range(20)]
    p.write_text("\n\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n", encoding="utf-8")
    rows = list(iter_jsonl_offsets(p))
    assert [r for _, _, r in rows] == recs
    ans = Answers({r["question_id"]: (off, ln) for ln, off, r in rows}, path=p)
    for r in reversed(recs):  # random order: each get() seeks
        assert ans.get(r["question_id"]) == r["text"]
    assert ans.get("nope") is None
    ans.close()


def test_index_holds_no_text(tmp_path, monkeypatch):
    """The in-memory index must not grow with the answer length."""
    from scenebench.benchmarks.bench3d import predictions as P

    class FakeBench:
        records = {"counting": []}

    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps({"question_id": "q1", "task": "Counting", "text": "x" * 100_000}) + "\n")
    monkeypatch.setattr(P, "expected_ids", lambda bench, circular: {"counting:q1": "counting"})
    ans = read_answers(p, FakeBench())
    assert ans.by_id == {"counting:q1": (0, 1)}  # keyed by (task, question_id)
    assert ans.get("counting:q1") == "x" * 100_000


def test_file_changed_after_indexing_is_an_input_error(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text('{"question_id": "q1", "task": "Counting", "text": "3"}\n')
    ans = Answers({"q1": (0, 1)}, path=p)
    p.write_text("garbage that is not json\n")
    with pytest.raises(InputError, match="line 1"):
        ans.get("q1")


def test_small_texts_are_kept_large_ones_read_back(tmp_path, monkeypatch):
    """Texts totalling at most KEEP_TEXT_CHARS are kept from the indexing pass (read once); past
    that the index holds offsets only and every text is read back, with the same values."""
    from scenebench.benchmarks.bench3d import predictions as P

    class FakeBench:
        records = {"counting": []}

    p = tmp_path / "a.jsonl"
    recs = [{"question_id": f"q{i}", "task": "Counting", "text": "é" * i + f" answer {i}"} for i in range(20)]
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    expected = {f"counting:q{i}": "counting" for i in range(20)}
    monkeypatch.setattr(P, "expected_ids", lambda bench, circular: expected)
    kept = read_answers(p, FakeBench())
    assert kept.texts is not None
    monkeypatch.setattr(P, "KEEP_TEXT_CHARS", 100)
    offsets = read_answers(p, FakeBench())
    assert offsets.texts is None
    assert kept.by_id == offsets.by_id
    for r in recs:
        k = f"counting:{r['question_id']}"
        assert kept.get(k) == offsets.get(k) == r["text"]
    assert kept.get("counting:nope") is None and offsets.get("counting:nope") is None
    offsets.close()
