"""3DBench multiple-choice balance (issue 25 item 3): given a question's form and its options, no
option may be likelier right than another. Checked on the question builders themselves, over many
seeded draws, with a chi-square bound: a uniform tally over k cells stays under the 0.1% quantile
of chi-square with k-1 degrees of freedom (20.52 for six cells, 24.32 for eight, 16.27 for four)
except once in a thousand seeds, and the seeds here are fixed."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from scenebench.synth.choice_tables import COUNT_FORMS, REL_SHARE
from scenebench.synth.house import build_house
from scenebench.synth.relations import RELATIONS, VERTICAL, sentence, words
from scenebench.synth.sensing import SensorSettings, capture
from scenebench.synth.tasks3d import (
    LETTERS,
    MAX_COUNT,
    Generator,
    TaskSettings,
    count_keep,
    count_window,
    draw_counts,
    draw_relations,
    relation_keep,
    relation_slots,
)

CHI2_999 = {
    1: 10.83,
    2: 13.82,
    3: 16.27,
    4: 18.47,
    5: 20.52,
    6: 22.46,
    7: 24.32,
    8: 26.12,
    9: 27.88,
}  # 0.999 quantiles by degrees of freedom


def chi2(tally: Counter, cells: list) -> float:
    n = sum(tally[c] for c in cells)
    e = n / len(cells)
    return float(sum((tally[c] - e) ** 2 / e for c in cells))


def test_chi2_helper_by_hand():
    # 30 draws over 3 cells, 15/10/5: expected 10 each, (25 + 0 + 25) / 10 = 5
    assert chi2(Counter({"a": 15, "b": 10, "c": 5}), ["a", "b", "c"]) == pytest.approx(5.0)


def test_keep_probabilities_flatten_the_share_table():
    # questions a house on average (6 x the rarest share per form): near the former ≈3
    assert sum(6 * min(share) for _lo, share in COUNT_FORMS.values()) >= 2.0
    for form in COUNT_FORMS:
        window, share, keep = count_window(form), COUNT_FORMS[form][1], count_keep(form)
        assert len(keep) == len(share) == 6 and max(keep) == 1.0
        assert window == tuple(range(window[0], window[0] + 6)) and 1 <= window[0] and window[-1] <= MAX_COUNT
        assert np.allclose(np.multiply(share, keep), min(share))  # kept-and-available is the same for every count
    for types in (tuple(RELATIONS), tuple(r for r in RELATIONS if r not in VERTICAL)):
        keep = relation_keep(types)
        assert max(keep.values()) == 1.0 and np.allclose([REL_SHARE[t] * keep[t] for t in types], min(REL_SHARE[t] for t in types))


def _fit_script():
    path = Path(__file__).resolve().parents[2] / "scripts" / "fit_choice_tables.py"
    spec = importlib.util.spec_from_file_location("fit_choice_tables", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fit_script_derives_windows_and_shares_by_hand():
    """Eight houses: form x at 1, 2, 3, 4, 5, 6, 7, 1; form y only ever at 2. x: the windows 1-6 and
    2-7 both have a rarest count seen once, the lower wins; shares 2/8 then 1/8. y: every window
    has a count never seen, so y is not asked. Relations: left in 2 houses of 8, front in 1."""
    fit = _fit_script().fit
    houses = [{"x": 1, "y": 2}, {"x": 2}, {"x": 3, "y": 2}, {"x": 4}, {"x": 5}, {"x": 6}, {"x": 7}, {"x": 1}]
    rels = [["front", "left"], ["left"]] + [[] for _ in range(6)]
    forms, rel = fit([{"forms": f, "relations": r} for f, r in zip(houses, rels)], min_houses=1)
    assert forms == {"x": (1, (0.25, 0.125, 0.125, 0.125, 0.125, 0.125))}
    assert rel == {"front": 0.125, "left": 0.25}
    assert fit([{"forms": f, "relations": r} for f, r in zip(houses, rels)], min_houses=2)[0] == {}  # rarest seen once


def _simulated_houses(n: int, seed: int) -> list[list[tuple[int, str]]]:
    """Candidate sets of ``n`` houses: each form at each count of its window with its measured
    share (else absent or at a count outside the window), forms independent."""
    rng = np.random.default_rng(seed)
    houses = []
    for _ in range(n):
        cands = []
        for form, (_lo, share) in COUNT_FORMS.items():
            u, edges = rng.random(), np.cumsum(share)
            k = int(np.searchsorted(edges, u, side="right"))
            cands.append((count_window(form)[k] if k < 6 else 99, form))
        houses.append([cands[i] for i in rng.permutation(len(cands))])
    return houses


def test_counting_answers_are_uniform_over_each_forms_window():
    """Over 4,000 simulated houses with the measured shares, the counts drawn for each question form
    are uniform over its six options; the raw shares are not (control)."""
    by_form: dict[str, Counter] = {f: Counter() for f in COUNT_FORMS}
    for h, cands in enumerate(_simulated_houses(4000, 7)):
        picked = draw_counts(cands, 6, np.random.default_rng([7, h]))
        assert len(set(picked)) == len(picked) and len({cands[k][1] for k in picked}) == len(picked)
        for k in picked:
            v, form = cands[k]
            by_form[form][v] += 1
    for form, tally in by_form.items():
        assert sum(tally.values()) >= 400, (form, tally)
        assert chi2(tally, list(count_window(form))) < CHI2_999[5], (form, tally)
    # control: the raw availability itself is far from uniform, so the bound has teeth
    worst = max(COUNT_FORMS, key=lambda f: max(COUNT_FORMS[f][1]) / min(COUNT_FORMS[f][1]))
    raw = Counter({v: round(4000 * p) for v, p in zip(count_window(worst), COUNT_FORMS[worst][1])})
    assert chi2(raw, list(count_window(worst))) > 10 * CHI2_999[5]


def test_draw_counts_gives_up_on_an_empty_house():
    form = next(iter(COUNT_FORMS))
    assert draw_counts([], 3, np.random.default_rng(0)) == []
    assert draw_counts([(count_window(form)[-1] + 1, form)], 3, np.random.default_rng(0)) == []  # outside its window
    assert draw_counts([(1, "no such form")], 3, np.random.default_rng(0)) == []


@pytest.mark.parametrize("vertical", [False, True])
def test_relation_types_are_uniform_across_simulated_houses(vertical):
    """4,000 houses, each holding each relation type with its measured share (independently): the
    asked types are uniform over the split's types (the test split has no above/below), about 3 a
    house."""
    types = tuple(r for r in RELATIONS if vertical or r not in VERTICAL)
    rng = np.random.default_rng(11)
    tally: Counter = Counter()
    for h in range(4000):
        present = {t for t in types if rng.random() < REL_SHARE[t]}
        tally.update(draw_relations(present, 3, types, np.random.default_rng([11, h])))
    per_house = relation_slots(3, types) * min(REL_SHARE[t] for t in types)  # draws x yield of a draw
    assert 2.5 <= per_house <= 4.0 and abs(sum(tally.values()) / 4000 - per_house) < 0.1, sum(tally.values())
    assert chi2(tally, list(types)) < CHI2_999[len(types) - 1], tally


@pytest.fixture(scope="module")
def houses():
    out = []
    for i in range(8):
        h = build_house(33, i, max_rooms=5)
        cap = capture(h, SensorSettings(width=64, height=48), np.random.default_rng([33, i, 1]))
        out.append((h, cap))
    return out


def _draws(houses, n_draws: int, stem: str):
    for i, (h, cap) in enumerate(houses):
        for d in range(n_draws):
            g = Generator(h, cap.coverage, np.random.default_rng([33, i, d]), TaskSettings())
            if stem == "Counting":
                g.counting()
            else:
                g.position(test=True)
            yield h, g.records[stem]


def test_counting_records_offer_their_forms_window_and_a_uniform_letter(houses):
    letters: Counter = Counter()
    for _h, recs in _draws(houses, 25, "Counting"):
        for r in recs:
            if r["object"] == "furniture":
                (form,) = [f for f in COUNT_FORMS if f.startswith("furniture/") and f"floor of the {f[10:]}" in r["query"]]
            else:
                form = r["object"]
            assert sorted(r["gt_choices"]) == list(count_window(form)), (r["query"], r["gt_choices"])
            letters[LETTERS[r["gt_choice"]]] += 1
    assert sum(letters.values()) >= 300
    assert chi2(letters, list(LETTERS[:6])) < CHI2_999[5], letters


def test_position_relation_types_follow_the_keep_rule_and_letters_are_uniform(houses):
    """On real houses the asked types match what :func:`draw_relations` promises: per draw, type t
    with probability keep(t) / len(types) when the house holds it (each slot), so the tally over
    these eight houses is chi-square close to that expectation (across many houses, whose holdings
    the shares measure, it is uniform; see the simulated test above). The faced object and the
    viewer's anchor are never asked; the letter is uniform."""
    types = tuple(r for r in RELATIONS if r not in VERTICAL)
    keep, slots = relation_keep(types), relation_slots(3, types)
    answers: Counter = Counter()
    letters: Counter = Counter()
    expected: Counter = Counter()
    n_draws = 25
    for i, (h, cap) in enumerate(houses):
        present = set(Generator(h, cap.coverage, np.random.default_rng(0), TaskSettings())._view_pairs(allow_vertical=False))
        for t in present:
            expected[t] += n_draws * slots * keep[t] / len(types)
    for _h, recs in _draws(houses, n_draws, "PositionRelation"):
        for r in recs:
            a, b = r["objects"]
            assert r["viewpoint"][1] not in (a, b) and r["viewpoint"][0] not in (a, b)
            (rel,) = [t for t in types if sentence(t, words(a), words(b)) == r["gt_choices"][r["gt_choice"]]]
            answers[rel] += 1
            letters[LETTERS[r["gt_choice"]]] += 1
    assert sum(answers.values()) >= 300
    cells = [t for t in types if expected[t] > 0]
    assert set(answers) <= set(cells)
    stat = sum((answers[t] - expected[t]) ** 2 / expected[t] for t in cells)
    assert stat < CHI2_999[len(cells) - 1], (answers, expected)
    assert chi2(letters, list(LETTERS[:4])) < CHI2_999[3], letters


def test_no_asked_object_stands_on_the_viewer_anchor_or_the_faced_object(houses):
    """A vase on the faced table reads mostly "behind", a cup on the viewer's table "in front": such
    pairs answer themselves from the names alone (a question-only probe scored 37.8% on them, chance
    25), so no pair has an object standing on the viewer's anchor or on the faced object."""
    pairs = 0
    on_anchor = 0
    for h, cap in houses:
        g = Generator(h, cap.coverage, np.random.default_rng(0), TaskSettings())
        for quads in g._view_pairs(allow_vertical=True).values():
            for x, y, a, b in quads:
                assert {a.support, b.support}.isdisjoint({x.index, y.index}), (x.category, y.category, a.category, b.category)
                pairs += 1
        floor = {o.index for o in g.f.unique_visible() if not o.support}
        on_anchor += sum(1 for o in h.objects if o.support in floor)
    assert pairs > 1000
    assert on_anchor > 20  # the rule has something to exclude in these houses
