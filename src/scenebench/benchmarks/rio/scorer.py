"""Score RIO pose predictions through the shared engine (resumable run folder, counts, clustered CIs).

One sample = one changed reference instance in one rescan (``"<rescan>/<instance>"``): the
denominator is every instance listed in ``rigid[]`` of the evaluated rescans (``scope="changed"``,
the protocol). Unlisted instances are static and not scored; ``scope="all"`` (a diagnostic, marked
in the settings) scores them too, with the identity as their true pose. Per sample the scorer stores ``r_err``
(deg), ``t_err`` (m) and the hit indicators of both recall thresholds; breakdowns are ``motion``
(moved / static), ``label``, ``symmetry`` (none / 2-fold / 4-fold) and ``scene`` (reference scan);
intervals resample scenes.

Missing predictions (``n_missing``):

- ``strict``: a failure with infinite rotation and translation error. The recalls count it as a
  miss; the medians MRE/MTE include it as +inf, so when at least half of a group is missing its
  median is unbounded and is reported as ``null`` with a warning (never a made-up finite number);
  an interval whose bootstrap reaches +inf is reported as ``null`` likewise.
- ``official``: a miss for the recalls; MRE/MTE are medians over the instances that have a
  prediction (what public scripts that loop over predictions compute).

Interchangeable instances (``ambiguity``): ``official`` gives each prediction the best of its own
and its partners' ground truth (several predictions may claim one object); ``strict`` assigns
predictions to the group's objects one-to-one (Hungarian, maximising hits; see
:func:`scenebench.metrics.pose.assign_one_to_one`).

Excluded samples (non-rigid instances, instances absent from the rescan's annotation) are counted
and listed in ``extra.excluded``; removed instances are not in the rescan and are not samples.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scenebench.errors import InputError
from scenebench.io.files import file_fingerprint
from scenebench.metrics.aggregate import Mean, Median
from scenebench.metrics.jobs import ScoringJob
from scenebench.metrics.pose import assign_one_to_one, best_candidate_errors, candidate_errors, recall_hit
from scenebench.metrics.records import SampleScore, summarize_scores
from scenebench.protocol import check_protocol
from scenebench.results import Results

from .loader import GroundTruthTable, Rescan, ThreeRScan, check_scope
from .predictions import PosePredictions, read_pose_predictions

THRESHOLDS = (("hit_10", 0.1, 10.0), ("hit_20", 0.2, 20.0))  # field, metres, degrees (inclusive)
PRIMARY = "recall_10cm_10deg"
SPECS = (
    Mean(PRIMARY, "hit_10", scale=100.0, unit="%", description="share of ground-truth instances with t_err <= 0.1 m and r_err <= 10 deg"),
    Mean(
        "recall_20cm_20deg",
        "hit_20",
        scale=100.0,
        unit="%",
        description="share of ground-truth instances with t_err <= 0.2 m and r_err <= 20 deg",
    ),
    Median("MRE", "r_err", unit="deg", description="median rotation error (symmetry-aware)"),
    Median("MTE", "t_err", unit="m", description="median translation error"),
)
GROUPS = ("motion", "label", "symmetry", "scene")


# Rescans are scored together until a batch holds this many samples: one vectorised call per batch
# instead of one per rescan (2,000 rescans of 100 poses were 2,000 rounds of small numpy calls). A
# rescan is never split, so a batch is the unit of resumption as before.
BATCH_SAMPLES = 5000


class RioScorer:
    """Scores one predictions file on the rescans of one split; yields batches of whole rescans."""

    benchmark = "rio"

    def __init__(
        self,
        data: ThreeRScan,
        predictions: PosePredictions,
        rescans: list[Rescan],
        protocol: str = "strict",
        scope: str = "changed",
        only: set[str] | None = None,
    ) -> None:
        """``only``: score just these sample ids (``run --limit``); the others are not samples."""
        check_protocol(protocol, field="protocol")
        self.only = only
        self.scope = check_scope(scope)
        self.data = data
        self.preds = predictions
        self.rescans = rescans
        self.protocol = protocol
        self._table: GroundTruthTable | None = None
        self._ids: list[str] | None = None
        self._rows: _RowColumns | None = None

    @property
    def table(self) -> GroundTruthTable:
        """The samples of every evaluated rescan as columns (built once)."""
        if self._table is None:
            self._table = self.data.ground_truth_table(self.rescans, self.scope)
        return self._table

    def n_predictions_not_samples(self) -> int:
        """Predictions for instances that are not samples (static ones under ``scope="changed"``): ignored, counted."""
        t = self.table
        ids = set(zip(t.rescan, t.instance))
        return sum(1 for key in self.preds.poses if key not in ids)

    def sample_ids(self) -> list[str]:
        if self._ids is None:
            t = self.table
            self._ids = [f"{r}/{i}" for r, i in zip(t.rescan, t.instance)]
        if self.only is not None:
            return [i for i in self._ids if i in self.only]
        return list(self._ids)

    def iter_scores(self, skip: set[str]) -> Iterator[list[SampleScore]]:
        t = self.table
        self.sample_ids()
        ids: list[str] = self._ids  # type: ignore[assignment]
        rows: list[int] = []
        spans: list[tuple[int, int]] = []  # [start, end) of each rescan's rows within ``rows``
        only = self.only
        for a, b in t.bounds:
            if only is not None:
                todo = [i for i in range(a, b) if ids[i] in only and ids[i] not in skip]
            else:
                todo = [i for i in range(a, b) if ids[i] not in skip] if skip else list(range(a, b))
            if todo:
                spans.append((len(rows), len(rows) + len(todo)))
                rows.extend(todo)
            if len(rows) >= BATCH_SAMPLES:
                yield self.score_rows(rows, spans, ids)
                rows, spans = [], []
        if rows:
            yield self.score_rows(rows, spans, ids)

    def _row_columns(self) -> _RowColumns:
        """What :meth:`score_rows` needs of every table row, as arrays (built once, one pass)."""
        if self._rows is None:
            t = self.table
            poses, lines = self.preds.poses, self.preds.lines
            keys = list(zip(t.rescan, t.instance))
            pred = [poses.get(k) if ex is None else None for k, ex in zip(keys, t.excluded)]
            no_pose = np.zeros((3,))
            self._rows = _RowColumns(
                pred=pred,
                scorable=np.array([p is not None for p in pred], dtype=bool),
                n_cand=np.array([1 + len(pp) for pp in t.partners], dtype=np.int64),
                pred_transposed=np.array([p is not None and _transposed(p) for p in pred], dtype=bool),
                cand_transposed=np.array(
                    [T is not None and _transposed(T) and all(_transposed(A) for A in pp) for T, pp in zip(t.pose, t.partner_poses)],
                    dtype=bool,
                ),
                line=np.array([lines.get(k) for k in keys], dtype=object),
                source=np.array(t.centroid_source, dtype=object),
                excluded=np.array(t.excluded, dtype=object),
                centroid=np.array([no_pose if c is None else c for c in t.centroid], dtype=float).reshape(len(t), 3),
                order=np.array(t.symmetry_order, dtype=np.int64),
                scene=np.array(t.scene, dtype=object),
                groups={g: np.array(c, dtype=object) for g, c in t.group_columns().items()},
            )
        return self._rows

    def score_rows(self, rows: list[int], spans: list[tuple[int, int]], ids: list[str]) -> list[SampleScore]:
        """Score the table rows ``rows`` (whole rescans, ``spans`` within ``rows``) in one vectorised
        call (tests hold a per-rescan reference it must equal). Interchangeable
        instances compete only within their rescan (locations are numbered per rescan, in instance order)."""
        t = self.table
        R = self._row_columns()
        n = len(rows)
        rows_a = np.asarray(rows, dtype=np.intp)
        # Columns of the records; every row starts as a missing prediction (what it is unless scored or excluded).
        err = math.inf if self.protocol == "strict" else math.nan
        r_col, t_col = np.full(n, err), np.full(n, err)
        hit_col = {f: np.zeros(n) for f, _, _ in THRESHOLDS}
        status = np.full(n, "missing", dtype=object)
        reason = np.full(n, "no prediction", dtype=object)
        line = np.full(n, None, dtype=object)
        source = np.full(n, None, dtype=object)
        partner: list[int | None] = [None] * n
        scored = np.flatnonzero(R.scorable[rows_a])  # positions in ``rows``
        if scored.size:
            sr = rows_a[scored]
            srl = sr.tolist()
            n_cand = R.n_cand[sr]
            span_of = np.zeros(n, dtype=np.int64)
            for s_i, (a, b) in enumerate(spans):
                span_of[a:b] = s_i
            span_sr = span_of[scored]
            # numpy's einsum sums in an order that follows the memory layout of its operands, and
            # np.stack gives a transposed layout when every input is transposed (the index's
            # column-major transforms): rows are computed in groups of rescans whose stacks have
            # the layout the rescan alone would have had, so every error has the same last bit.
            f_pred = np.bincount(span_sr, weights=~R.pred_transposed[sr], minlength=len(spans)) == 0
            f_cand = np.bincount(span_sr, weights=~R.cand_transposed[sr], minlength=len(spans)) == 0
            layout = (f_pred * 2 + f_cand)[span_sr]
            cand_start = np.r_[0, np.cumsum(n_cand)]
            owner = np.repeat(np.arange(len(sr)), n_cand)
            r_all = np.empty(int(cand_start[-1]))
            t_all = np.empty(int(cand_start[-1]))
            r_err = np.empty(len(sr))
            t_err = np.empty(len(sr))
            chosen = np.empty(len(sr), dtype=np.int64)
            cand_layout = layout[owner]
            for lay in np.unique(layout).tolist():
                sel_a = np.flatnonzero(layout == lay)
                sel = [srl[k] for k in sel_a.tolist()]
                T_pred = np.stack([R.pred[i] for i in sel])  # type: ignore[misc]
                T_cand = np.stack([T for i in sel for T in (t.pose[i], *t.partner_poses[i])])  # type: ignore[misc]
                centroid = R.centroid[sr[sel_a]]
                order = R.order[sr[sel_a]]
                own = np.repeat(np.arange(len(sel)), n_cand[sel_a])
                cidx = np.flatnonzero(cand_layout == lay)  # the candidates of ``sel``, in order
                if self.protocol == "strict":
                    r_all[cidx], t_all[cidx] = candidate_errors(T_pred[own], T_cand, centroid[own], order[own], "strict")
                else:
                    r_g, t_g, c_g = best_candidate_errors(T_pred, T_cand, own, centroid, order, "official")
                    r_err[sel_a], t_err[sel_a], chosen[sel_a] = r_g, t_g, cidx[c_g]
            if self.protocol == "strict":
                # Interchangeable instances: one-to-one, no two predictions credited with one object.
                location = _locations(span_sr, [t.instance[i] for i in srl], [t.partners[i] for i in srl], n_cand)
                chosen = assign_one_to_one(r_all, t_all, owner, location, tuple((tm, rd) for _, tm, rd in THRESHOLDS))
                r_err, t_err = r_all[chosen], t_all[chosen]
            which = np.asarray(chosen) - cand_start[:-1]
            r_col[scored], t_col[scored] = r_err, t_err
            for f, tm, rd in THRESHOLDS:
                hit_col[f][scored] = recall_hit(r_err, t_err, rd, tm)
            status[scored] = "scored"
            reason[scored] = None
            line[scored] = R.line[sr]
            source[scored] = R.source[sr]
            for k in np.flatnonzero(which > 0).tolist():
                partner[int(scored[k])] = t.partners[srl[k]][int(which[k]) - 1]
        excluded = R.excluded[rows_a]
        is_excluded = np.not_equal(excluded, None)  # type: ignore[call-overload]  # elementwise on an object array
        status[is_excluded] = "excluded"
        reason[is_excluded] = excluded[is_excluded]
        names = ("r_err", "t_err", *hit_col)
        values = zip(r_col.tolist(), t_col.tolist(), *(h.tolist() for h in hit_col.values()))
        groups = zip(*(c[rows_a].tolist() for c in R.groups.values()))
        keys = tuple(R.groups)
        out: list[SampleScore] = []
        for i, scene, st, vals, grp, ln, src, pt, why in zip(
            rows, R.scene[rows_a].tolist(), status.tolist(), values, groups, line.tolist(), source.tolist(), partner, reason.tolist()
        ):
            if st == "scored":  # a line and a centroid source, no reason
                detail: dict[str, Any] = (
                    {"line": ln, "centroid_from": src} if pt is None else {"line": ln, "centroid_from": src, "matched_partner": pt}
                )
            else:  # missing or excluded: a reason only
                detail = {"reason": why}
            out.append(SampleScore(ids[i], scene, st, {} if st == "excluded" else dict(zip(names, vals)), dict(zip(keys, grp)), detail))
        return out


@dataclass
class _RowColumns:
    """Per-row arrays of a scorer's ground-truth table (:meth:`RioScorer._row_columns`)."""

    pred: list[np.ndarray | None]  # the prediction of each sample that is scored (not excluded, predicted)
    scorable: np.ndarray
    n_cand: np.ndarray  # 1 + interchangeable partners
    pred_transposed: np.ndarray
    cand_transposed: np.ndarray  # own pose and every partner pose column-major
    line: np.ndarray  # object: the prediction's line, None without one
    source: np.ndarray  # object: centroid source
    excluded: np.ndarray  # object: why a sample is excluded, None when not
    centroid: np.ndarray  # (n, 3); zeros for excluded samples (never read)
    order: np.ndarray
    scene: np.ndarray  # object
    groups: dict[str, np.ndarray]  # object


