"""Snapshots of the openai-vision prompt: a changed text or rendering fails until the version is bumped."""

from __future__ import annotations

import hashlib
import json

from scenebench.models.vision.prompts import PROMPT, VERSION, build_messages, question_text, scene_text

# sha256 of the template per version (add the new digest when bumping VERSION).
SNAPSHOTS = {
    "vision-v1": "11e2bbe2641a2c45914cc712184a2fd22b37c46d6ed312dc5f49d3ec60a2de31",
    "vision-v2": "66cb727fdcf4ae2bfc971d001dbc6b3d283b858e1852595f2aa2dd382f4adccf",
}
# Rendered messages of a fixed navigation question with three fake images, per version.
# (v2 adds formats and lines the navigation question does not use: its rendering is v1's)
RENDERED = {
    "vision-v1": "e100a2ab9bf3606dd863c5139772f55bdf923f2c81151b1e80d2fbb85490f4fa",
    "vision-v2": "e100a2ab9bf3606dd863c5139772f55bdf923f2c81151b1e80d2fbb85490f4fa",
}
GRID = {"axes": ["x", "z"], "origin": [-1.0, -0.5], "pixels_per_metre": 50.0, "down_sign": 1.0, "left": 44, "top": 22}
URLS = ["data:image/png;base64,AAAA", "data:image/png;base64,BBBB", "data:image/png;base64,CCCC"]


def _golden_messages():
    intro = scene_text(["corner-1", "corner-2", "top"], 7, GRID, 1.0)
    return build_messages(intro, URLS, question_text("Go to the sofa.", (), {"start": [0.0, 1.5]}, "waypoints"), "low")


def test_template_snapshot_matches_its_version():
    assert VERSION in SNAPSHOTS, f"new prompt version {VERSION}: add its digest {PROMPT.digest()} to SNAPSHOTS"
    assert PROMPT.digest() == SNAPSHOTS[VERSION], f"the vision prompt changed: bump its version (now {VERSION})"


def test_rendered_messages_snapshot():
    digest = hashlib.sha256(json.dumps(_golden_messages(), sort_keys=True).encode()).hexdigest()
    assert digest == RENDERED[VERSION], f"rendering of the vision prompt changed: bump {VERSION}"


def test_message_shape_views_then_images_then_question():
    system, user = _golden_messages()
    assert system["role"] == "system" and "marked with numbers" in system["content"]
    parts = user["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "image_url", "text"]
    assert [p["image_url"] for p in parts[1:-1]] == [{"url": u, "detail": "low"} for u in URLS]
    intro, question = parts[0]["text"], parts[-1]["text"]
    assert intro.splitlines()[0] == "Views of the scene: 3. Numbered candidate marks: 7."
    assert "View 3: seen straight from above, with a metric grid" in intro and "x coordinates" in intro and "z coordinates" in intro
    assert question.startswith("Question: Go to the sofa.\nStart position [x, z]: [0.00, 1.50]\nRead positions off the grid")
    # two questions about one scene share everything before the question (prefix caching)
    other = build_messages(parts[0]["text"], URLS, question_text("Where is the lamp?", (), {}, "box"), "low")
    assert other[0] == system and other[1]["content"][:-1] == parts[:-1]
    assert question_text("Detect the chairs.", (), {}, "boxes").endswith("in the form: label: Mark N.")
    assert "[x, z, y, lx, lz, h]" in question_text("Detect the rooms.", (), {}, "rooms")
    mc = question_text("What is it?", ("table", "chair"), {}, "option")
    assert "(A) table\n(B) chair" in mc and "The answer is (X)" in mc and "grid" not in mc
    # no detail key unless asked for (servers that do not know it stay happy)
    assert build_messages("v", ["data:x"], "q")[1]["content"][1] == {"type": "image_url", "image_url": {"url": "data:x"}}


def test_ranked_answers_and_situated_questions():
    from types import SimpleNamespace

    from scenebench.models.base import ModelSample
    from scenebench.models.builtin.openai_vision import OpenAIVisionModel
    from scenebench.models.predictions import RankedTextPrediction

    ranked = question_text("What color is the chair?", (), {}, "ranked_text")
    assert ranked.endswith("Answer with up to 10 short answers of a few words each, the most likely first, one per line.")
    inputs = {"situation": "I am facing the sofa.", "position": [1.0, 2.0, 0.0], "rotation": [0.0, 0.0, 0.0, 1.0]}
    situated = question_text("Is the lamp on my left?", (), inputs, "text").splitlines()
    assert situated[1:3] == [
        "Your situation: I am facing the sofa.",
        "Your position [x, y, z]: [1.00, 2.00, 0.00]. Your orientation (quaternion x, y, z, w): [0.00, 0.00, 0.00, 1.00].",
    ]
    # a reply of ranked lines becomes the ranked list (list marks, blanks and repeats dropped), top-1 first
    imgs = SimpleNamespace(thumb_paths=lambda: [], names=lambda: ["top"], segmentation=None)
    s = ModelSample("q1", "scene0", "scanqa", "ranked_text", "What color is the chair?")
    p = OpenAIVisionModel.to_prediction(None, s, "1. brown\n2. dark brown\n\n- brown\nblack", imgs, 0)  # type: ignore[arg-type]
    assert isinstance(p, RankedTextPrediction) and p.answers == ["brown", "dark brown", "black"] and p.text == "brown"
