"""Multi3DRefer: the spec's matching matrix, hand-worked F1 per query and per type under both
protocols, reader errors, both prediction layouts, and each rule written again plainly (brute force
over assignments) and compared with the library on 200 fuzzed batches."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import scenebench
from scenebench import cli
from scenebench.benchmarks.multi3drefer.data import load_queries
from scenebench.benchmarks.multi3drefer.predictions import read_predictions
from scenebench.benchmarks.multi3drefer.scorer import query_f1
from scenebench.benchmarks.multi3drefer.writer import language_record, write_box_table, write_language, write_prediction_folder
from scenebench.errors import InputError
from scenebench.metrics.grounding import set_f1, true_positives


def test_the_spec_matrix_scores_0_under_the_released_matching_and_0_5_when_pairs_come_first():
    m = np.array([[0.49, 0.50], [0.30, 0.49]])  # rows predictions, columns GT
    # IoU-sum Hungarian: (0,0)+(1,1) = 0.98 beats (0,1)+(1,0) = 0.80, and neither diagonal pair reaches 0.5
    assert true_positives(m, (0.25, 0.5), "iou_sum") == [2, 0] and set_f1(m, (0.25, 0.5), "iou_sum") == [1.0, 0.0]
    # the most pairs >= 0.5: (0,1) alone -> TP 1, F1 = 2 * 1 / (2 + 2)
    assert true_positives(m, (0.25, 0.5), "pairs") == [2, 1] and set_f1(m, (0.25, 0.5), "pairs") == [1.0, 0.5]


def test_empty_sets_duplicates_and_extra_boxes():
    assert set_f1(np.zeros((0, 0)), (0.5,), "pairs") == [1.0]  # no target, no box
    assert set_f1(np.zeros((2, 0)), (0.5,), "pairs") == [0.0]  # no target, two boxes
    assert set_f1(np.zeros((0, 3)), (0.5,), "iou_sum") == [0.0]  # three targets, no box
    # the same box twice on one of two targets: one TP, F1 = 2 / 4; the duplicate is a false positive
    assert set_f1(np.array([[1.0, 0.0], [1.0, 0.0]]), (0.5,), "pairs") == [0.5]
    # three boxes, one target hit: 2 * 1 / (3 + 1)
    assert set_f1(np.array([[0.9], [0.1], [0.0]]), (0.5,), "iou_sum") == [0.5]


# Boxes of the hand-worked scene (min-max; y and z span [0, 1], so IoU is the x-interval IoU).
def _x(lo, hi):
    return [lo, 0.0, 0.0, hi, 1.0, 1.0]


G0, G1, G2 = _x(1, 3), _x(0, 4), _x(10, 11)  # objects 0, 1, 2
P0, P1 = _x(0, 2), _x(3, 4)
# P0: IoU with G0 = 1/3 (overlap [1,2], union [0,3]), with G1 = 2/4 = 0.5; P1: with G0 0 (touching), with G1 1/4.
# IoU-sum matching takes P0-G0 + P1-G1 = 7/12 over P0-G1 + P1-G0 = 1/2, so nothing reaches 0.5.
HALF = _x(10, 10.5)  # against G2: inter 0.5, union 1 -> 0.5; float32 0.5 / (1 + eps) = 0.49999994
FAR = _x(20, 21)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    root = tmp_path_factory.mktemp("m3dr")
    write_box_table(root / "boxes", "scene0000_00", [0, 1, 2], np.array([G0, G1, G2]))
    recs = [
        language_record("scene0000_00", 0, [0, 1], "mt", "the two boxes"),
        language_record("scene0000_00", 1, [2], "st_wo_d", "the lone box"),
        language_record("scene0000_00", 2, [], "zt_wo_d", "the piano"),
        language_record("scene0000_00", 3, [], "zt_w_d", "the chair on the bed"),
        language_record("scene0000_00", 4, [2], "st_w_d", "the box by the door"),
    ]
    write_language(root / "multi3drefer_val.json", recs)
    preds = {("scene0000_00", 0): [P0, P1], ("scene0000_00", 1): [HALF], ("scene0000_00", 2): [], ("scene0000_00", 3): [FAR]}
    write_prediction_folder(root / "pred", {k: np.array(v).reshape(-1, 6) for k, v in preds.items()})  # query 4: missing
    return root


def test_hand_worked_queries_under_both_protocols(scene):
    queries = load_queries(scene / "multi3drefer_val.json")
    preds = read_predictions(scene / "pred", queries)
    assert sorted(preds) == ["scene0000_00:0", "scene0000_00:1", "scene0000_00:2", "scene0000_00:3"]
    gt01, gt2 = np.array([G0, G1]), np.array([G2])
    assert query_f1(preds["scene0000_00:0"], gt01, False, "strict")[0] == [1.0, 0.5]
    assert query_f1(preds["scene0000_00:0"], gt01, False, "official")[0] == [1.0, 0.0]
    assert query_f1(preds["scene0000_00:1"], gt2, False, "strict")[0] == [1.0, 1.0]
    assert query_f1(preds["scene0000_00:1"], gt2, False, "official")[0] == [1.0, 0.0]  # the float32 eps at exactly 0.5
    # Chat-Scene: 0.5 / (1 + 1e-8) = 0.499999995 in float64 rounds to 0.5 when stored as float32: a hit
    assert query_f1(preds["scene0000_00:1"], gt2, False, "official:chatscene")[0] == [1.0, 1.0]
    assert query_f1(preds["scene0000_00:0"], gt01, False, "official:chatscene")[0] == [1.0, 0.0]  # the same IoU-sum matching
    # Video-3D-LLM judges by the box counts, not the label: an st query whose one target has no box-table
    # row (G = 0) and no box is right there, wrong under the label; a zt-labelled query with a target
    # and no box is wrong there, right under the label
    none = np.zeros((0, 6))
    assert query_f1(none, none, False, "official:video3dllm")[0] == [1.0, 1.0]
    assert query_f1(none, none, False, "official:chatscene")[0] == [0.0, 0.0]
    assert query_f1(none, gt2, True, "official:video3dllm")[0] == [0.0, 0.0]
    assert query_f1(none, gt2, True, "official:chatscene")[0] == [1.0, 1.0]
    assert query_f1(preds["scene0000_00:1"], gt2, False, "official:video3dllm")[0] == [1.0, 1.0]  # float32 matrix: 0.5 a hit
    for protocol in ("strict", "official"):
        assert query_f1(preds["scene0000_00:2"], np.zeros((0, 6)), True, protocol)[0] == [1.0, 1.0]
        assert query_f1(preds["scene0000_00:3"], np.zeros((0, 6)), True, protocol)[0] == [0.0, 0.0]


def test_scores_through_the_api_and_the_cli(scene, tmp_path, capsys):
    kw = {"annotations": scene / "multi3drefer_val.json", "boxes": scene / "boxes", "predictions": scene / "pred"}
    strict = scenebench.score("multi3drefer", out=tmp_path / "strict", bootstrap=0, **kw)
    # F1@0.5 per query: 0.5, 1, 1, 0, 0 (missing); F1@0.25: 1, 1, 1, 0, 0
    assert strict.metrics["overall"] == {"F1@0.25": pytest.approx(60.0), "F1@0.5": pytest.approx(50.0)}
    assert strict.metrics["by_eval_type"]["st_w_d"]["F1@0.5"] == 0.0 and strict.counts.n_missing == 1
    assert strict.metrics["by_eval_type"]["mt"]["F1@0.5"] == pytest.approx(50.0)
    official = scenebench.score("multi3drefer", protocol="official", out=tmp_path / "official", bootstrap=0, **kw)
    # F1@0.5 per query: 0, 0, 1, 0, 0 -> 20; the overall mean still divides by all five queries
    assert official.metrics["overall"] == {"F1@0.25": pytest.approx(60.0), "F1@0.5": pytest.approx(20.0)}
    # the missing query joins no type (the released per-type array is uninitialised there)
    assert set(official.metrics["by_eval_type"]) == {"mt", "st_wo_d", "zt_wo_d", "zt_w_d", "no prediction"}
    assert official.metrics["by_eval_type"]["st_wo_d"]["F1@0.5"] == 0.0
    assert official.settings["matching"].startswith("one Hungarian") and official.protocol == "official:original"
    chat = scenebench.score("multi3drefer", protocol="official:chatscene", out=tmp_path / "chat", bootstrap=0, **kw)
    # prediction records only: F1@0.5 of queries 0-3 = 0, 1 (0.5 survives), 1, 0 -> 50; F1@0.25: 1, 1, 1, 0 -> 75
    assert chat.metrics["overall"] == {"F1@0.25": pytest.approx(75.0), "F1@0.5": pytest.approx(50.0)}
    assert chat.metrics["by_eval_type"]["st_w_d"]["F1@0.5"] is None and chat.extra["excluded_ids"] == ["scene0000_00:4"]
    cli.main(["validate", "multi3drefer", "-a", str(kw["annotations"]), "--boxes", str(kw["boxes"]), "-p", str(kw["predictions"])])
    out = json.loads(capsys.readouterr().out)
    assert out["queries"] == 5 and out["predictions"] == 4 and out["eval_type_disagreeing_with_object_ids"] == 0


def test_one_file_reads_as_the_folder_does(scene, tmp_path):
    queries = load_queries(scene / "multi3drefer_val.json")
    rows = [{"scene_id": "scene0000_00", **r} for r in json.loads((scene / "pred" / "scene0000_00.json").read_text())]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    a, b = read_predictions(scene / "pred", queries), read_predictions(tmp_path / "p.jsonl", queries)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"object_ids": "0"}, "object_ids"),
        ({"object_ids": [-1]}, "object_ids"),
        ({"eval_type": "zt"}, "eval_type"),
        ({"ann_id": "x"}, "ann_id"),
        ({"scene_id": 3}, "scene_id"),
    ],
)
def test_bad_language_records_name_file_record_and_field(tmp_path, record, field):
    path = write_language(
        tmp_path / "m.json", [language_record("scene0000_00", 0, [1], "st_w_d"), {**language_record("s", 1, [1], "mt"), **record}]
    )
    with pytest.raises(InputError) as e:
        load_queries(path)
    assert "m.json" in str(e.value) and "record 1" in str(e.value) and field in str(e.value)


@pytest.mark.parametrize(
    ("row", "field", "what"),
    [
        ({"ann_id": 9, "aabb": []}, "ann_id", "no query"),
        ({"ann_id": 0, "aabb": [[[0, 0, 0]] * 7]}, "aabb", "8-corner"),
        ({"ann_id": 0}, "aabb", "missing"),
        ({"ann_id": True, "aabb": []}, "ann_id", "integer"),
    ],
)
def test_bad_predictions_name_file_record_and_field(tmp_path, row, field, what):
    queries = load_queries(write_language(tmp_path / "m.json", [language_record("scene0000_00", 0, [1], "st_w_d")]))
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "scene0000_00.json").write_text(json.dumps([row]))
    with pytest.raises(InputError) as e:
        read_predictions(tmp_path / "pred", queries)
    assert "scene0000_00.json" in str(e.value) and "record 0" in str(e.value) and field in str(e.value) and what in str(e.value)


def test_a_second_record_for_a_query_is_an_error(tmp_path):
    queries = load_queries(write_language(tmp_path / "m.json", [language_record("scene0000_00", 0, [1], "st_w_d")]))
    (tmp_path / "p.json").write_text(json.dumps([{"scene_id": "scene0000_00", "ann_id": 0, "aabb": []}] * 2))
    with pytest.raises(InputError, match="a second record"):
        read_predictions(tmp_path / "p.json", queries)


# ---------------------------------------------------------------------------------------------
# Each rule again, plainly from the spec (§4.3, §4.4), by brute force over all assignments.


def plain_iou(a, b, eps=0.0, float32=False):
    t = np.float32 if float32 else float
    a, b = [t(v) for v in a], [t(v) for v in b]
    inter = t(1)
    for k in range(3):
        inter = inter * max(t(0), min(a[k + 3], b[k + 3]) - max(a[k], b[k]))
    va = (a[3] - a[0]) * (a[4] - a[1]) * (a[5] - a[2])
    vb = (b[3] - b[0]) * (b[4] - b[1]) * (b[5] - b[2])
    union = vb + va - inter
    if not float32:
        return 0.0 if union <= 0 else inter / union
    return inter / (union + t(eps))


def plain_strict(pred, gt, k):
    """The most pairs with IoU >= k over every one-to-one assignment; F1 = 2 TP / (P + G), 1 for 0/0."""
    if len(pred) + len(gt) == 0:
        return 1.0
    ok = [[plain_iou(p, g) >= k for g in gt] for p in pred]
    small, big = (len(pred), len(gt))
    best = 0
    if small <= big:
        for cols in itertools.permutations(range(big), small):
            best = max(best, sum(ok[i][c] for i, c in enumerate(cols)))
    else:
        for rows in itertools.permutations(range(small), big):
            best = max(best, sum(ok[r][j] for j, r in enumerate(rows)))
    return 2 * best / (len(pred) + len(gt))


def plain_official(pred, gt, zero_target, lineage="original"):
    """Released rule: the assignment of the padded square matrix with the largest IoU sum, then count
    its pairs >= 0.25 / 0.5; zero-target queries: 1 without a box. IoU: M3DRef-CLIP float32 + float32
    eps; Chat-Scene inter / (union + 1e-8) in float64, kept as float32. Video-3D-LLM: the label is not
    read; no box and no target is 1, no box or no target 0; its IoU as Chat-Scene's."""
    if lineage == "video3dllm":
        if len(pred) == 0 or len(gt) == 0:
            return [1.0 if len(pred) == len(gt) else 0.0] * 2
    elif zero_target:
        return [float(len(pred) == 0)] * 2
    n = max(len(pred), len(gt))
    if n == 0:
        return [0.0, 0.0]

    def iou(i, j):
        if lineage == "original":
            return plain_iou(gt[j], pred[i], np.finfo(np.float32).eps, True)
        a, b = pred[i], gt[j]
        inter = np.prod([max(0.0, min(a[k + 3], b[k + 3]) - max(a[k], b[k])) for k in range(3)])
        union = np.prod(a[3:] - a[:3]) + np.prod(b[3:] - b[:3]) - inter
        return np.float32(inter / (union + 1e-8))

    m = [[iou(i, j) if i < len(pred) and j < len(gt) else np.float32(0) for j in range(n)] for i in range(n)]
    best = max(itertools.permutations(range(n)), key=lambda cols: sum(float(m[i][c]) for i, c in enumerate(cols)))
    pairs = [m[i][c] for i, c in enumerate(best)]
    return [2 * sum(v >= k for v in pairs) / (len(pred) + len(gt)) for k in (0.25, 0.5)]


