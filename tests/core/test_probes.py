"""Trained audit probes: Wilson intervals worked out by hand, and a probe that finds a planted
question-text shortcut (flagged) but not random answers (not flagged)."""

from __future__ import annotations

import numpy as np
import pytest

from scenebench.metrics.probes import ChoiceItem, choice_rows, fit_choice_probe, probe_row, wilson_interval

pytest.importorskip("sklearn")


def test_wilson_interval_golden_values():
    # z = 1.959964, z^2 = 3.841459. k=8, n=10: p = 0.8, denom = 1 + z^2/n = 1.384146,
    # centre = (0.8 + z^2/20) / denom = 0.992073 / 1.384146 = 0.716740,
    # half = z / denom * sqrt(0.8*0.2/10 + z^2/400) = 1.416010 * sqrt(0.0256036) = 1.416010 * 0.160011 = 0.226578
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.490162, abs=1e-5) and hi == pytest.approx(0.943318, abs=1e-5)
    # k=5, n=10: centre 0.5, half = 1.416010 * sqrt(0.025 + 0.0096036) = 1.416010 * 0.186021 = 0.263404
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.236596, abs=1e-5) and hi == pytest.approx(0.763404, abs=1e-5)
    # k=0: the lower bound is 0, the upper 2 * (z^2/20) / denom = 2 * 0.192073 / 1.384146 = 0.277535
    assert wilson_interval(0, 10) == (0.0, pytest.approx(0.277535, abs=1e-5))
    # k=n mirrors k=0
    assert wilson_interval(10, 10) == (pytest.approx(1 - 0.277535, abs=1e-5), 1.0)
    with pytest.raises(ValueError):
        wilson_interval(0, 0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_flag_needs_the_lower_bound_above_chance_plus_margin():
    # n=100, chance 25, margin 5. k=38: p=0.38, denom 1.038415, centre (0.38 + 0.019207) / denom = 0.384441,
    # half = 1.887457 * sqrt(0.002356 + 0.000096) = 0.093464 -> low 29.10: 38% correct, yet not flagged.
    row = probe_row(100, 38, 25.0)
    assert row["score"] == 38.0 and row["low"] == pytest.approx(29.098, abs=1e-2) and row["flag"] is False
    # k=40: centre 0.403700, half = 1.887457 * sqrt(0.0024 + 0.000096) = 0.094297 -> low 30.94 > 30: flagged.
    row = probe_row(100, 40, 25.0)
    assert row["low"] == pytest.approx(30.940, abs=1e-2) and row["flag"] is True
    assert probe_row(100, 100, None)["flag"] is False  # no chance, no flag


ANIMALS = {"moo": "cow", "woof": "dog", "meow": "cat", "quack": "duck"}
FILLER = ["loud", "quiet", "farm", "house", "early", "late", "small", "big"]


def _items(n: int, rng: np.random.Generator, planted: bool) -> list[ChoiceItem]:
    """Four-option questions "which animal says <sound>?" with shuffled options; the right option is
    the sound's animal (``planted``) or a uniformly random one."""
    out = []
    sounds = sorted(ANIMALS)
    for i in range(n):
        sound = sounds[rng.integers(4)]
        words = ["which", "animal", "says", sound, *rng.choice(FILLER, 2, replace=False)]
        opts = list(rng.permutation(sorted(ANIMALS.values())))
        answer = opts.index(ANIMALS[sound]) if planted else int(rng.integers(4))
        options = tuple((f"pos={j}", f"text={o}") for j, o in enumerate(opts))
        out.append(ChoiceItem(f"q{i}", ("all", f"sound={sound}"), tuple(f"q:{w}" for w in words), options, answer))
    return out


@pytest.mark.parametrize("planted", [True, False])
def test_question_text_shortcut_is_flagged_and_random_answers_are_not(planted):
    rng = np.random.default_rng(7)
    train, test = _items(200, rng, planted), _items(100, rng, planted)
    chosen = fit_choice_probe(train, test, seed=0)
    assert chosen == fit_choice_probe(train, test, seed=0)  # deterministic
    rows = {r["group"]: r for r in choice_rows(test, chosen)}
    overall = rows["all"]
    assert overall["n"] == 100 and overall["chance"] == pytest.approx(25.0)
    assert sum(r["n"] for g, r in rows.items() if g != "all") == 100
    if planted:
        assert overall["score"] == 100.0 and overall["flag"] is True
    else:
        assert overall["score"] < 40.0 and overall["flag"] is False
        assert not any(r["flag"] for r in rows.values())


def test_a_probe_needs_right_and_wrong_train_options():
    item = ChoiceItem("q", ("all",), ("q:x",), (("pos=0",),), 0)  # one option: every train pair is right
    with pytest.raises(ValueError, match="right and wrong"):
        fit_choice_probe([item], [item])
    with pytest.raises(ValueError, match="train questions"):
        fit_choice_probe([], [item])


def test_corpus_bleu4_golden_values():
    from scenebench.metrics.probes import corpus_bleu4

    # "a b c d e" vs "a b c d f": clipped matches 4/5, 3/4, 2/3, 1/2, equal lengths (no brevity
    # penalty): (0.8 * 0.75 * 2/3 * 0.5) ** 0.25 = 0.2 ** 0.25 = 0.668740
    one = ([list("abcde")], [[list("abcdf")]])
    assert corpus_bleu4(*one) == pytest.approx(66.8740, abs=1e-3)
    # a corpus sums before dividing: with an exact "a b c d" the precisions are 8/9, 6/7, 4/5, 2/3,
    # lengths 9 and 9: (0.888889 * 0.857143 * 0.8 * 0.666667) ** 0.25 = 0.406349 ** 0.25 = 0.798408
    assert corpus_bleu4([list("abcde"), list("abcd")], [[list("abcdf")], [list("abcd")]]) == pytest.approx(79.8408, abs=1e-3)
    # every n-gram right but half the length: brevity penalty exp(1 - 8/4) = 0.367879
    assert corpus_bleu4([list("abcd")], [[list("abcdefgh")]]) == pytest.approx(36.7879, abs=1e-3)
    assert corpus_bleu4([], []) == 0.0


def test_template_probe_answers_with_the_commonest_phrases():
    from scenebench.metrics.probes import best_constant_answer, corpus_bleu4
    from scenebench.metrics.text import tokenize

    refs = [
        "It is in the living room, next to the sofa.",
        "It is in the living room, next to the lamp.",
        "It is in the kitchen, next to the stove.",
        "A red apple sits on the table.",
    ]
    best = best_constant_answer(refs, seed=3)
    assert best == refs[0]  # ties with refs[1] by symmetry: the earliest of equals
    toks = [[tokenize(r)] for r in refs]
    scores = [corpus_bleu4([tokenize(c)] * len(refs), toks) for c in refs]
    assert scores[0] == scores[1] > max(scores[2], scores[3])
    assert best_constant_answer(refs * 3, seed=0) == refs[0]  # repeats are one candidate
    with pytest.raises(ValueError, match="train references"):
        best_constant_answer([])


def test_retrieval_probe_answers_with_the_nearest_train_question():
    from scenebench.metrics.probes import retrieve_answers

    train_q = ["What colour is the sofa?", "Which room is the stove in?", "How tall is the lamp?"]
    train_a = ["Grey.", "The kitchen.", "1.5 m."]
    got = retrieve_answers(train_q, train_a, ["Tell me the colour of the sofa.", "In which room is the stove?", "zebra"])
    assert got == ["Grey.", "The kitchen.", "Grey."]  # no shared word: every similarity 0, the first train answer
    assert retrieve_answers(train_q, train_a, []) == []
    with pytest.raises(ValueError, match="one answer each"):
        retrieve_answers(train_q, train_a[:2], ["x"])


def test_slot_template_probe_copies_the_question_names_into_the_template():
    from scenebench.metrics.probes import delexicalize, lexicalize, slot_template_answers

    # whole words, any case, the longer name first: "TV stand" is not read as "stand"
    assert (
        delexicalize("The TV stand is left of the stand. Sofas", ["stand", "tv stand"]) == "The xxslot1xx is left of the xxslot0xx. Sofas"
    )
    assert lexicalize("The xxslot1xx is left of the xxslot0xx.", ["lamp", "desk"]) == "The desk is left of the lamp."
    assert lexicalize("The xxslot2xx is here.", ["lamp"]) == "The  is here."  # no third name: the slot is left out
    names = {"Where is the lamp from the sofa?": ["lamp", "sofa"], "Where is the desk from the bed?": ["desk", "bed"]}
    names["Where is the cup from the plate?"] = ["cup", "plate"]
    train_q = ["Where is the lamp from the sofa?", "Where is the desk from the bed?"]
    train_a = ["The lamp is left of the sofa.", "The desk is left of the bed."]
    # both train answers are "The xxslot0xx is left of the xxslot1xx." once their names are slots
    got = slot_template_answers([names[q] for q in train_q], train_a, [names["Where is the cup from the plate?"]])
    assert got == ["The cup is left of the plate."]
    with pytest.raises(ValueError, match="one answer per train question"):
        slot_template_answers([names[q] for q in train_q], train_a[:1], [])


def test_named_template_probe_answers_with_the_template_of_questions_naming_the_same_objects():
    from scenebench.metrics.probes import named_template_answers

    train_names = [["sofa"], ["sofa"], ["bed"], ["bed"], ["bed"]]
    # per name the template is the answer with the best BLEU-4 against that name's answers: for the
    # bed, "in the bedroom" shares every n-gram with two of the three; for all five (the fallback),
    # the living-room answer shares with two of five as well but comes first among equals
    train_a = ["In the living room.", "In the living room.", "In the bedroom.", "In the bedroom.", "In the hall."]
    got = named_template_answers(train_names, train_a, [["sofa"], ["bed"], ["lamp"]])
    assert got == ["In the living room.", "In the bedroom.", "In the living room."]
    assert named_template_answers(train_names, train_a, []) == []
    with pytest.raises(ValueError, match="one answer per train question"):
        named_template_answers(train_names, train_a[:1], [])


def test_question_names_are_the_longest_category_spellings_in_order():
    from scenebench.benchmarks.bench3d.audit import question_names

    q = "Standing at the sofa and facing the TV stand, where is the coffee table compared with the sofa? In the living room."
    assert question_names(q) == ["sofa", "tv stand", "coffee table", "living room"]  # "stand" alone is no category
    assert question_names("Is there a frying pan here?") == ["pan"]  # a name outside the vocabulary keeps its last word
    assert question_names("What is this object called?") == []


def test_text_probes_are_flagged_above_one_and_a_half_random_answers():
    from scenebench.commands.audit import format_trained_table
    from scenebench.metrics.probes import random_answer_bleu4, text_row

    assert text_row(10, 15.1, 10.0)["flag"] is True
    assert text_row(10, 15.0, 10.0)["flag"] is False  # 1.5x exactly is within the limit
    assert text_row(10, 99.0, None)["flag"] is False  # no chance, no flag
    row = {
        "benchmark": "3dbench",
        "task": "scene_qa",
        "group": "all",
        "metric": "bleu4_py",
        "probe": "template",
        **text_row(240, 11.8, 5.2),
    }
    assert "| 3dbench | scene_qa | all | template | bleu4_py | 240 | 11.8 | - | 5.2 | FLAG |" in format_trained_table([row])
    # chance: the mean of 20 corpora answering with a random train answer. One train answer: its BLEU-4
    assert random_answer_bleu4(["a b c d"] * 3, [["a b c d"], ["a b c d", "x"]]) == pytest.approx(100.0)
    # an exact and a disjoint train answer for one question: each corpus scores 100 or 0, the mean k * 5
    mixed = random_answer_bleu4(["a b c d", "w x y z"], [["a b c d"]], seed=1)
    assert mixed % 5 == pytest.approx(0.0) and 20.0 < mixed < 80.0
    assert mixed == random_answer_bleu4(["a b c d", "w x y z"], [["a b c d"]], seed=1)  # seeded
    with pytest.raises(ValueError, match="train answers"):
        random_answer_bleu4([], [["a"]])
