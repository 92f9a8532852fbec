"""Answer parsing: a corpus of real-looking answers at both protocols, and one test per official quirk."""

import pytest

from scenebench.benchmarks.bench3d import parsing as P

B = [1.0, 2.0, 3.0, 0.5, 0.5, 0.5]
NB = [-1.0, 2.0, -3.0, 0.5, 0.5, 0.5]

# (answer, official boxes, strict boxes)
BOX_CORPUS = [
    ("[1, 2, 3, 0.5, 0.5, 0.5]", [B], [B]),
    ("The chair is located at [1, 2, 3, 0.5, 0.5, 0.5].", [B], [B]),
    ("Bounding box: (1, 2, 3, 0.5, 0.5, 0.5)", [B], [B]),
    ("[-1, 2, -3, 0.5, 0.5, 0.5]", [NB], [NB]),  # minus signs survive inside groups in both
    ("x=-1, y=2, z=-3, l=0.5, w=0.5, h=0.5", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),  # fallback drops minus signs
    ("Center -1 2 -3 and size 0.5 0.5 0.5", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),
    ("[chair: -1, 2, -3, 0.5, 0.5, 0.5]", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),  # label poisons the group
    ("(x, y, z, l, w, h) = (-1, 2, -3, 0.5, 0.5, 0.5)", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),  # "xyzlwh" carry poisons
    ("中心【-1，2，-3，0.5，0.5，0.5】", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),  # Chinese brackets/commas
    ("（-1，2，-3，0.5，0.5，0.5）", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),
    ("centre (-1, 2, -3), size (0.5, 0.5, 0.5)", [NB], [NB]),
    ("centre (-1m, 2m, -3m), size (50cm, 50 cm, 500mm)", [[1.0, 2.0, 3.0, 50.0, 50.0, 500.0]], [NB]),
    ("[1, 2, 3, 0.5, 0.5, 0.5] and [4, 5, 6, 1, 1, 1]", [B, [4.0, 5.0, 6.0, 1.0, 1.0, 1.0]], [B, [4.0, 5.0, 6.0, 1.0, 1.0, 1.0]]),
    (
        "(4, 5, 6, 1, 1, 1) then [1, 2, 3, 0.5, 0.5, 0.5]",
        [B, [4.0, 5.0, 6.0, 1.0, 1.0, 1.0]],
        [[4.0, 5.0, 6.0, 1.0, 1.0, 1.0], B],
    ),  # brackets first
    ("[[1, 2, 3, 0.5, 0.5, 0.5], [4, 5, 6, 1, 1, 1]]", [B, [4.0, 5.0, 6.0, 1.0, 1.0, 1.0]], [B, [4.0, 5.0, 6.0, 1.0, 1.0, 1.0]]),
    ("[1, 2, 3, 0.5, 0.5]", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]][:0], []),  # five numbers: nothing
    ("[1, 2, 3, 0.5, 0.5, 0.5, 9]", [B], []),  # seven: official truncates, strict refuses
    ("I am not sure where it is.", [], []),
    ("The object is in room 2 near the window.", [], []),
    ("Let me think. The table is 2 m wide. Answer: [1, 2, 3, 0.5, 0.5, 0.5]", [B], [B]),
    ("[1.5e-1, 2, 3, 0.5, 0.5, 0.5]", [[0.15, 2.0, 3.0, 0.5, 0.5, 0.5]], [[0.15, 2.0, 3.0, 0.5, 0.5, 0.5]]),
    ("1.5e-1, 2, 3, 0.5, 0.5, 0.5", [[1.5, 1.0, 2.0, 3.0, 0.5, 0.5]], [[0.15, 2.0, 3.0, 0.5, 0.5, 0.5]]),  # fallback splits exponents
    ("[-1\n2, -3, 0.5, 0.5, 0.5]", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),  # "-1\n2" is one token: group lost, fallback
    ("[1, 2, 3, 0.5, 0.5, 0.5", [B], [B]),  # unclosed: official group gives 5 -> cut to 0 -> fallback; strict: six numbers, no group
    ("−1, 2, −3, 0.5, 0.5, 0.5", [[1.0, 2.0, 3.0, 0.5, 0.5, 0.5]], [NB]),  # Unicode minus
    ("[+1, 2, 3, 0.5, 0.5, 0.5]", [B], [B]),
    ("The sofa: [1.0,2.0,3.0,0.5,0.5,0.5]; the chair: [-1.0,2.0,-3.0,0.5,0.5,0.5].", [B, NB], [B, NB]),
]


