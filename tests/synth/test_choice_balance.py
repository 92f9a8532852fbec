"""3DBench multiple-choice balance (issue 25 item 3): given a question's form and its options, no
option may be likelier right than another. Checked on the question builders themselves, over many
seeded draws, with a chi-square bound: a uniform tally over k cells stays under the 0.1% quantile
of chi-square with k-1 degrees of freedom (20.52 for six cells, 24.32 for eight, 16.27 for four)
except once in a thousand seeds, and the seeds here are fixed."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from scenebench.synth.house import build_house
from scenebench.synth.relations import RELATIONS, VERTICAL, sentence, words
from scenebench.synth.sensing import SensorSettings, capture
from scenebench.synth.tasks3d import COUNT_SHARE, COUNT_WINDOW, LETTERS, Generator, TaskSettings, count_keep, draw_counts

CHI2_999 = {3: 16.27, 5: 20.52, 7: 24.32}  # 0.999 quantiles by degrees of freedom


def chi2(tally: Counter, cells: list) -> float:
    n = sum(tally[c] for c in cells)
    e = n / len(cells)
    return float(sum((tally[c] - e) ** 2 / e for c in cells))


def test_chi2_helper_by_hand():
    # 30 draws over 3 cells, 15/10/5: expected 10 each, (25 + 0 + 25) / 10 = 5
    assert chi2(Counter({"a": 15, "b": 10, "c": 5}), ["a", "b", "c"]) == pytest.approx(5.0)


def test_keep_probabilities_flatten_the_share_table():
    for kind, share in COUNT_SHARE.items():
        keep = count_keep(kind)
        assert len(keep) == len(COUNT_WINDOW[kind]) == 6 and max(keep) == 1.0
        assert np.allclose(np.multiply(share, keep), min(share))  # kept-and-available is the same for every count


def _simulated_houses(n: int, seed: int) -> list[list[tuple[int, str]]]:
    """Candidate sets of ``n`` houses: each (kind, count) present with its ``COUNT_SHARE`` (1 to 4
    sets of it when present, as a house holds many single-instance categories)."""
    rng = np.random.default_rng(seed)
    houses = []
    for _ in range(n):
        cands = []
        for kind, window in COUNT_WINDOW.items():
            for v, p in zip(window, COUNT_SHARE[kind]):
                if rng.random() < p:
                    cands += [(v, kind)] * int(rng.integers(1, 5))
        houses.append([cands[i] for i in rng.permutation(len(cands))])
    return houses


def test_counting_answers_are_uniform_over_each_kinds_window():
    """Over 4,000 simulated houses with the measured availability, the counts drawn for each kind
    of set are uniform over its six options; a nearest-size rule would not be (control)."""
    by_kind: dict[str, Counter] = {k: Counter() for k in COUNT_WINDOW}
    for h, cands in enumerate(_simulated_houses(4000, 7)):
        picked = draw_counts(cands, 3, np.random.default_rng([7, h]))
        assert len(set(picked)) == len(picked) and len({cands[k] for k in picked}) == len(picked)
        for k in picked:
            v, kind = cands[k]
            by_kind[kind][v] += 1
    for kind, tally in by_kind.items():
        assert sum(tally.values()) >= 3000, (kind, tally)
        assert chi2(tally, list(COUNT_WINDOW[kind])) < CHI2_999[5], (kind, tally)
    # control: the raw availability itself is far from uniform, so the bound has teeth
    raw = Counter({v: round(1000 * p) for v, p in zip(COUNT_WINDOW["house"], COUNT_SHARE["house"])})
    assert chi2(raw, list(COUNT_WINDOW["house"])) > 10 * CHI2_999[5]


def test_draw_counts_gives_up_on_an_empty_house():
    assert draw_counts([], 3, np.random.default_rng(0)) == []
    assert draw_counts([(9, "house")], 3, np.random.default_rng(0)) == []  # outside every window


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


def test_counting_records_offer_the_kinds_window_and_a_uniform_letter(houses):
    letters: Counter = Counter()
    for _h, recs in _draws(houses, 25, "Counting"):
        for r in recs:
            assert sorted(r["gt_choices"]) in [list(w) for w in COUNT_WINDOW.values()]
            letters[LETTERS[r["gt_choice"]]] += 1
    assert sum(letters.values()) >= 300
    assert chi2(letters, list(LETTERS[:6])) < CHI2_999[5], letters


def test_position_relation_answers_and_letters_are_uniform_and_the_faced_object_is_never_asked(houses):
    types = [r for r in RELATIONS if r not in VERTICAL]
    answers: Counter = Counter()
    letters: Counter = Counter()
    for _h, recs in _draws(houses, 25, "PositionRelation"):
        for r in recs:
            a, b = r["objects"]
            assert r["viewpoint"][1] not in (a, b) and r["viewpoint"][0] not in (a, b)
            (rel,) = [t for t in types if sentence(t, words(a), words(b)) == r["gt_choices"][r["gt_choice"]]]
            answers[rel] += 1
            letters[LETTERS[r["gt_choice"]]] += 1
    assert sum(answers.values()) >= 300
    # Not yet uniform (issue 25 stays open on it): a type a house lacks is drawn again within that
    # house, which favours the types most houses have; on these draws front/behind come out about half
    # as often as left (54/53 vs 102 of 600, chi-square 25.0 against the 0.1% bound 24.3). This bounds
    # the imbalance so it cannot grow unseen; the letter, which a blind model reads directly, is uniform.
    share = {t: answers[t] / sum(answers.values()) for t in types}
    assert min(share.values()) >= 0.5 / len(types) and max(share.values()) <= 2.0 / len(types), answers
    assert chi2(letters, list(LETTERS[:4])) < CHI2_999[3], letters
