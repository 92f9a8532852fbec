"""Localization, navigation, choice and text metrics: hand-worked goldens at both protocols and plain references."""

import math

import numpy as np
import pytest

from scenebench.benchmarks.bench3d.choice import rotate, score_choice
from scenebench.benchmarks.bench3d.specs import task_specs
from scenebench.metrics import localization as L
from scenebench.metrics import navigation as N
from scenebench.metrics import text as T

# ----------------------------------------------------------------------------- localization


def test_point_in_box_inclusive_and_size_clamp():
    box = [0, 0, 0, 2, 2, 2]
    assert L.point_in_box([1, 1, 1], box)  # on the face: inside
    assert not L.point_in_box([1.0001, 0, 0], box)
    flat = [0, 0, 0, 2, 0, 2]  # zero height becomes 0.01: |y| <= 0.005 is inside
    assert L.point_in_box([0, 0.004, 0], flat) and not L.point_in_box([0, 0.006, 0], flat)


def test_around_box_official_linf_with_clamp_vs_strict_euclidean():
    gt = [0.0, 0.0, 0.0, 1, 1, 1]
    diag = [0.9, 0.9, 0.9, 1, 1, 1]  # every axis within 1 m, Euclidean 1.56 m
    assert L.around_box(diag, gt, "official") and not L.around_box(diag, gt, "strict")
    far_negative = [-5.0, 0.0, -5.0, 1, 1, 1]  # clamped to 0.01: official calls it "around"
    assert L.around_box(far_negative, gt, "official") and not L.around_box(far_negative, gt, "strict")
    edge = [1.0, 0.0, 0.0, 1, 1, 1]  # exactly 1 m: inclusive in both
    assert L.around_box(edge, gt, "official") and L.around_box(edge, gt, "strict")


def test_iou_golden_and_two_negative_overlaps():
    assert L.box_iou([0, 0, 0, 2, 2, 2], [1, 1, 1, 2, 2, 2]) == pytest.approx(1 / 15)
    # x and z overlaps both negative: an unclamped product would give a positive "intersection".
    assert L.box_iou([0, 0, 0, 1, 1, 1], [3, 0, 3, 1, 1, 1]) == 0.0


def test_match_count_is_one_to_one_and_maximal():
    valid = np.array([[1, 1], [1, 0]], bool)  # greedy on row 0 -> col 0 would leave row 1 unmatched
    assert L.match_count(valid) == 2
    assert L.match_count(np.ones((3, 1), bool)) == 1  # one GT cannot absorb three predictions
    assert L.match_count(np.zeros((0, 2), bool)) == 0


def test_match_count_equals_brute_force_on_random_cases():
    import itertools

    rng = np.random.default_rng(0)
    for _ in range(200):
        n, m = int(rng.integers(0, 5)), int(rng.integers(0, 5))
        v = rng.random((n, m)) < 0.4
        best = 0
        for perm in itertools.permutations(range(m), min(n, m)):
            for rows in itertools.combinations(range(n), min(n, m)):
                best = max(best, sum(v[r, c] for r, c in zip(rows, perm)))
        assert L.match_count(v) == best


def test_center_in_box_matrix_matches_loop():
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.uniform(-2, 2, (7, 3)), rng.uniform(0, 1, (7, 3))], 1)
    g = np.concatenate([rng.uniform(-2, 2, (5, 3)), rng.uniform(0, 3, (5, 3))], 1)
    m = L.center_in_box_matrix(p, g)
    for i in range(7):
        for j in range(5):
            inside = all(g[j, k] - max(g[j, k + 3], 0.01) / 2 <= p[i, k] <= g[j, k] + max(g[j, k + 3], 0.01) / 2 for k in range(3))
            assert m[i, j] == inside


# ----------------------------------------------------------------------------- navigation


def test_path_loss_golden():
    gt = [[0, 0], [1, 0], [2, 0]]
    pred = [[0, 1], [2, 1]]  # shorter: every GT point to its nearest prediction: 1 + sqrt(2) + 1
    assert N.path_loss(pred, gt) == pytest.approx(2 + math.sqrt(2))
    assert not N.path_success(N.path_loss(pred, gt), 3)  # 3.41 m is not < 3 waypoints x 1 m
    assert N.path_success(N.path_loss(pred, gt), 4)
    assert not N.path_success(3.0, 3)  # strictly less
    assert N.path_success(2.999, 3)


