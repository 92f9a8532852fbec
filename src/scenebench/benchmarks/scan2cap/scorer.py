"""Score Scan2Cap dense captions: CIDEr / BLEU-4 / ROUGE-L @ k IoU, k in {0.25, 0.5}.

Per described object (``docs/metrics/scan2cap_m_at_kiou.md``) the scorer picks at most one proposal
of its scene, gates it on IoU with the object's box, and scores that proposal's caption against the
object's descriptions. What differs:

- ``strict``: per scene and threshold, one-to-one matching of the submitted boxes to the described
  objects maximising the number of pairs with IoU >= k, then the IoU sum; each object's value is
  the per-sample score of its matched caption (PTB tokens, no ``sos``/``eos``, references untruncated)
  and exactly 0 when unmatched; ``m@k`` = their mean over **all** described objects (the benchmark
  scorer's recall); precision divides the same sum by the number of submitted boxes, F1 combines
  both. CIDEr-D's IDF comes from the references of every described object.
- ``official:original`` (plain ``official``; the training repo's ``lib/eval_helper.py``): each
  proposal goes to the object whose centre is nearest its own (VoteNet's assignment, taken on the
  proposal box), is kept when its IoU with that object is **>** k, and a later proposal **overwrites**
  an earlier one; references are ``sos`` + the first 30 tokens + ``eos``, the caption ``sos`` + caption
  + ``eos`` (whitespace tokens, no PTB), an object without a kept proposal is scored as the
  placeholder ``sos eos`` (which still earns ROUGE-L); BLEU-4 is the corpus score, CIDEr-D and
  ROUGE-L the mean over objects. The model's NMS / objectness filtering happens before ``pred.json``
  and is not repeated here.
- ``official:benchmark`` (the benchmark server's ``benchmark/eval.py``): per scene, a Hungarian
  assignment of proposals to objects on the **generalised IoU**; with fewer proposals than objects
  the unassigned objects take **proposal 0** (a zero-initialised index); an object counts when the
  AABB IoU (``+ 1e-8``) of its proposal is **>=** k; per-sample scores with ``sos``/``eos`` on both
  sides and untruncated references (no PTB); recall = sum / objects, precision = sum / proposals,
  F1. Objects of a scene without predictions are ``excluded`` (the released script raises there:
  its masks no longer line up with the corpus).
- ``official:chatscene`` (Chat-Scene's ``calc_scan2cap_score`` with its preprocessing's two-step
  voting): each proposal votes for the object (any row of the box table) it overlaps most, each
  object keeps its highest-IoU voter, gated at IoU **>=** k; ``sos``/``eos`` around caption and
  description and PTB tokens on both sides; ``sos eos`` for an object without one; corpus BLEU-4,
  mean CIDEr-D and ROUGE-L.
- ``official:ll3da`` (LL3DA's ``evaluate_densecap.py``): the same voting, gated at IoU **>** k; the
  training repo's text (whitespace tokens, references cut at 30 tokens) and placeholder.

- ``official:leo`` (LEO's ``evaluator/cap_eval.py`` with ``pc_type=pred``): each object takes the
  proposal with the largest IoU among the **first 50** in file order (LEO keeps 50 Mask3D masks),
  kept when IoU **>=** k; caption ``('sos ' + caption + ' eos').replace('. ', ' . ')``, references
  ``sos`` + all tokens + ``eos``, whitespace tokens, the ``sos eos`` placeholder; corpus BLEU-4, mean
  CIDEr-D and ROUGE-L.
- ``official:video3dllm`` (Video-3D-LLM's ``eval_scan2cap.py`` and preprocessing; Ross3D the same):
  the same choice (first 50, max IoU, **>=** k); caption and every description get ``.`` and ``,``
  split off and are lower-cased inside ``sos``/``eos`` (no tokenizer); an object without a proposal
  answers the empty string and is scored against the references of the **last earlier object that
  had one** (the released loop does not reassign its ``gt`` variable there).

METEOR (``meteor=True``, ``--meteor``: Java and the METEOR 1.5 jar, :mod:`scenebench.metrics.text`;
off by default, the jar loads its paraphrase table on every start): the jar's per-sample scores under
``strict`` and ``official:benchmark`` (masked as the other metrics), else the corpus score from the
summed jar statistics, each lineage feeding the jar its own caption and reference strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.geometry.boxes import iou_matrix_minmax
from scenebench.io.files import file_fingerprint
from scenebench.io.scannet import box_path, by_scene, load_minmax_boxes
from scenebench.metrics.aggregate import Derived, Mean, MetricSpec, Ratio, f1_from
from scenebench.metrics.grounding import iou_matrix_eps
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.records import SampleScore, Status, summarize_scores
from scenebench.metrics.text import (
    bleu_from_sums,
    bleu_stats,
    cider_d,
    meteor_from_sums,
    meteor_stats,
    meteor_unavailable_reason,
    rouge_l,
    tokenize,
)
from scenebench.protocol import resolve_protocol
from scenebench.results import Results

from .data import DescribedObject, load_objects
from .predictions import read_predictions
from .spec import LINEAGES

THRESHOLDS = {"0.25": 0.25, "0.5": 0.5}
MAX_REF_TOKENS = 30  # the training repo's CONF.TRAIN.MAX_DES_LEN
PLACEHOLDER = ("sos", "eos")
MAX_PROPOSALS = 50  # LEO and Video-3D-LLM keep the first 50 Mask3D masks as proposals
RULES = {
    "strict": {
        "assignment": "per threshold, one-to-one: the most pairs with IoU >= k, then the largest IoU sum",
        "gate": "IoU >= k",
        "text": "PTB tokens, no sos/eos; references untruncated",
        "unmatched_object": "0",
        "aggregation": "mean of per-sample scores over all described objects (recall); precision over submitted boxes",
    },
    "official:benchmark": {
        "assignment": "Hungarian on generalised IoU per scene; an unassigned object takes proposal 0",
        "gate": "IoU (+ 1e-8) >= k",
        "text": "sos + whitespace tokens + eos on both sides; references untruncated",
        "unmatched_object": "0 (masked); a scene without predictions: its objects excluded",
        "aggregation": "per-sample scores; recall over objects, precision over proposals, F1",
    },
    "official:chatscene": {
        "assignment": "each proposal votes for its max-IoU object; each object keeps its highest-IoU voter",
        "gate": "IoU >= k",
        "text": "PTB tokens of 'sos <caption> eos' and of 'sos <description> eos'; references untruncated",
        "unmatched_object": "the placeholder 'sos eos'",
        "aggregation": "corpus BLEU-4; mean CIDEr-D and ROUGE-L over all described objects",
    },
    "official:ll3da": {
        "assignment": "each proposal votes for its max-IoU object; each object keeps its highest-IoU voter",
        "gate": "IoU > k",
        "text": "sos + whitespace tokens + eos; references sos + first 30 tokens + eos",
        "unmatched_object": "the placeholder 'sos eos'",
        "aggregation": "corpus BLEU-4; mean CIDEr-D and ROUGE-L over all described objects",
    },
    "official:leo": {
        "assignment": "per object, the largest-IoU proposal among the first 50 in file order",
        "gate": "IoU >= k",
        "text": "('sos ' + caption + ' eos').replace('. ', ' . '); references sos + all tokens + eos; whitespace tokens",
        "unmatched_object": "the placeholder 'sos eos'",
        "aggregation": "corpus BLEU-4; mean CIDEr-D and ROUGE-L over all described objects",
    },
    "official:video3dllm": {
        "assignment": "per object, the largest-IoU proposal among the first 50 in file order",
        "gate": "IoU >= k",
        "text": "'.' and ',' split off and lower case inside sos/eos, caption and references; whitespace tokens",
        "unmatched_object": "'sos eos' scored against the references of the last earlier object with a proposal",
        "aggregation": "corpus BLEU-4; mean CIDEr-D and ROUGE-L over all described objects",
    },
    "official:original": {
        "assignment": "each proposal to the object with the nearest centre; a later proposal overwrites an earlier one",
        "gate": "IoU > k",
        "text": "sos + whitespace tokens + eos; references sos + first 30 tokens + eos",
        "unmatched_object": "the placeholder 'sos eos'",
        "aggregation": "corpus BLEU-4; mean CIDEr-D and ROUGE-L over all described objects",
    },
}


def _bleu(*args: float | None) -> float | None:
    *ps, lr = args
    if lr is None or any(p is None for p in ps):
        return None
    v = bleu_from_sums([float(p) / 100 for p in ps if p is not None], float(lr), 1.0)
    return None if v is None else 100 * v


def _meteor(p: float | None, r: float | None, frag: float | None) -> float | None:
    v = meteor_from_sums(p, r, frag)
    return None if v is None else 100 * v


def metric_specs(protocol: str, meteor: bool = False) -> list[MetricSpec]:
    out: list[MetricSpec] = []
    for k in THRESHOLDS:
        t = k.replace(".", "")
        per_sample = (("METEOR", "meteor"),) if meteor else ()
        if protocol in ("strict", "official:benchmark"):
            for name, f in (("CIDEr", "cider"), ("BLEU-4", "bleu4"), ("ROUGE-L", "rouge"), *per_sample):
                out.append(
                    Mean(
                        f"{name}@{k}",
                        f"{f}_{t}",
                        scale=100,
                        description=f"{name} of the caption matched at IoU >= {k}, 0 unmatched (recall)",
                    )
                )
                out.append(
                    Ratio(f"{name}@{k} precision", f"{f}_{t}", "pred_share", scale=100, description="the same sum over submitted boxes")
                )
                out.append(Derived(f"{name}@{k} F1", (f"{name}@{k} precision", f"{name}@{k}"), f1_from))
        else:
            out.append(
                Mean(
                    f"CIDEr@{k}",
                    f"cider_{t}",
                    scale=100,
                    description=f"CIDEr-D with the placeholder for objects without a kept proposal (IoU > {k})",
                )
            )
            out.append(Mean(f"ROUGE-L@{k}", f"rouge_{t}", scale=100, description=f"ROUGE-L with the placeholder (IoU > {k})"))
            for n in range(1, 5):
                out.append(Ratio(f"BLEU p{n}@{k}", f"b{t}_m{n}", f"b{t}_g{n}", scale=100, description="corpus n-gram precision"))
            out.append(
                Ratio(f"BLEU length ratio@{k}", f"b{t}_hyp_len", f"b{t}_ref_len", description="summed caption / closest reference lengths")
            )
            deps = (*(f"BLEU p{n}@{k}" for n in range(1, 5)), f"BLEU length ratio@{k}")
            out.append(Derived(f"BLEU-4@{k}", deps, _bleu, description="corpus BLEU-4 (x100)"))
            if meteor:
                out.append(Ratio(f"METEOR p@{k}", f"m{t}_met_tw", f"m{t}_met_tl", description="METEOR weighted precision (corpus sums)"))
                out.append(Ratio(f"METEOR r@{k}", f"m{t}_met_rw", f"m{t}_met_rl", description="METEOR weighted recall (corpus sums)"))
                out.append(
                    Ratio(f"METEOR frag@{k}", f"m{t}_met_ch", f"m{t}_met_wm", description="METEOR chunks per matched word (corpus sums)")
                )
                mdeps = (f"METEOR p@{k}", f"METEOR r@{k}", f"METEOR frag@{k}")
                out.append(Derived(f"METEOR@{k}", mdeps, _meteor, description="corpus METEOR 1.5 (the jar's EVAL line, x100)"))
    return out  # fmt: skip


def assign_strict(iou: np.ndarray, k: float) -> np.ndarray:
    """(G,) index of the proposal matched to each object, -1 for none (module doc)."""
    n_pred, n_gt = iou.shape
    out = np.full(n_gt, -1, dtype=np.int64)
    if n_pred == 0 or n_gt == 0:
        return out
    from scipy.optimize import linear_sum_assignment

    ok = iou >= k
    # a pair below k is worth nothing; above, B (more than any IoU sum) plus its IoU: most pairs, then the largest IoU sum of the kept pairs
    rows, cols = linear_sum_assignment(-(ok * (float(min(n_pred, n_gt) + 1) + iou)))
    keep = ok[rows, cols]
    out[cols[keep]] = rows[keep]
    return out


def giou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) generalised IoU of min-max boxes: IoU - (enclosing - union) / enclosing."""
    a, b = a[:, None, :], b[None, :, :]
    inter = np.prod(np.clip(np.minimum(a[..., 3:], b[..., 3:]) - np.maximum(a[..., :3], b[..., :3]), 0, None), axis=-1)
    union = np.prod(a[..., 3:] - a[..., :3], axis=-1) + np.prod(b[..., 3:] - b[..., :3], axis=-1) - inter
    hull = np.prod(np.maximum(a[..., 3:], b[..., 3:]) - np.minimum(a[..., :3], b[..., :3]), axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            np.where(union > 0, inter / np.where(union > 0, union, 1), 0)
            - np.where(hull > 0, (hull - union) / np.where(hull > 0, hull, 1), 0)
        )


