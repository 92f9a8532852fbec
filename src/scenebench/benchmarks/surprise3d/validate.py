"""``scenebench validate surprise3d``: every check the scorer makes, without scoring.

Annotations are parsed and checked record by record; with ``--scenes`` every scene is loaded once
(arrays, dtypes, shapes, finite values) and each sample's GT mask is measured, so samples with an
empty GT mask are listed before any run; with ``--predictions`` every record is checked (keys,
fields, values) and, with scenes, against its scene's point count. The first bad input raises an
:class:`~scenebench.errors.InputError`; problems that are not errors (empty GT masks, samples
without prediction) are reported as counts and ids.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .annotations import Annotations, load_annotations
from .predictions import DEFAULT_SCORE_THRESHOLD, PredictionSet, read_predictions
from .scenes import load_scene

SHOW = 20


@dataclass
class Report:
    n_samples: int
    question_types: dict[str, int]
    n_scenes: int
    n_points: dict[str, int] = field(default_factory=dict)
    color_ranges: dict[str, str] = field(default_factory=dict)  # scene -> "[0, 1]" or "[0, 255]" (what the file held)
    empty_gt_ids: list[str] = field(default_factory=list)
    n_predictions: int | None = None
    prediction_kinds: dict[str, int] = field(default_factory=dict)
    missing_ids: list[str] = field(default_factory=list)


def check(
    annotations: str | Path,
    scenes: str | Path | None = None,
    predictions: str | Path | None = None,
    *,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
) -> Report:
    from scenebench.metrics.segmentation import scene_counts

    ann: Annotations = load_annotations(annotations)
    rep = Report(len(ann), ann.question_types(), len(ann.scene_ids()))
    preds: PredictionSet | None = None
    if predictions is not None:
        preds = read_predictions(predictions, ann, score_threshold=score_threshold)
        rep.n_predictions = len(preds.by_sample)
        rep.prediction_kinds = dict(preds.kinds)
        rep.missing_ids = [s.sample_id for s in ann.samples if s.sample_id not in preds.by_sample]
    if scenes is not None:
        for scene_id, samples in ann.by_scene().items():
            scene = load_scene(scenes, scene_id)
            rep.n_points[scene_id] = scene.n_points
            rep.color_ranges[scene_id] = scene.color_range
            empty = [np.zeros(0, dtype=np.int64)] * len(samples)
            _, _, n_gt = scene_counts(scene.instance_ids, empty, [s.targets for s in samples])
            rep.empty_gt_ids += [s.sample_id for s, n in zip(samples, n_gt) if n == 0]
            if preds is not None:
                for s in samples:
                    p = preds.by_sample.get(s.sample_id)
                    if p is not None:
                        preds.check_scene(p, scene.n_points, scene_id)
    return rep


def validate(annotations: Path, scenes: Path | None, predictions: Path | None, *, score_threshold: float) -> Report:
    from rich.table import Table

    from scenebench.consoles import make_console

    rep = check(annotations, scenes, predictions, score_threshold=score_threshold)
    con = make_console()
    con.print(f"annotations {annotations}: {rep.n_samples} samples in {rep.n_scenes} scenes")
    t = Table(title="question types (from the file)", title_justify="left")
    t.add_column("question_type")
    t.add_column("samples", justify="right")
    for q, n in rep.question_types.items():
        t.add_row(q, str(n))
    con.print(t)
    if scenes is not None:
        pts = np.array(list(rep.n_points.values()))
        con.print(f"scenes {scenes}: {len(pts)} loaded, {int(pts.min())}–{int(pts.max())} points each")
        for rng, n in sorted(Counter(rep.color_ranges.values()).items()):
            con.print(
                f"colours in {rng}: {n} scene{'s' if n != 1 else ''}" + (" (divided by 255)" if rng != "[0, 1]" else ""), highlight=False
            )
        con.print(f"empty ground-truth masks: {len(rep.empty_gt_ids)} (cannot be scored; excluded and listed in results)")
        for sid in rep.empty_gt_ids[:SHOW]:
            con.print(f"  {sid}")
        if len(rep.empty_gt_ids) > SHOW:
            con.print(f"  ... and {len(rep.empty_gt_ids) - SHOW} more")
    else:
        con.print("scenes: not checked (pass --scenes to load them and measure GT masks)")
    if predictions is not None:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(rep.prediction_kinds.items()))
        con.print(
            f"predictions {predictions}: {rep.n_predictions} records ({kinds}); "
            f"{len(rep.missing_ids)} samples without prediction (would score IoU 0)"
        )
        for sid in rep.missing_ids[:SHOW]:
            con.print(f"  {sid}")
        if scenes is None:
            con.print("  point-index ranges and score lengths not checked (pass --scenes)")
    con.print("valid", style="green")
    return rep


def print_ids(annotations: Path) -> None:
    """TSV of sample_id, index, scene_id, question_type (plain stdout, for scripts)."""
    import sys

    from scenebench.io.files import tsv_row

    ann = load_annotations(annotations)
    out = sys.stdout
    out.write(tsv_row("sample_id", "index", "scene_id", "question_type"))
    for s in ann.samples:
        out.write(tsv_row(s.sample_id, s.index, s.scene_id, s.question_type))


def validate_command(
    annotations: Path, scenes: Path | None = None, predictions: Path | None = None, *, score_threshold: float, list_ids: bool = False
) -> None:
    """``scenebench validate surprise3d``: the ids (``list_ids``) or the checks of :func:`validate`."""
    if list_ids:
        print_ids(annotations)
        return
    validate(annotations, scenes, predictions, score_threshold=score_threshold)
