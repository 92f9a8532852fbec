import json
import math

import numpy as np
import pytest

from scenebench.benchmarks.rio.api import score_rio
from scenebench.benchmarks.rio.predictions import write_pose_predictions
from scenebench.errors import RunMismatchError
from scenebench.geometry.poses import about_pivot, axis_angle_matrix, compose, rotation_z
from scenebench.results import Results

from .rooms import OBJECTS, RESCAN_A, RESCAN_B, _centre


def _rows(room, override=None, drop=()):
    rows = []
    for rescan, truth in room.truth.items():
        for iid, T in truth.items():
            if (rescan, iid) in drop:
                continue
            rows.append({"rescan": rescan, "instance": iid, "pose": (override or {}).get((rescan, iid), T)})
    return rows


def _score(room, tmp_path, rows, protocol="strict", name="p.jsonl", **kw):
    p = tmp_path / name
    write_pose_predictions(p, rows)
    res, run = score_rio(room.root, p, protocol=protocol, out=tmp_path / f"run-{protocol}-{name}", n_resamples=50, progress=False, **kw)
    return res


@pytest.mark.parametrize("protocol", ["strict", "official"])
def test_ground_truth_as_prediction_is_perfect(room_mm, tmp_path, protocol):
    res = _score(room_mm, tmp_path, _rows(room_mm), protocol)
    o = res.overall()
    assert o["recall_10cm_10deg"] == 100.0 and o["recall_20cm_20deg"] == 100.0
    assert o["MRE"] == pytest.approx(0.0, abs=1e-5) and o["MTE"] == pytest.approx(0.0, abs=1e-9)
    # The changed objects only: rigid[] holds 3 in A and 1 in B; A's non-rigid curtain is excluded
    # and listed; the predictions of the 10 static instances are not samples and are counted.
    assert res.settings["scope"] == "changed"
    assert res.counts.n_samples == 5 and res.counts.n_excluded == 1 and res.counts.n_scored == 4
    assert res.extra["excluded"] == [{"sample_id": f"{RESCAN_A}/8", "reason": "nonrigid (no rigid ground-truth pose)"}]
    assert res.extra["ignored_predictions_not_samples"] == 10
    assert set(res.metrics["by_motion"]) == {"moved", "nonrigid"}
    assert res.counts_by_group["by_motion"]["nonrigid"].n_excluded == 1
    assert res.counts_by_group["by_motion"]["moved"].n_samples == 4
    assert set(res.metrics["by_symmetry"]) == {"none", "2-fold", "4-fold"}
    assert "chair" in res.metrics["by_label"] and set(res.metrics["by_scene"]) == {"ref-0001"}
    assert "millimetres" in res.settings["units"]
    # results.json is valid JSON and loads back
    assert Results.load(tmp_path / f"run-{protocol}-p.jsonl" / "results.json").protocol == protocol


def test_scope_all_adds_every_kept_instance_as_static(room_m, tmp_path):
    res = _score(room_m, tmp_path, _rows(room_m), scope="all")
    # 7 samples in A (lamp removed) + 8 in B; the non-rigid curtain is excluded and listed
    assert res.settings["scope"] == "all"
    assert res.counts.n_samples == 15 and res.counts.n_excluded == 1 and res.counts.n_scored == 14
    assert set(res.metrics["by_motion"]) == {"moved", "static", "nonrigid"}
    assert res.overall()["recall_10cm_10deg"] == 100.0 and res.extra["ignored_predictions_not_samples"] == 0


@pytest.mark.parametrize(
    ("scope", "protocol", "recall"), [("changed", "strict", 25.0), ("changed", "official", 0.0), ("all", "strict", 1100 / 14)]
)
def test_nothing_moved_fails_the_protocol_and_passes_the_diagnostic(room_m, tmp_path, scope, protocol, recall):
    # Identity for every instance. Of the 4 changed objects only the table (2-fold, turned 180 deg
    # about its centre) is in place, and only for strict, whose symmetry turns about the centroid;
    # official's angle-only shortcut leaves a 2 m translation error. With scope=all the 10 static
    # instances count too: (10 + 1) / 14.
    rows = _rows(room_m, override={(r, i): np.eye(4) for r, t in room_m.truth.items() for i in t})
    res = _score(room_m, tmp_path, rows, protocol, scope=scope)
    assert res.overall()["recall_10cm_10deg"] == pytest.approx(recall)