def assign_benchmark(pred: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """(G,) the proposal of each object under the server's Hungarian on GIoU; unassigned objects take
    proposal 0 (its index array starts as zeros); -1 for every object when there is no proposal."""
    if len(pred) == 0:
        return np.full(len(gt), -1, dtype=np.int64)
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(-giou_matrix(pred, gt))
    out = np.zeros(len(gt), dtype=np.int64)
    out[cols] = rows
    return out


def assign_original(pred: np.ndarray, table_ids: np.ndarray, table_boxes: np.ndarray, object_ids: np.ndarray, k: float) -> np.ndarray:
    """(G,) index of the last proposal whose nearest-centre object is the object and whose IoU with it
    is > k, -1 for none (module doc). Nearest centres are taken over every object of the box table."""
    out = np.full(len(object_ids), -1, dtype=np.int64)
    if len(pred) == 0 or len(table_ids) == 0:
        return out
    centre = lambda b: (b[:, :3] + b[:, 3:]) / 2  # noqa: E731
    dist = np.linalg.norm(centre(pred)[:, None, :] - centre(table_boxes)[None, :, :], axis=2)
    nearest = dist.argmin(1)
    iou = iou_matrix_minmax(pred, table_boxes)[np.arange(len(pred)), nearest]
    kept = np.flatnonzero(iou > k)
    for j in kept:  # file order: a later proposal overwrites
        hit = np.flatnonzero(object_ids == table_ids[nearest[j]])
        out[hit] = j
    return out


def assign_best_voter(
    pred: np.ndarray, table_ids: np.ndarray, table_boxes: np.ndarray, object_ids: np.ndarray, k: float, *, inclusive: bool
) -> np.ndarray:
    """(G,) the highest-IoU proposal among those whose max-IoU object (over every row of the box table)
    is the object, if that IoU passes the gate (``>= k`` when ``inclusive``, else ``> k``); -1 for none.
    Equal IoUs keep the first proposal."""
    out = np.full(len(object_ids), -1, dtype=np.int64)
    if len(pred) == 0 or len(table_ids) == 0:
        return out
    iou = iou_matrix_minmax(pred, table_boxes)
    votes, best = iou.argmax(1), iou.max(1)
    for g, oid in enumerate(object_ids):
        mine = np.flatnonzero(table_ids[votes] == oid)
        if len(mine):
            j = mine[np.argmax(best[mine])]
            if best[j] >= k if inclusive else best[j] > k:
                out[g] = j
    return out


def assign_best_iou(iou: np.ndarray, k: float, max_proposals: int = MAX_PROPOSALS) -> np.ndarray:
    """(G,) per object the proposal with the largest IoU among the first ``max_proposals`` (the first
    on equal IoUs), kept when that IoU is >= k; -1 for none (LEO, Video-3D-LLM: module doc)."""
    top = iou[:max_proposals]
    if len(top) == 0:
        return np.full(iou.shape[1], -1, dtype=np.int64)
    return np.where(top.max(0) >= k, top.argmax(0), -1).astype(np.int64)


def _video3dllm(text: str) -> list[str]:
    # Video-3D-LLM's eval_scan2cap.py: '.' and ',' split off, lower case, sos/eos, no tokenizer
    return ("sos " + text.replace(".", " . ").replace(",", " , ").lower() + " eos").split()


def references(protocol: str, objects: list[DescribedObject]) -> list[list[list[str]]]:
    """Each object's reference token lists as the protocol prepares them."""
    if protocol == "strict":
        return [[tokenize(d) for d in o.descriptions] for o in objects]
    if protocol in ("official:benchmark", "official:leo"):
        return [[["sos", *t, "eos"] for t in o.tokens] for o in objects]
    if protocol == "official:chatscene":
        return [[tokenize(f"sos {d} eos") for d in o.descriptions] for o in objects]
    if protocol == "official:video3dllm":
        return [[_video3dllm(d) for d in o.descriptions] for o in objects]
    return [[["sos", *t[:MAX_REF_TOKENS], "eos"] for t in o.tokens] for o in objects]


def texts(protocol: str, captions: list[str | None], refs: list[list[list[str]]]) -> tuple[list[list[str]], list[list[list[str]]]]:
    """(hypothesis tokens, reference token lists) per object, in object order, of the caption chosen
    for each object (None: no proposal) under ``protocol``."""
    hyps: list[list[str]] = []
    out = list(refs)
    last = -1  # video3dllm: the last object with a proposal, whose references a later miss still holds
    for i, cap in enumerate(captions):
        if protocol == "strict":
            hyps.append(tokenize(cap) if cap is not None else [])
        elif protocol == "official:chatscene":
            hyps.append(tokenize(f"sos {cap} eos") if cap is not None else list(PLACEHOLDER))
        elif protocol == "official:leo":
            hyps.append(("sos " + cap + " eos").replace(". ", " . ").split() if cap is not None else list(PLACEHOLDER))
        elif protocol == "official:video3dllm":
            # no proposal: the empty answer, scored against the references of the last sample that had one
            # (model_scan2cap.py leaves its ``gt`` variable unassigned); the first objects keep their own
            hyps.append(_video3dllm(cap if cap is not None else ""))
            if cap is not None:
                last = i
            elif last >= 0:
                out[i] = refs[last]
        else:
            hyps.append(("sos " + cap + " eos").split(" ") if cap is not None else list(PLACEHOLDER))
    return hyps, out


class Scan2CapScorer:
    benchmark = "scan2cap"

    def __init__(
        self, objects: list[DescribedObject], boxes_dir: Path, preds: dict[str, tuple[np.ndarray, list[str]]], protocol: str,
        meteor: bool = False,
    ) -> None:  # fmt: skip
        self.objects, self.boxes_dir, self.preds, self.protocol = objects, boxes_dir, preds, resolve_protocol(protocol, LINEAGES)
        self.meteor = meteor
        self._values: dict[str, tuple[dict[str, float], dict[str, Any]]] | None = None

    def sample_ids(self) -> list[str]:
        return [o.sample_id for o in self.objects]

    def _compute(self) -> dict[str, tuple[dict[str, float], dict[str, Any]]]:
        """Every object's values at once: CIDEr-D's IDF comes from all described objects."""
        strict = self.protocol == "strict"
        bench = self.protocol == "official:benchmark"
        gated: list[list[float]] = []  # official:benchmark: per scene, the IoU of each object's assigned proposal
        base_refs = references(self.protocol, self.objects)
        chosen: dict[str, list[int]] = {k: [] for k in THRESHOLDS}
        ious: list[float] = []
        shares: list[float] = []
        for scene, objs in by_scene(self.objects).items():
            ids, boxes = load_minmax_boxes(self.boxes_dir, scene)
            pred, _ = self.preds.get(scene, (np.zeros((0, 6)), []))
            oids = np.array([o.object_id for o in objs])
            rows = np.array([int(np.flatnonzero(ids == i)[0]) if (ids == i).any() else -1 for i in oids], dtype=np.int64)
            gt = boxes[np.maximum(rows, 0)] if len(boxes) else np.zeros((len(oids), 6))
            iou = iou_matrix_minmax(pred, gt) * (rows >= 0)[None, :]  # an object without a row overlaps nothing
            if bench:
                a = assign_benchmark(pred, gt)
                hit = (
                    iou_matrix_eps(pred[np.maximum(a, 0)], gt, 1e-8)[np.arange(len(a)), np.arange(len(a))]
                    if len(pred)
                    else np.zeros(len(a))
                )
                gated.append((hit * (rows >= 0)).tolist())
            for k, t in THRESHOLDS.items():
                if bench:
                    a_k = a
                elif self.protocol in ("official:chatscene", "official:ll3da"):
                    a_k = assign_best_voter(pred, ids, boxes, oids, t, inclusive=self.protocol == "official:chatscene")
                elif self.protocol in ("official:leo", "official:video3dllm"):
                    a_k = assign_best_iou(iou, t)
                else:
                    a_k = assign_strict(iou, t) if strict else assign_original(pred, ids, boxes, oids, t)
                chosen[k] += a_k.tolist()
            ious += (iou.max(0) if len(pred) else np.zeros(len(oids))).tolist()
            shares += [len(pred) / len(objs)] * len(objs)
        order = {o.sample_id: i for i, o in enumerate(o for objs in by_scene(self.objects).values() for o in objs)}
        captions = {s: c for s, (_, c) in self.preds.items()}
        values: dict[str, dict[str, float]] = {o.sample_id: {} for o in self.objects}
        detail: dict[str, dict[str, Any]] = {o.sample_id: {"best_iou": ious[order[o.sample_id]]} for o in self.objects}
        meteor_in: list[tuple[str, str, float, str, list[str]]] = []  # (sample, threshold tag, gate, caption, references)
        for k in THRESHOLDS:
            tag = k.replace(".", "")
            caps: list[str | None] = []
            for o in self.objects:
                j = chosen[k][order[o.sample_id]]
                caps.append(captions[o.scene_id][j] if j >= 0 else None)
                detail[o.sample_id][f"caption@{k}"] = caps[-1]
            matched = [c is not None for c in caps]
            hyps, refs = texts(self.protocol, caps, base_refs)
            cider = cider_d(hyps, refs) if self.objects else []
            gate = [x for scene_iou in gated for x in scene_iou]
            for i, o in enumerate(self.objects):
                v, h, r = values[o.sample_id], hyps[i], refs[i]
                if strict or bench:
                    on = (1.0 if matched[i] else 0.0) if strict else float(gate[order[o.sample_id]] >= THRESHOLDS[k])
                    st = bleu_stats(h, r)
                    ps = [st[f"m{n}"] / st[f"g{n}"] if st[f"g{n}"] else None for n in range(1, 5)]
                    b4 = bleu_from_sums(ps, st["hyp_len"], st["ref_len"]) if h else 0.0
                    v.update({f"cider_{tag}": on * cider[i], f"bleu4_{tag}": on * (b4 or 0.0), f"rouge_{tag}": on * rouge_l(h, r)})
                else:
                    on = 1.0
                    v.update({f"cider_{tag}": cider[i], f"rouge_{tag}": rouge_l(h, r)})
                    v.update({f"b{tag}_{name}": x for name, x in bleu_stats(h, r).items()})
                meteor_in.append((o.sample_id, tag, on, " ".join(h), [" ".join(x) for x in r]))
        if self.meteor and meteor_in:
            # one jar run for both thresholds (it loads its paraphrase table on every start)
            parts, scores, _ = meteor_stats([m[3] for m in meteor_in], [m[4] for m in meteor_in])
            for (sid, tag, on, _, _), part, score in zip(meteor_in, parts, scores):
                if strict or bench:  # per-sample scores, masked as the other metrics
                    values[sid][f"meteor_{tag}"] = on * score
                else:  # summable statistics: the corpus METEOR is computed from their sums, as the jar's EVAL line
                    values[sid].update({f"m{tag}_{f}": x for f, x in part.items()})
        for o in self.objects:
            if strict or bench:
                values[o.sample_id]["pred_share"] = shares[order[o.sample_id]]
        return {s: (values[s], detail[s]) for s in values}

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        if self._values is None:
            self._values = self._compute()
        for scene, objs in by_scene([o for o in self.objects if o.sample_id not in skip]).items():
            status: Status = "scored" if scene in self.preds else ("excluded" if self.protocol == "official:benchmark" else "missing")
            yield [
                SampleScore(o.sample_id, scene, status, self._values[o.sample_id][0], {}, {"object_name": o.object_name, "descriptions": list(o.descriptions[:3]), **self._values[o.sample_id][1]})
                for o in objs
            ]  # fmt: skip


def make_job(
    objects: list[DescribedObject], inputs: dict[str, Any], boxes: Path, predictions: Path, protocol: str,
    n_resamples: int = 1000, seed: int = 0, oracle_boxes: bool = False, meteor: bool = False,
) -> ScoringJob:  # fmt: skip
    protocol = resolve_protocol(protocol, LINEAGES)
    reason = meteor_unavailable_reason() if meteor else "not requested (--meteor)"
    inputs = {**inputs, "boxes_dir": str(boxes), "predictions": file_fingerprint(predictions)}
    inputs["boxes"] = {sid: file_fingerprint(box_path(boxes, sid)) for sid in by_scene(objects)}
    settings: dict[str, Any] = {
        "iou_thresholds": list(THRESHOLDS.values()),
        **RULES[protocol],
        "protocols": RULES,
        "meteor": reason or ("per-sample jar scores" if protocol in ("strict", "official:benchmark") else "corpus (summed jar statistics)"),
    }
    if oracle_boxes:
        settings["boxes"] = "ground truth (oracle-box setting): not comparable with m@kIoU of detected boxes"
    scorer = Scan2CapScorer(objects, Path(boxes), read_predictions(predictions, objects), protocol, meteor=reason is None)
    specs = metric_specs(protocol, meteor=reason is None)

    def summarize(records: list[SampleScore], run: Any) -> Results:
        s = summarize_scores(records, specs, n_resamples=n_resamples, seed=seed)
        return s.to_results("scan2cap", protocol, settings=settings, inputs=inputs)

    return ScoringJob("scan2cap", protocol, scorer, summarize, settings, inputs, label="scoring scan2cap")


def prepare_scoring(
    *, annotations: Path, boxes: Path, predictions: Path, protocol: str = "strict", n_resamples: int = 1000, seed: int = 0,
    meteor: bool = False,
) -> ScoringJob:  # fmt: skip
    checked = resolve_protocol(protocol, LINEAGES)
    objects = load_objects(annotations)
    truth = {"annotations": file_fingerprint(annotations)}
    return make_job(objects, truth, Path(boxes), Path(predictions), checked, n_resamples, seed, meteor=meteor)


def validate_command(annotations: Path, boxes: Path, predictions: Path | None = None) -> None:
    """``scenebench validate scan2cap``: read every input (errors name file, record, field); print counts."""
    import json

    objects = load_objects(annotations)
    scenes = by_scene(objects)
    out: dict[str, Any] = {"objects": len(objects), "descriptions": sum(len(o.descriptions) for o in objects), "scenes": len(scenes)}
    out["references_longer_than_30_tokens"] = sum(len(t) > MAX_REF_TOKENS for o in objects for t in o.tokens)
    out["objects_without_row"] = sum(
        int(not np.isin(o.object_id, load_minmax_boxes(boxes, s)[0])) for s, objs in scenes.items() for o in objs
    )
    if predictions is not None:
        preds = read_predictions(predictions, objects)
        out["proposals"] = sum(len(c) for _, c in preds.values())
        out["scenes_without_predictions"] = len(set(scenes) - set(preds))
    print(json.dumps(out, indent=2))
