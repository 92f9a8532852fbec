"""Which metrics each 3DBench task reports under each protocol, and its primary metric.

Per-sample field names are the ones :mod:`scenebench.benchmarks.bench3d.sample_scores` writes.
Percentages (×100) everywhere except the judge score (0–10) and distances (metres).
"""

from __future__ import annotations

from dataclasses import dataclass

from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.metrics.aggregate import Derived, Mean, MetricSpec, Ratio, f1_from
from scenebench.metrics.captions import CIDER_D, ROUGE_L, bleu_specs, meteor_specs


@dataclass(frozen=True)
class Primary:
    """How a task's primary metric is computed from per-sample fields (for the joint aggregate bootstrap).

    kind ``mean``: mean of ``fields[0]``; ``ratio``: Σfields[0]/Σfields[1]; ``f1``: F1 of the ratios
    fields[0]/fields[1] (precision) and fields[0]/fields[2] (recall). ``to_percent`` turns the
    value into 0–100 for aggregation.
    """

    metric: str
    kind: str
    fields: tuple[str, ...]
    to_percent: float = 100.0


JUDGE_FIELDS = frozenset({"judge", "judge_same"})


def is_judged(p: Primary) -> bool:
    """The primary metric is a judge's verdict (text tasks; official position relation), whatever
    judge the run had: the split of ``mean_rule`` / ``mean_judged`` does not depend on ``--judge``."""
    return p.fields[0] in JUDGE_FIELDS


def task_specs(task: str, protocol: str, *, circular: bool = False) -> tuple[list[MetricSpec], Primary]:
    t = TASKS[task]
    if t.kind == "choice":
        specs: list[MetricSpec] = [
            Mean(
                "accuracy",
                "correct",
                100,
                "share of questions answered right (rules; LLM extractor for leftovers in strict with a judge)",
                "%",
            )
        ]
        prim = Primary("accuracy", "mean", ("correct",))
        if circular:
            specs = [
                Mean("circular_accuracy", "correct", 100, "share of questions right in every rotation of the options", "%"),
                Mean("accuracy", "rot_correct", 100, "share of (question, rotation) answers right", "%"),
            ]
            prim = Primary("circular_accuracy", "mean", ("correct",))
        specs.append(Mean("parsed_rate", "parsed", 100, "share of answers from which an option could be read", "%"))
        if task == "position_relation":
            specs.append(
                Mean("judge_same", "judge_same", 100, "share judged to state the same relation as the right sentence (LLM judge)", "%")
            )
            if protocol == "official":
                prim = Primary("judge_same", "mean", ("judge_same",))
        return specs, prim
    if t.kind == "grounding":
        around = "around_box_linf" if protocol == "official" else "around_box_l2"
        what = (
            "every centre axis within 1 m after clamping values to >= 0.01 (L∞)"
            if protocol == "official"
            else "centre within 1 m (Euclidean)"
        )
        specs = [
            Mean(around, "hit", 100, f"exactly one box and {what}", "%"),
            Mean("in_box", "in_box", 100, "predicted centre inside the GT box", "%"),
            Mean("mean_iou", "iou", 100, "AABB IoU (0 without exactly one box)", "%"),
            Mean("acc_iou25", "iou25", 100, "IoU >= 0.25", "%"),
            Mean("acc_iou50", "iou50", 100, "IoU >= 0.5", "%"),
        ]
        return specs, Primary(around, "mean", ("hit",))
    if t.kind == "grounding_plus":
        specs = [
            Mean("in_box", "in_box", 100, "predicted centre point inside the GT box", "%"),
            Mean(
                "within_1m",
                "within_1m",
                100,
                "predicted point within 1 m of the GT centre"
                + (" (denominator: parsed answers only, as released)" if protocol == "official" else ""),
                "%",
            ),
        ]
        return specs, Primary("within_1m", "mean", ("within_1m",)) if protocol == "official" else Primary("in_box", "mean", ("in_box",))
    if t.kind in ("detection", "room_detection"):
        if t.kind == "detection":
            crit = "centre in the GT box as the released loop rewrites it" if protocol == "official" else "centre in GT box"
        else:
            crit = "released IoU > 0.5, boxes as written" if protocol == "official" else "IoU >= 0.5"
        if protocol == "official":
            specs = [
                Ratio(
                    "precision_official",
                    "hits",
                    "n_pred",
                    100,
                    f"GT objects whose label is in the answer with some predicted box ({crit}), over predicted boxes",
                    "%",
                )
            ]
            return specs, Primary("precision_official", "ratio", ("hits", "n_pred"))
        specs = [
            Ratio("precision", "tp", "n_pred", 100, f"one-to-one label-constrained matches ({crit}) over predicted boxes", "%"),
            Ratio("recall", "tp", "n_gt", 100, f"one-to-one label-constrained matches ({crit}) over GT boxes", "%"),
            Derived("f1", ("precision", "recall"), f1_from, "harmonic mean of precision and recall", "%"),
        ]
        return specs, Primary("f1", "f1", ("tp", "n_pred", "n_gt"))
    if t.kind == "navigation":
        specs = [
            Mean("success", "success", 100, "path loss < 1 m x number of GT waypoints", "%"),
            Mean("mean_path_loss", "loss", 1.0, "mean path loss over answers with a path (m)", "m", higher_is_better=False),
            Mean("spl", "spl", 100, "success x GT length / max(predicted, GT length)", "%"),
            Mean("ndtw", "ndtw", 100, "exp(-DTW / (n_gt x 1 m))", "%"),
        ]
        return specs, Primary("success", "mean", ("success",))
    specs = [
        Mean(
            "judge_score",
            "judge",
            1.0,
            "LLM judge score 0-10"
            + (" (invalid reply = -1, as released)" if protocol == "official" else " (invalid reply = 0, counted invalid)"),
            "/10",
        ),
        # the caption metrics every text benchmark shares (scenebench.metrics.captions); BLEU-1 and -4 only
        *bleu_specs((1, 4)),
        ROUGE_L,
        CIDER_D,
        *meteor_specs(),
        Mean("meteor_mean", "meteor", 100, "mean of per-sample METEOR 1.5 scores (not the corpus score)", "%"),
    ]
    return specs, Primary("judge_score", "mean", ("judge",), to_percent=10.0)
