"""Snapshots of the openai-vision prompt: a changed text or rendering fails until the version is bumped."""

from __future__ import annotations

import hashlib
import json

from scenebench.models.vision.prompts import PROMPT, VERSION, build_messages, user_text

# sha256 of the template per version (add the new digest when bumping VERSION).
SNAPSHOTS = {"vision-v1": "399f0011fbe9e2c3accf176387dc4f3e86e6ff07a4fe23a639331cd3456ca60f"}
# Rendered messages of a fixed navigation question with three fake images, per version.
RENDERED = {"vision-v1": "0d73e7afd16d5b5fbcfbfcaffa67229166e9cc2412c66a47f76d39fd29fd1595"}
GRID = {"axes": ["x", "z"], "origin": [-1.0, -0.5], "pixels_per_metre": 50.0, "down_sign": 1.0, "left": 44, "top": 22}
URLS = ["data:image/png;base64,AAAA", "data:image/png;base64,BBBB", "data:image/png;base64,CCCC"]


def _golden_messages():
    text = user_text("Go to the sofa.", (), {"start": [0.0, 1.5]}, "waypoints", ["corner-1", "corner-2", "top"], 7, GRID, 1.0)
    return build_messages(text, URLS, "low")


def test_template_snapshot_matches_its_version():
    assert VERSION in SNAPSHOTS, f"new prompt version {VERSION}: add its digest {PROMPT.digest()} to SNAPSHOTS"
    assert PROMPT.digest() == SNAPSHOTS[VERSION], f"the vision prompt changed: bump its version (now {VERSION})"


def test_rendered_messages_snapshot():
    digest = hashlib.sha256(json.dumps(_golden_messages(), sort_keys=True).encode()).hexdigest()
    assert digest == RENDERED[VERSION], f"rendering of the vision prompt changed: bump {VERSION}"


def test_message_shape_text_then_images_in_view_order():
    system, user = _golden_messages()
    assert system["role"] == "system" and "marked with numbers" in system["content"]
    parts = user["content"]
    assert parts[0]["type"] == "text" and [p["image_url"] for p in parts[1:]] == [{"url": u, "detail": "low"} for u in URLS]
    text = parts[0]["text"]
    assert text.splitlines()[0] == "Views of the scene: 3. Numbered candidate marks: 7."
    assert "View 3: seen straight from above, with a metric grid" in text and "x coordinates" in text and "z coordinates" in text
    assert "Start position [x, z]: [0.00, 1.50]" in text
    mc = user_text("What is it?", ("table", "chair"), {}, "option", ["corner-1"], 0, None, 1.0)
    assert "(A) table\n(B) chair" in mc and "The answer is (X)" in mc and "grid" not in mc
    # no detail key unless asked for (servers that do not know it stay happy)
    assert build_messages("q", ["data:x"])[1]["content"][1] == {"type": "image_url", "image_url": {"url": "data:x"}}
