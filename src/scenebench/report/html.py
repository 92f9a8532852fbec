"""The HTML report: one self-contained file (no network, no CDN) with tables, charts and a 3D viewer.

Public entry point::

    write_html_report(runs, out_path, *, title=None, view_options=ViewOptions(), max_views=300, max_view_bytes=60e6) -> Path

``runs`` is a run folder, a list of run folders (shown side by side; the sample browser switches
between them) or already loaded :class:`~scenebench.report.runs.LoadedRun` objects. The report is
built from ``results.json`` and ``samples.sqlite`` only; nothing is rescored. 3D views come from the
benchmark's view builder (:mod:`scenebench.report.views`), which reads the data the run was scored
on; scenes are downsampled (seeded) for the viewer only.

Safety: every string (questions, predictions, model output) travels as JSON inside
``<script type="application/json">`` with ``<``, ``>``, ``&`` and the JavaScript line separators
escaped as ``\\uXXXX``, and the page inserts text with ``textContent`` only; a prediction holding
``<script>`` is shown as text and never runs.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from scenebench._version import __version__
from scenebench.declarations.catalog import find_spec
from scenebench.io.files import atomic_write_text
from scenebench.report.console import judge_notes
from scenebench.report.runs import LoadedRun, load_run, load_runs
from scenebench.report.tables import TEXT_METRIC_FALLBACK, baseline_warnings, by_benchmark, is_baseline_run
from scenebench.report.views import ViewOptions, build_views
from scenebench.results import Results

ASSETS = ("charts.js", "viewer.js", "report.js")

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def json_for_script(obj: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``</script>``, no ``<!--``."""
    text = json.dumps(_finite(obj), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return _escape_for_script(text)


def _escape_for_script(text: str) -> str:
    for ch, esc in _JSON_ESCAPES.items():  # str.replace runs in C: tens of MB in well under a second
        text = text.replace(ch, esc)
    return text


def _finite(obj: Any) -> Any:
    """NaN/inf (possible in free-form ``detail``) become null: JSON has no spelling for them."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _asset(name: str) -> str:
    return resources.files("scenebench.report").joinpath("assets", name).read_text(encoding="utf-8")


def _fields(run: LoadedRun) -> list[str]:
    """Per-sample value fields, those the metrics use first (so the default histogram is the main score)."""
    out: list[str] = []
    for info in run.results.metric_info.values():
        for key in ("field", "num"):
            f = info.get(key)
            if isinstance(f, str) and f not in out:
                out.append(f)
    for s in run.scores:
        for f in s.values:
            if f not in out:
                out.append(f)
    # Graded values (IoU, error) say more in a histogram than 0/1 hit indicators: list them first.
    # A ratio's numerator (3DBench's BLEU n-gram match counts m1..m4) is a raw count, not a
    # per-sample score: it goes after the fields metrics average.
    scores = {info.get("field") for info in run.results.metric_info.values()}
    distinct = {f: len({s.values.get(f) for s in run.scores if s.values.get(f) is not None and not math.isnan(s.values[f])}) for f in out}
    # The benchmark's primary metric comes first (3DBench: the first task's primary metric),
    # so the default histogram shows the number the benchmark ranks by.
    primary = [f for f in _primary_fields(run) if distinct.get(f)]
    return primary + sorted((f for f in out if f not in primary), key=lambda f: (f not in scores, distinct[f] <= 2))


def _metric_field(run: LoadedRun, metric: str, task: str | None = None) -> str | None:
    by_task = (run.results.extra.get("metric_info_by_task") or {}).get(task or "", {})
    info = by_task.get(metric) or run.results.metric_info.get(metric) or {}
    f = info.get("field")
    return f if isinstance(f, str) else None


def _primary_fields(run: LoadedRun) -> list[str]:
    out: list[str] = []
    per_task = run.results.extra.get("primary_metric")
    if isinstance(per_task, dict):
        for task, metric in per_task.items():
            f = _metric_field(run, metric, task)
            if f and f not in out:
                out.append(f)
    elif (spec := find_spec(run.benchmark)) is not None and spec.primary_metric:  # declared by the benchmark
        f = _metric_field(run, spec.primary_metric)
        if f:
            out.append(f)
    return out


def chart_primary(runs: Sequence[LoadedRun]) -> dict[str, dict[str, Any]]:
    """3DBench: per task, the metric its bar shows — the task's primary metric when some run of the
    benchmark has a number for it, else the first of :data:`TEXT_METRIC_FALLBACK` that has one
    (a text task scored without a judge); ``{"metric", "fallback": bool}``."""
    out: dict[str, dict[str, Any]] = {}
    for r in runs:
        for task, metric in (r.results.extra.get("primary_metric") or {}).items():
            if task in out and not out[task]["fallback"]:
                continue
            blocks = [(x.results.metrics.get("by_task") or {}).get(task) or {} for x in runs]
            if any(b.get(metric) is not None for b in blocks):
                out[task] = {"metric": metric, "fallback": False}
                continue
            alt = next((m for m in TEXT_METRIC_FALLBACK if any(b.get(m) is not None for b in blocks)), None)
            if alt is not None:
                out[task] = {"metric": alt, "fallback": True, "instead_of": metric}
    return out


def integer_metrics(run: LoadedRun) -> list[str]:
    """Metrics that are counts (``n_tasks``): shown as 8, not 8.00."""
    out = []
    for m, info in run.results.metric_info.items():
        if info.get("kind") == "count":
            out.append(m)
    return out


def is_oracle(run: LoadedRun) -> bool:
    model = run.meta.get("model") or (run.results.settings or {}).get("model")
    return isinstance(model, str) and model == "oracle"


def pick_view_samples(run: LoadedRun, max_views: int, seed: int = 0) -> list[str]:
    """Which samples get a 3D view when there are too many to embed: the worst-scored half first
    (failures are what people open), the rest a seeded random draw, all in ground-truth order."""
    ids = [s.sample_id for s in run.scores if s.status != "excluded"]
    if len(ids) <= max_views:
        return ids
    import numpy as np

    fields = _fields(run)
    main = fields[0] if fields else None
    by_id = run.scores_by_id()

    def key(sid: str) -> float:
        v = by_id[sid].values.get(main, math.nan) if main else math.nan
        return -math.inf if by_id[sid].status in ("missing", "invalid") else (math.inf if math.isnan(v) else v)

    worst = sorted(ids, key=key)[: max_views // 2]
    rest = [i for i in ids if i not in set(worst)]
    rng = np.random.default_rng(seed)
    picked = set(worst) | set(rng.choice(rest, size=max_views - len(worst), replace=False).tolist())
    return [i for i in ids if i in picked]


def must_view(run: LoadedRun) -> list[str]:
    """Samples that always get a view (within the size cap): those the benchmark declares a report
    must show (:class:`~scenebench.declarations.ShowSamples`)."""
    spec = find_spec(run.benchmark)
    rules = spec.show_samples if spec is not None else ()
    if not rules:
        return []
    return [s.sample_id for s in run.scores if s.status != "excluded" and any(s.groups.get(r.group) == r.value for r in rules)]


def cap_views_by_size(vs: Any, order: Sequence[str], max_bytes: int) -> int:
    """Keep views in ``order`` while the views and the scenes they use fit in ``max_bytes`` of
    JSON; drop the others (and scenes no view uses). Returns how many views were dropped."""
    used: set[Any] = set()
    total, keep = 0, []
    for sid in order:
        v = vs.views.get(sid)
        if v is None:
            continue
        keys = {v.get("scene")} | {x.get("scene") for x in v.get("scenes", [])}  # RIO: the reference scan too
        new = {k for k in keys if k not in used and k in vs.scenes}
        cost = len(json.dumps(v, separators=(",", ":"))) + sum(len(json.dumps(vs.scenes[k], separators=(",", ":"))) for k in new)
        if total + cost > max_bytes:
            continue
        total += cost
        used |= new
        keep.append(sid)
    dropped = len(vs.views) - len(keep)
    vs.views = {k: vs.views[k] for k in keep}
    vs.scenes = {k: v for k, v in vs.scenes.items() if k in used}
    return dropped


def scene_budget(run: LoadedRun, sample_ids: Sequence[str], opts: ViewOptions) -> ViewOptions:
    """Fewer points per scene when many scenes are embedded, so the file stays a few tens of MB:
    at most ``opts.max_total_points`` scene points in all, but not fewer than 5000 per scene (or
    ``opts.max_scene_points`` when that is smaller)."""
    by_id = run.scores_by_id()
    n_scenes = len({by_id[i].scene_id for i in sample_ids if i in by_id}) or 1
    per_scene = min(opts.max_scene_points, max(5000, opts.max_total_points // n_scenes))
    return dataclasses.replace(opts, max_scene_points=per_scene)


DEFAULT_MAX_VIEW_BYTES = 60_000_000


def build_payload(
    runs: Sequence[LoadedRun],
    *,
    title: str | None = None,
    view_options: ViewOptions = ViewOptions(),
    max_views: int = 300,
    views: bool = True,
    max_view_bytes: int = DEFAULT_MAX_VIEW_BYTES,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "title": title or "scenebench report: " + ", ".join(dict.fromkeys(r.benchmark for r in runs)),
        "generated": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "version": __version__,
        "runs": [],
        "scenes": {},
        "views": {},
        "bench_notes": {b: baseline_warnings(rs) for b, rs in by_benchmark(runs).items()},
        # the run the histogram and sample browser open on: the first that is not the oracle
        # (whose histogram is a single bar at 100%)
        "default_run": next((i for i, r in enumerate(runs) if not is_oracle(r)), 0),
    }
    primaries = {b: chart_primary(rs) for b, rs in by_benchmark(runs).items()}
    for i, run in enumerate(runs):
        res = run.results
        picked = pick_view_samples(run, max_views, view_options.seed) if views else []
        first = must_view(run) if views else []
        if first:
            wanted = set(first) | set(picked)
            picked = [s.sample_id for s in run.scores if s.sample_id in wanted]
        vs = build_views(run, picked, scene_budget(run, picked, view_options)) if views else None
        if vs is not None:
            dropped = cap_views_by_size(vs, first + [p for p in picked if p not in set(first)], max_view_bytes)
            if dropped:
                vs.notes.append(
                    f"{dropped} view{'s' if dropped != 1 else ''} left out: this run's views would exceed {max_view_bytes / 1e6:g} MB (scenebench report --max-view-mb)"
                )
            payload["scenes"].update(vs.scenes)
            payload["views"][str(i)] = vs.views
        group_keys: list[str] = []
        for s in run.scores:
            group_keys += [g for g in s.groups if g not in group_keys]
        payload["runs"].append(
            {
                "label": run.label,
                "path": str(run.path),
                "benchmark": res.benchmark,
                "protocol": res.protocol,
                "metrics": res.metrics,
                "ci": evidence_intervals(res),
                "counts": res.counts.model_dump(),
                "counts_by_group": {k: {v: c.model_dump() for v, c in d.items()} for k, d in res.counts_by_group.items()},
                "metric_info": res.metric_info,
                "warnings": res.warnings + [n for n in [res.few_scenes_note()] if n],
                # the judge named on the first screen, its warning among the warnings (issue 27 item 3)
                "judge_notes": judge_notes(res)[:1],
                "judge_warnings": [w for w in judge_notes(res)[1:] if w not in res.warnings],
                "settings": res.settings,
                "extra": {k: res.extra[k] for k in ("primary_metric",) if k in res.extra},
                "chart_primary": primaries[run.benchmark],
                "int_metrics": integer_metrics(run),
                "oracle": is_oracle(run),
                "baseline": is_baseline_run(run),
                "fields": _fields(run),
                "group_keys": group_keys,
                "view_notes": vs.notes if vs is not None else ["3D views not requested"],
                "samples": [
                    {
                        "id": s.sample_id,
                        "scene": s.scene_id,
                        "status": s.status,
                        "values": s.values,
                        "groups": s.groups,
                        "detail": {**(vs.details.get(s.sample_id, {}) if vs is not None else {}), **s.detail},
                        "view": bool(vs is not None and s.sample_id in vs.views),
                    }
                    for s in run.scores
                ],
            }
        )
        # Views a vision model (openai-vision:) saw, as thumbnails in the sample panel.
        from scenebench.report.vision_thumbs import attach

        attach(payload, payload["runs"][-1], run.path)
    return payload


_TEMPLATE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header>
  <h1 id="sb-title"></h1>
  <ul id="sb-meta"></ul>
  <p id="sb-generated"></p>
</header>
<main>
  <h2>Summary</h2>
  <div id="sb-summary"></div>
  <h2>Breakdowns</h2>
  <div class="controls"><label>benchmark <select id="sb-bench"></select></label><label>metric <select id="sb-metric"></select></label><span class="note">bars: point estimate; whiskers: confidence interval</span></div>
  <div id="sb-charts"></div>
  <h2>Distribution of per-sample scores</h2>
  <div class="controls"><label>value <select id="sb-field"></select></label></div>
  <div id="sb-dist"></div>
  <h2>Samples</h2>
  <div class="controls" id="sb-filters">
    <label>run <select id="f-run"></select></label>
    <span id="f-groups" class="controls"></span>
    <label>status <select id="f-status"><option value="">all</option><option>scored</option><option>missing</option><option>invalid</option><option>excluded</option></select></label>
    <label>value <select id="f-field"></select></label>
    <label>min <input id="f-min" type="number" step="any"></label>
    <label>max <input id="f-max" type="number" step="any"></label>
    <label>sort <select id="f-sort"><option value="order">as in benchmark</option><option value="asc">value ascending</option><option value="desc">value descending</option></select></label>
    <label>search <input id="f-text" type="search" placeholder="id, scene, question"></label>
  </div>
  <p id="sb-count"></p>
  <div id="sb-browser">
    <div id="sb-list"><table id="sb-samples"></table><button id="sb-more" type="button">show more</button></div>
    <section id="sb-detail"><p class="note">Click a sample to see its question, answer, prediction, score and 3D view.</p></section>
  </div>
</main>
<script type="application/json" id="sb-data">{data}</script>
{scripts}
</body>
</html>
"""


def render_html(payload: dict[str, Any]) -> str:
    import html as _html

    scripts = "\n".join(f"<script>\n{_asset(name)}\n</script>" for name in ASSETS)
    # Scene clouds are built here from finite arrays; the run records (free-form detail) and the
    # per-sample overlays (a model's box at inf) need the NaN clean-up, which would cost seconds on
    # the tens of MB of scene points (overlay clouds are base64 strings: cheap to walk past).
    light = {k: v for k, v in payload.items() if k not in ("scenes", "views")}
    text = json.dumps(
        {**_finite(light), "scenes": payload["scenes"], "views": _finite(payload["views"])},
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    )
    return _TEMPLATE.format(title=_html.escape(payload["title"]), css=_asset("report.css"), data=_escape_for_script(text), scripts=scripts)


def evidence_intervals(res: Results) -> dict[str, Any]:
    """The intervals the page shows: those of blocks of fewer than ``MIN_CI_SCENES`` scenes left out
    (results.json keeps them; the run's warnings say why), as the console and the tables do."""
    ci = res.confidence_intervals.model_dump(mode="json")
    if not res.ci_is_evidence():
        ci["overall"] = {}
    for key, block in list(ci.items()):
        if key.startswith("by_") and isinstance(block, dict):
            ci[key] = {v: ({} if not res.ci_is_evidence(key, v) else b) for v, b in block.items()}
    return ci


def write_html_report(
    runs: str | Path | LoadedRun | Sequence[str | Path | LoadedRun],
    out_path: str | Path,
    *,
    title: str | None = None,
    view_options: ViewOptions = ViewOptions(),
    max_views: int = 300,
    views: bool = True,
    max_view_bytes: int = DEFAULT_MAX_VIEW_BYTES,
) -> Path:
    """Write the self-contained HTML report of one or more finished runs to ``out_path``; return the path.

    ``max_views`` caps how many samples per run get an embedded 3D view (file size); the others are
    listed and browsable without one. The samples a benchmark declares a report must show (RIO's moved instances) all get a view; ``max_view_bytes``
    caps the size of one run's views and scenes (those first, then the worst-scored). Raises :class:`~scenebench.errors.InputError` when a folder
    holds no results.
    """
    if isinstance(runs, (str, Path, LoadedRun)):
        runs = [runs]
    if all(isinstance(r, (str, Path)) for r in runs):  # folders: named as `scenebench report` names them
        loaded = load_runs(list(runs))  # type: ignore[arg-type]
    else:
        loaded = [r if isinstance(r, LoadedRun) else load_run(r) for r in runs]
    if not loaded:
        raise ValueError("write_html_report needs at least one run")
    out = Path(out_path)
    atomic_write_text(
        out,
        render_html(
            build_payload(loaded, title=title, view_options=view_options, max_views=max_views, views=views, max_view_bytes=max_view_bytes)
        ),
    )
    return out