def test_strict_path_loss_fails_an_answer_that_stays_at_the_start():
    gt = [[0, 0], [1, 0], [2, 0], [3, 0]]  # the route starts at [0, 0]
    stay = [[0, 0]] * 5  # longer than the route: the released rule sums over it, every point on the start
    assert N.path_loss(stay, gt) == 0.0 and N.path_success(N.path_loss(stay, gt), 4)  # the released rule passes it
    assert N.coverage_loss(stay, gt) == pytest.approx(0 + 1 + 2 + 3)  # the route's points to their nearest answer point
    assert N.strict_path_loss(stay, gt) == pytest.approx(6.0)
    assert not N.path_success(N.strict_path_loss(stay, gt), 4)  # 6 m is not < 4 waypoints x 1 m
    assert N.strict_path_loss(gt, gt) == 0.0  # the oracle
    detour = [[0, 0], [1, 0], [2, 0], [3, 0], [3, 1]]  # on the route plus one point 1 m off it
    assert N.strict_path_loss(detour, gt) == pytest.approx(1.0)  # released 0+0+0+0+1 = 1, GT side 0: max 1
    short = [[0, 1], [2, 1]]  # GT is the longer list: both terms are the same sum, 1 + sqrt(2) + 1 + sqrt(2)
    assert N.strict_path_loss(short, gt) == N.path_loss(short, gt) == pytest.approx(2 + 2 * math.sqrt(2))
    assert N.strict_path_loss([], gt) == math.inf


def test_strict_success_needs_the_route_and_the_goal():
    # Route of 9 waypoints on the 0.25 m grid, 2 m long: the released threshold is 9 x 1 m = 9 m.
    gt = [[0.25 * i, 0.0] for i in range(9)]
    stay = [[0.0, 0.0]] * 10
    # staying put: GT side 0.25 x (0+1+...+8) = 9.0, not < 9; goal 2 m away, not < 1 m
    assert N.strict_path_loss(stay, gt) == pytest.approx(9.0) and N.goal_distance(stay, gt) == 2.0
    assert not N.strict_success(9.0, 2.0, 9)
    # a 1.5 m route (7 waypoints, threshold 7 m): staying put costs 0.25 x 21 = 5.25 m < 7 m, which
    # passes the loss rule alone (why a loss threshold of 1 m a waypoint is loose for short routes),
    # but the goal is 1.5 m away: strict fails
    short = gt[:7]
    assert N.strict_path_loss(stay, short) == pytest.approx(5.25) and N.path_success(5.25, 7)
    assert N.goal_distance(stay, short) == 1.5 and not N.strict_success(5.25, 1.5, 7)
    # stopping 0.75 m short of the goal on the route: GT side 0.25 + 0.5 + 0.75 = 1.5 m < 9, goal 0.75 < 1
    stop = gt[:6]
    assert N.strict_path_loss(stop, gt) == pytest.approx(1.5) and N.goal_distance(stop, gt) == 0.75
    assert N.strict_success(1.5, 0.75, 9)
    # stopping 1 m short: loss 0.25 + 0.5 + 0.75 + 1 = 2.5 m < 9 but the goal is exactly 1 m away (not < 1)
    assert N.goal_distance(gt[:5], gt) == 1.0 and not N.strict_success(N.strict_path_loss(gt[:5], gt), 1.0, 9)
    # arriving off the route: the goal alone does not pass, the loss rule must hold too
    # [0,3] [2,3] [2,0]: GT is the longer list; GT point x is nearest to [2,0] at 2 - x (the others are
    # >= 3 m away): 2 + 1.75 + ... + 0.25 + 0 = 9.0, not < 9, though the answer ends on the goal
    round_ = [[0.0, 3.0], [2.0, 3.0], [2.0, 0.0]]
    assert N.strict_path_loss(round_, gt) == 9.0 and N.goal_distance(round_, gt) == 0.0
    assert not N.strict_success(9.0, 0.0, 9)
    assert N.strict_success(N.strict_path_loss(gt, gt), N.goal_distance(gt, gt), 9)  # the oracle
    assert N.goal_distance([], gt) == math.inf and not N.strict_success(math.inf, math.inf, 9)
    assert not N.strict_success(math.nan, 0.0, 9) and not N.strict_success(0.0, math.nan, 9)


def test_path_loss_tie_uses_gt_as_long_list():
    gt = [[0, 0], [10, 0]]
    pred = [[0, 0], [0, 0]]  # same length: L = GT -> 0 + 10
    assert N.path_loss(pred, gt) == pytest.approx(10.0)


