"""Nr3D / Sr3D: stimulus ids, the view-dependent word rule, hand-worked accuracies under both
protocols (the mention and 24-token filters), reader errors, the oracle run, and each protocol's
rules written again plainly and compared with the library on 200 fuzzed batches."""

from __future__ import annotations

import json

import numpy as np
import pytest

import scenebench
from scenebench import cli
from scenebench.benchmarks.nr3d.data import decode_stimulus, load_utterances
from scenebench.benchmarks.nr3d.predictions import read_predictions
from scenebench.benchmarks.nr3d.scorer import SPECS, ReferIt3DScorer, parse_answer
from scenebench.benchmarks.nr3d.writer import row, write_csv
from scenebench.errors import InputError
from scenebench.metrics.records import summarize_scores

S = "scene0000_00"


def test_stimulus_ids_read_from_the_right():
    assert decode_stimulus(f"{S}-chair-3-5-6-7", None, "line 2") == ("chair", 3, 5, (6, 7))
    assert decode_stimulus(f"{S}-office_chair-2-4-9", None, "line 2") == ("office chair", 2, 4, (9,))
    assert decode_stimulus(f"{S}-t-shirt-2-4-9", None, "line 2") == ("t-shirt", 2, 4, (9,))  # a '-' in the class
    with pytest.raises(InputError, match="stimulus_id"):
        decode_stimulus(f"{S}-chair-3-5-6", None, "line 2")  # says 3 objects, lists 2


def test_answers_parse_to_the_first_object_token_or_a_bare_id():
    assert [parse_answer(v) for v in (7, "<OBJ012>", "it is <obj003>. or <OBJ004>", " 12 ", "the chair", "")] == [7, 12, 3, 12, None, None]
    # Chat-Scene: only upper-case three-digit <OBJddd>; anything else picks object 0
    chat = [parse_answer(v, "official:chatscene") for v in (7, "<OBJ012>", "it is <obj003>. or <OBJ004>", " 12 ", "the chair", "<OBJ12>")]
    assert chat == [7, 12, 4, 0, 0, 0]