def test_symmetric_turn_of_table_strict_vs_official(room_m, tmp_path):
    # Predict the table in rescan B (static, 2-fold) turned 180 deg about its centre.
    turned = about_pivot(rotation_z(np.pi), _centre(3))
    rows = _rows(room_m, override={(RESCAN_B, 3): turned})
    strict = _score(room_m, tmp_path, rows, "strict", scope="all")
    official = _score(room_m, tmp_path, rows, "official", scope="all")
    assert strict.overall()["recall_10cm_10deg"] == 100.0
    # official: angle forgiven, but |t_pred - t_gt| = 2 |c_xy| (about 2 m) is not
    assert official.overall()["recall_10cm_10deg"] == pytest.approx(100 * 13 / 14)
    assert official.metrics["by_symmetry"]["2-fold"]["recall_10cm_10deg"] == 50.0


def test_tilted_turn_is_not_forgiven_by_strict(room_m, tmp_path):
    tilted = about_pivot(axis_angle_matrix([1, 0, 1], np.pi), _centre(3))
    res = _score(room_m, tmp_path, _rows(room_m, override={(RESCAN_B, 3): tilted}), "strict", scope="all")
    assert res.metrics["by_symmetry"]["2-fold"]["recall_20cm_20deg"] == 50.0


def test_interchangeable_chairs_one_to_one_strict_min_over_partners_official(room_m, tmp_path):
    # In rescan A chair 4 moved; predict both chair 4 and chair 6 onto chair 6's (static) place.
    land_4_on_6 = OBJECTS[6][3] @ np.linalg.inv(OBJECTS[4][3])
    rows = _rows(room_m, override={(RESCAN_A, 4): land_4_on_6})
    strict = _score(room_m, tmp_path, rows, "strict", scope="all")
    official = _score(room_m, tmp_path, rows, "official", scope="all")
    assert official.overall()["recall_10cm_10deg"] == 100.0
    assert official.extra["n_matched_to_partner"] == 1
    assert strict.overall()["recall_10cm_10deg"] == pytest.approx(100 * 13 / 14)


def test_missing_predictions_strict_infinite_official_left_out_of_medians(room_m, tmp_path):
    drop = {(RESCAN_A, i) for i in (1, 2, 3, 4, 5, 6)} | {(RESCAN_B, i) for i in (1, 2)}
    rows = _rows(room_m, drop=drop)
    strict = _score(room_m, tmp_path, rows, "strict", scope="all")
    assert strict.counts.n_missing == 8
    assert strict.overall()["recall_10cm_10deg"] == pytest.approx(100 * 6 / 14)
    assert strict.overall()["MRE"] is None and strict.overall()["MTE"] is None  # 8 of 14 infinite
    assert any("MRE (overall) is unbounded" in w for w in strict.warnings)
    official = _score(room_m, tmp_path, rows, "official", scope="all")
    assert official.counts.n_missing == 8
    assert official.overall()["recall_10cm_10deg"] == pytest.approx(100 * 6 / 14)
    assert official.overall()["MRE"] == pytest.approx(0.0, abs=1e-5)
    # every number in results.json is finite JSON
    json.loads(
        (tmp_path / "run-strict-p.jsonl" / "results.json").read_text(), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c))
    )


def test_strict_median_with_some_missing_is_finite(room_m, tmp_path):
    shifted = compose(np.eye(3), [0.05, 0, 0])
    rows = _rows(
        room_m, override={(r, i): shifted @ T for r, t in room_m.truth.items() for i, T in t.items()}, drop={(RESCAN_A, 1), (RESCAN_A, 2)}
    )
    res = _score(room_m, tmp_path, rows, "strict", scope="all")
    assert res.overall()["MTE"] == pytest.approx(0.05)
    assert res.counts.n_missing == 2


