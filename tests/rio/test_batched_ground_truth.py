"""The batched RIO path (ground truth as columns, batches of whole rescans) against the per-rescan
reference (:func:`ref_ground_truth` and :func:`score_rescan` below, written object by object) on random indexes with interchangeable partners, non-rigid, removed and
unannotated instances, static and moved ones."""

import json
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from scenebench.benchmarks.rio import scorer as scorer_mod
from scenebench.benchmarks.rio.loader import STATIC_ROT_DEG, STATIC_TRANS_M, GroundTruthInstance, ThreeRScan
from scenebench.benchmarks.rio.predictions import read_pose_predictions, write_pose_predictions
from scenebench.benchmarks.rio.scorer import RioScorer
from scenebench.benchmarks.rio.writer import write_index
from scenebench.geometry.poses import is_identity, symmetry_class_name, symmetry_order
from scenebench.metrics.pose import assign_one_to_one, best_candidate_errors, candidate_errors, recall_hit
from scenebench.metrics.records import SampleScore

THRESHOLDS = scorer_mod.THRESHOLDS


def _groups(g):
    if g.excluded is None:
        motion = "moved" if g.moved else "static"
    else:
        motion = "nonrigid" if g.excluded.startswith("nonrigid") else "unannotated"
    return {"motion": motion, "label": g.label or "unknown", "symmetry": symmetry_class_name(g.symmetry_order), "scene": g.scene}


def score_rescan(sc, gts):
    """The reference scorer: one rescan's instances given as objects (what ``RioScorer.score_rows`` must equal)."""
    out = {}
    scored = [g for g in gts if g.excluded is None and (g.rescan, g.instance) in sc.preds.poses]
    if scored:
        T_pred = np.stack([sc.preds.poses[(g.rescan, g.instance)] for g in scored])
        T_cand = np.concatenate([np.stack(g.candidates) for g in scored])
        owner = np.repeat(np.arange(len(scored)), [len(g.candidates) for g in scored])
        centroid = np.stack([g.centroid for g in scored])
        order = np.array([g.symmetry_order for g in scored])
        if sc.protocol == "strict":
            r_all, t_all = candidate_errors(T_pred[owner], T_cand, centroid[owner], order[owner], "strict")
            location = np.concatenate([[g.instance, *g.partners] for g in scored])
            chosen = assign_one_to_one(r_all, t_all, owner, location, tuple((tm, rd) for _, tm, rd in THRESHOLDS))
            r_err, t_err = r_all[chosen], t_all[chosen]
        else:
            r_err, t_err, chosen = best_candidate_errors(T_pred, T_cand, owner, centroid, order, "official")
        starts = np.r_[0, np.cumsum([len(g.candidates) for g in scored])]
        hits = {f: recall_hit(r_err, t_err, rd, tm) for f, tm, rd in THRESHOLDS}
        for i, g in enumerate(scored):
            detail = {"line": sc.preds.lines[(g.rescan, g.instance)], "centroid_from": g.centroid_source}
            j = int(chosen[i] - starts[i])
            if j > 0:
                detail["matched_partner"] = g.partners[j - 1]
            vals = {"r_err": float(r_err[i]), "t_err": float(t_err[i]), **{f: float(h[i]) for f, h in hits.items()}}
            out[g.sample_id] = SampleScore(g.sample_id, g.scene, "scored", vals, _groups(g), detail)
    for g in gts:
        if g.sample_id in out:
            continue
        if g.excluded is not None:
            out[g.sample_id] = SampleScore(g.sample_id, g.scene, "excluded", {}, _groups(g), {"reason": g.excluded})
            continue
        err = math.inf if sc.protocol == "strict" else math.nan
        vals = {"r_err": err, "t_err": err, **{f: 0.0 for f, _, _ in THRESHOLDS}}
        out[g.sample_id] = SampleScore(g.sample_id, g.scene, "missing", vals, _groups(g), {"reason": "no prediction"})
    return [out[g.sample_id] for g in gts]


