"""Prompt snapshots and the documented reply-parsing rules."""

from __future__ import annotations

import hashlib
import json

import pytest

from scenebench.judges.prompts import (
    PROMPT_VERSIONS,
    TEMPLATES,
    build_messages,
    canonical_task,
    parse_option,
    parse_same,
    parse_score,
    response_schema,
)

# sha256 of every template per version. A changed prompt fails here until its version is bumped
# (and the new digest added): cached verdicts are keyed by the version, so an edit without a bump
# would silently reuse verdicts given to a different prompt.
SNAPSHOTS = {
    ("score", "score-v1"): "1efd5bd1ee7a248132f3c2361f7fb43f54bbebf494f6b19eb3bd6b19260c7188",
    ("same", "same-v1"): "a3734027c14aae8d68f1808a72ff7a74b722ebc1e9b357b69757efd31cf4a9a7",
    ("option", "option-v1"): "296ecacb9245e8017a37495f7639e09d7e488bac95438f9f22b420f942cd4d62",
}

# Rendered messages for fixed inputs, per version: catches changes in the rendering code too.
GOLDEN_PAYLOADS = {
    "score": {"task": "Caption", "question": "Describe the scene.", "answer": "A kitchen.", "reference": ["x", "y"],
              "rooms": ["Kitchen"], "objects": ["fridge", "chair"], "level": "scene"},
    "same": {"question": "Where is the chair?", "answer": "left of the bed", "reference": "right of the bed"},
    "option": {"question": "What is it?", "answer": "a seat", "options": ["table", "chair"]},
}
RENDERED = {
    ("score", "score-v1"): "46613b9b802888575ddb803ef55d515c57c16cd85c5037208de1c1330e93d30e",
    ("same", "same-v1"): "abe0be73745a265d21010d52d3e11f132cbbfd751f2904d46328cd8659a58238",
    ("option", "option-v1"): "0f4a7644dc56dd7e303034b3c9f245a7ab96abfbaf9b7201ea8dd35511be80ae",
}


def _rendered_digest(kind: str) -> str:
    return hashlib.sha256(json.dumps(build_messages(kind, GOLDEN_PAYLOADS[kind]), sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_template_snapshot_matches_its_version(kind):
    t = TEMPLATES[kind]
    assert (kind, t.version) in SNAPSHOTS, f"new prompt version {t.version}: add its digest {t.digest()} to SNAPSHOTS"
    assert t.digest() == SNAPSHOTS[(kind, t.version)], f"prompt {kind} changed: bump its version (now {t.version})"


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_rendered_messages_snapshot(kind):
    t = TEMPLATES[kind]
    assert _rendered_digest(kind) == RENDERED[(kind, t.version)], f"rendering of {kind} changed: bump {t.version}"


def test_prompt_versions_exposed():
    assert PROMPT_VERSIONS == {"score": "score-v1", "same": "same-v1", "option": "option-v1"}


def test_scene_level_shows_rooms_and_objects_object_level_does_not():
    p = dict(GOLDEN_PAYLOADS["score"], reference=None)
    scene = build_messages("score", p)[1]["content"]
    assert "True rooms of the scene: Kitchen" in scene and "fridge | chair" in scene
    obj = build_messages("score", dict(p, level="object", task="DescriptionObj"))[1]["content"]
    assert "Kitchen" not in obj and "fridge" not in obj
    assert "one unknown indoor object" in obj  # the object-caption criterion
    assert "Reference answer" not in obj


def test_task_aliases():
    assert canonical_task("VQA") == "scene_qa"
    assert canonical_task("ConversationObj") == "object_conversation"
    assert canonical_task("scene caption") == "scene_caption"
    assert canonical_task("something else") == "generic"


@pytest.mark.parametrize(
    "reply,expected",
    [
        ("7", 7.0),
        ("Score: 8.5/10", 8.5),
        ('{"score": 3}', 3.0),
        ("1. The caption is good. Score 6", 6.0),  # the list marker '1.' is dropped (3DBench rule)
        ("The 3D scene deserves 9", 9.0),  # '3D' is dropped
        ("(1) fine, 4", 4.0),
        ("0", 0.0),
        ('{"score": 1.5}', 1.5),  # JSON is read as JSON: the list-marker rule is for plain text
        ('{\n  "score": 10\n}', 10.0),
        ("10", 10.0),
    ],
)
def test_parse_score_first_number(reply, expected):
    assert parse_score(reply) == (expected, None)


@pytest.mark.parametrize("reply", ["excellent!", "", "85 out of 100", "11", '{"score": 12}', "1.5", "Score: 1."])
def test_parse_score_invalid_is_not_guessed(reply):
    value, err = parse_score(reply)
    assert value is None and err


@pytest.mark.parametrize(
    "reply,expected",
    [
        ("same", 1), ("Same.", 1), ('{"verdict": "different"}', 0), ("They are different", 0),
        ("not the same", 0), ("These are not same relations", 0), ('{"verdict": "same"}', 1),
    ],
)
def test_parse_same(reply, expected):
    assert parse_same(reply) == (expected, None)


@pytest.mark.parametrize("reply", ["maybe", "same or different, hard to say", ""])
def test_parse_same_invalid(reply):
    v, err = parse_same(reply)
    assert v is None and err


@pytest.mark.parametrize(
    "reply,expected",
    [("B", (1, True, None)), ("(A)", (0, True, None)), ('{"option": "C"}', (2, True, None)), ("none", (None, True, None)),
     ('{"option": "none"}', (None, True, None)), ("The answer is B.", (1, True, None))],
)
def test_parse_option(reply, expected):
    assert parse_option(reply, ["x", "y", "z"]) == expected


@pytest.mark.parametrize("reply", ["E", "A or B", "it is a chair", ""])
def test_parse_option_invalid(reply):
    idx, valid, err = parse_option(reply, ["x", "y", "z"])
    assert idx is None and not valid and err


def test_response_schemas():
    assert response_schema("score", {})["properties"]["score"] == {"type": "integer", "minimum": 0, "maximum": 10}
    assert response_schema("option", {"options": ["a", "b"]})["properties"]["option"]["enum"] == ["A", "B", "none"]
    assert response_schema("same", {})["required"] == ["verdict"]
