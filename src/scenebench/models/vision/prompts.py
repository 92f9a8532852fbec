"""Versioned prompts of the ``openai-vision:`` model (set-of-marks views of the scene).

Like the judge prompts (:mod:`scenebench.judges.prompts`), the template carries a version and
``tests/models/test_vision_prompts.py`` pins the sha256 of the template and of the rendered messages
per version: editing any text here without bumping ``VERSION`` fails the tests, because the version
enters the run's settings (a changed prompt starts a new run instead of mixing answers).

The user message is a text part describing the views, the K images as ``image_url`` parts
(``data:image/png;base64,...``) in the order described, then a text part with the question and the
answer format (last, so requests about one scene share their beginning: prefix caching).
Nothing of the scene's annotation is in the text: no object labels, no boxes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from scenebench.models.predictions import LETTERS


@dataclass(frozen=True)
class VisionPrompt:
    version: str
    system: str
    views: str  # str.format over n_views, n_marks
    corner: str
    top: str
    formats: tuple[tuple[str, str], ...]
    situation: str = ""  # situated questions (SQA3D): the situation sentence, then the agent's pose
    pose: str = ""

    def digest(self) -> str:
        """sha256 of everything that reaches the model (the snapshot test pins it per version)."""
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()

    def format_for(self, answer_kind: str) -> str:
        table = dict(self.formats)
        return table.get(answer_kind, table["text"])


PROMPT = VisionPrompt(
    version="vision-v2",  # v2: ranked_text (ScanQA's top-10) and SQA3D's situation lines
    system=(
        "You are a 3D scene understanding assistant. You see rendered views of a 3D point cloud of an indoor "
        "scene or object. Candidate objects are marked with numbers in yellow boxes; the same number marks the "
        "same candidate in every view. Answer the question about the scene concisely in the requested format."
    ),
    views="Views of the scene: {n_views}. Numbered candidate marks: {n_marks}.",
    corner="View {k}: seen from above one corner of the scene.",
    top=(
        "View {k}: seen straight from above, with a metric grid: the numbers along the top edge are {a} "
        "coordinates and the numbers along the left edge are {b} coordinates, in metres, one grid line every {step} m."
    ),
    formats=(
        (
            "mask",
            "Answer with the mark number(s) of the object the question refers to, in the form: Mark N (or Marks N, M if it is split over several marks).",
        ),
        ("box", "Answer with the mark number of the object the question refers to, in the form: Mark N."),
        ("boxes", "Answer with one entry per object, in the form: label: Mark N."),
        ("rooms", "Answer with one entry per room, in the form: room type: [x, z, y, lx, lz, h]."),
        ("option", "Answer with the letter of the correct option, in the form: The answer is (X)."),
        (
            "waypoints",
            "Read positions off the grid of the top view. Answer with the path as a list of floor points [x, z] in metres, for example: [0.0, 0.0], [1.5, 2.0].",
        ),
        ("text", "Answer in one or two sentences."),
        # top-k question answering (ScanQA's answer_top10): short answers, best first
        ("ranked_text", "Answer with up to 10 short answers of a few words each, the most likely first, one per line."),
    ),
    situation="Your situation: {situation}",
    pose="Your position [x, y, z]: [{position}]. Your orientation (quaternion x, y, z, w): [{rotation}].",
)
VERSION = PROMPT.version


def _fmt(v: float) -> str:
    return f"{float(v):.2f}"


def view_lines(view_names: list[str], grid: dict[str, Any] | None, step: float) -> list[str]:
    out = []
    for k, name in enumerate(view_names, 1):
        if name == "top" and grid is not None:
            out.append(PROMPT.top.format(k=k, a=grid["axes"][0], b=grid["axes"][1], step=f"{step:g}"))
        else:
            out.append(PROMPT.corner.format(k=k))
    return out


def scene_text(view_names: list[str], n_marks: int, grid: dict[str, Any] | None, step: float) -> str:
    """What comes before the images: how many views and marks, and what each view is."""
    return "\n".join([PROMPT.views.format(n_views=len(view_names), n_marks=n_marks), *view_lines(view_names, grid, step)])


def question_text(query: str, options: tuple[str, ...], inputs: dict[str, Any], answer_kind: str) -> str:
    """What comes after the images: the question, its options or start point, the answer format.

    ``answer_kind`` is the sample's, except ``rooms`` for room detection (boxes of rooms, not marks).
    """
    parts = [f"Question: {query}"]
    if options:
        parts.append("Options:")
        parts.extend(f"({LETTERS[i]}) {o}" for i, o in enumerate(options))
    if "start" in inputs:
        parts.append(f"Start position [x, z]: [{', '.join(_fmt(v) for v in inputs['start'])}]")
    if "situation" in inputs:
        parts.append(PROMPT.situation.format(situation=inputs["situation"]))
    if "position" in inputs and "rotation" in inputs:
        position, rotation = (", ".join(_fmt(v) for v in inputs[k]) for k in ("position", "rotation"))
        parts.append(PROMPT.pose.format(position=position, rotation=rotation))
    parts.append(PROMPT.format_for(answer_kind))
    return "\n".join(parts)


def build_messages(intro: str, image_urls: list[str], question: str, detail: str | None = None) -> list[dict[str, Any]]:
    """System message, then one user message: the views described, the images in view order, the question.

    The question comes last so every request of a scene starts with the same system text, view
    description and images: servers with prompt (prefix) caching reuse them across the questions.
    """
    images = [{"type": "image_url", "image_url": ({"url": u, "detail": detail} if detail else {"url": u})} for u in image_urls]
    return [
        {"role": "system", "content": PROMPT.system},
        {"role": "user", "content": [{"type": "text", "text": intro}, *images, {"type": "text", "text": question}]},
    ]