def _locations(span: np.ndarray, instance: list[int], partners: list[list[int]], n_cand: np.ndarray) -> np.ndarray:
    """Dense numbers of the objects (rescan span, instance id) of every candidate (own instance,
    then partners), in sorted (span, instance) order: what numbering ``sorted(set(keys))`` gives."""
    keys_inst = [x for inst, pp in zip(instance, partners) for x in (inst, *pp)] if (n_cand > 1).any() else instance
    try:
        inst = np.array(keys_inst, dtype=np.int64)
    except OverflowError:  # ids beyond int64: Python's integers sort them
        keys = [(int(s), x) for s, xs in zip(np.repeat(span, n_cand).tolist(), keys_inst) for x in (xs,)]
        dense = {key: k for k, key in enumerate(sorted(set(keys)))}
        return np.array([dense[key] for key in keys], dtype=np.int64)
    sp = np.repeat(span, n_cand)
    o = np.lexsort((inst, sp))
    s_o, i_o = sp[o], inst[o]
    new = np.ones(len(o), dtype=bool)
    new[1:] = (s_o[1:] != s_o[:-1]) | (i_o[1:] != i_o[:-1])
    location = np.empty(len(o), dtype=np.int64)
    location[o] = np.cumsum(new) - 1
    return location


def _transposed(T: np.ndarray) -> bool:
    """True for a column-major 4x4 (np.stack keeps that layout when every input has it)."""
    return bool(T.flags.f_contiguous and not T.flags.c_contiguous)