# Six utterances (targets 5 among chairs 5, 6, 7 or 5, 6):
LONG = " ".join(["the chair"] * 13)  # 26 tokens
ROWS = [
    row(S, 5, [6], "the chair by the door"),  # easy, independent; right
    row(S, 5, [6, 7], "the chair on the left"),  # hard, view-dependent; right (as text)
    row(S, 6, [5, 7], "the one by the door", mentions=False),  # names no class: excluded by both
    row(S, 6, [5], LONG),  # easy, 26 tokens: strict only; wrong
    row(S, 7, [5, 6], "facing the bed , the chair"),  # hard, view-dependent; unparseable text
    row(S, 7, [5, 6], "the chair behind the desk"),  # hard, view-dependent; missing
]
PREDS = [
    {"sample_id": f"{S}:5:0", "pred_id": 5},
    {"scan_id": S, "target_id": 5, "ann_id": 1, "pred": "<OBJ005>"},
    {"sample_id": f"{S}:6:0", "pred_id": 6},
    {"sample_id": f"{S}:6:1", "pred_id": 5},
    {"sample_id": f"{S}:7:0", "pred": "the chair"},
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("nr3d")
    write_csv(root / "nr3d.csv", ROWS)
    (root / "pred.json").write_text(json.dumps(PREDS))
    return root


def test_hand_worked_accuracies_under_both_protocols(files, tmp_path):
    u = load_utterances(files / "nr3d.csv")
    assert [x.sample_id for x in u] == [f"{S}:5:0", f"{S}:5:1", f"{S}:6:0", f"{S}:6:1", f"{S}:7:0", f"{S}:7:1"]
    assert [x.easy for x in u] == [True, False, False, True, False, False]
    assert [x.view_dependent for x in u] == [False, True, False, False, True, True]
    kw = {"annotations": files / "nr3d.csv", "predictions": files / "pred.json", "bootstrap": 0}
    strict = scenebench.score("nr3d", out=tmp_path / "s", **kw)
    # scored: rows 0, 1, 3, 4, 5 -> right 0 and 1: 2 / 5
    assert strict.metrics["overall"]["accuracy"] == pytest.approx(40.0)
    assert strict.metrics["by_difficulty"]["easy"]["accuracy"] == pytest.approx(50.0)  # rows 0 (right), 3 (wrong)
    assert strict.metrics["by_difficulty"]["hard"]["accuracy"] == pytest.approx(100 / 3)  # rows 1 (right), 4, 5
    assert strict.metrics["by_view"]["view_dependent"]["accuracy"] == pytest.approx(100 / 3)  # rows 1, 4, 5
    assert (strict.counts.n_excluded, strict.counts.n_invalid, strict.counts.n_missing) == (1, 1, 1)
    official = scenebench.score("nr3d", protocol="official", out=tmp_path / "o", **kw)
    # the 26-token row leaves the test set too: rows 0, 1, 4, 5 -> 2 / 4; easy is row 0 alone
    assert official.metrics["overall"]["accuracy"] == pytest.approx(50.0)
    assert official.metrics["by_difficulty"]["easy"]["accuracy"] == pytest.approx(100.0)
    assert official.extra["excluded_ids"] == [f"{S}:6:0", f"{S}:6:1"] and official.protocol == "official:original"
    chat = scenebench.score("nr3d", protocol="official:chatscene", out=tmp_path / "c", **kw)
    # every row: right 0, 1 and 2 (the row naming no class is scored), wrong 3, 4 (text -> object 0), 5 (missing): 3 / 6
    assert chat.metrics["overall"]["accuracy"] == pytest.approx(50.0) and chat.counts.n_excluded == 0 and chat.counts.n_invalid == 0


def test_the_scan_list_selects_the_test_rows(files, tmp_path, capsys):
    rows = [*ROWS, row("scene0001_00", 1, [2], "the chair near the window")]
    write_csv(tmp_path / "nr3d.csv", rows)
    (tmp_path / "test_scans.txt").write_text(json.dumps([S]))
    cli.main(
        ["validate", "nr3d", "-a", str(tmp_path / "nr3d.csv"), "--scans", str(tmp_path / "test_scans.txt"), "-p", str(files / "pred.json")]
    )
    out = json.loads(capsys.readouterr().out)
    assert out == {"utterances": 6, "scans": 1, "not_naming_the_target_class": 1, "longer_than_24_tokens": 1, "easy": 2,
                   "view_dependent": 3, "predictions": 5, "predictions_with_a_box": 0}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"target_id": "x"}, "target_id"),
        ({"stimulus_id": f"{S}-chair-2-9-6"}, "stimulus_id"),  # names target 9, the row says 5
        ({"tokens": "['a', 1]"}, "tokens"),
        ({"tokens": "__import__('os')"}, "tokens"),  # literals only, never evaluated
        ({"mentions_target_class": "maybe"}, "mentions_target_class"),
    ],
)
def test_bad_rows_name_the_file_the_line_and_the_field(tmp_path, change, field):
    path = write_csv(tmp_path / "nr3d.csv", [ROWS[0], {**ROWS[0], **change}])
    with pytest.raises(InputError) as e:
        load_utterances(path)
    assert "nr3d.csv" in str(e.value) and "line 3" in str(e.value) and field in str(e.value)


def test_a_short_row_names_the_missing_column(tmp_path):
    path = write_csv(tmp_path / "nr3d.csv", [ROWS[0]])
    path.write_text(path.read_text() + "7,x\n")
    with pytest.raises(InputError, match="line 3.*scan_id.*missing"):
        load_utterances(path)


def test_bad_predictions_are_named(files, tmp_path):
    u = load_utterances(files / "nr3d.csv")
    for rec, field in [({"sample_id": "x:1:0", "pred_id": 1}, "sample_id"), ({"sample_id": f"{S}:5:0", "pred_id": -1}, "pred_id"),
                       ({"sample_id": f"{S}:5:0"}, "pred_id"), ({"scan_id": S, "target_id": 5, "pred_id": 1}, "ann_id")]:  # fmt: skip
        (tmp_path / "p.json").write_text(json.dumps([rec]))
        with pytest.raises(InputError) as e:
            read_predictions(tmp_path / "p.json", u)
        assert "record 0" in str(e.value) and field in str(e.value)