def _pose(rng, scale=1.0):
    T = np.eye(4)
    T[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    T[:3, 3] = rng.normal(size=3) * scale
    return T


def _random_data(root, seed):
    rng = np.random.default_rng(seed)
    scenes, preds = [], []
    for s in range(6):
        ref = f"ref-{s}"
        n = int(rng.integers(3, 12))
        ids = list(range(1, n + 1))
        amb = []
        for _ in range(int(rng.integers(0, 3))):  # chains of interchangeable instances
            grp = rng.choice(ids, size=min(n, int(rng.integers(2, 4))), replace=False)
            amb.append([{"instance_source": int(a), "instance_target": int(b), "transform": _pose(rng)} for a, b in zip(grp[:-1], grp[1:])])
        scans = []
        for r in range(int(rng.integers(1, 4))):
            resc = f"rescan-{s}-{r}"
            kind = rng.choice(["rigid", "static", "nonrigid", "removed"], size=n, p=[0.5, 0.25, 0.1, 0.15])
            rigid = []
            for i, k in zip(ids, kind):
                if k != "rigid":
                    continue
                T = np.eye(4) if rng.random() < 0.15 else _pose(rng)  # some listed but not moved
                rigid.append({"instance_reference": i, "symmetry": int(rng.integers(0, 3)), "transform": T})
            scans.append(
                {
                    "reference": resc,
                    "rigid": rigid,
                    "nonrigid": [i for i, k in zip(ids, kind) if k == "nonrigid"],
                    "removed": [i for i, k in zip(ids, kind) if k == "removed"],
                }
            )
            for i in ids:
                if rng.random() < 0.8:
                    preds.append({"rescan": resc, "instance": i, "pose": _pose(rng, 0.5)})
            # the rescan's own annotation lacks some static instances: "unannotated"
            (root / resc).mkdir(parents=True)
            kept = [i for i in ids if rng.random() < 0.85]
            (root / resc / "semseg.v2.json").write_text(json.dumps({"segGroups": [{"objectId": i, "label": "x"} for i in kept]}))
        scenes.append({"reference": ref, "type": "validation", "ambiguity": amb, "scans": scans})
        groups = []
        for i in ids:
            g = {"objectId": i, "id": i, "label": ["chair", "table", ""][i % 3]}
            c = rng.normal(size=3)
            g["obb"] = {"centroid": [float(c[0]), int(round(c[1])), float(c[2])] if i % 4 == 0 else c.tolist()}
            groups.append(g)
        (root / ref).mkdir(parents=True)
        (root / ref / "semseg.v2.json").write_text(json.dumps({"segGroups": groups}))
    write_index(root, scenes, {})
    (root / "objects.json").unlink()  # labels and instance lists from semseg.v2.json
    write_pose_predictions(root / "p.jsonl", preds)
    return root


def ref_ground_truth(data, rescan, scope):
    """The reference: the samples of one rescan built object by object (what the table must equal)."""
    ref = rescan.scene_id
    ref_ids = data._reference_ids(ref)
    present = data.instance_ids(rescan.scan_id)
    scene = data.scene_by_id[ref]
    poses = {}
    for iid in ref_ids:
        if iid in rescan.removed or iid in rescan.nonrigid:
            continue
        poses[iid] = rescan.rigid[iid].transform if iid in rescan.rigid else np.eye(4)
    partners = data._partners(scene)
    out = []
    for iid in sorted(ref_ids):
        if iid in rescan.removed:
            continue
        if scope == "changed" and iid not in rescan.rigid and iid not in rescan.nonrigid:
            continue
        code = data.symmetry_code(rescan, iid)
        order = symmetry_order(code, data.symmetry_codes)
        excluded = None
        if iid in rescan.nonrigid:
            excluded = "nonrigid (no rigid ground-truth pose)"
        elif present is not None and iid not in rescan.rigid and iid not in present:
            excluded = "not annotated in the rescan and not listed as removed"
        if excluded:
            out.append(
                GroundTruthInstance(
                    rescan.scan_id, ref, iid, data.label(ref, iid), np.eye(4), order, False, np.zeros(3), "", [], [], excluded
                )
            )
            continue
        pose = poses[iid]
        centroid, src = data.centroid(ref, iid)
        cands, pids = [pose], []
        for j, A in sorted(partners.get(iid, {}).items()):
            if j in poses:
                cands.append(poses[j] @ A)
                pids.append(j)
        moved = not bool(is_identity(pose, rot_tol_deg=STATIC_ROT_DEG, trans_tol_m=STATIC_TRANS_M))
        out.append(GroundTruthInstance(rescan.scan_id, ref, iid, data.label(ref, iid), pose, order, moved, centroid, src, cands, pids))
    return out


def _same_instances(got, want):
    """Every field equal, arrays bit for bit (ThreeRScan.ground_truth against the reference)."""

    def same(x, y):
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y))
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            return np.asarray(x).tobytes() == np.asarray(y).tobytes() and np.shape(x) == np.shape(y)
        return type(x) is type(y) and x == y

    return len(got) == len(want) and all(same(list(vars(a).values()), list(vars(b).values())) for a, b in zip(got, want))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scope", ["changed", "all"])