def test_empty_and_zero_length_cases():
    assert N.path_loss([], [[0, 0]]) == math.inf
    assert not N.path_success(math.inf, 1)
    assert N.spl(True, [[0, 0]], [[0, 0]]) == 1.0  # both lengths 0: no division by zero
    assert N.spl(False, [[0, 0]], [[0, 0]]) == 0.0
    assert N.ndtw([], [[0, 0]]) == 0.0
    assert N.ndtw([[0, 0]], [[0, 0]]) == 1.0
    assert N.path_length([[1, 1]]) == 0.0


def test_spl_golden():
    gt = [[0, 0], [3, 0], [3, 4]]  # length 7
    pred = [[0, 0], [3, 4]]  # length 5 -> max 7 -> 1
    assert N.spl(True, pred, gt) == pytest.approx(1.0)
    pred2 = [[0, 0], [0, 4], [3, 4], [3, 0], [3, 4]]  # 4 + 3 + 4 + 4 = 15
    assert N.spl(True, pred2, gt) == pytest.approx(7 / 15)


def _dtw_plain(a, b):
    n, m = len(a), len(b)
    D = [[math.inf] * (m + 1) for _ in range(n + 1)]
    D[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            c = math.dist(a[i - 1], b[j - 1])
            D[i][j] = c + min(D[i - 1][j], D[i][j - 1], D[i - 1][j - 1])
    return D[n][m]


def test_dtw_matches_plain_reference():
    rng = np.random.default_rng(2)
    for _ in range(100):
        a = rng.uniform(-3, 3, (rng.integers(1, 9), 2))
        b = rng.uniform(-3, 3, (rng.integers(1, 9), 2))
        assert N.dtw(a, b) == pytest.approx(_dtw_plain(a.tolist(), b.tolist()))
    assert N.dtw([[0, 0], [1, 0]], [[0, 0], [1, 0], [1, 0]]) == 0.0
    assert N.ndtw([[0, 1]], [[0, 0]]) == pytest.approx(math.exp(-1))


def test_path_loss_matches_plain_reference():
    rng = np.random.default_rng(3)
    for _ in range(100):
        a = rng.uniform(-3, 3, (rng.integers(1, 9), 2)).tolist()
        b = rng.uniform(-3, 3, (rng.integers(1, 9), 2)).tolist()
        long_, short = (a, b) if len(b) < len(a) else (b, a)
        ref = sum(min(math.dist(l, s) for s in short) for l in long_)
        assert N.path_loss(a, b) == pytest.approx(ref)


# ----------------------------------------------------------------------------- choice

OPTS = ["cup", "cupboard", "chair", "sofa", "bed", "vase"]


def test_classification_substring_quirk_vs_whole_word():
    # "cupboard" contains "cup": official check_text sees two options and calls it wrong.
    out_o = score_choice("It is a cupboard.", OPTS, 1, task="classification", protocol="official")
    out_s = score_choice("It is a cupboard.", OPTS, 1, task="classification", protocol="strict")
    assert not out_o.correct and out_s.correct and out_s.chosen == 1
    # official classification ignores letters entirely
    assert not score_choice("The answer is (C).", OPTS, 2, task="classification", protocol="official").correct
    assert score_choice("The answer is (C).", OPTS, 2, task="classification", protocol="strict").correct


def test_counting_rules_both_protocols():
    opts = ["1", "2", "3", "4", "5", "12"]
    assert score_choice("There are 12 chairs.", opts, 5, task="counting", protocol="strict").correct
    assert score_choice("There are 12 chairs.", opts, 5, task="counting", protocol="official").correct  # single number rule
    # "twelve" as a word: official's check_text finds "1"? no digits; but "twelve" only maps 0..20 words
    assert score_choice("I see twelve of them", opts, 5, task="counting", protocol="official").correct
    # two numbers: official falls to check_text, where "1" is a substring of "12" -> wrong
    t = "Between 10 and 12, I'd say 12."
    assert not score_choice(t, opts, 5, task="counting", protocol="official").correct
    assert not score_choice(t, opts, 5, task="counting", protocol="strict").correct  # ambiguous: unparsed
    assert score_choice("ANSWER: F", opts, 5, task="counting", protocol="official").correct
    out = score_choice("There are 7 chairs.", opts, 0, task="counting", protocol="strict")
    assert not out.correct and out.rule == "number"  # a number that is no option: parsed, wrong


def test_rotation_convention():
    opts, gt = rotate(["a", "b", "c", "d"], 1, 1)
    assert opts == ["b", "c", "d", "a"] and gt == 0
    opts, gt = rotate(["a", "b", "c", "d"], 1, 3)
    assert opts == ["d", "a", "b", "c"] and gt == 2


# ----------------------------------------------------------------------------- text


def test_tokenize():
    assert T.tokenize("A wooden Chair, with 4 legs!") == ["a", "wooden", "chair", "with", "4", "legs"]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [  # each expectation is what pycocoevalcap's Java PTBTokenizer returned for the text
        ("Café naïve résumé — über straße.", "café naïve résumé über straße"),
        ("It isn't there, can't you see? He'd've gone!", "it is n't there ca n't you see he 'd 've gone"),
        ("The chair (wooden) is [left] of the {table}.", "the chair -lrb- wooden -rrb- is -lsb- left -rsb- of the -lcb- table -rcb-"),
        ("\"Quoted\" text and 'single' quotes.", "quoted text and single quotes"),
        ("3.5 meters, 1,000 chairs, $20 and 50% off.", "3.5 meters 1,000 chairs $ 20 and 50 % off"),
        ("e-mail state-of-the-art... Mr. Smith, U.S.A. etc.", "e-mail state-of-the-art mr. smith u.s.a. etc."),
        ("don't cannot gonna; the lamps' shades, James's hat", "do n't can not gon na the lamps shades james 's hat"),
        ("the lamp is 1.5m high. 20cm x=y a+b C++ AT&T x&y", "the lamp is 1.5 m high 20cm x = y a + b c++ at&t x & y"),
        ("wait...what ?! don\u2019t \u201cno\u201d 5-6 \U0001f642", "wait what ?! do n't no 5-6"),
    ],
)
def test_ptb_tokens_by_hand(text, tokens):
    assert " ".join(T.tokenize(text)) == tokens