def test_oracle_run_scores_100_and_the_report_draws_the_target(tmp_path, capsys):
    data = tmp_path / "sr3d"
    (data / "scannet_data").mkdir(parents=True)
    rows = [row(S, 5, [6], "the chair closest to the bed", dataset="sr3d"), row(S, 7, [5, 6], "the chair left of the desk", dataset="sr3d")]
    write_csv(data / "sr3d.csv", rows)
    table = np.array([[k, 0, 0, 1, 1, 1, 5, k] for k in (4, 5, 6, 7)], dtype=float)
    np.save(data / "scannet_data" / f"{S}_aligned_bbox.npy", table)
    pts = np.concatenate([table[:, :3], table[:, :3] + 0.4])
    np.save(data / "scannet_data" / f"{S}_aligned_vert.npy", np.concatenate([pts, np.full_like(pts, 99.0)], 1).astype(np.float32))
    np.save(data / "scannet_data" / f"{S}_ins_label.npy", np.tile(np.arange(5, 9), 2).astype(np.uint32))
    for protocol in ("strict", "official", "official:chatscene", "official:m3drefclip", "official:video3dllm"):
        out = tmp_path / protocol.replace(":", "-")
        args = ["run", "sr3d", "--data", str(data), "--model", "oracle", "--protocol", protocol, "--out", str(out), "--no-progress"]
        cli.main(args)
        res = json.loads((out / "results.json").read_text())
        headline = "Acc@0.5" if protocol == "official:video3dllm" else "accuracy"  # Video-3D-LLM: box IoU, its own name
        assert res["metrics"]["overall"][headline] == 100.0 and res["counts"]["n_scored"] == 2
    capsys.readouterr()
    cli.main(["report", str(tmp_path / "strict"), "--html", str(tmp_path / "r.html")])
    assert "the chair left of the desk" in (tmp_path / "r.html").read_text()


# ---------------------------------------------------------------------------------------------
# The protocols again, plainly from the spec (§5.3, §5.4), on fuzzed utterances and answers.

WORDS = ["the", "chair", "left", "right", "near", "front", "lamp", "facing", "leftish", "by"]


def plain_accuracy(rows, answers, protocol):
    """Per subset: mean of [chosen id == target] over the test utterances; official drops > 24 tokens."""
    import ast

    out = {}
    for name, keep in [("overall", lambda r: True), ("easy", lambda r: int(r["stimulus_id"].split("-")[2]) <= 2),
                       ("hard", lambda r: int(r["stimulus_id"].split("-")[2]) > 2),
                       ("view_dependent", lambda r: bool(set(ast.literal_eval(r["tokens"])) & {"front", "behind", "back", "right", "left", "facing", "leftmost", "rightmost", "looking", "across"}))]:  # fmt: skip
        hits = []
        for r, a in zip(rows, answers):
            if protocol != "official:chatscene" and not r["mentions_target_class"]:
                continue
            if (protocol == "official" and len(ast.literal_eval(r["tokens"])) > 24) or not keep(r):
                continue
            if protocol == "official:chatscene":
                chosen = a if isinstance(a, int) else (int(a[4:7]) if isinstance(a, str) and a.startswith("<OBJ") else 0 if a else None)
            else:
                chosen = a if isinstance(a, int) else (int(a[4:7]) if isinstance(a, str) and a.startswith("<OBJ") else None)
            hits.append(chosen == r["target_id"])
        out[name] = 100 * sum(hits) / len(hits) if hits else None
    return out


