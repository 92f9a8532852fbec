"""``openai-vision:MODEL``: any OpenAI-compatible vision-language model, shown marked views of the scene.

Per scene (once, cached on disk, see :mod:`scenebench.models.vision.scene_images`): the scene's own
point cloud is over-segmented without labels (:mod:`scenebench.models.vision.marks`), rendered from
K viewpoints (default 4 corner views and 1 top-down view with a metric grid, 640x480,
:mod:`scenebench.models.vision.render`) with a numbered mark on every candidate segment. Per
question: one chat request with the question and the K views as base64 PNG ``image_url`` parts
(prompt: :mod:`scenebench.models.vision.prompts`). The reply is mapped back:

- SURPRISE3D (``mask``): the mark(s) named ("Mark 3", "Marks 3, 7") -> the union of those segments'
  points;
- 3DBench grounding (``box``): the mark named -> that segment's axis-aligned box;
- 3DBench detection (``boxes``): ``label: Mark N`` entries -> labelled boxes of those segments;
- multiple choice, room detection, captions, QA (``option``, ``text``): the reply verbatim as
  :class:`TextPrediction`, read by the benchmark's own parser like any 3D LLM's answer;
- top-k question answering (``ranked_text``, ScanQA): up to ten short answers, one per line, best
  first, as ``openai:`` asks for them -> :class:`RankedTextPrediction` (EM@10 is then real);
- situated questions (SQA3D): the situation sentence and the agent's pose go with the question;
- navigation (``waypoints``): the model reads floor positions off the top view's grid; the reply
  text (``[x, z]`` lists) goes through the same parser;
- RIO (poses): not supported, a clear error.

A reply naming no valid mark stays free text (scored as missing, never a guess). The model never
reads the scene's annotation (``objects``, instance ids): only ``points``, ``colors`` and ``up_axis``.

Requests go through the ``openai`` client like ``openai:MODEL`` (:mod:`.openai_chat`): temperature 0,
the run's seed, the client's retries with backoff (``max_retries``) on timeouts, connection errors,
429 and 5xx, and at most ``concurrency`` requests of a scene at once. ``timeout`` is the total deadline
of one HTTP request, replies over ``max_reply_bytes`` (1 MiB) are refused, and a server fault stops
the run with one line (exit 2) that a rerun resumes (:mod:`.openai_server`). The key comes from env
``OPENAI_API_KEY`` (``EMPTY`` when unset) and is handed to the client only: it is never in the
settings, the run folder or the image cache.

Each prediction keeps, in ``extra["vision"]``, the thumbnails of the views sent (paths in the image
cache), the marks the reply named and the prompt version: the HTML report shows them per sample.
"""

from __future__ import annotations

import base64
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from scenebench.errors import ScenebenchError
from scenebench.models.base import ModelSample, SceneBatch
from scenebench.models.builtin.openai_chat import ranked_answers
from scenebench.models.builtin.openai_server import chat, make_client
from scenebench.models.predictions import (
    BoxesPrediction,
    BoxPrediction,
    LabelledBox,
    MaskPrediction,
    Prediction,
    RankedTextPrediction,
    TextPrediction,
)
from scenebench.models.vision.marks import SegmentSettings, parse_labelled_marks, parse_marks
from scenebench.models.vision.prompts import VERSION as PROMPT_VERSION
from scenebench.models.vision.prompts import build_messages, question_text, scene_text
from scenebench.models.vision.render import RENDER_VERSION, ViewSettings
from scenebench.models.vision.scene_images import SceneImages, scene_images


