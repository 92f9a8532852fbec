"""Rule-first settlement and the persistent cache."""

from __future__ import annotations

import sqlite3

import pytest

from scenebench.judges.api import JudgeRequest, JudgeVerdict
from scenebench.judges.cache import JudgeCache, cache_key, default_cache_path
from scenebench.judges.rules import normalize, settle_by_rule


def score(answer, reference=None):
    return JudgeRequest(
        "score",
        {"task": "VQA", "question": "q", "answer": answer, "reference": reference, "rooms": None, "objects": None, "level": "object"},
    )


def test_normalize_both_sides():
    assert normalize("The  Red Chair!") == normalize("red chair") == "red chair"
    assert normalize("An apple.") == "apple"


@pytest.mark.parametrize(
    "req,value",
    [
        (score("The red chair.", "red chair"), 10.0),
        (score("red chair", ["a blue sofa", "Red chair"]), 10.0),
        (score("   ", "anything"), 0.0),
        (score(""), 0.0),
        (JudgeRequest("same", {"question": "q", "answer": "The cup is left of the plate.", "reference": "cup is left of plate"}), 1),
        (JudgeRequest("option", {"question": "q", "answer": "Chair", "options": ["table", "chair"]}), 1),
    ],
)
def test_rules_settle(req, value):
    v = settle_by_rule(req)
    assert v is not None and v.value == value and v.valid and v.settled_by_rule and not v.cached and v.raw is None


@pytest.mark.parametrize(
    "req",
    [
        score("red chair", "blue chair"),
        score("red chair", None),
        JudgeRequest("same", {"question": "q", "answer": "cup left of plate", "reference": "cup right of plate"}),
        JudgeRequest("same", {"question": "q", "answer": "", "reference": ""}),
        JudgeRequest("option", {"question": "q", "answer": "maybe a chair", "options": ["table", "chair"]}),
        JudgeRequest("option", {"question": "q", "answer": "chair", "options": ["chair", "Chair."]}),  # ambiguous
    ],
)
def test_rules_leave_the_rest_to_the_judge(req):
    assert settle_by_rule(req) is None


def test_bad_kind_refused():
    with pytest.raises(ValueError):
        JudgeRequest("grade", {})  # type: ignore[arg-type]


def test_cache_key_depends_on_every_input():
    base = dict(
        model_id="m", prompt_version="score-v1", kind="score", payload={"answer": "a", "reference": None}, settings={"temperature": 0}
    )
    k = cache_key(**base)
    assert k == cache_key(**{**base, "payload": {"reference": None, "answer": "a"}})  # key order does not matter
    for change in (
        {"model_id": "m2"},
        {"prompt_version": "score-v2"},
        {"kind": "same"},
        {"payload": {"answer": "a ", "reference": None}},
        {"settings": {"temperature": 0, "seed": 1}},
    ):
        assert cache_key(**{**base, **change}) != k, change


def test_cache_roundtrip_persists_across_reopen(tmp_path):
    p = tmp_path / "c.sqlite"
    c = JudgeCache(p)
    c.put(
        "k1",
        model_id="m",
        prompt_version="v",
        kind="score",
        verdict=JudgeVerdict(7.0, True, "7", False, False),
        prompt_tokens=5,
        completion_tokens=1,
    )
    c.put("k2", model_id="m", prompt_version="v", kind="score", verdict=JudgeVerdict(None, False, "??", False, False, "no number"))
    c.close()
    c = JudgeCache(p)
    assert len(c) == 2
    assert c.get("k1") == JudgeVerdict(7.0, True, "7", True, False, None)
    assert c.get("k2") == JudgeVerdict(None, False, "??", True, False, "no number")
    assert c.get("nope") is None
    mode = sqlite3.connect(p).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    c.close()


def test_default_cache_path_env(monkeypatch, tmp_path):
    monkeypatch.setenv("SCENEBENCH_JUDGE_CACHE", str(tmp_path / "x.sqlite"))
    assert default_cache_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("SCENEBENCH_JUDGE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "scenebench" / "judge.sqlite"