def _fuzzed(rng):
    """Boxes on a 0.5 m grid (exact IoUs of 0.25 and 0.5 occur), 0-4 GT and 0-4 predicted boxes."""

    def box():
        lo = rng.integers(0, 4, 3) * 0.5
        return np.concatenate([lo, lo + rng.integers(1, 4, 3) * 0.5])

    gt = np.array([box() for _ in range(rng.integers(0, 5))]).reshape(-1, 6)
    near = [g + rng.integers(-1, 2, 6) * 0.5 for g in gt]
    pred = [b for b in near if (b[3:] > b[:3]).all()] + [box() for _ in range(rng.integers(0, 3))]
    return np.array(pred[: rng.integers(0, 5)]).reshape(-1, 6), gt


def test_each_rule_equals_its_plain_reference_on_200_fuzzed_batches():
    rng = np.random.default_rng(40)
    differ = {"strict": 0, "official": 0, "official:chatscene": 0, "official:video3dllm": 0}
    tp_half = lineages_apart = by_counts = 0
    for _ in range(200):
        pred, gt = _fuzzed(rng)
        # one query in ten carries a zero-target label that disagrees with its boxes (a target without a
        # box-table row, a mislabelled record): the lineages that read the label part from Video-3D-LLM
        zero = (len(gt) == 0) != (rng.random() < 0.1)
        want = {"strict": [plain_strict(pred, gt, 0.25), plain_strict(pred, gt, 0.5)], "official": plain_official(pred, gt, zero)}
        want["official:chatscene"] = plain_official(pred, gt, zero, "chatscene")
        want["official:video3dllm"] = plain_official(pred, gt, zero, "video3dllm")
        for protocol in differ:
            got = query_f1(pred, gt, zero, protocol)[0]
            differ[protocol] += got != pytest.approx(want[protocol])
        tp_half += want["strict"][1] != want["official"][1]
        lineages_apart += want["official"] != want["official:chatscene"]
        by_counts += want["official:video3dllm"] != want["official:chatscene"]
    assert differ == {"strict": 0, "official": 0, "official:chatscene": 0, "official:video3dllm": 0}
    assert tp_half > 0 and lineages_apart > 0 and by_counts > 0  # strict and official part, and so do the lineages