@pytest.mark.parametrize(("text", "official", "strict"), BOX_CORPUS)
def test_box_corpus(text, official, strict):
    def same(got, want):
        return len(got) == len(want) and all(g == pytest.approx(w) for g, w in zip(got, want))

    assert same(P.parse_boxes(text, "official"), official), P.parse_boxes(text, "official")
    assert same(P.parse_boxes(text, "strict"), strict), P.parse_boxes(text, "strict")


WAYPOINT_CORPUS = [
    ("[0, 0], [1, 0], [2, 1]", [[0, 0], [1, 0], [2, 1]], [[0, 0], [1, 0], [2, 1]]),
    ("Path: (0, 0) -> (1, -2) -> (3, -4)", [[0, 0], [1, -2], [3, -4]], [[0, 0], [1, -2], [3, -4]]),
    ("Walk from 0,0 to -1,-2 then -3,4", [[0, 0], [1, 2], [3, 4]], [[0, 0], [-1, -2], [-3, 4]]),
    ("[[0, 0], [1, 0], [2, 0]]", [[0, 0], [1, 0], [2, 0]], [[0, 0], [1, 0], [2, 0]]),
    ("[0, 0, 1, 0, 2]", [[0, 0], [1, 0]], []),  # odd count: official truncates, strict refuses
    ("(0, 0.9, 0), (1, 0.9, -1)", [[0, 0.9], [0, 1], [0.9, -1]], [[0, 0], [1, -1]]),  # (x, y, z): strict drops y
    ("I cannot find a path.", [], []),
    ("路径：（0，0）→（1，-2）", [[0, 0], [1, 2]], [[0, 0], [1, -2]]),
]


@pytest.mark.parametrize(("text", "official", "strict"), WAYPOINT_CORPUS)
def test_waypoint_corpus(text, official, strict):
    assert P.parse_waypoints(text, "official") == [[float(a), float(b)] for a, b in official]
    assert P.parse_waypoints(text, "strict") == [[float(a), float(b)] for a, b in strict]


LETTER_CORPUS = [
    ("The answer is (B).", 1),
    ("ANSWER: C", 2),
    ("answer: d", None),
    ("I choose option E because it is round.", 4),
    ("(A)", 0),
    ("B. sofa", 1),
    ("F", 5),
    ("Options (A) chair (B) cup: I think it's a cup.", None),
    ("Let me think step by step. It has four legs... The answer is (A). Final answer: (C)", 2),
    ("答案是C", 2),
    ("选项：（B）", 1),
    ("The answer is (G).", None),
    ("It is a chair.", None),
    ("A chair.", None),  # the article "A" is not a letter answer
]


@pytest.mark.parametrize(("text", "index"), LETTER_CORPUS)
def test_letter_corpus(text, index):
    assert P.parse_letter(text, 6) == index


COUNT_CORPUS = [
    ("There are three chairs.", 3),
    ("3", 3),
    ("I count 3 chairs and 2 tables.", None),
    ("The answer is 4.", 4),
    ("There are no chairs in the house.", 0),
    ("Twelve.", 12),
    ("There are 2 chairs in 2 rooms.", 2),
    ("Chair 1 is in room 2, so the answer is five.", 5),
    ("about 3.5", None),
]


@pytest.mark.parametrize(("text", "value"), COUNT_CORPUS)
def test_count_corpus(text, value):
    assert P.parse_count(text) == value


def test_corpus_is_large_enough():
    assert len(BOX_CORPUS) + len(WAYPOINT_CORPUS) + len(LETTER_CORPUS) + len(COUNT_CORPUS) >= 40


# ------------------------------------------------------------------ one test per official quirk


def test_quirk_fallback_drops_minus_signs():
    t = "centre -1.5 0.2 -3 size 1 1 1"
    assert P.parse_boxes(t, "official") == [[1.5, 0.2, 3.0, 1.0, 1.0, 1.0]]
    assert P.parse_boxes(t, "strict") == [[-1.5, 0.2, -3.0, 1.0, 1.0, 1.0]]


def test_quirk_brackets_before_parentheses():
    t = "(9, 9, 9, 1, 1, 1) is wrong, [1, 2, 3, 0.5, 0.5, 0.5] is right"
    assert P.parse_boxes(t, "official")[0] == B
    assert P.parse_boxes(t, "strict")[0] == [9.0, 9.0, 9.0, 1.0, 1.0, 1.0]


def test_quirk_truncation_to_multiple_of_six_and_two():
    assert P.parse_boxes("[1, 2, 3, 0.5, 0.5, 0.5, 7, 8]", "official") == [B]
    assert P.parse_boxes("[1, 2, 3, 0.5, 0.5, 0.5, 7, 8]", "strict") == []
    assert P.parse_waypoints("[0, 0, 1, 2, 3]", "official") == [[0.0, 0.0], [1.0, 2.0]]
    assert P.parse_waypoints("[0, 0, 1, 2, 3]", "strict") == []