def _finite_or_none(metrics: dict[str, Any], intervals: dict[str, Any], where: str, warnings: list[str]) -> None:
    """Replace unbounded (+inf) medians and intervals by None, saying why (JSON has no infinity)."""
    for name, v in list(metrics.items()):
        if isinstance(v, float) and not math.isfinite(v):
            metrics[name] = None
            warnings.append(f"{name} ({where}) is unbounded: at least half of its instances have no prediction (infinite error)")
    for name, ci in list(intervals.items()):
        if ci is not None and not all(isinstance(x, float) and math.isfinite(x) for x in ci):
            intervals[name] = None


def sanitize_summary(summary: Any) -> list[str]:
    warnings: list[str] = []
    ci = summary.intervals
    _finite_or_none(summary.metrics["overall"], ci.overall, "overall", warnings)
    for key, block in summary.metrics.items():
        if key.startswith("by_"):
            cis = getattr(ci, key, {}) or {}
            for gv, vals in block.items():
                _finite_or_none(vals, cis.setdefault(gv, {}), f"{key[3:]}={gv}", warnings)
    if len(warnings) > 20:
        warnings = warnings[:20] + [f"... and {len(warnings) - 20} more unbounded medians"]
    return warnings


def build_results(
    records: list[SampleScore],
    *,
    protocol: str,
    settings: Mapping[str, Any],
    inputs: Mapping[str, Any],
    extra: Mapping[str, Any],
    n_resamples: int = 1000,
    seed: int = 0,
) -> Results:
    with np.errstate(invalid="ignore"):  # bootstrap quantiles of +inf medians: handled below
        summary = summarize_scores(records, SPECS, groups=GROUPS, n_resamples=n_resamples, seed=seed)
    warnings = sanitize_summary(summary)
    excluded = [{"sample_id": r.sample_id, "reason": r.detail.get("reason", "")} for r in records if r.status == "excluded"]
    partners = sum(1 for r in records if "matched_partner" in r.detail)
    return summary.to_results(
        "rio",
        protocol,
        settings=settings,
        inputs=inputs,
        warnings=warnings,
        extra={**dict(extra), "excluded": excluded, "n_matched_to_partner": partners},
    )