def test_oracle_run_scores_100_under_both_protocols_and_the_report_draws_the_boxes(scene, tmp_path, capsys):
    import shutil

    data = tmp_path / "data"
    (data / "scannet_data").mkdir(parents=True)
    shutil.copy(scene / "multi3drefer_val.json", data / "multi3drefer_val.json")
    shutil.copy(scene / "boxes" / "scene0000_00_aligned_bbox.npy", data / "scannet_data")
    rng = np.random.default_rng(0)
    lo, hi = np.array([G0, G1, G2])[:, :3], np.array([G0, G1, G2])[:, 3:]
    pts = np.concatenate([np.stack([lo[k], hi[k], lo[k] + rng.uniform(0, 1, 3) * (hi[k] - lo[k])]) for k in range(3)])
    np.save(data / "scannet_data" / "scene0000_00_aligned_vert.npy", np.concatenate([pts, np.full_like(pts, 128.0)], 1).astype(np.float32))
    np.save(data / "scannet_data" / "scene0000_00_ins_label.npy", np.repeat(np.arange(1, 4), 3).astype(np.uint32))
    for protocol in ("strict", "official", "official:chatscene", "official:video3dllm"):
        out = tmp_path / protocol.replace(":", "-")
        cli.main(
            ["run", "multi3drefer", "--data", str(data), "--model", "oracle", "--protocol", protocol, "--out", str(out), "--no-progress"]
        )
        res = json.loads((out / "results.json").read_text())
        assert res["metrics"]["overall"] == {"F1@0.25": 100.0, "F1@0.5": 100.0} and res["counts"]["n_scored"] == 5
    capsys.readouterr()
    cli.main(["report", str(tmp_path / "strict"), "--html", str(tmp_path / "r.html")])
    assert "the two boxes" in (tmp_path / "r.html").read_text()