def test_quirk_label_inside_group_swallows_later_numbers():
    # The carry is never reset after "sofa:", so the second (clean) group is lost too.
    t = "[sofa: 1, 2, 3, 0.5, 0.5, 0.5] [-4, 5, -6, 1, 1, 1]"
    assert P.official_group_numbers(t, "[", "]") == []
    assert P.parse_boxes(t, "official") == [B, [4.0, 5.0, 6.0, 1.0, 1.0, 1.0]]  # via the sign-dropping fallback
    assert P.parse_boxes(t, "strict") == [B, [-4.0, 5.0, -6.0, 1.0, 1.0, 1.0]]


def test_quirk_unclosed_group_loses_last_token():
    assert P.official_group_numbers("[1, 2, 3", "[", "]") == [1.0, 2.0]
    assert P.official_group_numbers("[1, 2, 3,", "[", "]") == [1.0, 2.0, 3.0]
    assert P.parse_waypoints("[1, 2, 3, 4", "official") == [[1.0, 2.0]]  # 4 never read, 3 cut
    assert P.parse_waypoints("[1, 2, 3, 4", "strict") == [[1.0, 2.0], [3.0, 4.0]]


def test_quirk_float_accepts_nan_inf_and_underscores():
    import math

    assert P.official_group_numbers("[1_0, inf]", "[", "]") == [10.0, math.inf]
    off = P.parse_boxes("[nan, 2, 3, 0.5, 0.5, 0.5]", "official")
    assert len(off) == 1 and math.isnan(off[0][0])  # a NaN centre: every comparison with it fails
    assert P.parse_boxes("[nan, 2, 3, 0.5, 0.5, 0.5]", "strict") == []  # five numbers: no box


def test_official_group_numbers_matches_the_released_loop_on_random_text():
    import random

    def released(text, a, b):  # the released parse_num, verbatim logic
        out, flag, tmp = [], 0, ""
        for c in text:
            if c == a:
                flag = 1
            elif c == b:
                flag = 0
                if P._is_number(tmp):
                    out.append(float(tmp))
                    tmp = ""
            elif flag == 0:
                continue
            else:
                if c != "," and c != " ":
                    tmp += c
                else:
                    if P._is_number(tmp):
                        out.append(float(tmp))
                        tmp = ""
        return out

    rng = random.Random(0)
    alphabet = "[]()0123456789.,- \nab:e"
    for _ in range(3000):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for a, b in (("[", "]"), ("(", ")")):
            assert P.official_group_numbers(t, a, b) == released(t, a, b), t


def test_points_and_option_text():
    assert P.parse_point("Its centre is (2.1, -0.4, 1.9).", "strict") == [2.1, -0.4, 1.9]
    assert P.parse_point("Its centre is (2.1, -0.4, 1.9).", "official") == [2.1, -0.4, 1.9]
    assert P.parse_point("at 2.1 -0.4 1.9", "official") == [2.1, 0.4, 1.9]
    assert P.parse_point("box [1, 2, 3, 0.5, 0.5, 0.5]", "strict") == [1.0, 2.0, 3.0]
    assert P.parse_point("nowhere", "strict") is None
    opts = ["cup", "chair", "sofa"]
    assert P.parse_option_text("It is a cupboard.", opts, "official") == 0  # substring quirk
    assert P.parse_option_text("It is a cupboard.", opts, "strict") is None
    assert P.parse_option_text("It looks like a CHAIR!", opts, "strict") == 1
    assert P.parse_option_text("a coffee table, not a table", ["table", "coffee table"], "strict") == 1
    assert P.parse_option_text("a chair or a sofa", opts, "strict") is None
    assert P.parse_option_text("The options are cup, chair and sofa. My answer: sofa.", opts, "strict") == 2
    assert P.parse_option_text("The options are cup, chair and sofa. My answer: sofa.", opts, "official") is None


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[](){}0123456789.,-+eE :;\nABCDabcdm米（）【】，。−")), max_size=80))
def test_parsers_never_raise_and_return_well_formed_values(text):
    for protocol in ("official", "strict"):
        assert all(len(b) == 6 for b in P.parse_boxes(text, protocol))
        assert all(len(w) == 2 for w in P.parse_waypoints(text, protocol))
        pt = P.parse_point(text, protocol)
        assert pt is None or len(pt) == 3
    i = P.parse_letter(text, 4)
    assert i is None or 0 <= i < 4
    P.parse_count(text)
    P.official_counting_correct(text, ["1", "2", "3", "4", "5", "12"], 2)
