"""``openai:MODEL``: any OpenAI-compatible chat model, given the question and the scene as text.

This is the scene-graph-as-text baseline of many 3D-LLM papers: the model never sees points; it
reads a numbered list of the scene's objects with their axis-aligned boxes (the scene view's
``objects``; for an object-level cloud, the cloud's size) and the question, and answers in words.

- 3DBench: the reply is kept verbatim as :class:`TextPrediction`, so the benchmark's own parser
  (and judge) reads it exactly as it would read a 3D LLM's answer. The prompt asks for the format
  the parser understands (``The answer is (B)``, ``[cx, cy, cz, dx, dy, dz]``, ``[x, z]`` lists).
- SURPRISE3D: the model is asked for the number of the target object in the list; the reply's
  ``Object N`` becomes that object's point mask.
- A list too long for the server's context window is halved until the prompt fits (first objects
  kept); how often that happened is in ``usage["shortened"]``. A reply naming no listed object stays free text,
  which the scorer counts as missing (never a guess).
- Top-k question answering (answer kind ``ranked_text``, ScanQA): the model is asked for up to ten
  short answers, one per line, best first; they become a ``RankedTextPrediction``.
- Situated questions (SQA3D): the situation sentence and the agent's pose (position, quaternion)
  follow the question.
- RIO (poses) is not a text task: the model refuses it with a clear error.

Requests use temperature 0 and the run's seed; the key comes from env ``OPENAI_API_KEY`` (``EMPTY``
when unset, as local servers accept) and is never stored. ``base_url`` defaults to env
``OPENAI_BASE_URL``. Requests of one scene run concurrently (``concurrency``). ``timeout`` is the
total deadline of one HTTP request, replies over ``max_reply_bytes`` (1 MiB) are refused, and a
server fault stops the run with one line (exit 2) that a rerun resumes (:mod:`.openai_server`).
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from scenebench.errors import ScenebenchError
from scenebench.extras import require
from scenebench.models.base import ModelSample, SceneBatch, SceneObject
from scenebench.models.builtin.openai_server import RESUME, ModelUnavailable, chat, error_message, make_client
from scenebench.models.predictions import LETTERS, MaskPrediction, Prediction, RankedTextPrediction, TextPrediction
from scenebench.redact import redact_url

PROMPT_VERSION = "sg-text-2"  # 2: situated questions (SQA3D) carry the situation and the agent's pose
SYSTEM = (
    "You are a 3D scene understanding assistant. You are given a list of the objects in a 3D scene, each "
    "with its axis-aligned bounding box [cx, cy, cz, dx, dy, dz] in metres (centre, then full size), and a "
    "question about the scene. Answer concisely in the requested format."
)
FORMATS = {
    "option": "Answer with the letter of the correct option, in the form: The answer is (X).",
    "box": "Answer with the bounding box of the object, in the form: [cx, cy, cz, dx, dy, dz].",
    "boxes": "Answer with one entry per object, in the form: label: [cx, cy, cz, dx, dy, dz].",
    "waypoints": "Answer with the path as a list of floor points [x, z], for example: [0.0, 0.0], [1.5, 2.0].",
    "mask": "Answer with the number of the object from the list that the question refers to, in the form: Object N.",
    "text": "Answer in one or two sentences.",
    # top-k question answering (ScanQA's answer_top10): short answers, best first
    "ranked_text": "Answer with up to 10 short answers of a few words each, the most likely first, one per line.",
}
RANKED_K = 10
_LIST_MARK = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022])\s*")


def ranked_answers(reply: str, k: int = RANKED_K) -> list[str]:
    """The answers of a one-per-line reply, best first: list marks (``1.``, ``2)``, ``-``) removed,
    blank lines and repeats dropped, at most ``k``."""
    out: list[str] = []
    for line in reply.splitlines():
        a = _LIST_MARK.sub("", line).strip()
        if a and a not in out:
            out.append(a)
    return out[:k]


_OBJECT_RE = re.compile(r"object\s*(?:number\s*)?#?\s*(\d+)", re.IGNORECASE)
_NUMBER_RE = re.compile(r"\b(\d+)\b")


def _fmt(v: float) -> str:
    return f"{float(v):.2f}"


def describe_scene(objects: list[SceneObject], points: Any, up_axis: int, max_objects: int) -> str:
    """The scene as text: numbered objects with boxes (capped at ``max_objects``), or the cloud's extent."""
    axis = "xyz"[up_axis]
    if objects:
        lines = [f"Scene objects ({axis} is up):"]
        for k, o in enumerate(objects[:max_objects], 1):
            lines.append(f"{k}. {o.label}: [{', '.join(_fmt(v) for v in o.box)}]")
        if len(objects) > max_objects:
            lines.append(f"({len(objects) - max_objects} more objects not listed)")
        return "\n".join(lines)
    pts = np.asarray(points, float)
    if len(pts) == 0:
        return "The point cloud is empty."
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return (
        f"A single object's point cloud of {len(pts)} points ({axis} is up), size "
        f"{_fmt(hi[0] - lo[0])} x {_fmt(hi[1] - lo[1])} x {_fmt(hi[2] - lo[2])} m (x, y, z)."
    )


