"""``scenebench audit`` on Nr3D / Sr3D: which-instance probes that never look at the scene's geometry,
scored under ``strict`` (accuracy, overall, easy and hard).

- ``blind``: the class prior of the train split -- the rank (by object id) among the named class's
  instances that is most often the target on train, applied to every test utterance;
- ``labels``: a seeded uniform pick among the instances of the named class (the ground-truth labels,
  no geometry, no relation read);
- ``random``: a seeded uniform pick among every object of the scan;
- ``oracle``: the target (100).

Chance is the expected accuracy of a uniform pick among the named class's instances, the mean of
``1 / n_objects`` over the scored utterances: the utterance names the class, so reaching that needs no
scene; a probe above it has found an ordering or wording shortcut.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from .data import Utterance, load_scan_list, load_utterances


def _rows(name: str, root: Path, out: Path, seed: int) -> list[dict[str, Any]]:
    import numpy as np

    from scenebench.io.scannet import SCENES, load_boxes
    from scenebench.metrics.records import summarize_scores
    from scenebench.runtime.runner import seeded_rng

    from .scorer import GROUPS, SPECS, ReferIt3DScorer, exclusion

    everything = load_utterances(root / f"{name}.csv")
    scans = root / "test_scans.txt"
    test_scans = load_scan_list(scans) if scans.is_file() else {u.scan_id for u in everything}
    test = [u for u in everything if u.scan_id in test_scans]
    train = [u for u in everything if u.scan_id not in test_scans]

    def instances(u: Utterance) -> list[int]:
        return sorted((u.target_id, *u.distractor_ids))

    ranks = Counter(instances(u).index(u.target_id) for u in train)
    prior = ranks.most_common(1)[0][0] if ranks else 0
    tables = {s: load_boxes(root / SCENES, s)[:, 7].astype(int) for s in {u.scan_id for u in test}}
    answers: dict[str, dict[str, int | str]] = {p: {} for p in ("blind", "labels", "random", "oracle")}
    for u in test:
        inst = instances(u)
        answers["blind"][u.sample_id] = inst[min(prior, len(inst) - 1)]
        answers["labels"][u.sample_id] = inst[int(seeded_rng(seed, u.sample_id, "labels").integers(len(inst)))]
        ids = tables[u.scan_id]
        answers["random"][u.sample_id] = int(ids[int(seeded_rng(seed, u.sample_id, "random").integers(len(ids)))])
        answers["oracle"][u.sample_id] = u.target_id
    metrics = {}
    for probe, preds in answers.items():
        records = [r for batch in ReferIt3DScorer(name, test, preds, "strict").iter_scores(set()) for r in batch]
        metrics[probe] = summarize_scores(records, SPECS, groups=GROUPS, n_resamples=0).metrics
    scored = [u for u in test if exclusion(u, "strict") is None]
    out_rows = []
    for group, members in (("overall", scored), ("easy", [u for u in scored if u.easy]), ("hard", [u for u in scored if not u.easy])):
        row: dict[str, Any] = {"benchmark": name, "task": "identification", "group": group, "metric": "accuracy", "identity": None}
        for probe in answers:
            block = metrics[probe]["overall"] if group == "overall" else metrics[probe].get("by_difficulty", {}).get(group, {})
            row[probe] = block.get("accuracy")
        row["n"] = len(members)
        row["chance"] = float(100 * np.mean([1 / u.n_objects for u in members])) if members else None
        out_rows.append(row)
    return out_rows


def rows_nr3d(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    return _rows("nr3d", root, out, seed)


def rows_sr3d(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    return _rows("sr3d", root, out, seed)