def test_bleu1_has_the_brevity_penalty():
    from scenebench.metrics.aggregate import compute

    specs, _ = task_specs("scene_caption", "strict")
    # one sample: hyp "chair" (1 token) vs ref "a chair" (2): p1 = 1, BP = exp(1 - 2/1) = e^-1
    cols = {f: np.array([v]) for f, v in T.bleu_stats(["chair"], [["a", "chair"]]).items()}
    cols.update({f: np.array([np.nan]) for f in ("judge", "rouge_l", "cider_d", "meteor", *T.METEOR_FIELDS)})
    out = compute(specs, cols)
    assert out["bleu1_p_py"] == pytest.approx(100.0)
    assert out["bleu1_py"] == pytest.approx(100 * math.exp(-1))
    assert out["meteor_java"] is None and out["meteor_mean"] is None


def test_bleu_hand_worked():
    hyp = "the cat sat on the mat".split()
    refs = ["the cat is on the mat".split()]
    s = T.bleu_stats(hyp, refs)
    # unigrams: the x2 (ref has 2), cat, on, mat match; sat not -> 5/6
    assert (s["m1"], s["g1"]) == (5, 6)
    # bigrams: the-cat, on-the, the-mat match (cat-sat, sat-on no) -> 3/5
    assert (s["m2"], s["g2"]) == (3, 5)
    assert (s["m3"], s["g3"]) == (1, 4)  # on-the-mat
    assert (s["m4"], s["g4"]) == (0, 3)
    assert T.bleu_from_sums([5 / 6, 3 / 5, 1 / 4, 0.0], 6, 6) == 0.0
    hyp2 = "the cat is on the mat".split()
    s2 = T.bleu_stats(hyp2, refs)
    assert T.bleu_from_sums([s2[f"m{n}"] / s2[f"g{n}"] for n in range(1, 5)], 6, 6) == pytest.approx(1.0)
    # brevity penalty: a 3-word exact prefix of a 6-word reference: BP = exp(1 - 6/3)
    assert T.bleu_from_sums([1, 1, 1, 1], 3, 6) == pytest.approx(math.exp(-1))


def test_closest_reference_length():
    s = T.bleu_stats("a b c d".split(), ["a b".split(), "a b c d e".split()])
    assert s["ref_len"] == 5  # |5-4| = 1 < |2-4| = 2


def test_rouge_l_hand_worked():
    hyp = "the cat sat on the mat".split()
    ref = "the cat is on the mat".split()
    # LCS = the cat on the mat = 5; P = 5/6, R = 5/6 -> F = 5/6
    assert T.lcs_length(ref, hyp) == 5
    assert T.rouge_l(hyp, [ref]) == pytest.approx(5 / 6)
    # P = 1 (2/2), R = 2/6: F = (1 + 1.44) * 1 * (1/3) / (1/3 + 1.44)
    assert T.rouge_l(["the", "cat"], [ref]) == pytest.approx(2.44 * (1 / 3) / (1 / 3 + 1.44))
    assert T.rouge_l([], [ref]) == 0.0