def test_resume_and_mismatch(room_m, tmp_path):
    p = tmp_path / "p.jsonl"
    write_pose_predictions(p, _rows(room_m))
    out = tmp_path / "run"
    a, _ = score_rio(room_m.root, p, out=out, n_resamples=20, progress=False)
    b, _ = score_rio(room_m.root, p, out=out, n_resamples=20, progress=False)
    assert a.metrics == b.metrics
    write_pose_predictions(p, _rows(room_m, drop={(RESCAN_A, 1)}))
    with pytest.raises(RunMismatchError):
        score_rio(room_m.root, p, out=out, n_resamples=20, progress=False)


def test_cli_score_validate_and_errors(room_m, tmp_path, capsys):
    from scenebench.cli import main

    p = tmp_path / "p.jsonl"
    write_pose_predictions(p, _rows(room_m))
    main(
        [
            "score",
            "rio",
            "--data",
            str(room_m.root),
            "--predictions",
            str(p),
            "--out",
            str(tmp_path / "r"),
            "--bootstrap",
            "20",
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert "100.00" in out and "scored 4" in out and "metres" in out and "instances: changed" in out
    main(["validate", "rio", "--data", str(room_m.root), "--predictions", str(p)])
    summary = json.loads(capsys.readouterr().out)
    assert summary["scope"] == "changed"
    assert summary["ground_truth"]["moved"] == 4 and summary["ground_truth"]["excluded"] == 1
    assert "static" not in summary["ground_truth"]
    assert summary["predictions"]["records_in_split"] == 14
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"rescan": "nope", "instance": 1, "pose": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}\n')
    with pytest.raises(SystemExit) as exc:
        main(["score", "rio", "--data", str(room_m.root), "--predictions", str(bad), "--out", str(tmp_path / "r2")])
    assert exc.value.code == 2
    assert "line 1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["score", "rio", "--data", str(room_m.root), "--predictions", str(p), "--split", "test", "--out", str(tmp_path / "r3")])
    assert exc.value.code == 2
    assert "hidden ground truth" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["score", "rio", "--data", str(room_m.root), "--predictions", str(p), "--scope", "moved", "--out", str(tmp_path / "r4")])
    assert exc.value.code == 2
    assert "field 'scope'" in capsys.readouterr().err


def test_infinite_errors_survive_the_store(room_m, tmp_path):
    from scenebench.runtime.rundir import RunDir
    from scenebench.runtime.scoring import load_scores

    _score(room_m, tmp_path, _rows(room_m, drop={(RESCAN_A, 1)}), "strict", scope="all")
    recs = {r.sample_id: r for r in load_scores(RunDir(tmp_path / "run-strict-p.jsonl"))}
    assert math.isinf(recs[f"{RESCAN_A}/1"].values["r_err"]) and recs[f"{RESCAN_A}/1"].status == "missing"


def test_scoring_leaves_the_callers_collector_as_it_was(room_m, tmp_path):
    # Only the command's entry point (cli.tune_gc) sets the collector; a library caller (a
    # notebook) scoring, also when it fails, keeps its own settings and frozen objects.
    import gc

    def state():
        # a frozen object may still be freed (the count falls), but scoring must freeze nothing new
        return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count() <= frozen

    frozen = gc.get_freeze_count()
    before = state()
    p = tmp_path / "p.jsonl"
    write_pose_predictions(p, _rows(room_m))
    out = tmp_path / "run"
    score_rio(room_m.root, p, out=out, n_resamples=20, progress=False)
    assert state() == before
    write_pose_predictions(p, _rows(room_m, drop={(RESCAN_A, 1)}))
    with pytest.raises(RunMismatchError):  # fails after the inputs were loaded
        score_rio(room_m.root, p, out=out, n_resamples=20, progress=False)
    assert state() == before
    p.write_text('{"rescan": "nope", "instance": 1, "pose": 3}\n')
    with pytest.raises(Exception, match="p.jsonl"):  # fails while the predictions are read
        score_rio(room_m.root, p, out=tmp_path / "run2", n_resamples=20, progress=False)
    assert state() == before