def test_each_protocol_equals_its_plain_reference_on_200_fuzzed_batches(tmp_path):
    rng = np.random.default_rng(5)
    differ = {"strict": 0, "official": 0, "official:chatscene": 0}
    apart = lineages_apart = 0
    for b in range(200):
        rows, answers = [], []
        for _ in range(rng.integers(1, 12)):
            n = int(rng.integers(2, 6))
            ids = rng.permutation(20)[:n].tolist()
            toks = [WORDS[i] for i in rng.integers(0, len(WORDS), rng.integers(1, 30))]
            rows.append(row(S, ids[0], ids[1:], " ".join(toks), tokens=toks, mentions=bool(rng.random() < 0.8)))
            kind = rng.integers(0, 5)
            answers.append([ids[0], ids[1], f"<OBJ{ids[int(rng.integers(0, n))]:03d}>", None, "the chair"][kind])
        path = write_csv(tmp_path / f"b{b}.csv", rows)
        utterances = load_utterances(path)
        preds = {u.sample_id: a for u, a in zip(utterances, answers) if a is not None}
        for protocol in differ:
            records = [r for batch in ReferIt3DScorer("nr3d", utterances, preds, protocol).iter_scores(set()) for r in batch]
            s = summarize_scores(records, SPECS, groups=("difficulty", "view"), n_resamples=0)
            got = {"overall": s.metrics["overall"]["accuracy"]}
            got |= {k: s.metrics["by_difficulty"].get(k, {}).get("accuracy") for k in ("easy", "hard")}
            got["view_dependent"] = s.metrics["by_view"].get("view_dependent", {}).get("accuracy")
            want = plain_accuracy(rows, answers, protocol)
            differ[protocol] += any(
                (g is None) != (w is None) or (g is not None and abs(g - w) > 1e-9) for g, w in ((got[k], want[k]) for k in want)
            )
        apart += plain_accuracy(rows, answers, "strict") != plain_accuracy(rows, answers, "official")
        lineages_apart += plain_accuracy(rows, answers, "official") != plain_accuracy(rows, answers, "official:chatscene")
    assert differ == {"strict": 0, "official": 0, "official:chatscene": 0}
    assert apart > 20 and lineages_apart > 20  # many batches separate the protocols and the lineages


# ---------------------------------------------------------------------------------------------
# M3DRef-CLIP (spec §5.3): the answered box is the target when IoU >= 0.9 with the target's box.