def build_prompt(s: ModelSample, scene_text: str) -> str:
    parts = [scene_text, "", f"Question: {s.query}"]
    if s.options:
        parts.append("Options:")
        parts.extend(f"({LETTERS[i]}) {o}" for i, o in enumerate(s.options))
    if "start" in s.inputs:
        parts.append(f"Start position [x, z]: [{', '.join(_fmt(v) for v in s.inputs['start'])}]")
    if "situation" in s.inputs:
        parts.append(f"Your situation: {s.inputs['situation']}")
    if "position" in s.inputs and "rotation" in s.inputs:
        position, rotation = (", ".join(_fmt(v) for v in s.inputs[k]) for k in ("position", "rotation"))
        parts.append(f"Your position [x, y, z]: [{position}]. Your orientation (quaternion x, y, z, w): [{rotation}].")
    parts.append(FORMATS.get(s.answer_kind, FORMATS["text"]))
    return "\n".join(parts)


def object_choice(reply: str, n_objects: int) -> int | None:
    """0-based index of the listed object a reply names ("Object 3", or a lone number); None otherwise."""
    m = _OBJECT_RE.findall(reply)
    nums = [int(x) for x in m] if m else [int(x) for x in _NUMBER_RE.findall(reply)]
    nums = [k for k in dict.fromkeys(nums) if 1 <= k <= n_objects]
    return nums[0] - 1 if len(nums) == 1 else None


class OpenAIChatModel:
    name = "openai"
    ground_truth_perception = True  # the prompt lists the ground-truth objects of the scene

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        max_tokens: int = 256,
        timeout: float = 120.0,
        max_retries: int = 3,
        max_objects: int = 80,
        concurrency: int = 4,
        max_reply_bytes: int | None = None,
    ) -> None:
        self.model = model
        self.max_reply_bytes = max_reply_bytes
        self.name = f"openai:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not self.base_url:
            raise ScenebenchError(f"--model openai:{model} needs --base-url (or env OPENAI_BASE_URL) of an OpenAI-compatible server")
        self.seed, self.temperature, self.max_tokens = int(seed), float(temperature), int(max_tokens)
        self.timeout, self.max_retries = float(timeout), int(max_retries)
        self.max_objects, self.concurrency = int(max_objects), max(1, int(concurrency))
        self._client: Any = None
        self.usage = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}

    def settings(self) -> dict[str, Any]:
        # The server address is not part of the identity: the same model moved to another host must resume.
        return {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "max_objects": self.max_objects,
            "prompt_version": PROMPT_VERSION,
        }

    def client(self) -> Any:
        if self._client is None:
            self._client = make_client(
                "the openai: model adapter",
                self.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                max_reply_bytes=self.max_reply_bytes,
            )
        return self._client

    def ask(self, prompt: str) -> str:
        openai = require("openai", "judge", "the openai: model adapter")
        client = self.client()
        r = chat(
            self.name,
            self.base_url,
            self.timeout,
            self.max_retries,
            lambda: client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                temperature=self.temperature,
                seed=self.seed,
                max_tokens=self.max_tokens,
            ),
            passthrough=(openai.BadRequestError,),  # a context overflow: answer() shortens the list
        )
        self.usage["calls"] += 1
        if r.usage is not None:
            self.usage["prompt_tokens"] += int(r.usage.prompt_tokens or 0)
            self.usage["completion_tokens"] += int(r.usage.completion_tokens or 0)
        if not r.choices:
            return ""
        return (r.choices[0].message.content or "").strip()

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        if any(s.answer_kind == "pose" for s in batch.samples):
            raise ScenebenchError(f"{self.name} answers in text; 6DoF pose samples need a geometric model (e.g. baseline:fpfh)")
        scene = batch.scene
        objects = scene.objects
        up = int(scene.get("up_axis")) if scene.has("up_axis") else 2
        points = scene.points if not objects else np.zeros((0, 3))
        with ThreadPoolExecutor(self.concurrency) as pool:
            answered = list(pool.map(lambda s: self.answer(s, objects, points, up), batch.samples))
        out: list[Prediction] = []
        for s, (reply, n_listed) in zip(batch.samples, answered):
            if s.answer_kind == "mask":
                k = object_choice(reply, n_listed)
                if k is not None and objects[k].point_indices is not None:
                    out.append(MaskPrediction(s.sample_id, indices=np.asarray(objects[k].point_indices).tolist()))
                    continue
            if s.answer_kind == "ranked_text":
                out.append(RankedTextPrediction(s.sample_id, answers=ranked_answers(reply)))
                continue
            out.append(TextPrediction(s.sample_id, text=reply))
        return out

    def answer(self, s: ModelSample, objects: list[SceneObject], points: Any, up: int) -> tuple[str, int]:
        """The reply and how many objects the prompt listed.

        A scene list longer than the server's context is halved until it fits (the first objects are
        kept, so "Object N" still indexes ``objects``); a question that does not fit even without a
        list is an error, not a silent empty answer.
        """
        openai = require("openai", "judge", "the openai: model adapter")
        n = min(len(objects), self.max_objects)
        while True:
            try:
                return self.ask(build_prompt(s, describe_scene(objects, points, up, n))), n
            except openai.BadRequestError as exc:
                if not _context_overflow(exc) or n == 0:
                    raise ModelUnavailable(
                        f"model {self.name} at {redact_url(self.base_url or '')} refused the request of sample {s.sample_id}: "
                        f"HTTP 400 ({error_message(exc)}); {RESUME}"
                    ) from exc
                n //= 2
                self.usage["shortened"] = self.usage.get("shortened", 0) + 1


def _context_overflow(exc: Exception) -> bool:
    text = str(exc).lower()
    return "context" in text and ("exceed" in text or "too long" in text or "maximum" in text)