def test_audit_probes_on_the_hand_worked_scene(scene, tmp_path):
    import shutil

    from scenebench.benchmarks.multi3drefer.audit import rows

    data = tmp_path / "multi3drefer"
    (data / "scannet_data").mkdir(parents=True)
    shutil.copy(scene / "multi3drefer_val.json", data / "multi3drefer_val.json")
    shutil.copy(scene / "boxes" / "scene0000_00_aligned_bbox.npy", data / "scannet_data")
    got = {r["group"]: r for r in rows(data, tmp_path / "audit", seed=0, split="validation", progress=False)}
    # blind (no box anywhere): the two zero-target queries of five
    assert got["overall"]["blind"] == pytest.approx(40.0) and got["zt_w_d"]["blind"] == 100.0
    # labels (every chair's box, objects 0-2): mt 2 * 2 / (3 + 2), st_wo_d and st_w_d 2 * 1 / (3 + 1), zt 0
    assert got["overall"]["labels"] == pytest.approx(100 * (0.8 + 0.5 + 0 + 0 + 0.5) / 5)
    assert got["mt"]["labels"] == pytest.approx(80.0) and got["st_wo_d"]["labels"] == pytest.approx(50.0)
    assert got["overall"]["oracle"] == 100.0 and got["overall"]["chance"] == got["overall"]["random"]
    assert got["overall"]["n"] == 5 and got["mt"]["n"] == 1
