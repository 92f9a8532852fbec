"""Which metrics each 3DBench task reports under each protocol, and its primary metric.

Per-sample field names are the ones :mod:`scenebench.benchmarks.bench3d.sample_scores` writes.
Percentages (×100) everywhere except the judge score (0–10) and distances (metres).
"""

from __future__ import annotations

from dataclasses import dataclass

from scenebench.benchmarks.bench3d.tasks import TASKS
from scenebench.metrics.aggregate import Derived, Mean, MetricSpec, Ratio, f1_from


def _bleu(*args):  # noqa: ANN002 - Derived passes metric values: precisions (%) then the length ratio
    from scenebench.metrics.text import bleu_from_sums

    *ps, lr = args
    if lr is None:
        return None
    return None if (v := bleu_from_sums([None if p is None else p / 100 for p in ps], lr, 1.0)) is None else v * 100


def _meteor(p, r, frag):  # noqa: ANN001 - Derived passes metric values
    from scenebench.metrics.text import meteor_from_sums

    return None if (v := meteor_from_sums(p, r, frag)) is None else v * 100


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
        Ratio("bleu1_p_py", "m1", "g1", 100, "BLEU unigram precision (corpus)", "%"),
        Ratio("bleu2_p_py", "m2", "g2", 100, "BLEU bigram precision (corpus)", "%"),
        Ratio("bleu3_p_py", "m3", "g3", 100, "BLEU trigram precision (corpus)", "%"),
        Ratio("bleu4_p_py", "m4", "g4", 100, "BLEU 4-gram precision (corpus)", "%"),
        Ratio("len_ratio_py", "hyp_len", "ref_len", 1.0, "candidate / closest reference length (corpus)"),
        Derived("bleu1_py", ("bleu1_p_py", "len_ratio_py"), _bleu, "corpus BLEU-1 with brevity penalty (pycocoevalcap Bleu_1)", "%"),
        Derived(
            "bleu4_py",
            ("bleu1_p_py", "bleu2_p_py", "bleu3_p_py", "bleu4_p_py", "len_ratio_py"),
            _bleu,
            "corpus BLEU-4 with brevity penalty (pycocoevalcap Bleu_4, PTB tokens)",
            "%",
        ),
        Mean("rouge_l_py", "rouge_l", 100, "ROUGE-L F (beta 1.2), mean over samples", "%"),
        Mean(
            "cider_d_py",
            "cider_d",
            100,
            "CIDEr-D x100 as papers report it (sigma 6, IDF from the evaluated references); not a percentage: can exceed 100",
            "x100",
        ),
        Ratio("meteor_p_java", "met_tw", "met_tl", 1.0, "METEOR weighted precision (corpus sums)"),
        Ratio("meteor_r_java", "met_rw", "met_rl", 1.0, "METEOR weighted recall (corpus sums)"),
        Ratio("meteor_frag_java", "met_ch", "met_wm", 1.0, "METEOR chunks per matched word (corpus sums)"),
        Derived(
            "meteor_java",
            ("meteor_p_java", "meteor_r_java", "meteor_frag_java"),
            _meteor,
            "METEOR 1.5 corpus score from summed statistics (pycocoevalcap METEOR); n/a without java and the jar",
            "%",
        ),
        Mean("meteor_mean", "meteor", 100, "mean of per-sample METEOR 1.5 scores (not the corpus score)", "%"),
    ]
    return specs, Primary("judge_score", "mean", ("judge",), to_percent=10.0)
