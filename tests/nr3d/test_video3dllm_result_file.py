"""Video-3D-LLM's own Nr3D result JSONL (``eval_nr3d.py:24-48``): a hand-worked golden file, bad
input named by file, line and field, and the evaluator's rules written again plainly and compared
with the library on 200 fuzzed files."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

import scenebench
from scenebench.benchmarks.nr3d.scorer import BOX_SPECS, IOU_THRESHOLDS
from scenebench.benchmarks.nr3d.video3dllm import make_result_file_job, read_result_file
from scenebench.errors import InputError

U = [0.5, 0.5, 0.5, 1, 1, 1]  # the unit box [0, 1]^3
BIG = [500, 500, 200, 1000, 1000, 400]  # [0, 1000] x [0, 1000] x [0, 400]: volume 4e8 swallows the + 1e-8


def line(gt, pred, qtype, **more):
    return json.dumps({"gt_response": gt, "pred_response": pred, "question_type": qtype, **more})


# IoU = inter / (V_pred + V_gt - inter + 1e-8), float64, right at k when >= k:
GOLDEN = [
    line(
        U, [0.125, 0.5, 0.5, 0.25, 1, 1], "easy-view-dep", scene="scene0000_00"
    ),  # x [0, .25]: 0.25 / (1 + 1e-8) = 0.2499999975: wrong at both
    line(
        BIG, [125, 500, 200, 250, 1000, 400], "hard-view-dep", scene="scene0000_00"
    ),  # 1e8 / (4e8 + 1e-8 -> 4e8) = 0.25 exactly: right at 0.25
    line(U, [0.12, 0.5, 0.5, 0.24, 1, 1], "easy-view-indep", scene="scene0001_00"),  # x [0, .24]: 0.24, just below: wrong at both
    line(BIG, [250, 500, 200, 500, 1000, 400], "hard-view-indep", scene="scene0001_00"),  # 2e8 / 4e8 = 0.5 exactly: right at both
    line(U, [0.25, 0.5, 0.5, 0.5, 1, 1], "hard-view-dep"),  # x [0, .5]: 0.5 / (1 + 1e-8) < 0.5: right at 0.25 only
    line(U, U, "easy-view-indep"),  # the same box: 1 / (1 + 1e-8): right at both
    line(U, [0.5, 0.5, 0.5, 0, 0, 0], "hard"),  # a zero-size box: 0 / (1 + 1e-8) = 0: wrong; "hard" holds no "view-dep": view-independent
]


def test_the_golden_result_file_by_hand(tmp_path):
    (tmp_path / "nr3d_result.jsonl").write_text("\n".join(GOLDEN) + "\n")
    res = scenebench.score(
        "nr3d", protocol="official:video3dllm", predictions=tmp_path / "nr3d_result.jsonl", out=tmp_path / "o", bootstrap=0
    )
    m = res.metrics
    # right at 0.25: lines 2, 4, 5, 6 -> 4 / 7; at 0.5: lines 4, 6 -> 2 / 7
    assert m["overall"] == pytest.approx({"Acc@0.25": 400 / 7, "Acc@0.5": 200 / 7})
    # easy: lines 1, 3, 6 -> 1 / 3 and 1 / 3; hard: lines 2, 4, 5, 7 -> 3 / 4 at 0.25 (2, 4, 5), 1 / 4 at 0.5 (4)
    assert m["by_difficulty"]["easy"] == pytest.approx({"Acc@0.25": 100 / 3, "Acc@0.5": 100 / 3})
    assert m["by_difficulty"]["hard"] == pytest.approx({"Acc@0.25": 75.0, "Acc@0.5": 25.0})
    # view-dep: lines 1, 2, 5 -> 2 / 3 (2, 5) and 0 / 3; view-independent: 3, 4, 6, 7 -> 2 / 4 (4, 6) at both
    assert m["by_view"]["view_dependent"] == pytest.approx({"Acc@0.25": 200 / 3, "Acc@0.5": 0.0})
    assert m["by_view"]["view_independent"] == pytest.approx({"Acc@0.25": 50.0, "Acc@0.5": 50.0})
    assert res.counts.n_samples == 7 and res.counts.n_scored == 7 and "accuracy" not in m["overall"]
    assert res.extra["predictions_format"] == "video3dllm_jsonl" and "gt_response" in res.extra["ground_truth"]
    assert res.warnings == []
    sr3d = scenebench.score(
        "sr3d", protocol="official:video3dllm", predictions=tmp_path / "nr3d_result.jsonl", out=tmp_path / "s", bootstrap=0
    )
    assert sr3d.metrics == res.metrics  # the same package declares Sr3D: the same reader and rules
    job = make_result_file_job("nr3d", tmp_path / "nr3d_result.jsonl", BOX_SPECS, IOU_THRESHOLDS, {}, {}, 0, 0, [])
    ious = [r.detail["iou"] for batch in job.scorer.iter_scores(set()) for r in batch]
    assert ious[1] == 0.25 and ious[3] == 0.5 and 0.2499999 < ious[0] < 0.25 and ious[6] == 0.0


def test_a_group_without_lines_is_null_with_a_warning(tmp_path):
    (tmp_path / "r.jsonl").write_text("\n".join([GOLDEN[0], GOLDEN[5]]) + "\n")  # two easy lines, no hard one
    res = scenebench.score("nr3d", protocol="official:video3dllm", predictions=tmp_path / "r.jsonl", out=tmp_path / "o", bootstrap=0)
    assert res.metrics["by_difficulty"]["hard"] == {"Acc@0.25": None, "Acc@0.5": None}  # np.mean([]): nan in eval_nr3d.py
    assert res.metrics["by_difficulty"]["easy"] == pytest.approx({"Acc@0.25": 50.0, "Acc@0.5": 50.0})
    assert any("hard" in w and "null" in w for w in res.warnings)


def test_a_result_file_needs_its_protocol_and_other_files_need_annotations(tmp_path):
    (tmp_path / "r.jsonl").write_text(GOLDEN[0] + "\n")
    with pytest.raises(InputError, match="r.jsonl.*official:video3dllm"):
        scenebench.score("nr3d", predictions=tmp_path / "r.jsonl", out=tmp_path / "s", bootstrap=0)
    (tmp_path / "p.json").write_text(json.dumps([{"sample_id": "scene0000_00:5:0", "pred_id": 5}]))
    with pytest.raises(InputError, match="--annotations"):
        scenebench.score("nr3d", predictions=tmp_path / "p.json", out=tmp_path / "t", bootstrap=0)


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"gt_response": U, "question_type": "easy"}, "pred_response"),  # missing key
        ({"pred_response": U, "question_type": "easy"}, "gt_response"),
        ({"gt_response": U, "pred_response": U}, "question_type"),
        ({"gt_response": U, "pred_response": [0, 0, 0, 1, 1], "question_type": "easy"}, "pred_response"),  # 5 numbers
        ({"gt_response": U, "pred_response": [0, 0, 0, 1, 1, "1"], "question_type": "easy"}, "pred_response"),  # a string
        ({"gt_response": [0, 0, 0, 1, 1, True], "pred_response": U, "question_type": "easy"}, "gt_response"),  # a bool
        ({"gt_response": U, "pred_response": {"c": U}, "question_type": "easy"}, "pred_response"),
        ({"gt_response": U, "pred_response": U, "question_type": 3}, "question_type"),
    ],
)
def test_bad_lines_name_the_file_the_line_and_the_field(tmp_path, bad, field):
    (tmp_path / "r.jsonl").write_text(GOLDEN[0] + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError) as e:
        read_result_file(tmp_path / "r.jsonl")
    assert "r.jsonl" in str(e.value) and "line 2" in str(e.value) and f"'{field}'" in str(e.value)


def test_a_non_finite_number_is_refused(tmp_path):
    (tmp_path / "r.jsonl").write_text(GOLDEN[0] + "\n" + line(U, [0, 0, 0, 1, 1, 1e999], "easy") + "\n")
    with pytest.raises(InputError, match="r.jsonl.*line 2"):
        read_result_file(tmp_path / "r.jsonl")


# ---------------------------------------------------------------------------------------------
# eval_nr3d.py's rules again, plainly: 8 corners, their min / max, IoU + 1e-8, >= k, substrings.


def plain_eval_nr3d(lines):
    def corners(b):
        return [[b[d] + s[d] * b[d + 3] / 2 for d in range(3)] for s in itertools.product((-1, 1), repeat=3)]

    def iou(p, g):
        cp, cg = corners(p), corners(g)
        lo_p, hi_p = [min(c[d] for c in cp) for d in range(3)], [max(c[d] for c in cp) for d in range(3)]
        lo_g, hi_g = [min(c[d] for c in cg) for d in range(3)], [max(c[d] for c in cg) for d in range(3)]
        inter = 1.0
        for d in range(3):
            inter *= max(min(hi_p[d], hi_g[d]) - max(lo_p[d], lo_g[d]), 0.0)
        vp = (hi_p[0] - lo_p[0]) * (hi_p[1] - lo_p[1]) * (hi_p[2] - lo_p[2])
        vg = (hi_g[0] - lo_g[0]) * (hi_g[1] - lo_g[1]) * (hi_g[2] - lo_g[2])
        return inter / (vp + vg - inter + 1e-8)

    groups = {"all": [], "easy": [], "hard": [], "view-dep": [], "vide-indep": []}
    for x in lines:
        v = iou(x["pred_response"], x["gt_response"])
        hit = (v >= 0.25, v >= 0.5)
        groups["all"].append(hit)
        groups["easy" if "easy" in x["question_type"] else "hard"].append(hit)
        groups["view-dep" if "view-dep" in x["question_type"] else "vide-indep"].append(hit)
    return {(g, k): (100 * sum(h[k] for h in hits) / len(hits) if hits else None) for g, hits in groups.items() for k in (0, 1)}


TYPES = ["easy", "hard", "easy-view-dep", "hard-view-indep", "view-dep", "", "Easy", "vide-indep", "uneasy view-dependent"]


def _fuzzed_box(rng, gt):
    kind = int(rng.integers(0, 8))
    kind = 2 if kind == 7 else kind  # contained boxes twice as often: IoUs about the thresholds
    if kind == 0:
        return list(gt)  # the same box
    if kind == 1:  # touching: shifted by its own size along one axis
        b, d = list(gt), int(rng.integers(0, 3))
        b[d] += abs(gt[d + 3])
        return b
    if kind == 2:  # contained: shrunk about its min corner, IoU the product of the factors (at 0.25 and 0.5 too)
        f = (
            rng.choice([0.2, 0.25, 0.3, 0.5, 0.6, 1.0], 3)
            if rng.random() < 0.3
            else np.array([rng.choice([0.2, 0.25, 0.3, 0.5, 0.6]), 1, 1])
        )
        lo = [gt[d] - abs(gt[d + 3]) / 2 for d in range(3)]
        size = [abs(gt[d + 3]) * f[d] for d in range(3)]
        return [lo[d] + size[d] / 2 for d in range(3)] + size
    if kind == 3:
        return [*gt[:3], 0.0, 0.0, 0.0]  # degenerate: zero size
    c = (rng.integers(-4, 5, 3) * 0.25).tolist()
    s = (rng.integers(-1, 7, 3) * 0.25).tolist()  # sizes 0 and negative among them
    return c + s


def test_the_library_equals_the_plain_evaluator_on_200_fuzzed_files(tmp_path):
    rng = np.random.default_rng(17)
    differ = apart = nulls = 0
    for b in range(200):
        lines = []
        for _ in range(rng.integers(1, 15)):
            gt = (rng.integers(-4, 5, 3) * 0.25).tolist() + (rng.integers(0, 7, 3) * 0.25).tolist()
            if rng.random() < 0.1:
                gt[3:] = [0.0, 0.0, 0.0]  # a zero-size truth
            lines.append({"gt_response": gt, "pred_response": _fuzzed_box(rng, gt), "question_type": str(rng.choice(TYPES))})
        path = tmp_path / f"b{b}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines))
        job = make_result_file_job("nr3d", path, BOX_SPECS, IOU_THRESHOLDS, {}, {}, 0, 0, [])
        res = job.summarize([r for batch in job.scorer.iter_scores(set()) for r in batch], None)
        m = res.metrics
        where = {"all": m["overall"], "easy": m["by_difficulty"]["easy"], "hard": m["by_difficulty"]["hard"],
                 "view-dep": m["by_view"]["view_dependent"], "vide-indep": m["by_view"]["view_independent"]}  # fmt: skip
        got = {(g, k): where[g][name] for g in where for k, name in enumerate(("Acc@0.25", "Acc@0.5"))}
        want = plain_eval_nr3d(lines)
        differ += any(
            (got[k] is None) != (want[k] is None) or (got[k] is not None and not math.isclose(got[k], want[k], abs_tol=1e-9)) for k in want
        )
        apart += want[("all", 0)] != want[("all", 1)]
        nulls += any(v is None for v in want.values())
    assert differ == 0
    assert apart > 40 and nulls > 20  # the thresholds part often, and empty groups (null) occur
