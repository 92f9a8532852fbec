"""Paired comparison of finished runs on the same benchmark: differences, CIs, p-values, wins.

Two runs are comparable only when they scored the same samples under the same rules: same
benchmark, protocol and scoring settings, the same ground-truth data (checksums of every input but
the predictions), and the same sample ids with the same scenes and the same excluded samples.
Anything else is refused with :class:`~scenebench.errors.RunMismatchError` naming the difference,
because a "difference" between runs over different samples measures the samples, not the models.

Statistics (per metric, overall and per group value), for run B minus baseline A:

- point difference ``d = metric(B) - metric(A)`` on the same samples;
- the **p-value** of "no difference" from an exact paired **sign-flip permutation test over
  scenes**: under the null hypothesis the two runs' outputs are exchangeable within a scene, so
  every assignment that swaps A and B in a subset of the scenes is as likely as the observed one;
  the metric is recomputed on each (means, ratios, medians, F1 alike) and
  ``p = #{|d*| >= |d|} / #assignments``. All ``2**k`` assignments are enumerated for
  ``k <= EXACT_MAX_SCENES`` scenes (the identity is one of them, so p >= 2 / 2**k); above that,
  ``n_resamples`` random assignments with a fixed seed, ``p = (1 + #{|d*| >= |d|}) / (1 + R)``;
- the **interval**: a paired, scene-clustered bootstrap; each resample draws scenes with
  replacement and recomputes both runs' metric on the *same* drawn scenes (per-scene difficulty
  cancels); the percentile interval of the resampled differences.

A block (overall, or one group value) with fewer than ``MIN_SCENES`` scenes gets **no interval
and no p-value**: with a handful of clusters the bootstrap's resamples are a handful of distinct
scene sets and the sign-flip test cannot reach any usual level (2 scenes: p >= 0.5), so printing
either would look like evidence it is not. A block with fewer than ``MIN_SAMPLES`` samples shows
its count only. Every row carries its sample and scene counts, and the reason when it has no
interval (``MetricDiff.note``).

Per sample, wins/losses/ties count samples where B's per-sample value is better / worse / equal,
respecting ``higher_is_better`` (for median-error metrics lower wins).

References: Fisher, "The Design of Experiments", 1935 (randomisation tests); Field, Welsh,
"Bootstrapping clustered data", JRSS B 69(3), 2007 (few clusters: the bootstrap is unreliable).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from scenebench.errors import RunMismatchError
from scenebench.metrics.aggregate import (
    Derived,
    Mean,
    Median,
    MetricSpec,
    Ratio,
    bootstrap_replicates,
    cluster_weights,
    compute,
    f1_from,
    field_matrix,
)
from scenebench.report.console import judge_notes
from scenebench.report.runs import LoadedRun
from scenebench.results import MIN_CI_SCENES

# Settings that describe the model, the machine or the summary's bootstrap, not how a sample is
# scored; they may differ between compared runs.
NON_SCORING_SETTINGS = frozenset(
    {
        "model",
        "model_id",
        "model_args",
        "label",
        "generation",
        "predictions",
        "workers",
        "backend",
        "ray_address",
        "bootstrap",
        "n_resamples",
    }
)
# Input entries that are the model's output, not the benchmark's data.
PREDICTION_INPUTS = frozenset({"predictions"})
MIN_SCENES = MIN_CI_SCENES  # below this many scenes in a block: no interval, no p-value (as every report)
MIN_SAMPLES = 5  # below this many samples in a block: the count only
EXACT_MAX_SCENES = 16  # up to 2**16 sign-flip assignments are enumerated; above, Monte Carlo
KNOWN_DERIVED = {"f1_from": f1_from}


@dataclass(frozen=True)
class GroupMean:
    """A macro average: the mean over values of a breakdown key (3DBench's tasks) of one metric per
    value, each computed on that value's samples and multiplied by its ``factor`` (results.json's
    ``kind: group_mean``). Values whose metric is unavailable are left out, as the run's own
    aggregate leaves them out."""

    name: str
    group: str
    members: tuple[tuple[str, str, float, tuple[MetricSpec, ...]], ...]  # (value, metric, factor, its specs)
    unit: str = "%"
    higher_is_better: bool = True

    @property
    def deps(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d for _, _, _, specs in self.members for s in specs for d in s.deps))


AnySpec = MetricSpec | GroupMean


@dataclass
class MetricDiff:
    metric: str
    unit: str
    higher_is_better: bool
    a: float | None
    b: float | None
    diff: float | None
    ci: list[float] | None
    p_value: float | None
    n: int = 0  # samples in the block (excluded ones left out)
    n_scenes: int = 0
    p_method: str | None = None  # "sign-flip exact (2^k)" or "sign-flip Monte Carlo (R, seed S)"
    note: str | None = None  # why there is no interval / p-value


@dataclass
class WinLoss:
    field: str
    higher_is_better: bool
    wins: int
    losses: int
    ties: int
    n: int
    biggest_wins: list[tuple[str, float]] = field(default_factory=list)  # (sample id, B - A)
    biggest_losses: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class Comparison:
    baseline: str
    other: str
    benchmark: str
    protocol: str
    n_samples: int
    n_scenes: int
    level: float
    n_resamples: int
    seed: int
    overall: list[MetricDiff]
    groups: dict[str, dict[str, list[MetricDiff]]]
    wins: list[WinLoss]
    skipped: list[str]
    min_scenes: int = MIN_SCENES
    min_samples: int = MIN_SAMPLES
    judges: dict[str, list[str]] = field(default_factory=dict)  # run label -> its judge line (+ warning)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def specs_from_info(metric_info: Mapping[str, Mapping[str, Any]]) -> tuple[list[AnySpec], list[str]]:
    """Rebuild metric specs from ``results.json`` ``metric_info``; names that cannot be rebuilt are returned apart."""
    specs: list[AnySpec] = []
    skipped: list[str] = []
    for name, info in metric_info.items():
        kind, hib, scale = info.get("kind"), bool(info.get("higher_is_better", True)), float(info.get("scale", 1.0))
        unit = str(info.get("unit", ""))
        if kind == "group_mean" and isinstance(info.get("members"), list) and "group" in info:
            members, bad = [], []
            for m in info["members"]:
                sub, sub_skipped = specs_from_info(m.get("specs") or {})
                if sub_skipped or not any(x.name == m.get("metric") for x in sub):
                    bad.append(str(m.get("value")))
                    continue
                plain = tuple(x for x in sub if not isinstance(x, GroupMean))
                members.append((str(m["value"]), str(m["metric"]), float(m.get("factor", 1.0)), plain))
            if bad:
                skipped.append(f"{name}: the metrics of {', '.join(bad)} cannot be recomputed")
            else:
                specs.append(GroupMean(name, str(info["group"]), tuple(members), unit=unit, higher_is_better=hib))
        elif kind == "count":  # how many tasks or samples entered an aggregate: not a metric to test
            continue
        elif kind == "mean" and "field" in info:
            specs.append(Mean(name, info["field"], scale=scale, unit=unit, higher_is_better=hib))
        elif kind == "median" and "field" in info:
            specs.append(Median(name, info["field"], scale=scale, unit=unit, higher_is_better=hib))
        elif kind == "ratio" and "num" in info and "den" in info:
            specs.append(Ratio(name, info["num"], info["den"], scale=scale, unit=unit, higher_is_better=hib))
        elif kind == "derived" and info.get("fn") in KNOWN_DERIVED and "metrics" in info:
            specs.append(Derived(name, tuple(info["metrics"]), KNOWN_DERIVED[info["fn"]], unit=unit, higher_is_better=hib))
        else:
            skipped.append(f"{name}: results.json does not say how it is computed from per-sample values")
    names = {s.name for s in specs}
    ok: list[AnySpec] = [s for s in specs if not isinstance(s, Derived) or all(m in names for m in s.metrics)]
    skipped += [f"{s.name}: depends on metrics that cannot be recomputed" for s in specs if s not in ok]
    return ok, skipped


def _data_checksums(inputs: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in inputs.items():
        if not prefix and k in PREDICTION_INPUTS:
            continue
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            if "sha256" in v:
                out[key] = str(v["sha256"])
            else:
                out.update(_data_checksums(v, key + "."))
    return out


def check_comparable(runs: Sequence[LoadedRun]) -> None:
    """Refuse runs that did not score the same samples under the same protocol, naming the difference."""
    if len(runs) < 2:
        raise RunMismatchError("compare needs at least two runs")
    a = runs[0]
    for b in runs[1:]:
        who = f"runs {a.path} and {b.path}"
        if a.benchmark != b.benchmark:
            raise RunMismatchError(f"{who} are on different benchmarks ({a.benchmark} vs {b.benchmark}); compare runs of one benchmark")
        if a.protocol != b.protocol:
            raise RunMismatchError(
                f"{who} used different protocols ({a.protocol} vs {b.protocol}); rescore one with --protocol {a.protocol}"
            )
        sa = {k: v for k, v in a.results.settings.items() if k not in NON_SCORING_SETTINGS}
        sb = {k: v for k, v in b.results.settings.items() if k not in NON_SCORING_SETTINGS}
        if sa != sb:
            diff = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
            detail = "; ".join(f"{k}: {sa.get(k)!r} vs {sb.get(k)!r}" for k in diff[:4])
            raise RunMismatchError(
                f"{who} were scored with different settings ({detail}); numbers under different rules are not comparable"
            )
        ca, cb = (
            _data_checksums(a.results.inputs or a.meta.get("inputs", {})),
            _data_checksums(b.results.inputs or b.meta.get("inputs", {})),
        )
        if ca != cb:
            diff = sorted(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k))
            raise RunMismatchError(
                f"{who} were scored on different benchmark data (checksums differ for: {', '.join(diff[:5])}"
                f"{' ...' if len(diff) > 5 else ''}); compare runs scored on the same files"
            )
        ia, ib = a.scores_by_id(), b.scores_by_id()
        if set(ia) != set(ib):
            only_a, only_b = sorted(set(ia) - set(ib)), sorted(set(ib) - set(ia))
            raise RunMismatchError(
                f"{who} scored different samples: {len(only_a)} only in {a.label} (first: {only_a[:3]}), "
                f"{len(only_b)} only in {b.label} (first: {only_b[:3]}); score both on the full benchmark (no --limit) first"
            )
        for sid, ra in ia.items():
            rb = ib[sid]
            if ra.scene_id != rb.scene_id:
                raise RunMismatchError(f"{who}: sample {sid} is in scene {ra.scene_id} in one run and {rb.scene_id} in the other")
            if (ra.status == "excluded") != (rb.status == "excluded"):
                raise RunMismatchError(f"{who}: sample {sid} is excluded in one run only; the ground truth or its treatment differs")


def _p_value(d: np.ndarray) -> float | None:
    """Two-sided bootstrap p-value of a zero difference (kept for callers of the old rule)."""
    d = d[~np.isnan(d)]
    if d.size == 0:
        return None
    lo, hi = int((d <= 0).sum()), int((d >= 0).sum())
    return float(min(1.0, 2.0 * (min(lo, hi) + 1) / (d.size + 1)))


def _point(specs: Sequence[AnySpec], cols: Mapping[str, np.ndarray], keys: Mapping[str, np.ndarray]) -> dict[str, float | None]:
    """Point values of ``specs`` (``keys``: the breakdown values of each sample, for GroupMean)."""
    out = compute([s for s in specs if not isinstance(s, GroupMean)], cols)
    for g in specs:
        if isinstance(g, GroupMean):
            vals = []
            for value, metric, factor, sub in g.members:
                mask = keys[g.group] == value
                v = compute(sub, {k: c[mask] for k, c in cols.items()}).get(metric) if mask.any() else None
                if v is not None and math.isfinite(v):
                    vals.append(v * factor)
            out[g.name] = float(np.mean(vals)) if vals else None
    return out


def _replicates(
    specs: Sequence[AnySpec], cols: Mapping[str, np.ndarray], keys: Mapping[str, np.ndarray], cid: np.ndarray, w: np.ndarray
) -> dict[str, np.ndarray]:
    """:func:`bootstrap_replicates` of ``specs``, GroupMean ones too (each member on its samples,
    with the cluster weights of the whole block)."""
    out = bootstrap_replicates([s for s in specs if not isinstance(s, GroupMean)], cols, cid, w)
    for g in specs:
        if isinstance(g, GroupMean):
            rows = []
            for value, metric, factor, sub in g.members:
                mask = keys[g.group] == value
                if mask.any():
                    r = bootstrap_replicates(sub, {k: c[mask] for k, c in cols.items()}, cid[mask], w)[metric] * factor
                    rows.append(np.where(np.isfinite(r), r, np.nan))
            if rows:
                with np.errstate(invalid="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # a resample where no member is defined: NaN
                    out[g.name] = np.nanmean(np.stack(rows), axis=0)
            else:
                out[g.name] = np.full(w.shape[0], np.nan)
    return out


def sign_flip_assignments(k: int, n_resamples: int, seed: int) -> tuple[np.ndarray, bool]:
    """(rows, k) 0/1 matrix: 1 where a scene's two runs are swapped; row 0 is the identity.
    Every one of the ``2**k`` rows when ``k <= EXACT_MAX_SCENES`` (exact), else the identity and
    ``n_resamples`` random rows drawn with ``seed``."""
    if k <= EXACT_MAX_SCENES:
        return ((np.arange(2**k, dtype=np.int64)[:, None] >> np.arange(k)) & 1), True
    rng = np.random.default_rng(seed)
    return np.concatenate([np.zeros((1, k), np.int64), rng.integers(0, 2, size=(n_resamples, k))]), False


def sign_flip_p(
    specs: Sequence[AnySpec],
    ca: Mapping[str, np.ndarray],
    cb: Mapping[str, np.ndarray],
    clusters: np.ndarray,
    *,
    n_resamples: int,
    seed: int,
    keys: Mapping[str, np.ndarray] | None = None,
) -> tuple[dict[str, float | None], str]:
    """The sign-flip permutation p-value of every spec (module docstring) and how it was computed.

    Both runs' samples go into one column set (A's first): a swapped scene contributes A's samples
    to B* and B's to A*, which is a 0/1 weight per (run, scene) cluster, so the metric of every
    assignment comes from :func:`bootstrap_replicates` (the same code as the intervals, medians too).
    """
    _, cid = np.unique(clusters, return_inverse=True)
    k = int(cid.max()) + 1
    flips, exact = sign_flip_assignments(k, n_resamples, seed)
    both = {f: np.concatenate([ca[f], cb[f]]) for f in ca}
    both_cid = np.concatenate([cid, cid + k])
    w_b = np.concatenate([flips, 1 - flips], axis=1)
    w_a = np.concatenate([1 - flips, flips], axis=1)
    both_keys = {k: np.concatenate([v, v]) for k, v in (keys or {}).items()}
    with np.errstate(invalid="ignore", over="ignore"):
        rb, ra = _replicates(specs, both, both_keys, both_cid, w_b), _replicates(specs, both, both_keys, both_cid, w_a)
    out: dict[str, float | None] = {}
    for s in specs:
        d = rb[s.name] - ra[s.name]
        obs = d[0]
        if not np.isfinite(obs):
            out[s.name] = None
            continue
        ok = np.isfinite(d)
        # |d*| equal to |d| up to rounding (the full swap gives -d through other additions) counts
        extreme = ok & (np.abs(d) >= abs(obs) - 1e-9 * max(1.0, abs(obs)))
        if exact:
            out[s.name] = float(extreme.sum() / ok.sum())
        else:
            out[s.name] = float((1 + extreme[1:].sum()) / (1 + ok[1:].sum()))
    how = f"sign-flip exact (all 2^{k} assignments)" if exact else f"sign-flip Monte Carlo ({n_resamples} assignments, seed {seed})"
    return out, how


def _diffs(
    specs: Sequence[AnySpec],
    ca: dict,
    cb: dict,
    clusters: np.ndarray,
    n_resamples: int,
    seed: int,
    level: float,
    keys: Mapping[str, np.ndarray] | None = None,
) -> list[MetricDiff]:
    keys = keys or {}
    pa, pb = _point(specs, ca, keys), _point(specs, cb, keys)
    n, k = len(clusters), len(set(clusters.tolist()))
    note = None
    if n < MIN_SAMPLES:
        note = f"n={n} < {MIN_SAMPLES} samples: count only"
    elif k < MIN_SCENES:
        note = f"{k} scene{'s' if k != 1 else ''} < {MIN_SCENES}: no interval or p-value"
    ba = bb = {}
    p_of: dict[str, float | None] = {}
    how = None
    if note is None and n_resamples > 0:
        cid, w = cluster_weights(clusters, n_resamples=n_resamples, seed=seed)
        with np.errstate(invalid="ignore", over="ignore"):
            ba, bb = _replicates(specs, ca, keys, cid, w), _replicates(specs, cb, keys, cid, w)
        p_of, how = sign_flip_p(specs, ca, cb, clusters, n_resamples=n_resamples, seed=seed, keys=keys)
    alpha = (1 - level) / 2
    out = []
    for s in specs:
        a, b = pa.get(s.name), pb.get(s.name)
        diff = None if a is None or b is None else b - a
        ci = p = None
        if s.name in ba and diff is not None:
            d = bb[s.name] - ba[s.name]
            dd = d[np.isfinite(d)]
            if dd.size:
                ci = [float(np.quantile(dd, alpha)), float(np.quantile(dd, 1 - alpha))]
            p = p_of.get(s.name)
        out.append(MetricDiff(s.name, s.unit, s.higher_is_better, a, b, diff, ci, p, n, k, how if p is not None else None, note))
    return out


def _win_loss(specs: Sequence[AnySpec], ids: list[str], ca: dict, cb: dict, top: int = 5) -> list[WinLoss]:
    out, seen = [], set()
    for s in specs:
        if not isinstance(s, (Mean, Median)) or s.field in seen:
            continue
        seen.add(s.field)
        a, b = ca[s.field], cb[s.field]
        ok = ~(np.isnan(a) | np.isnan(b))
        d = np.where(ok, b - a, 0.0) * (1 if s.higher_is_better else -1)
        order = np.argsort(-d, kind="stable")
        wins = [(ids[i], float(b[i] - a[i])) for i in order[:top] if ok[i] and d[i] > 0]
        losses = [(ids[i], float(b[i] - a[i])) for i in order[::-1][:top] if ok[i] and d[i] < 0]
        out.append(
            WinLoss(
                s.field,
                s.higher_is_better,
                int(((d > 0) & ok).sum()),
                int(((d < 0) & ok).sum()),
                int(((d == 0) & ok).sum()),
                int(ok.sum()),
                wins,
                losses,
            )
        )
    return out


def compare_pair(a: LoadedRun, b: LoadedRun, *, n_resamples: int = 2000, seed: int = 0, level: float = 0.95) -> Comparison:
    """B against baseline A on their common (identical) sample set; call :func:`check_comparable` first."""
    specs, skipped = specs_from_info(a.results.metric_info)
    ia, ib = a.scores_by_id(), b.scores_by_id()
    ids = [s.sample_id for s in a.scores if s.status != "excluded"]
    fields = sorted({d for s in specs for d in s.deps})
    ca = field_matrix([ia[i].values for i in ids], fields)
    cb = field_matrix([ib[i].values for i in ids], fields)
    clusters = np.asarray([ia[i].scene_id for i in ids], dtype=str)
    keys = {g.group: np.asarray([str(ia[i].groups.get(g.group, "unknown")) for i in ids]) for g in specs if isinstance(g, GroupMean)}

    # A block compares the metrics the run reports in it (3DBench reports accuracy per task, not
    # pooled over tasks), so specs are filtered by the names present in results.json's block.
    def block(names: Any, mask: np.ndarray | None) -> list[MetricDiff]:
        use = [s for s in specs if s.name in names]
        use = [s for s in specs if s in use or any(s.name in getattr(u, "metrics", ()) for u in use)]
        if not use:
            return []
        if mask is None:
            return [d for d in _diffs(use, ca, cb, clusters, n_resamples, seed, level, keys) if d.metric in names]
        sub_a, sub_b = {k: c[mask] for k, c in ca.items()}, {k: c[mask] for k, c in cb.items()}
        sub_keys = {k: v[mask] for k, v in keys.items()}
        return [d for d in _diffs(use, sub_a, sub_b, clusters[mask], n_resamples, seed, level, sub_keys) if d.metric in names]

    overall = block(a.results.metrics.get("overall", {}), None)
    groups: dict[str, dict[str, list[MetricDiff]]] = {}
    for g in a.results.groups():
        vals = np.asarray([str(ia[i].groups.get(g, "unknown")) for i in ids])
        reported = a.results.metrics.get(f"by_{g}", {})
        for v in sorted(set(vals.tolist())):
            diffs = block(reported.get(v, {}), vals == v)
            if diffs:
                groups.setdefault(g, {})[v] = diffs
    return Comparison(
        baseline=a.label,
        other=b.label,
        benchmark=a.benchmark,
        protocol=a.protocol,
        n_samples=len(ids),
        n_scenes=len(set(clusters.tolist())),
        level=level,
        n_resamples=n_resamples,
        seed=seed,
        overall=overall,
        groups=groups,
        wins=_win_loss(specs, ids, ca, cb),
        skipped=skipped,
        judges={r.label: notes for r in (a, b) if (notes := judge_notes(r.results))},
    )


def compare_runs(runs: Sequence[LoadedRun], **kw: Any) -> list[Comparison]:
    """Every run against the first (the baseline), after checking they are comparable."""
    check_comparable(runs)
    return [compare_pair(runs[0], b, **kw) for b in runs[1:]]


def _fmt(v: float | None, digits: int = 2, sign: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{v:+.{digits}f}" if sign else f"{v:.{digits}f}"


def method_note(c: Comparison) -> str:
    """How the intervals and p-values of ``c`` were made, and when there are none."""
    return (
        f"{int(c.level * 100)}% CI: paired scene-clustered bootstrap ({c.n_resamples} resamples, seed {c.seed}); "
        f"p: sign-flip permutation test over scenes (exact up to {EXACT_MAX_SCENES} scenes); "
        f"no CI or p below {c.min_scenes} scenes, the count only below {c.min_samples} samples"
    )


def ci_text(d: MetricDiff) -> str:
    if d.ci:
        return f"[{_fmt(d.ci[0], sign=True)}, {_fmt(d.ci[1], sign=True)}]"
    return f"— ({d.note})" if d.note else "n/a"


def p_text(d: MetricDiff) -> str:
    if d.p_value is None:
        return "—" if d.note else "n/a"
    return f"{d.p_value:.3f}" if d.p_value >= 0.001 else "<0.001"


def comparison_markdown(comps: Sequence[Comparison]) -> str:
    lines = []
    for c in comps:
        lines.append(
            f"**{_md(c.other)} vs {_md(c.baseline)}** ({_md(c.benchmark)}, protocol {_md(c.protocol)}; {c.n_samples} paired samples in {c.n_scenes} scenes; "
            f"{method_note(c)})"
        )
        lines += [
            "",
            f"| group | metric | n (scenes) | {_md(c.baseline)} | {_md(c.other)} | Δ | CI | p |",
            "|:---|:---|---:|---:|---:|---:|:---:|---:|",
        ]
        blocks = [("overall", c.overall)] + [(f"{g}={v}", ds) for g, d in c.groups.items() for v, ds in d.items()]
        for label, ds in blocks:
            for d in ds:
                lines.append(
                    f"| {_md(label)} | {_md(d.metric)} | {d.n} ({d.n_scenes}) | {_fmt(d.a)} | {_fmt(d.b)} | {_fmt(d.diff, sign=True)} "
                    f"| {ci_text(d)} | {p_text(d)} |"
                )
        lines.append("")
        for w in c.wins:
            better = "higher" if w.higher_is_better else "lower"
            lines.append(
                f"- per-sample `{str(w.field).replace('`', '')}` ({better} is better): {_md(c.other)} wins {w.wins}, loses {w.losses}, ties {w.ties} of {w.n}"
            )
        for s in c.skipped:
            lines.append(f"- not compared: {_md(s)}")
        lines += [f"- {_md(label)}: {_md(n)}" for label, notes in c.judges.items() for n in notes]
        lines.append("")
    return "\n".join(lines)


def _md(text: str) -> str:
    from scenebench.report.tables import md_escape

    return md_escape(text)
