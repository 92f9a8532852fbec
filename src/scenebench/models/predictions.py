"""Typed predictions, one dataclass per task family, with a JSON form for the run store.

A model returns one of these per sample. They are benchmark-neutral: each benchmark's run source
(:mod:`scenebench.models.sources`) turns them into that benchmark's prediction-file record
(SURPRISE3D ``{"sample_id", "mask"|"box"}``, 3DBench ``{"question_id", "task", "text"}``, RIO
``{"rescan", "instance", "pose"}``). Conventions, fixed here once:

- boxes are axis-aligned, centre-size ``[cx, cy, cz, dx, dy, dz]`` in metres, full extents, in the
  scene's own frame (3DBench: y up; SURPRISE3D: z up);
- a pose is a row-major 4x4 matrix ``M @ [x, y, z, 1]``, translation in metres;
- waypoints are ``[x, z]`` pairs (3DBench's floor plane), metres;
- an option is the 0-based index into the sample's ``options``.

``to_text()`` writes the answer the way a 3D LLM would, in a form the official 3DBench parser
reads back (numbers inside ``[...]``, options as ``(B) text``), so a structured prediction can be
scored through the free-text path unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Union

from scenebench.errors import ScenebenchError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _num(x: float, digits: int = 2) -> str:
    """A number as short text; -0.0 printed as 0 so parsers that drop signs still see the value."""
    v = round(float(x), digits)
    if v == 0:
        v = 0.0
    return f"{v:.{digits}f}"


def _box_text(box: Sequence[float]) -> str:
    return "[" + ", ".join(_num(v) for v in box) + "]"


def _check_box(box: Sequence[float], what: str) -> list[float]:
    b = [float(v) for v in box]
    if len(b) != 6 or not all(math.isfinite(v) for v in b):
        raise ScenebenchError(f"{what}: a box needs 6 finite numbers [cx, cy, cz, dx, dy, dz], got {list(box)!r}")
    return b


@dataclass
class Prediction:
    """Base: every prediction knows its sample and may carry free text (the model's raw reply)."""

    sample_id: str
    kind: ClassVar[str] = ""
    # What the model wants kept next to its answer for the report (e.g. the views a vision model saw);
    # small and JSON-able, never scored, left out of the JSON form when empty. ``extra["status"]`` is
    # the model's own account of the sample ("ok" or what went wrong): the runner counts it
    # (results.json extra.model_diagnostics).
    extra: dict[str, Any] = field(default_factory=dict, kw_only=True, compare=False)

    def to_json(self) -> dict[str, Any]:
        d = {"kind": self.kind, **asdict(self)}
        if not d["extra"]:
            del d["extra"]
        return d

    def to_text(self) -> str:  # pragma: no cover - every subclass defines it
        raise NotImplementedError


@dataclass
class MaskPrediction(Prediction):
    """Point indices (into the scene's point array) predicted to belong to the target."""

    indices: list[int] = field(default_factory=list)
    kind: ClassVar[str] = "mask"

    def __post_init__(self) -> None:
        self.indices = sorted({int(i) for i in self.indices})

    def to_text(self) -> str:
        return "points: " + ", ".join(str(i) for i in self.indices)


@dataclass
class BoxPrediction(Prediction):
    """One axis-aligned box ``[cx, cy, cz, dx, dy, dz]`` (grounding); ``label`` optional, never scored."""

    box: list[float] = field(default_factory=list)
    label: str | None = None
    kind: ClassVar[str] = "box"

    def __post_init__(self) -> None:
        self.box = _check_box(self.box, f"sample {self.sample_id}")

    def to_text(self) -> str:
        return f"The object is at {_box_text(self.box)}."


@dataclass
class LabelledBox:
    label: str
    box: list[float]
    score: float | None = None

    def __post_init__(self) -> None:
        self.box = _check_box(self.box, f"box '{self.label}'")


@dataclass
class BoxesPrediction(Prediction):
    """A set of labelled boxes (detection, room detection); may be empty."""

    boxes: list[LabelledBox] = field(default_factory=list)
    kind: ClassVar[str] = "boxes"

    def __post_init__(self) -> None:
        self.boxes = [b if isinstance(b, LabelledBox) else LabelledBox(**b) for b in self.boxes]

    def to_text(self) -> str:
        if not self.boxes:
            return "There are no such objects."
        return " ".join(f"{b.label}: {_box_text(b.box)}." for b in self.boxes)


@dataclass
class PosePrediction(Prediction):
    """A rigid 6DoF pose as a row-major 4x4 matrix (RIO: where the reference instance is in the rescan)."""

    pose: list[list[float]] = field(default_factory=list)
    kind: ClassVar[str] = "pose"

    def __post_init__(self) -> None:
        rows = [[float(v) for v in r] for r in self.pose]
        if len(rows) != 4 or any(len(r) != 4 for r in rows) or not all(math.isfinite(v) for r in rows for v in r):
            raise ScenebenchError(f"sample {self.sample_id}: a pose needs a finite 4x4 matrix")
        self.pose = rows

    def to_text(self) -> str:
        return "[" + ", ".join(_box_text(r)[1:-1] for r in self.pose) + "]"


@dataclass
class WaypointsPrediction(Prediction):
    """A path of ``[x, z]`` floor points (3DBench navigation)."""

    points: list[list[float]] = field(default_factory=list)
    kind: ClassVar[str] = "waypoints"

    def __post_init__(self) -> None:
        pts = [[float(v) for v in p] for p in self.points]
        if any(len(p) != 2 or not all(math.isfinite(v) for v in p) for p in pts):
            raise ScenebenchError(f"sample {self.sample_id}: waypoints are [x, z] pairs of finite numbers")
        self.points = pts

    def to_text(self) -> str:
        return "The path is " + ", ".join(f"[{_num(x)}, {_num(z)}]" for x, z in self.points) + "."


@dataclass
class OptionPrediction(Prediction):
    """The chosen option (0-based) of a multiple-choice question; ``option`` is its text."""

    index: int = 0
    option: str = ""
    kind: ClassVar[str] = "option"

    def to_text(self) -> str:
        letter = LETTERS[self.index] if 0 <= self.index < len(LETTERS) else str(self.index)
        return f"The answer is ({letter}) {self.option}".rstrip()


@dataclass
class TextPrediction(Prediction):
    """Free text (captions, QA, or a model's raw reply to any task)."""

    text: str = ""
    kind: ClassVar[str] = "text"

    def to_text(self) -> str:
        return self.text


@dataclass
class RankedTextPrediction(TextPrediction):
    """Answers ranked best first (top-k question answering: ScanQA's ``answer_top10``). ``text`` is
    always the first answer, so every reader of a :class:`TextPrediction` sees the top-1; a
    benchmark that scores the whole list (EM@10) reads ``answers``. Built from ``text`` alone, the
    list is that one answer."""

    answers: list[str] = field(default_factory=list)
    kind: ClassVar[str] = "ranked_text"

    def __post_init__(self) -> None:
        answers = [str(a) for a in self.answers] or ([self.text] if self.text else [])
        self.answers = answers
        self.text = answers[0] if answers else ""

    def top(self, k: int) -> list[str]:
        """The first ``k`` answers (fewer when the model gave fewer)."""
        return self.answers[:k]


AnyPrediction = Union[
    MaskPrediction,
    BoxPrediction,
    BoxesPrediction,
    PosePrediction,
    WaypointsPrediction,
    OptionPrediction,
    TextPrediction,
    RankedTextPrediction,
]
PREDICTION_TYPES: dict[str, type[Prediction]] = {
    c.kind: c
    for c in (
        MaskPrediction,
        BoxPrediction,
        BoxesPrediction,
        PosePrediction,
        WaypointsPrediction,
        OptionPrediction,
        TextPrediction,
        RankedTextPrediction,
    )
}
KINDS = tuple(PREDICTION_TYPES)


def prediction_from_json(d: dict[str, Any]) -> Prediction:
    """Inverse of ``Prediction.to_json`` (records read back from the run store)."""
    body = dict(d)
    kind = body.pop("kind", None)
    cls = PREDICTION_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ScenebenchError(f"stored prediction has unknown kind {kind!r} (known: {', '.join(KINDS)})")
    if cls is BoxesPrediction:
        body["boxes"] = [LabelledBox(**b) for b in body.get("boxes", [])]
    return cls(**body)


def option_prediction(sample_id: str, options: Sequence[str], index: int) -> OptionPrediction:
    if not 0 <= index < len(options):
        raise ScenebenchError(f"sample {sample_id}: option index {index} outside 0..{len(options) - 1}")
    return OptionPrediction(sample_id, index=int(index), option=str(options[index]))
