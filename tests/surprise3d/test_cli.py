"""End-to-end: ``scenebench score|validate surprise3d`` on project-made data in .npz and .pth."""

import json
import subprocess
import sys

import numpy as np
import pytest

from scenebench.benchmarks.surprise3d.api import score_run
from scenebench.cli import main
from scenebench.errors import RunMismatchError
from scenebench.geometry.boxes import iou_minmax, points_aabb
from scenebench.io.files import sha256_file
from scenebench.metrics.segmentation import reference_sample

from .conftest import RECORDS


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")


def _run(argv, capsys):
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _mixed_predictions(fx):
    """One prediction per sample (except index 6) in every mask form, with known content."""
    rng = np.random.default_rng(5)
    preds, recs = {}, []
    for i, (scene, obj, _) in enumerate(RECORDS):
        if i == 6:
            continue  # missing
        g = fx.gt(i, np.atleast_1d(obj))
        keep = g[rng.random(g.size) < 0.6]
        extra = rng.integers(0, 400, 15)
        p = np.unique(np.concatenate([keep, extra]))
        preds[i] = p
        form = i % 3
        if form == 0:
            recs.append({"sample_id": fx.ids[i], "mask_indices": p.tolist()})
        elif form == 1:
            recs.append({"index": i, "mask_rle": np.stack([p, np.ones_like(p)], 1).ravel().tolist()})
        else:
            s = np.zeros(400)
            s[p] = 0.5 + 0.5 * rng.random(p.size)
            s[np.setdiff1d(np.arange(400), p)] = 0.49 * rng.random(400 - p.size)
            recs.append({"index": i, "scores": s.tolist()})
    return preds, recs


