"""Snapshots of the openai-vision prompt: a changed text or rendering fails until the version is bumped."""

from __future__ import annotations

import hashlib
import json

from scenebench.models.vision.prompts import PROMPT, VERSION, build_messages, question_text, scene_text

# sha256 of the template per version (add the new digest when bumping VERSION).
SNAPSHOTS = {"vision-v1": "11e2bbe2641a2c45914cc712184a2fd22b37c46d6ed312dc5f49d3ec60a2de31"}
# Rendered messages of a fixed navigation question with three fake images, per version.
RENDERED = {"vision-v1": "e100a2ab9bf3606dd863c5139772f55bdf923f2c81151b1e80d2fbb85490f4fa"}
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