def scoring_settings(
    *, split: str, scope: str, units: str, symmetry_codes: Mapping[Any, int] | None, protocol: str, n_resamples: int, seed: int
) -> dict[str, Any]:
    """The settings a RIO number depends on (``results.settings``), the same for ``score`` and ``run``."""
    return {
        "split": split,
        "scope": scope,  # changed = rigid[] entries (protocol); all = diagnostic
        "thresholds": [{"field": f, "t_m": tm, "r_deg": rd, "inclusive": True} for f, tm, rd in THRESHOLDS],
        "units": units,
        "symmetry_codes": {str(k): int(v) for k, v in sorted((symmetry_codes or {}).items(), key=lambda kv: int(kv[0]))},
        "missing": "infinite error (strict)" if protocol == "strict" else "miss for recalls, left out of medians (official)",
        "bootstrap": {"n_resamples": n_resamples, "seed": seed},
    }


def prepare_scoring(
    *,
    data: str | Path,
    predictions: str | Path,
    protocol: str = "strict",
    split: str = "validation",
    scope: str = "changed",
    units: str = "auto",
    symmetry_codes: Mapping[int, int] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    extra: Mapping[str, Any] | None = None,
    gt: str | Path | None = None,
) -> ScoringJob:
    """The RIO scoring job for the shared driver (:func:`scenebench.runtime.scoring.score_benchmark`);
    ``gt``: the ground-truth tree (default ``<data>/../gt/3rscan`` when present, :func:`.loader.ground_truth_root`)."""
    checked = check_protocol(protocol)
    check_scope(scope)
    loaded = ThreeRScan(data, units=units, symmetry_codes=symmetry_codes, split=split, gt=gt)
    rescans = loaded.split_rescans(split)
    preds = read_pose_predictions(predictions, loaded.reference_instances(), evaluated=[r.scan_id for r in rescans], allow_empty=True)
    if preds.ignored_other_split and not preds.poses:
        # Every prediction is for a rescan outside the split: scoring would report 0 with every sample
        # missing, a number that says nothing about the model (issue 41).
        raise InputError(
            Path(predictions),
            f"all {preds.ignored_other_split} predictions are for rescans outside the '{split}' split (none for its "
            f"{len(rescans)} rescans)",
            field="rescan",
            expected=f"predictions for the '{split}' split, or --split naming the split they were made for",
        )
    other_split = (
        [f"{preds.ignored_other_split} predictions are for rescans outside the '{split}' split and were ignored"]
        if preds.ignored_other_split
        else []
    )
    settings = scoring_settings(
        split=split,
        scope=scope,
        units=loaded.unit_decision,
        symmetry_codes=symmetry_codes,
        protocol=checked,
        n_resamples=n_resamples,
        seed=seed,
    )
    inputs = {"index": file_fingerprint(loaded.index_path), "predictions": file_fingerprint(predictions)}
    if loaded.objects_path.exists():
        inputs["objects"] = file_fingerprint(loaded.objects_path)
    inputs["scan_files"] = loaded.scan_files_fingerprint(rescans)  # semseg.v2.json + PLY: they move centroids
    inputs.update(loaded.roots())

    scorer = RioScorer(loaded, preds, rescans, checked, scope)
    scorer.table  # noqa: B018 - built here, with the inputs, not inside the first batch

    def summarize(records: list[SampleScore], _run: Any) -> Results:
        res = build_results(
            records,
            protocol=checked,
            settings=settings,
            inputs=inputs,
            n_resamples=n_resamples,
            seed=seed,
            extra={
                "n_rescans": len(rescans),
                "ignored_predictions_other_split": preds.ignored_other_split,
                "ignored_predictions_not_samples": scorer.n_predictions_not_samples(),
                **dict(extra or {}),
            },
        )
        res.warnings.extend(w for w in other_split if w not in res.warnings)
        return res

    return ScoringJob("rio", checked, scorer, summarize, settings, inputs, label="scoring rio")
