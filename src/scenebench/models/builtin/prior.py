"""``baseline:prior``: a blind language prior. It never reads the point cloud.

It learns answer statistics from the benchmark's train split (``fit``) and answers from the
question text alone. What it scores is the share of a benchmark that needs no 3D perception at
all — the shortcut SURPRISE3D was built to remove; a high prior score is a warning about the data.

Per answer kind:

- option: the option whose text was most often the right answer of that task in train (ties and
  unseen texts: the most frequent right *position*; no train split: the first option);
- text: the most frequent train answer of the task ("" without a train split);
- box: the mean train answer box of the task (one fixed box, wherever the scene is); without train
  boxes (ScanRefer's train answers are object names) it abstains, status ``no_train_box``;
- boxes: for every train label named in the query, that label's mean train box (no label named:
  the task's most frequent train label);
- waypoints: from the start, the mean train displacement from start to goal;
- pose: the identity ("nothing moved"), the prior of object re-localization where most objects stay;
- mask: an empty mask. A blind model sees neither the points nor the instance labels, so it can
  point at nothing; the label-reading shortcut is ``baseline:labels``
  (:mod:`scenebench.models.builtin.labels`).

The prior never reads the scene: the runner hands it no ground-truth objects (it does not set
``ground_truth_perception``) and it reads no points.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

import numpy as np

from scenebench.models.base import ModelSample, SceneBatch
from scenebench.models.predictions import (
    BoxesPrediction,
    BoxPrediction,
    LabelledBox,
    MaskPrediction,
    PosePrediction,
    Prediction,
    TextPrediction,
    WaypointsPrediction,
    option_prediction,
)

_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def mentions(text: str, label: str) -> bool:
    """True when ``text`` names ``label`` as whole words; ``diningtable`` matches "dining table(s)" too."""
    toks = _WORD.findall(text.lower())
    target = "".join(_WORD.findall(label.lower()))
    if not target:
        return False
    forms = {target, target + "s", target + "es"}
    return any("".join(toks[i : i + n]) in forms for n in (1, 2, 3) for i in range(len(toks) - n + 1))


NO_TRAIN_BOX = "no_train_box"  # the status of a box question abstained on: no train box to average


class PriorModel:
    name = "baseline:prior"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.option_text: dict[str, Counter[str]] = defaultdict(Counter)
        self.option_pos: dict[str, Counter[int]] = defaultdict(Counter)
        self.texts: dict[str, Counter[str]] = defaultdict(Counter)
        self.boxes: dict[str, list[list[float]]] = defaultdict(list)
        self.label_boxes: dict[str, dict[str, list[list[float]]]] = defaultdict(lambda: defaultdict(list))
        self.moves: dict[str, list[list[float]]] = defaultdict(list)
        self.word_label: dict[str, Counter[str]] = defaultdict(Counter)
        self.label_count: Counter[str] = Counter()
        self.n_train = 0

    def settings(self) -> dict[str, Any]:
        return {}

    def fit(self, train: list[tuple[ModelSample, Prediction]]) -> None:
        self.n_train = len(train)
        for s, a in train:
            t = s.task
            if a.kind == "option":
                self.option_text[t][a.option] += 1  # type: ignore[attr-defined]
                self.option_pos[t][a.index] += 1  # type: ignore[attr-defined]
            elif a.kind == "text":
                text = a.text  # type: ignore[attr-defined]
                self.texts[t][text] += 1
                if s.answer_kind == "mask":  # segmentation train answers are the target names
                    for name in (n.strip() for n in text.split(";")):
                        if name:
                            self.label_count[name] += 1
                            for w in words(s.query):
                                self.word_label[w][name] += 1
            elif a.kind == "box":
                self.boxes[t].append(a.box)  # type: ignore[attr-defined]
            elif a.kind == "boxes":
                for b in a.boxes:  # type: ignore[attr-defined]
                    self.label_boxes[t][b.label].append(b.box)
            elif a.kind == "waypoints" and a.points and "start" in s.inputs:  # type: ignore[attr-defined]
                start = np.asarray(s.inputs["start"], float)
                self.moves[t].append((np.asarray(a.points[-1], float) - start).tolist())  # type: ignore[attr-defined]

    def guess_label(self, query: str, among: set[str] | None = None) -> str | None:
        """The target category the query's words point to most often in train (None without train).

        ``among``: only these labels may be the answer (e.g. the scene's labels); None when no train
        target name is among them."""
        counts = self.label_count if among is None else Counter({k: c for k, c in self.label_count.items() if k in among})
        if not counts:
            return None
        score: Counter[str] = Counter()
        for w in words(query):
            row = self.word_label.get(w)
            if row:
                tot = sum(row.values())
                for lab, c in row.items():
                    if lab in counts:
                        score[lab] += c / tot
        if not score:
            return counts.most_common(1)[0][0]
        return max(score, key=lambda k: (score[k], counts[k], k))

    def predict(self, batch: SceneBatch) -> list[Prediction]:
        return [self.answer(batch, s) for s in batch.samples]

    def answer(self, batch: SceneBatch, s: ModelSample) -> Prediction:
        t, sid = s.task, s.sample_id
        kind = s.answer_kind
        if kind == "option" and s.options:
            return option_prediction(sid, s.options, self.choose_option(t, s.options))
        if kind in ("text", "ranked_text", "option"):
            common = self.texts[t].most_common(1)
            return TextPrediction(sid, text=common[0][0] if common else "")
        if kind == "box":
            if not self.boxes[t]:
                # No train box to average (ScanRefer's train answers are names): abstain, marked, rather than
                # a placeholder box (a unit cube at the origin) that would be scored as a real prediction.
                return TextPrediction(sid, text="", extra={"status": NO_TRAIN_BOX})
            return BoxPrediction(sid, box=np.mean(self.boxes[t], axis=0).tolist())
        if kind == "boxes":
            seen = self.label_boxes[t]
            named = [lab for lab in sorted(seen) if mentions(s.query, lab)]
            if not named and seen:  # "detect the rooms": no label named, answer the most frequent one
                named = [max(seen, key=lambda lab: (len(seen[lab]), lab))]
            return BoxesPrediction(sid, boxes=[LabelledBox(lab, np.mean(seen[lab], axis=0).tolist()) for lab in named])
        if kind == "waypoints":
            start = np.asarray(s.inputs.get("start", [0.0, 0.0]), float)
            move = np.mean(self.moves[t], axis=0) if self.moves[t] else np.zeros(2)
            return WaypointsPrediction(sid, points=[start.tolist(), (start + move).tolist()])
        if kind == "pose":
            return PosePrediction(sid, pose=np.eye(4).tolist())
        if kind == "mask":
            return MaskPrediction(sid, indices=[])
        return TextPrediction(sid, text="")

    def choose_option(self, task: str, options: tuple[str, ...]) -> int:
        seen = self.option_text.get(task)
        if seen:
            counts = [seen.get(o, 0) for o in options]
            if max(counts) > 0 and counts.count(max(counts)) == 1:
                return int(np.argmax(counts))
        pos = self.option_pos.get(task)
        if pos:
            for i, _ in pos.most_common():
                if i < len(options):
                    return i
        return 0
