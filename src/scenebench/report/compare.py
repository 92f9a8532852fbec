"""Paired comparison of finished runs on the same benchmark: differences, CIs, p-values, wins.

Two runs are comparable only when they scored the same samples under the same rules: same
benchmark, protocol and scoring settings, the same ground-truth data (checksums of every input but
the predictions), and the same sample ids with the same scenes and the same excluded samples.
Anything else is refused with :class:`~scenebench.errors.RunMismatchError` naming the difference,
because a "difference" between runs over different samples measures the samples, not the models.

Statistics (per metric, overall and per group value), for run B minus baseline A:

- point difference ``d = metric(B) - metric(A)`` on the same samples;
- a **paired, scene-clustered bootstrap**: each resample draws scenes with replacement and
  recomputes both runs' metric on the *same* drawn scenes (so per-scene difficulty cancels);
  the interval is the percentile interval of the resampled differences;
- the two-sided p-value of "no difference" from the same resamples:
  ``p = min(1, 2 * min(#{d* <= 0} + 1, #{d* >= 0} + 1) / (R + 1))``, so it agrees with the
  interval (p < 1 - level exactly when the interval excludes 0, up to resampling noise) and is
  never reported as 0.

Per sample, wins/losses/ties count samples where B's per-sample value is better / worse / equal,
respecting ``higher_is_better`` (for median-error metrics lower wins).
"""

from __future__ import annotations

import math
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
from scenebench.report.runs import LoadedRun

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
KNOWN_DERIVED = {"f1_from": f1_from}


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

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def specs_from_info(metric_info: Mapping[str, Mapping[str, Any]]) -> tuple[list[MetricSpec], list[str]]:
    """Rebuild metric specs from ``results.json`` ``metric_info``; names that cannot be rebuilt are returned apart."""
    specs: list[MetricSpec] = []
    skipped: list[str] = []
    for name, info in metric_info.items():
        kind, hib, scale = info.get("kind"), bool(info.get("higher_is_better", True)), float(info.get("scale", 1.0))
        unit = str(info.get("unit", ""))
        if kind == "mean" and "field" in info:
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
    ok = [s for s in specs if not isinstance(s, Derived) or all(m in names for m in s.metrics)]
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
    d = d[~np.isnan(d)]
    if d.size == 0:
        return None
    lo, hi = int((d <= 0).sum()), int((d >= 0).sum())
    return float(min(1.0, 2.0 * (min(lo, hi) + 1) / (d.size + 1)))


def _diffs(
    specs: Sequence[MetricSpec], ca: dict, cb: dict, clusters: np.ndarray, n_resamples: int, seed: int, level: float
) -> list[MetricDiff]:
    pa, pb = compute(specs, ca), compute(specs, cb)
    if len(clusters) and n_resamples > 0:
        cid, w = cluster_weights(clusters, n_resamples=n_resamples, seed=seed)
        ba, bb = bootstrap_replicates(specs, ca, cid, w), bootstrap_replicates(specs, cb, cid, w)
    else:
        ba = bb = {}
    alpha = (1 - level) / 2
    out = []
    for s in specs:
        a, b = pa.get(s.name), pb.get(s.name)
        diff = None if a is None or b is None else b - a
        ci = p = None
        if s.name in ba and diff is not None:
            d = bb[s.name] - ba[s.name]
            dd = d[~np.isnan(d)]
            if dd.size:
                ci = [float(np.quantile(dd, alpha)), float(np.quantile(dd, 1 - alpha))]
            p = _p_value(d)
        out.append(MetricDiff(s.name, s.unit, s.higher_is_better, a, b, diff, ci, p))
    return out


def _win_loss(specs: Sequence[MetricSpec], ids: list[str], ca: dict, cb: dict, top: int = 5) -> list[WinLoss]:
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

    # A block compares the metrics the run reports in it (3DBench reports accuracy per task, not
    # pooled over tasks), so specs are filtered by the names present in results.json's block.
    def block(names: Any, mask: np.ndarray | None) -> list[MetricDiff]:
        use = [s for s in specs if s.name in names]
        use = [s for s in specs if s in use or any(s.name in getattr(u, "metrics", ()) for u in use)]
        if not use:
            return []
        if mask is None:
            return [d for d in _diffs(use, ca, cb, clusters, n_resamples, seed, level) if d.metric in names]
        sub_a, sub_b = {k: c[mask] for k, c in ca.items()}, {k: c[mask] for k, c in cb.items()}
        return [d for d in _diffs(use, sub_a, sub_b, clusters[mask], n_resamples, seed, level) if d.metric in names]

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
    )


def compare_runs(runs: Sequence[LoadedRun], **kw: Any) -> list[Comparison]:
    """Every run against the first (the baseline), after checking they are comparable."""
    check_comparable(runs)
    return [compare_pair(runs[0], b, **kw) for b in runs[1:]]


def _fmt(v: float | None, digits: int = 2, sign: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{v:+.{digits}f}" if sign else f"{v:.{digits}f}"


def comparison_markdown(comps: Sequence[Comparison]) -> str:
    lines = []
    for c in comps:
        lines.append(
            f"**{_md(c.other)} vs {_md(c.baseline)}** ({_md(c.benchmark)}, protocol {_md(c.protocol)}; {c.n_samples} paired samples in {c.n_scenes} scenes; "
            f"{int(c.level * 100)}% paired scene-clustered bootstrap, {c.n_resamples} resamples, seed {c.seed})"
        )
        lines += ["", f"| group | metric | {_md(c.baseline)} | {_md(c.other)} | Δ | CI | p |", "|:---|:---|---:|---:|---:|:---:|---:|"]
        blocks = [("overall", c.overall)] + [(f"{g}={v}", ds) for g, d in c.groups.items() for v, ds in d.items()]
        for label, ds in blocks:
            for d in ds:
                ci = f"[{_fmt(d.ci[0], sign=True)}, {_fmt(d.ci[1], sign=True)}]" if d.ci else "n/a"
                p = "n/a" if d.p_value is None else (f"{d.p_value:.3f}" if d.p_value >= 0.001 else "<0.001")
                lines.append(f"| {_md(label)} | {_md(d.metric)} | {_fmt(d.a)} | {_fmt(d.b)} | {_fmt(d.diff, sign=True)} | {ci} | {p} |")
        lines.append("")
        for w in c.wins:
            better = "higher" if w.higher_is_better else "lower"
            lines.append(
                f"- per-sample `{str(w.field).replace('`', '')}` ({better} is better): {_md(c.other)} wins {w.wins}, loses {w.losses}, ties {w.ties} of {w.n}"
            )
        for s in c.skipped:
            lines.append(f"- not compared: {_md(s)}")
        lines.append("")
    return "\n".join(lines)


def _md(text: str) -> str:
    from scenebench.report.tables import md_escape

    return md_escape(text)