@pytest.mark.parametrize("protocol", ["strict", "official"])
def test_score_end_to_end_matches_plain_reference(any_dataset, capsys, protocol):
    fx = any_dataset
    preds, recs = _mixed_predictions(fx)
    pfile = fx.write_preds(recs)
    out = fx.root / "run"
    code, stdout, err = _run(
        [
            "score",
            "surprise3d",
            "--annotations",
            str(fx.annotations),
            "--scenes",
            str(fx.scenes),
            "--predictions",
            str(pfile),
            "--protocol",
            protocol,
            "--out",
            str(out),
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0, err
    res = json.loads((out / "results.json").read_text())
    # expected: plain per-sample boolean masks; index 4 has an empty GT (excluded); 6 is missing (IoU 0)
    exp = {}
    for i, (scene, obj, qt) in enumerate(RECORDS):
        if i == 4:
            continue
        r = reference_sample(fx.inst[scene], preds.get(i, np.zeros(0, int)), np.atleast_1d(obj), protocol=protocol)
        exp.setdefault(qt, []).append(r)
    allr = np.array([r for v in exp.values() for r in v])
    ov = res["metrics"]["overall"]
    assert ov["mIoU"] == pytest.approx(100 * allr[:, 0].mean())
    assert ov["A25"] == pytest.approx(100 * allr[:, 1].mean())
    assert ov["A50"] == pytest.approx(100 * allr[:, 2].mean())
    for qt, rs in exp.items():
        assert res["metrics"]["by_question_type"][qt]["mIoU"] == pytest.approx(100 * np.mean([r[0] for r in rs]))
    assert res["metrics"]["by_question_type"]["abs"]["mIoU"] is None  # its only sample is excluded
    assert set(res["metrics"]["by_question_type"]) == {"abs", "cs", "hi", "rel_pos"}
    assert res["counts"] == {"n_samples": 7, "n_scored": 5, "n_missing": 1, "n_invalid": 0, "n_excluded": 1}
    assert res["counts_by_group"]["by_question_type"]["abs"]["n_excluded"] == 1
    assert res["extra"]["excluded_ids"] == [fx.ids[4]]
    assert res["protocol"] == protocol and res["benchmark"] == "surprise3d"
    assert res["settings"]["acc_comparison"] == (">" if protocol == "official" else ">=")
    assert res["settings"]["score_threshold"] == 0.5
    assert res["inputs"]["predictions"]["sha256"] == sha256_file(pfile)
    assert res["inputs"]["annotations"]["sha256"] == sha256_file(fx.annotations)
    assert len(res["inputs"]["scenes"]) == 3
    ci = res["confidence_intervals"]
    assert ci["cluster_key"] == "scene_id" and ci["n_resamples"] == 1000 and ci["seed"] == 0
    lo, hi = ci["overall"]["mIoU"]
    assert lo <= ov["mIoU"] <= hi
    assert "box_detection" not in res["extra"] and not any(k.startswith("box") for k in ov)
    assert f"protocol: {protocol}" in stdout and "question_type=rel_pos" in stdout and "excluded 1" in stdout
    assert "BOX DETECTION" not in stdout


def test_iou_of_exactly_half_flips_a50_between_protocols_end_to_end(dataset, capsys):
    g = dataset.gt(0, [1])
    others = np.setdiff1d(np.arange(400), g)[: g.size]  # |P∩G| = |G|, |P∪G| = 2|G|
    pfile = dataset.write_preds([{"index": 0, "mask_indices": np.r_[g, others].tolist()}])
    a50 = {}
    for protocol in ("strict", "official"):
        out = dataset.root / protocol
        code, _, err = _run(
            [
                "score",
                "surprise3d",
                "-a",
                str(dataset.annotations),
                "-s",
                str(dataset.scenes),
                "-p",
                str(pfile),
                "--protocol",
                protocol,
                "-o",
                str(out),
                "--bootstrap",
                "0",
            ],
            capsys,
        )
        assert code == 0, err
        res = json.loads((out / "results.json").read_text())
        a50[protocol] = res["metrics"]["by_question_type"]["cs"]["A50"]
        assert res["confidence_intervals"]["overall"]["mIoU"] is None  # no bootstrap asked for
    # question type cs = samples 0, 3, 6; only sample 0 has a prediction
    assert a50 == {"strict": pytest.approx(100 / 3), "official": 0.0}


def test_box_predictions_are_reported_apart(any_dataset, capsys):
    fx = any_dataset
    recs, exp_box, exp_mask = [], [], []
    for i, (scene, obj, _) in enumerate(RECORDS):
        g = fx.gt(i, np.atleast_1d(obj))
        if g.size == 0:
            recs.append({"index": i, "box": [0, 0, 0, 1, 1, 1]})
            continue
        gb = points_aabb(fx.coords[scene][g])
        box = gb + np.array([-0.1, 0, 0, 0.3 * (i % 3), 0, 0])  # grow along x by varying amounts
        recs.append({"index": i, "box": box.tolist()})
        exp_box.append(float(iou_minmax(box, gb)))
        c = fx.coords[scene]
        inside = np.flatnonzero(np.all((c >= box[:3]) & (c <= box[3:]), axis=1))
        exp_mask.append(reference_sample(fx.inst[scene], inside, np.atleast_1d(obj), protocol="strict")[0])
    out = fx.root / "run"
    code, stdout, err = _run(
        ["score", "surprise3d", "-a", str(fx.annotations), "-s", str(fx.scenes), "-p", str(fx.write_preds(recs)), "-o", str(out)], capsys
    )
    assert code == 0, err
    res = json.loads((out / "results.json").read_text())
    assert set(res["metrics"]["overall"]) == {"mIoU", "A25", "A50"}
    assert res["metrics"]["overall"]["mIoU"] == pytest.approx(100 * np.mean(exp_mask))
    box = res["extra"]["box_detection"]
    eb = np.array(exp_box)
    assert box["metrics"]["overall"]["box_mIoU"] == pytest.approx(100 * eb.mean())
    assert box["metrics"]["overall"]["box_Acc@0.25"] == pytest.approx(100 * (eb >= 0.25).mean())
    assert box["metrics"]["overall"]["box_Acc@0.5"] == pytest.approx(100 * (eb >= 0.5).mean())
    assert "by_question_type" in box["metrics"] and box["confidence_intervals"]["overall"]["box_mIoU"]
    assert res["extra"]["masks_from_boxes"] is True and res["extra"]["prediction_kinds"] == {"box": 7}
    # two tables, mask first, each with its own title; the box names never appear in the mask table
    mask_part, _, box_part = stdout.partition("BOX DETECTION")
    assert "Box predictions scored as masks" in mask_part and "box_Acc" not in mask_part
    assert "box_Acc@0.25" in box_part and "mIoU (%)" not in box_part.replace("box_mIoU (%)", "")


def test_parquet_and_jsonl_give_the_same_results(dataset, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, recs = _mixed_predictions(dataset)
    cols = {k: [r.get(k) for r in recs] for k in ("sample_id", "index", "mask_indices", "mask_rle", "scores")}
    schema = pa.schema(
        [
            ("sample_id", pa.string()),
            ("index", pa.int64()),
            ("mask_indices", pa.list_(pa.int32())),
            ("mask_rle", pa.list_(pa.int64())),
            ("scores", pa.list_(pa.float32())),
        ]
    )
    pq.write_table(pa.table(cols, schema=schema), dataset.root / "p.parquet")
    got = {}
    for name in ("p.parquet", "preds.jsonl"):
        if name.endswith("jsonl"):
            dataset.write_preds(recs)
        out = dataset.root / f"run-{name}"
        code, _, err = _run(
            [
                "score",
                "surprise3d",
                "-a",
                str(dataset.annotations),
                "-s",
                str(dataset.scenes),
                "-p",
                str(dataset.root / name),
                "-o",
                str(out),
            ],
            capsys,
        )
        assert code == 0, err
        got[name] = json.loads((out / "results.json").read_text())["metrics"]
    assert got["p.parquet"] == got["preds.jsonl"]


def test_default_run_folder_is_under_runs(dataset, capsys, monkeypatch):
    monkeypatch.chdir(dataset.root)
    code, stdout, err = _run(
        [
            "score",
            "surprise3d",
            "-a",
            str(dataset.annotations),
            "-s",
            str(dataset.scenes),
            "-p",
            str(dataset.write_preds([{"index": 0, "mask_indices": [1]}])),
        ],
        capsys,
    )
    assert code == 0, err
    made = list((dataset.root / "runs").glob("surprise3d-*/results.json"))
    assert len(made) == 1 and "runs/surprise3d-" in stdout


# ---- resume ----------------------------------------------------------------------------------------


class Killed(Exception):
    pass


def test_killed_run_resumes_without_rescoring_and_finished_run_is_re_reported(dataset):
    preds, recs = _mixed_predictions(dataset)
    pfile = dataset.write_preds(recs)
    out = dataset.root / "run"
    args = (dataset.annotations, dataset.scenes, pfile, out)

    def kill_on_second_scene(scorer):
        real = scorer.scene_loader

        def loader(d, sid):
            if scorer.n_scene_loads == 1:
                raise Killed()
            return real(d, sid)

        scorer.scene_loader = loader

    with pytest.raises(Killed):
        score_run(*args, progress=False, scorer_hook=kill_on_second_scene)
    assert not (out / "results.json").exists()

    res, run, scorer = score_run(*args, progress=False)
    # the first scene (3 samples) was saved before the kill: only the other two scenes are scored
    assert scorer.n_scene_loads == 2 and scorer.n_samples_scored == 4

    fresh, _, _ = score_run(dataset.annotations, dataset.scenes, pfile, dataset.root / "fresh", progress=False)
    assert res.metrics == fresh.metrics and res.counts == fresh.counts

    again, _, scorer3 = score_run(*args, progress=False)
    assert scorer3.n_scene_loads == 0 and scorer3.n_samples_scored == 0
    assert scorer3._preds is None  # the predictions file was not even re-read
    assert again.metrics == res.metrics


def test_run_folder_of_other_inputs_is_refused_unless_overwrite(dataset):
    out = dataset.root / "run"
    p1 = dataset.write_preds([{"index": 0, "mask_indices": [1]}], "a.jsonl")
    p2 = dataset.write_preds([{"index": 0, "mask_indices": [2]}], "b.jsonl")
    score_run(dataset.annotations, dataset.scenes, p1, out, progress=False)
    with pytest.raises(RunMismatchError, match="--overwrite"):
        score_run(dataset.annotations, dataset.scenes, p2, out, progress=False)
    with pytest.raises(RunMismatchError):
        score_run(dataset.annotations, dataset.scenes, p1, out, progress=False, protocol="official")
    res, _, scorer = score_run(dataset.annotations, dataset.scenes, p2, out, progress=False, overwrite=True)
    assert scorer.n_samples_scored == 7 and res.inputs["predictions"]["path"].endswith("b.jsonl")


# ---- validate, errors, help --------------------------------------------------------------------------


def test_validate_lists_ids(dataset, capsys):
    code, stdout, _ = _run(["validate", "surprise3d", "-a", str(dataset.annotations), "--list-ids"], capsys)
    assert code == 0
    lines = stdout.strip().splitlines()
    assert lines[0] == "sample_id\tindex\tscene_id\tquestion_type"
    assert [ln.split("\t")[0] for ln in lines[1:]] == dataset.ids
    assert lines[2].split("\t")[1:] == ["1", "0a5c013435", "rel_pos"]


def test_validate_reports_empty_gt_and_missing_predictions(any_dataset, capsys):
    fx = any_dataset
    pfile = fx.write_preds([{"index": 0, "mask_indices": [1]}])
    code, stdout, err = _run(["validate", "surprise3d", "-a", str(fx.annotations), "-s", str(fx.scenes), "-p", str(pfile)], capsys)
    assert code == 0, err
    assert "7 samples in 3 scenes" in stdout and "empty ground-truth masks: 1" in stdout and fx.ids[4] in stdout
    assert "6 samples without prediction" in stdout and "valid" in stdout
    assert "rel_pos" in stdout and "first_view" not in stdout  # types come from the file


def test_bad_input_is_one_line_and_exit_code_2(dataset, capsys):
    pfile = dataset.write_preds([{"index": 0, "mask_indices": [1]}, {"index": 0, "mask_indices": [2]}])
    for cmd in (["score", "surprise3d", "-o", str(dataset.root / "r")], ["validate", "surprise3d"]):
        code, _, err = _run([*cmd, "-a", str(dataset.annotations), "-s", str(dataset.scenes), "-p", str(pfile)], capsys)
        assert code == 2
        assert "error:" in err and "preds.jsonl" in err and "line 2" in err and "Traceback" not in err


def test_missing_scene_is_reported_before_any_scoring(dataset, capsys):
    (dataset.scenes / "2c8e113b70.npz").unlink()
    code, _, err = _run(
        [
            "score",
            "surprise3d",
            "-a",
            str(dataset.annotations),
            "-s",
            str(dataset.scenes),
            "-p",
            str(dataset.write_preds([{"index": 0, "mask_indices": [1]}])),
            "-o",
            str(dataset.root / "r"),
        ],
        capsys,
    )
    assert code == 2 and "2c8e113b70" in err
    assert not (dataset.root / "r").exists()


def test_bad_protocol_and_threshold(dataset, capsys):
    base = [
        "score",
        "surprise3d",
        "-a",
        str(dataset.annotations),
        "-s",
        str(dataset.scenes),
        "-p",
        str(dataset.write_preds([{"index": 0, "mask_indices": [1]}])),
        "-o",
        str(dataset.root / "r"),
    ]
    code, _, err = _run([*base, "--protocol", "loose"], capsys)
    assert code == 2 and "unknown protocol 'loose'" in err
    code, _, err = _run([*base, "--score-threshold", "1.5"], capsys)
    assert code == 2 and "outside [0, 1]" in err


def test_declaration_and_info_stay_light():
    # `scenebench --help` imports these: they must not pull numpy, torch or pyarrow.
    code = (
        "import sys; import scenebench.benchmarks.surprise3d.spec, scenebench.benchmarks.surprise3d.info, scenebench.commands.benchmark; "
        "heavy = [m for m in ('numpy', 'torch', 'pyarrow') if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_list_shows_surprise3d(capsys):
    code, stdout, _ = _run(["list"], capsys)
    assert code == 0 and "surprise3d" in stdout and "docs/metrics/surprise3d_miou.md" in stdout


def test_bad_predictions_leave_no_run_folder_behind(dataset, capsys):
    # Otherwise the corrected rerun of the same command would be refused as "other inputs".
    out = dataset.root / "r"
    base = ["score", "surprise3d", "-a", str(dataset.annotations), "-s", str(dataset.scenes), "-o", str(out)]
    code, _, err = _run([*base, "-p", str(dataset.write_preds([{"index": 0, "mask_indices": [-4]}]))], capsys)
    assert code == 2 and "negative value -4" in err and not out.exists()
    code, _, err = _run([*base, "-p", str(dataset.write_preds([{"index": 0, "mask_indices": [4]}]))], capsys)
    assert code == 0, err
