"""3DBench generated data leaks no answers through names, order or shipped truth (issue 25 item 1)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from scenebench.benchmarks.bench3d.loader import load_bench
from scenebench.cli import build_app
from scenebench.models.sources.base import make_source
from scenebench.synth.house import build_house
from scenebench.synth.tasks3d import object_names

app = build_app()


def _ranks(x):
    return np.argsort(np.argsort(np.asarray(x)))


def test_object_file_names_are_seeded_and_unrelated_to_placement():
    rhos = []
    for index in range(4):
        house = build_house(3, index, min_rooms=3, max_rooms=5)
        names = object_names(house, np.random.default_rng([3, index, 2]))
        assert names == object_names(house, np.random.default_rng([3, index, 2]))  # same seed, same names
        assert set(names.values()).isdisjoint(object_names(house, np.random.default_rng([4, index, 2])).values())
        assert len(set(names.values())) == len(house.objects)
        for o in house.objects:  # the house id and a hex token: no category word, no "obj<index>"
            token = names[o.index].removeprefix(f"{house.house_id}_")
            assert len(token) == 10 and set(token) <= set("0123456789abcdef"), names[o.index]
        idx = sorted(names)
        rhos.append(float(np.corrcoef(_ranks(idx), _ranks([names[i] for i in idx]))[0, 1]))
    # sorted names against placement order: a spearman near 0, not the 1.0 of index-built names
    assert abs(float(np.mean(rhos))) < 0.3, rhos


def _object_files(bench: Path, house: str) -> list[str]:
    return sorted(p.name for p in (bench / "Objects").glob(f"{house}_*.npy"))


def test_metadata_only_guess_for_classification_is_at_chance(tiny_run):
    """Guess each classification answer from metadata only: the category most often at the same
    rank of the object file among the house's sorted file names (learned on the other houses), and
    the option at the asked file's rank in the house JSON's object list. Neither beats chance by much."""
    out, manifest = tiny_run
    recs = []
    for root in (out / "3dbench", out / "3dbench" / "train"):
        recs += [r for r in load_bench(root).all_records() if r.task == "classification"]
    assert len(recs) >= 4
    houses = {h["house_id"]: h for h in manifest["per_house"]}
    meta = {}
    for hid in houses:
        for root in (out / "3dbench" / "houses", out / "3dbench" / "train" / "houses"):
            for p in root.glob("*.json"):
                meta[p.stem.strip("()")] = [o["assetId"] for o in json.loads(p.read_text())["objects"]]
    rows = []
    for r in recs:
        house = Path(r.pcl).stem.rsplit("_", 1)[0]
        rank = _object_files(out / "3dbench", house).index(Path(r.pcl).name)
        truth = r.gt["choices"][int(r.gt["answer"])]
        rows.append((house, rank, r.gt["choices"], truth, meta.get(str(r.house), [])))
    by_rank_hits = json_hits = 0
    for house, rank, choices, truth, objs in rows:
        votes = Counter(t for h, k, _, t, _ in rows if h != house and k == rank)
        guess = next((c for c, _ in votes.most_common() if c in choices), choices[0])
        by_rank_hits += guess == truth
        pos = choices[rank % len(choices)] if not objs else (objs[rank] if rank < len(objs) and objs[rank] in choices else choices[0])
        json_hits += pos == truth
    chance = 1 / 6
    for hits in (by_rank_hits, json_hits):
        assert hits / len(rows) <= chance + 0.35, (hits, len(rows))


@pytest.mark.slow
def test_run_and_score_oracle_read_scene_graphs_from_the_gt_tree(tiny_run, tmp_path):
    out, _ = tiny_run
    data, gt = out / "3dbench", out / "gt" / "3dbench"
    assert not (data / "scene_graph").exists() and any((gt / "scene_graph").glob("*.json"))
    src = make_source("3dbench", data=str(data))
    assert src.gt_root == data / ".." / "gt" / "3dbench"
    scene_ids = [s.scene_id for s in src.samples() if s.task == "counting"]
    assert scene_ids and src.scene(scene_ids[0]).objects  # a ground-truth-perception model still finds the graph
    res = CliRunner().invoke(app, ["run", "3dbench", "--data", str(data), "--gt", str(gt), "-m", "oracle", "-o", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    r = json.loads((tmp_path / "run" / "results.json").read_text())
    assert r["counts"]["n_missing"] == 0 and r["counts"]["n_scored"] > 0
    for task, m in r["metrics"]["by_task"].items():
        primary = {k: v for k, v in m.items() if k in ("accuracy", "f1", "around_box_l2", "in_box", "success", "rouge_l_py")}
        assert primary and all(v == 100.0 for v in primary.values()), (task, m)
    answers = tmp_path / "run" / "answers.jsonl"
    res = CliRunner().invoke(app, ["score", "3dbench", "--data", str(data), "-p", str(answers), "-o", str(tmp_path / "score")])
    assert res.exit_code == 0, res.output
    s = json.loads((tmp_path / "score" / "results.json").read_text())
    assert s["metrics"]["by_task"] == r["metrics"]["by_task"]