class OpenAIVisionModel:
    name = "openai-vision"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        max_tokens: int = 256,
        timeout: float = 120.0,
        max_retries: int = 3,
        concurrency: int = 4,
        width: int = 640,
        height: int = 480,
        corner_views: int = 4,
        top_view: bool = True,
        elevation_deg: float = 45.0,
        splat: int = 3,
        max_points: int = 300_000,
        grid_step: float = 1.0,
        segmentation: str = "colour",
        voxel: float = 0.1,
        colour_step: float = 0.15,
        max_marks: int = 60,
        image_detail: str | None = None,
        cache_dir: str | None = None,
        max_reply_bytes: int | None = None,
    ) -> None:
        if not model:
            raise ScenebenchError("--model openai-vision:MODEL needs the model id after 'openai-vision:'")
        self.model = model
        self.name = f"openai-vision:{model}"
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        if not self.base_url:
            raise ScenebenchError(
                f"--model {self.name} needs --base-url (or env OPENAI_BASE_URL) of an OpenAI-compatible server with vision input"
            )
        if not 0 <= int(corner_views) <= 4:
            raise ScenebenchError(f"{self.name}: corner_views must be 0..4, got {corner_views}")
        if int(width) < 64 or int(height) < 64:
            raise ScenebenchError(f"{self.name}: width and height must be at least 64 pixels, got {width}x{height}")
        if not int(corner_views) and not top_view:
            raise ScenebenchError(f"{self.name}: no views left (corner_views=0 and top_view=false)")
        if image_detail not in (None, "auto", "low", "high"):
            raise ScenebenchError(f"{self.name}: image_detail must be auto, low or high, got {image_detail!r}")
        self.seed, self.temperature, self.max_tokens = int(seed), float(temperature), int(max_tokens)
        self.timeout, self.max_retries, self.concurrency = float(timeout), int(max_retries), max(1, int(concurrency))
        self.view = ViewSettings(
            width=int(width),
            height=int(height),
            corner_views=int(corner_views),
            top_view=bool(top_view),
            elevation_deg=float(elevation_deg),
            splat=int(splat),
            max_points=int(max_points),
            grid_step=float(grid_step),
        )
        if segmentation not in ("colour", "components"):
            raise ScenebenchError(f"{self.name}: segmentation must be colour or components, got {segmentation!r}")
        self.segments = SegmentSettings(method=segmentation, voxel=float(voxel), colour_step=float(colour_step), max_marks=int(max_marks))
        self.image_detail = image_detail
        self.cache_dir = cache_dir
        self.max_reply_bytes = max_reply_bytes
        self._client: Any = None
        self._lock = threading.Lock()
        self.usage = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "images": 0}

    def settings(self) -> dict[str, Any]:
        # Neither the server address nor the cache folder changes an answer: not part of the identity.
        return {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "prompt_version": PROMPT_VERSION,
            "render_version": RENDER_VERSION,
            "views": self.view.to_json(),
            "segments": self.segments.to_json(),
            "image_detail": self.image_detail,
        }

    def client(self) -> Any:
        if self._client is None:
            self._client = make_client(
                "the openai-vision: model adapter",
                self.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
                max_reply_bytes=self.max_reply_bytes,
            )
        return self._client

    def ask(self, messages: list[dict[str, Any]], n_images: int) -> str:
        client = self.client()
        r = chat(
            self.name,
            self.base_url,
            self.timeout,
            self.max_retries,
            lambda: client.chat.completions.create(
                model=self.model, messages=messages, temperature=self.temperature, seed=self.seed, max_tokens=self.max_tokens
            ),
        )
        with self._lock:
            self.usage["calls"] += 1
            self.usage["images"] += n_images
            if r.usage is not None:
                self.usage["prompt_tokens"] += int(r.usage.prompt_tokens or 0)
                self.usage["completion_tokens"] += int(r.usage.completion_tokens or 0)
        if not getattr(r, "choices", None):
            return ""
        return (r.choices[0].message.content or "").strip()

    def images_for(self, batch: SceneBatch) -> SceneImages:
        scene = batch.scene
        up = int(scene.get("up_axis")) if scene.has("up_axis") else 2
        points = np.asarray(scene.points, float)
        return scene_images(batch.scene_id, points, scene.colors, up, self.view, self.segments, self.cache_dir)

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        if any(s.answer_kind == "pose" for s in batch.samples):
            raise ScenebenchError(
                f"{self.name} does not support pose samples: re-localization needs 6DoF poses, which a vision-language model "
                "answering about rendered views cannot give; use a geometric model (e.g. baseline:fpfh)"
            )
        imgs = self.images_for(batch)
        urls = ["data:image/png;base64," + base64.b64encode(p.read_bytes()).decode("ascii") for p in imgs.image_paths()]
        n_marks = len(imgs.segmentation)
        with ThreadPoolExecutor(self.concurrency) as pool:
            replies = list(pool.map(lambda s: self.ask(self.messages(s, imgs, urls), len(urls)), batch.samples))
        return [self.to_prediction(s, reply, imgs, n_marks) for s, reply in zip(batch.samples, replies)]

    def messages(self, s: ModelSample, imgs: SceneImages, urls: list[str]) -> list[dict[str, Any]]:
        intro = scene_text(imgs.names(), len(imgs.segmentation), imgs.grid, self.view.grid_step)
        kind = "rooms" if s.task == "room_detection" else s.answer_kind
        return build_messages(intro, urls, question_text(s.query, tuple(s.options), dict(s.inputs), kind), self.image_detail)

    def to_prediction(self, s: ModelSample, reply: str, imgs: SceneImages, n_marks: int) -> Prediction:
        marks = parse_marks(reply, n_marks) if s.answer_kind in ("mask", "box") else []
        extra = {
            "vision": {
                "thumbnails": [str(p.absolute()) for p in imgs.thumb_paths()],
                "views": imgs.names(),
                "marks": marks,
                "n_marks": n_marks,
                "prompt_version": PROMPT_VERSION,
            }
        }
        if s.answer_kind == "mask" and marks:
            return MaskPrediction(s.sample_id, indices=imgs.segmentation.mask(marks).tolist(), extra=extra)
        if s.answer_kind == "box" and marks:
            return BoxPrediction(s.sample_id, box=list(imgs.segmentation.boxes[marks[0] - 1]), extra=extra)
        if s.answer_kind == "boxes" and s.task != "room_detection":
            entries = parse_labelled_marks(reply, n_marks)
            if entries:
                extra["vision"]["marks"] = [k for _, k in entries]
                return BoxesPrediction(
                    s.sample_id, boxes=[LabelledBox(lab, list(imgs.segmentation.boxes[k - 1])) for lab, k in entries], extra=extra
                )
        if s.answer_kind == "ranked_text":
            return RankedTextPrediction(s.sample_id, answers=ranked_answers(reply), extra=extra)
        return TextPrediction(s.sample_id, text=reply, extra=extra)