def test_cider_d_hand_worked():
    # Two samples, one reference each, no shared n-grams between samples: every n-gram has df = 1,
    # idf = log(2). A hypothesis equal to its reference gets cosine 1 for each n with n-grams, and no
    # length penalty: 10 * mean over n=1..4 of 1 = 10. The other hypothesis shares nothing: 0.
    hyps = [["a", "b", "c", "d"], ["x"]]
    refs = [[["a", "b", "c", "d"]], [["p", "q", "r", "s"]]]
    assert T.cider_d(hyps, refs) == pytest.approx([10.0, 0.0])
    # Three-word copy: n = 4 has no n-grams (val 0), n = 1..3 give 1 -> 10 * 3/4
    assert T.cider_d([["a", "b", "c"], ["z"]], [[["a", "b", "c"]], [["y"]]])[0] == pytest.approx(7.5)


def test_cider_d_length_penalty_and_clipping():
    # hypothesis "a a" vs reference "a b": unigram vectors hyp {a:2}, ref {a:1, b:1} (idf log 2 each)
    # min(2, 1) * 1 / (|(2)| * |(1, 1)|) = 1 / (2 * sqrt 2); bigrams: none shared; lengths in bigrams 1 vs 1
    w = math.log(2)
    got = T.cider_d([["a", "a"], ["q"]], [[["a", "b"]], [["r"]]])[0]
    assert got == pytest.approx(10 * (w * w) / ((2 * w) * (math.sqrt(2) * w)) / 4)


def test_meteor_reports_why_it_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setenv("SCENEBENCH_METEOR_JAR", str(tmp_path / "nope.jar"))
    reason = T.meteor_unavailable_reason()
    assert reason and ("does not exist" in reason or "Java" in reason)
    with pytest.raises(RuntimeError):
        T.meteor_stats(["a"], [["a"]])


def test_around_box_and_iou_match_plain_loops_on_random_boxes():
    rng = np.random.default_rng(4)
    p = np.concatenate([rng.uniform(-3, 3, (300, 3)), rng.uniform(-0.5, 2, (300, 3))], 1)
    g = np.concatenate([p[:, :3] + rng.uniform(-1.2, 1.2, (300, 3)), rng.uniform(0, 2, (300, 3))], 1)
    off, st = L.around_box(p, g, "official"), L.around_box(p, g, "strict")
    ious = L.box_iou(p, g)
    for i in range(300):
        pc = [max(v, 0.01) for v in p[i, :3]]
        gc = [max(v, 0.01) for v in g[i, :3]]
        assert off[i] == all(abs(a - b) <= 1.0 for a, b in zip(pc, gc))
        assert st[i] == (math.dist(p[i, :3], g[i, :3]) <= 1.0)
        inter, va, vb = 1.0, 1.0, 1.0
        for k in range(3):
            da, db = max(p[i, k + 3], 0.01), max(g[i, k + 3], 0.01)
            lo = max(p[i, k] - da / 2, g[i, k] - db / 2)
            hi = min(p[i, k] + da / 2, g[i, k] + db / 2)
            inter *= max(hi - lo, 0.0)
            va, vb = va * da, vb * db
        assert ious[i] == pytest.approx(inter / (va + vb - inter))


def test_match_count_equals_the_hungarian_count_without_importing_scipy():
    # match_count is the count of valid pairs in scipy's assignment; it is computed by augmenting
    # paths (scipy.optimize costs ~0.5 s to import on every 3DBench run): same numbers.
    import os
    import subprocess
    import sys
    from pathlib import Path

    from scipy.optimize import linear_sum_assignment

    from scenebench.metrics.localization import match_count, max_matching_size

    rng = np.random.default_rng(0)
    for _ in range(500):
        a, b = rng.integers(1, 30, 2)
        v = rng.random((a, b)) < rng.random() * 0.4
        c = rng.random((a, b))
        rows, cols = linear_sum_assignment(np.where(v, c, float(min(v.shape)) + 2.0))
        expected = int(v[rows, cols].sum()) if v.any() else 0
        assert match_count(v, c) == expected == max_matching_size(v)
    code = "import sys\nfrom scenebench.metrics.localization import match_count\nimport numpy as np\nmatch_count(np.eye(3, dtype=bool) | np.eye(3, k=1, dtype=bool))\nprint('scipy' in sys.modules)"
    src = str(Path(__file__).resolve().parents[2] / "src")  # this checkout, not an installed copy
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": src})
    assert out.stdout.strip() == "False"