def _table(folder, boxes):
    """Object id -> min-max box as a ScanNet box table of scan S."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [[*((np.array(b[:3]) + b[3:]) / 2), *(np.array(b[3:]) - b[:3]), 5, o] for o, b in boxes.items()]
    np.save(folder / f"{S}_aligned_bbox.npy", np.array(rows, dtype=float))


def test_m3drefclip_takes_a_box_at_iou_0_9_for_the_target(tmp_path):
    from scenebench.benchmarks.nr3d.writer import corners

    # object 6 spans x [0, 0.95] inside object 5's [0, 1]: IoU 0.95, "the same object" by the 0.9 rule
    _table(tmp_path / "boxes", {5: [0, 0, 0, 1, 1, 1.0], 6: [0, 0, 0, 0.95, 1, 1.0], 7: [3, 0, 0, 4, 1, 1.0]})
    rows = [row(S, 5, [6, 7], "the chair by the door"), row(S, 5, [6, 7], "the chair on the left"),
            row(S, 6, [5, 7], "the one by the door", mentions=False), row(S, 7, [5, 6], "the chair behind the desk")]  # fmt: skip
    write_csv(tmp_path / "nr3d.csv", rows)
    preds = [
        {"sample_id": f"{S}:5:0", "pred_id": 6},  # a distractor, IoU 0.95 with the target: right under M3DRef-CLIP only
        {"sample_id": f"{S}:5:1", "aabb": corners([0, 0, 0, 0.9, 1, 1.0])},  # IoU 0.9 exactly: float32 + eps = 0.8999999, wrong
        {"sample_id": f"{S}:6:0", "pred": "<OBJ006>"},  # names no class: every row counts here; right
    ]  # 7:0 missing
    (tmp_path / "p.json").write_text(json.dumps(preds))
    kw = {"annotations": tmp_path / "nr3d.csv", "predictions": tmp_path / "p.json", "bootstrap": 0}
    m3d = scenebench.score("nr3d", protocol="official:m3drefclip", boxes=tmp_path / "boxes", out=tmp_path / "m", **kw)
    assert m3d.metrics["overall"]["accuracy"] == pytest.approx(100 * 2 / 4)  # 1, 0, 1, missing 0
    assert m3d.metrics["by_difficulty"]["no prediction"]["accuracy"] == 0.0  # the missing one joins no type
    assert m3d.metrics["by_difficulty"]["hard"]["accuracy"] == pytest.approx(100 * 2 / 3)
    strict = scenebench.score("nr3d", out=tmp_path / "s", **kw)
    assert strict.metrics["overall"]["accuracy"] == 0.0  # 6 is not 5; the box-only answer names no id; 7:0 missing
    with pytest.raises(InputError, match="--boxes"):
        scenebench.score("nr3d", protocol="official:m3drefclip", out=tmp_path / "x", **kw)
    (tmp_path / "bad.json").write_text(json.dumps([{"sample_id": f"{S}:5:0", "aabb": [[0, 0, 0]] * 7}]))
    with pytest.raises(InputError, match="record 0.*aabb"):
        read_predictions(tmp_path / "bad.json", load_utterances(tmp_path / "nr3d.csv"))


def plain_m3drefclip(rows, answers, table):
    """Every row; a box (given, or the answered id's row) is right when float32 inter / (V1 + V2 - inter
    + eps) >= 0.9; overall over every row (missing 0), easy / hard over the rows with an answer."""
    f = np.float32
    hits = {"overall": [], "easy": [], "hard": []}
    for r, a in zip(rows, answers):
        if a is None:
            hits["overall"].append(False)
            continue
        if isinstance(a, dict):
            box = a["box"]
        else:
            chosen = a if isinstance(a, int) else (int(a[4:7]) if isinstance(a, str) and a.startswith("<OBJ") else None)
            box = table.get(chosen)
        ok = False
        if box is not None:
            t = table[r["target_id"]]
            inter = f(1)
            for k in range(3):
                inter = inter * max(f(0), min(f(box[k + 3]), f(t[k + 3])) - max(f(box[k]), f(t[k])))
            va = (f(box[3]) - f(box[0])) * (f(box[4]) - f(box[1])) * (f(box[5]) - f(box[2]))
            vt = (f(t[3]) - f(t[0])) * (f(t[4]) - f(t[1])) * (f(t[5]) - f(t[2]))
            ok = bool(inter / (vt + va - inter + f(np.finfo(np.float32).eps)) >= 0.9)
        hits["overall"].append(ok)
        hits["easy" if int(r["stimulus_id"].split("-")[2]) <= 2 else "hard"].append(ok)
    return {k: (100 * sum(v) / len(v) if v else None) for k, v in hits.items()}


def test_m3drefclip_equals_its_plain_reference_on_200_fuzzed_batches(tmp_path):
    from scenebench.benchmarks.nr3d.scorer import ReferIt3DScorer as Scorer

    rng = np.random.default_rng(9)
    differ = near = 0
    for b in range(200):
        # ten objects; some sit inside one another at IoUs around 0.9 (0.05 m steps)
        table = {}
        for o in range(10):
            lo = rng.integers(0, 4, 3) * 0.5
            table[o] = np.concatenate([lo, lo + 1 - rng.integers(0, 3, 3) * 0.05])
        rows, answers, preds = [], [], {}
        for _ in range(rng.integers(1, 10)):
            n = int(rng.integers(2, 5))
            ids = rng.permutation(10)[:n].tolist()
            rows.append(row(S, ids[0], ids[1:], "the chair", mentions=bool(rng.random() < 0.8)))
            kind = int(rng.integers(0, 5))
            t = table[ids[0]]
            box = t + np.concatenate([np.zeros(3), -rng.integers(0, 4, 3) * 0.05])
            answers.append([ids[0], ids[1], f"<OBJ{ids[1]:03d}>", None, {"box": box}][kind])
        folder = tmp_path / f"b{b}"
        _table(folder, table)
        path = write_csv(folder / "nr3d.csv", rows)
        utterances = load_utterances(path)
        boxes = {}
        for u, a in zip(utterances, answers):
            if isinstance(a, dict):
                preds[u.sample_id], boxes[u.sample_id] = "", np.asarray(a["box"], float)
            elif a is not None:
                preds[u.sample_id] = a
        scorer = Scorer("nr3d", utterances, preds, "official:m3drefclip", folder, boxes)
        records = [r for batch in scorer.iter_scores(set()) for r in batch]
        s = summarize_scores(records, SPECS, groups=("difficulty", "view"), n_resamples=0)
        got = {"overall": s.metrics["overall"]["accuracy"]}
        got |= {k: s.metrics["by_difficulty"].get(k, {}).get("accuracy") for k in ("easy", "hard")}
        want = plain_m3drefclip(rows, answers, table)
        differ += any((got[k] is None) != (want[k] is None) or (got[k] is not None and abs(got[k] - want[k]) > 1e-9) for k in want)
        near += any(isinstance(a, dict) for a in answers)
    assert differ == 0 and near > 100


def test_audit_probes_learn_the_train_rank_prior(tmp_path):
    from scenebench.benchmarks.nr3d.audit import rows_nr3d

    data = tmp_path / "nr3d"
    train = "scene0001_00"
    rows = [row(train, 1, [2], "the chair by the bed"), row(train, 3, [4, 9], "the chair by the desk"),  # train: lowest id both times
            row(S, 5, [6], "the chair by the door"), row(S, 7, [5, 6], "the chair near the lamp")]  # fmt: skip
    write_csv(data / "nr3d.csv", rows)
    (data / "test_scans.txt").write_text(json.dumps([S]))
    _table(data / "scannet_data", {o: [o, 0, 0, o + 1, 1, 1.0] for o in (4, 5, 6, 7)})
    got = {r["group"]: r for r in rows_nr3d(data, tmp_path / "out", seed=0, split="validation", progress=False)}
    # the train prior is rank 0 (the lowest id): right on 5 of {5, 6}, wrong on 7 of {5, 6, 7}
    assert got["overall"]["blind"] == pytest.approx(50.0) and got["hard"]["blind"] == 0.0
    assert got["overall"]["chance"] == pytest.approx(100 * (1 / 2 + 1 / 3) / 2) and got["overall"]["n"] == 2
    assert got["overall"]["oracle"] == 100.0


# ---------------------------------------------------------------------------------------------
# Video-3D-LLM (spec §5.3, eval_nr3d.py:24-48): Acc@0.25 / Acc@0.5 of the answered box by IoU.


def test_video3dllm_scores_the_box_by_iou_at_0_25_and_0_5(tmp_path):
    from scenebench.benchmarks.nr3d.writer import corners

    # target 5 spans x [0, 1]; distractor 6 spans x [0, 0.6]: IoU 0.6, the wrong object but a box at IoU >= 0.5
    _table(tmp_path / "boxes", {5: [0, 0, 0, 1, 1, 1.0], 6: [0, 0, 0, 0.6, 1, 1.0], 7: [3, 0, 0, 4, 1, 1.0]})
    rows = [row(S, 5, [6, 7], "the chair by the door"), row(S, 5, [6, 7], "the chair on the left"),
            row(S, 6, [5, 7], "the one by the door", mentions=False), row(S, 7, [5, 6], "the chair behind the desk")]  # fmt: skip
    write_csv(tmp_path / "nr3d.csv", rows)
    preds = [
        {"sample_id": f"{S}:5:0", "pred_id": 6},  # IoU 0.6: Acc@0.25 and Acc@0.5 right, identity wrong (and < 0.9)
        {"sample_id": f"{S}:5:1", "aabb": corners([0, 0, 0, 0.3, 1, 1.0])},  # IoU 0.3: right at 0.25 only
        {"sample_id": f"{S}:6:0", "pred": "<OBJ007>"},  # names no class, counted here; IoU 0 with object 6
    ]  # 7:0 has no record: not in Video-3D-LLM's JSONL, excluded (M3DRef-CLIP counts it 0)
    (tmp_path / "p.json").write_text(json.dumps(preds))
    kw = {"annotations": tmp_path / "nr3d.csv", "predictions": tmp_path / "p.json", "bootstrap": 0}
    v = scenebench.score("nr3d", protocol="official:video3dllm", boxes=tmp_path / "boxes", out=tmp_path / "v", **kw)
    assert v.metrics["overall"]["Acc@0.25"] == pytest.approx(100 * 2 / 3) and v.metrics["overall"]["Acc@0.5"] == pytest.approx(100 / 3)
    assert "accuracy" not in v.metrics["overall"] and v.counts.n_excluded == 1
    dep = v.metrics["by_view"]["view_dependent"]  # "on the left" (5:1), IoU 0.3
    assert dep["Acc@0.25"] == 100.0 and dep["Acc@0.5"] == 0.0
    m3d = scenebench.score("nr3d", protocol="official:m3drefclip", boxes=tmp_path / "boxes", out=tmp_path / "m", **kw)
    assert m3d.metrics["overall"]["accuracy"] == 0.0 and m3d.counts.n_excluded == 0  # IoU 0.6 and 0.3 < 0.9; 7:0 missing, 0
    strict = scenebench.score("nr3d", out=tmp_path / "s", **kw)
    assert strict.metrics["overall"]["accuracy"] == 0.0
    with pytest.raises(InputError, match="official:video3dllm.*--boxes"):
        scenebench.score("nr3d", protocol="official:video3dllm", out=tmp_path / "x", **kw)


def plain_video3dllm(rows, answers, table):
    """The answered rows only (its JSONL); a box (given, or the answered id's row) is right at k when
    inter / (V1 + V2 - inter + 1e-8) >= k; per subset the mean over its answered rows."""
    out = {}
    for k, name in ((0.25, "Acc@0.25"), (0.5, "Acc@0.5")):
        hits = {"overall": [], "easy": [], "hard": [], "view_dependent": []}
        for r, a in zip(rows, answers):
            if a is None:
                continue
            if isinstance(a, dict):
                box = a["box"]
            else:
                chosen = a if isinstance(a, int) else (int(a[4:7]) if isinstance(a, str) and a.startswith("<OBJ") else None)
                box = table.get(chosen)
            ok = False
            if box is not None:
                t = table[r["target_id"]]
                inter = 1.0
                for d in range(3):
                    inter *= max(0.0, min(box[d + 3], t[d + 3]) - max(box[d], t[d]))
                va = (box[3] - box[0]) * (box[4] - box[1]) * (box[5] - box[2])
                vt = (t[3] - t[0]) * (t[4] - t[1]) * (t[5] - t[2])
                ok = inter / (va + vt - inter + 1e-8) >= k
            hits["overall"].append(ok)
            hits["easy" if int(r["stimulus_id"].split("-")[2]) <= 2 else "hard"].append(ok)
            if set(r["utterance"].split()) & {"left", "right", "front", "facing"}:
                hits["view_dependent"].append(ok)
        out |= {(name, g): (100 * sum(v) / len(v) if v else None) for g, v in hits.items()}
    return out


def test_video3dllm_equals_its_plain_reference_on_200_fuzzed_batches(tmp_path):
    rng = np.random.default_rng(11)
    differ = apart = 0
    for b in range(200):
        # ten objects, some smaller than the unit box
        table = {}
        for o in range(10):
            lo = rng.integers(0, 3, 3) * 0.5
            table[o] = np.concatenate([lo, lo + 1 - rng.integers(0, 4, 3) * 0.1])
        rows, answers, preds, boxes = [], [], {}, {}
        for _ in range(rng.integers(1, 10)):
            n = int(rng.integers(2, 5))
            ids = rng.permutation(10)[:n].tolist()
            words = ["the", "chair", *rng.choice(["left", "near", "front", "by", "facing"], 2).tolist()]
            rows.append(row(S, ids[0], ids[1:], " ".join(words), tokens=words, mentions=bool(rng.random() < 0.8)))
            t = table[ids[0]]
            # IoU = the product of the three shrink factors: at, above and below 0.25 and 0.5
            shrink = (
                rng.choice([0.2, 0.25, 0.3, 0.45, 0.5, 0.6, 1.0], 3)
                if rng.random() < 0.3
                else [rng.choice([0.2, 0.25, 0.3, 0.5, 0.6]), 1, 1]
            )
            box = np.concatenate([t[:3], t[:3] + (t[3:] - t[:3]) * shrink])
            answers.append([ids[0], ids[1], f"<OBJ{ids[1]:03d}>", None, "the chair", {"box": box}][int(rng.integers(0, 6))])
        folder = tmp_path / f"b{b}"
        _table(folder, table)
        utterances = load_utterances(write_csv(folder / "nr3d.csv", rows))
        for u, a in zip(utterances, answers):
            if isinstance(a, dict):
                preds[u.sample_id], boxes[u.sample_id] = "", np.asarray(a["box"], float)
            elif a is not None:
                preds[u.sample_id] = a
        from scenebench.benchmarks.nr3d.scorer import BOX_SPECS

        scorer = ReferIt3DScorer("nr3d", utterances, preds, "official:video3dllm", folder, boxes)
        s = summarize_scores(
            [r for batch in scorer.iter_scores(set()) for r in batch], BOX_SPECS, groups=("difficulty", "view"), n_resamples=0
        )
        got = {}
        for name in ("Acc@0.25", "Acc@0.5"):
            got[(name, "overall")] = s.metrics["overall"].get(name)
            got |= {(name, g): s.metrics["by_difficulty"].get(g, {}).get(name) for g in ("easy", "hard")}
            got[(name, "view_dependent")] = s.metrics["by_view"].get("view_dependent", {}).get(name)
        want = plain_video3dllm(rows, answers, table)
        differ += any((got[k] is None) != (want[k] is None) or (got[k] is not None and abs(got[k] - want[k]) > 1e-9) for k in want)
        apart += want[("Acc@0.25", "overall")] != want[("Acc@0.5", "overall")]
    assert differ == 0 and apart > 50  # the two thresholds part on many batches


def test_sr3d_allocentric_sides_are_in_the_anchor_frame_and_view_dependent(tmp_path):
    from scenebench.benchmarks.nr3d.synthetic import ALLOCENTRIC, allocentric

    # anchor 0 at the origin faces the scene's middle at +y: front = +y, right = front x up = +x
    centre = {0: np.zeros(3), 1: np.array([1.0, 0, 0]), 2: np.array([-1.0, 0, 0]), 3: np.array([1.0, 1, 0]), 4: np.array([0.1, -1, 0])}
    middle = np.array([0.0, 5, 0])
    assert allocentric(centre, 0, 1, [2], middle) == ["right"]
    assert allocentric(centre, 0, 2, [1], middle) == ["left"]
    # 3 is in front and right; 4 behind and 0.1 m right: right does not separate them (4 not 0.15 m to the left)
    assert allocentric(centre, 0, 3, [4], middle) == ["front"]
    assert allocentric(centre, 0, 4, [3], middle) == ["back"]
    assert allocentric(centre, 0, 1, [3], middle) == []  # both right of the anchor: the side does not pick one
    assert allocentric(centre, 0, 1, [2], np.array([0.05, 0, 0])) == []  # an anchor in the middle faces nowhere
    texts = [ALLOCENTRIC[s].format(t="chair", a="bed") for s in ("left", "right", "front", "back")]
    write_csv(tmp_path / "sr3d.csv", [row(S, 5, [6], t, dataset="sr3d") for t in texts])
    assert all(u.view_dependent for u in load_utterances(tmp_path / "sr3d.csv"))