def test_table_equals_ground_truth(tmp_path, seed, scope):
    data = ThreeRScan(_random_data(tmp_path / "d", seed))
    rescans = data.split_rescans("validation")
    t = data.ground_truth_table(rescans, scope)
    k = 0
    for r, (a, b) in zip(rescans, t.bounds):
        ref = ref_ground_truth(data, r, scope)
        assert b - a == len(ref)
        assert _same_instances(data.ground_truth(r, scope), ref)
        for g in ref:
            assert (t.rescan[k], t.scene[k], t.instance[k], t.label[k]) == (g.rescan, g.scene, g.instance, g.label)
            assert (t.symmetry_order[k], t.moved[k], t.excluded[k], t.partners[k]) == (g.symmetry_order, g.moved, g.excluded, g.partners)
            assert t.sample_id(k) == g.sample_id
            assert t.groups(k) == _groups(g)
            if g.excluded is None:
                assert np.array_equal(np.asarray(t.centroid[k], dtype=float), g.centroid) and t.centroid_source[k] == g.centroid_source
                assert np.array_equal(np.stack([t.pose[k], *t.partner_poses[k]]), np.stack(g.candidates))
            k += 1
    assert k == len(t)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("protocol", ["strict", "official"])
@pytest.mark.parametrize("scope", ["changed", "all"])
@pytest.mark.parametrize("batch", [1, 7, 5000])
def test_batches_score_like_each_rescan(tmp_path, monkeypatch, seed, protocol, scope, batch):
    root = _random_data(tmp_path / "d", seed)
    data = ThreeRScan(root)
    rescans = data.split_rescans("validation")
    preds = read_pose_predictions(root / "p.jsonl", data.reference_instances(), evaluated=[r.scan_id for r in rescans])
    sc = RioScorer(data, preds, rescans, protocol, scope)
    ids = sc.sample_ids()
    skip = {i for i in ids if np.random.default_rng(seed).random() < 0.2} if batch == 7 else set()
    monkeypatch.setattr(scorer_mod, "BATCH_SAMPLES", batch)
    got = [r.to_json() for b in sc.iter_scores(skip) for r in b]
    want = []
    for r in rescans:
        todo = [g for g in ref_ground_truth(data, r, scope) if g.sample_id not in skip]
        if todo:
            want.extend(x.to_json() for x in score_rescan(sc, todo))
    assert ids == [g.sample_id for r in rescans for g in ref_ground_truth(data, r, scope)]
    assert json.dumps(got) == json.dumps(want)
