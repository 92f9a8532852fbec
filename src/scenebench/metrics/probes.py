"""Trained shortcut probes of ``scenebench audit``: fit on the train split, score on the test split.

A benchmark turns each multiple-choice question into a :class:`ChoiceItem`: ``context`` is what the
probe may see of the question (its word n-grams for a question-only probe; file-name, id and
record-order tokens for a metadata-only probe) and ``options`` the features of each option (its
text n-grams, its position...). One logistic regression scores every (question, option) pair on
the option's features and on each context token crossed with each option feature, so it can learn
"questions with these words answer this option text / this position"; the test question's answer
is its best-scoring option (ties: the first). Nothing here reads a scene.

A probe's test accuracy gets a Wilson 95% interval (:func:`wilson_interval`); it is flagged only
when the interval's *lower* bound exceeds chance + ``margin`` points: with ~20 test questions a
probe can land 10 points above chance by luck, and the flag must not fire on that.

Free-text tasks have no options and no binomial interval: their trained probes are a *template*
answer (the one train reference with the best corpus BLEU-4 on the train references, said to every
test question: :func:`best_constant_answer`), a *retrieval* answer (the reference of the most
similar train question, TF-IDF cosine over question words: :func:`retrieve_answers`), a
*slot template* (the template of the train references with the object names their questions give
turned into slots, filled with the test question's names: :func:`slot_template_answers`) and a
*named template* (the template of the train references whose questions name the same objects:
:func:`named_template_answers`, what a blind model learns of each category). Each is
flagged when its test BLEU-4 exceeds ``TEXT_RATIO`` (1.5) times a random train reference's (the
mean of 20 random-answer corpora, :func:`random_answer_bleu4`): a benchmark whose answers need the
scene leaves a train-tuned answer near a random one.

scikit-learn (the ``audit`` extra) is imported only by :func:`fit_choice_probe` and
:func:`retrieve_answers`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scenebench.extras import require

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile: a two-sided 95% interval
PROBE_MARGIN = 5.0  # points: a trained probe must stay within chance + 5
TEXT_RATIO = 1.5  # a trained text probe must stay within 1.5x a random train answer's BLEU-4
TEMPLATE_CANDIDATES = 200  # train references tried as the template answer (a seeded sample)
TEMPLATE_REFS = 600  # train references a candidate is scored against when choosing (a seeded sample)
RANDOM_DRAWS = 20  # random-answer corpora averaged for a text probe's chance
HASH_FEATURES = 2**20  # hashed feature space: collisions are rare at audit sizes (a few 1e4 tokens)


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials, as fractions in [0, 1]."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # the exact bounds at k = 0 / k = n are 0 / 1; rounding must not put them a hair outside
    return (0.0 if k == 0 else max(0.0, centre - half), 1.0 if k == n else min(1.0, centre + half))


@dataclass(frozen=True)
class ChoiceItem:
    """One multiple-choice question as a probe sees it (no scene, and the answer only in train)."""

    key: str
    groups: tuple[str, ...]  # the report rows it counts in, e.g. ("all", "<question type>")
    context: tuple[str, ...]  # the probe's view of the question: tokens
    options: tuple[tuple[str, ...], ...]  # per option, its feature tokens
    answer: int  # index of the right option


def pair_tokens(item: ChoiceItem, j: int) -> list[str]:
    """The features of option ``j`` of ``item``: its own tokens, and every context token crossed with each."""
    own = item.options[j]
    return [f"o:{t}" for t in own] + [f"{c}&o:{t}" for c in item.context for t in own]


def fit_choice_probe(train: Sequence[ChoiceItem], test: Sequence[ChoiceItem], *, seed: int = 0, c: float = 1.0) -> list[int]:
    """Fit a logistic regression on the (question, option) pairs of ``train``; the chosen option per ``test`` item."""
    if not train:
        raise ValueError("a trained probe needs train questions")
    require("sklearn", "audit", "the trained probes of scenebench audit")
    import numpy as np
    from sklearn.feature_extraction import FeatureHasher
    from sklearn.linear_model import LogisticRegression

    hasher = FeatureHasher(n_features=HASH_FEATURES, input_type="string", alternate_sign=False)
    x = hasher.transform([pair_tokens(it, j) for it in train for j in range(len(it.options))])
    y = np.array([int(j == it.answer) for it in train for j in range(len(it.options))])
    if y.min() == y.max():
        raise ValueError("train questions must have both right and wrong options")
    model = LogisticRegression(C=c, solver="liblinear", max_iter=1000, random_state=seed)
    model.fit(x, y)
    if not test:
        return []
    scores = model.decision_function(hasher.transform([pair_tokens(it, j) for it in test for j in range(len(it.options))]))
    chosen, at = [], 0
    for it in test:
        k = len(it.options)
        chosen.append(int(np.argmax(scores[at : at + k])))  # argmax: the first of equal scores
        at += k
    return chosen


def corpus_bleu4(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]]) -> float:
    """Corpus BLEU-4 in percent of tokenized ``hyps`` against their ``refs``, as the 3DBench scorer's
    ``bleu4_py`` (sums of clipped n-gram matches and lengths over the corpus)."""
    from scenebench.metrics.text import bleu_from_sums, bleu_stats

    tot: dict[str, float] = {}
    for h, r in zip(hyps, refs, strict=True):
        for k, v in bleu_stats(h, r).items():
            tot[k] = tot.get(k, 0.0) + v
    if not tot:
        return 0.0
    p = [tot[f"m{n}"] / tot[f"g{n}"] if tot[f"g{n}"] else None for n in range(1, 5)]
    return 100.0 * (bleu_from_sums(p, tot["hyp_len"], tot["ref_len"]) or 0.0)


def best_constant_answer(refs: Sequence[str], *, seed: int = 0) -> str:
    """The template probe's answer: of (up to ``TEMPLATE_CANDIDATES`` of) the train references
    ``refs``, the one whose corpus BLEU-4 against (up to ``TEMPLATE_REFS`` of) them all is highest,
    the earliest of equals. A fixed answer stuffed with the commonest phrases ("in the living room",
    "close by") is what BLEU rewards without the scene."""
    if not refs:
        raise ValueError("a template probe needs train references")
    import numpy as np

    from scenebench.metrics.text import tokenize

    rng = np.random.default_rng(seed)
    distinct = list(dict.fromkeys(refs))
    pick = [int(i) for i in sorted(rng.choice(len(distinct), size=min(TEMPLATE_CANDIDATES, len(distinct)), replace=False))]
    against = [[tokenize(refs[int(i)])] for i in sorted(rng.choice(len(refs), size=min(TEMPLATE_REFS, len(refs)), replace=False))]
    best, best_score = distinct[pick[0]], -1.0
    for i in pick:
        toks = tokenize(distinct[i])
        score = corpus_bleu4([toks] * len(against), against)
        if score > best_score:
            best, best_score = distinct[i], score
    return best


def random_answer_bleu4(
    train_answers: Sequence[str], test_refs: Sequence[Sequence[str]], *, seed: int = 0, draws: int = RANDOM_DRAWS
) -> float:
    """Chance for a text probe: the mean corpus BLEU-4 of ``draws`` corpora that answer each test
    question (``test_refs``: its references) with a random train answer. One draw moves by a fifth
    either way (scene QA on 80 houses: 5.2 and 5.7), too much for a 1.5x limit."""
    if not train_answers or not test_refs:
        raise ValueError("a random text answer needs train answers and test references")
    import numpy as np

    from scenebench.metrics.text import tokenize

    rng = np.random.default_rng(seed)
    answers = [tokenize(a) for a in train_answers]
    refs = [[tokenize(r) for r in rs] for rs in test_refs]
    scores = [corpus_bleu4([answers[int(i)] for i in rng.integers(len(answers), size=len(refs))], refs) for _ in range(draws)]
    return float(np.mean(scores))


def retrieve_answers(train_queries: Sequence[str], train_answers: Sequence[str], queries: Sequence[str]) -> list[str]:
    """The retrieval probe: for each of ``queries``, the answer of the most similar train question
    (TF-IDF over word uni- and bigrams, cosine; the first of equals)."""
    if not train_queries or len(train_queries) != len(train_answers):
        raise ValueError(f"a retrieval probe needs train questions with one answer each ({len(train_queries)} / {len(train_answers)})")
    require("sklearn", "audit", "the trained probes of scenebench audit")
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not queries:
        return []
    vec = TfidfVectorizer(ngram_range=(1, 2), token_pattern=r"[a-z0-9]+")
    train_x = vec.fit_transform(train_queries)
    sim = (vec.transform(queries) @ train_x.T).toarray()  # rows are l2-normalised: the cosine
    return [train_answers[int(j)] for j in np.argmax(sim, axis=1)]


SLOT = "xxslot{}xx"  # a placeholder the BLEU tokenizer keeps as one word
_SLOT = re.compile(r"xxslot(\d+)xx")


def delexicalize(text: str, names: Sequence[str]) -> str:
    """``text`` with each of ``names`` (whole words, any case, the longest first) replaced by the
    slot token of its index: ``delexicalize("The sofa is left of it.", ["sofa"])`` is
    ``"The xxslot0xx is left of it."``."""
    for i in sorted(range(len(names)), key=lambda k: -len(names[k])):
        text = re.sub(rf"(?<!\w){re.escape(names[i])}(?!\w)", SLOT.format(i), text, flags=re.IGNORECASE)
    return text


def lexicalize(template: str, names: Sequence[str]) -> str:
    """The slots of ``template`` filled with ``names``; a slot past the last name is left out."""
    return _SLOT.sub(lambda m: names[int(m.group(1))] if int(m.group(1)) < len(names) else "", template)


def slot_template_answers(
    train_names: Sequence[Sequence[str]], train_answers: Sequence[str], test_names: Sequence[Sequence[str]], *, seed: int = 0
) -> list[str]:
    """The slot-template probe: the template answer (:func:`best_constant_answer`) of the train
    answers with the object names their questions give (``train_names``) made slots, each slot
    filled with the name at the same place in the test question (``test_names``): a blind model
    that copies the asked objects' names into its usual answer."""
    if len(train_names) != len(train_answers):
        raise ValueError(f"a slot-template probe needs one answer per train question ({len(train_names)} / {len(train_answers)})")
    template = best_constant_answer([delexicalize(a, names) for names, a in zip(train_names, train_answers)], seed=seed)
    return [lexicalize(template, names) for names in test_names]


def named_template_answers(
    train_names: Sequence[Sequence[str]], train_answers: Sequence[str], test_names: Sequence[Sequence[str]], *, seed: int = 0
) -> list[str]:
    """The named-template probe: for each test question, the template answer
    (:func:`best_constant_answer`) of the train answers whose questions give the same object names
    (``train_names`` / ``test_names``, in order), or of all train answers when no train question
    gives them: a blind model that has learnt what is usually said of a sofa (its room, colour,
    neighbours)."""
    if len(train_names) != len(train_answers):
        raise ValueError(f"a named-template probe needs one answer per train question ({len(train_names)} / {len(train_answers)})")
    groups: dict[tuple[str, ...], list[str]] = {}
    for names, a in zip(train_names, train_answers):
        groups.setdefault(tuple(names), []).append(a)
    keys = [tuple(names) for names in test_names]
    templates = {k: best_constant_answer(groups[k], seed=seed) for k in dict.fromkeys(keys) if k in groups}
    fallback = best_constant_answer(train_answers, seed=seed) if any(k not in templates for k in keys) else ""
    return [templates.get(k, fallback) for k in keys]


def text_row(n: int, score: float, chance: float | None, *, ratio: float = TEXT_RATIO) -> dict[str, Any]:
    """A trained text probe's row: ``n``, ``score`` (BLEU-4, percent), no interval, ``chance`` (a
    random train answer's BLEU-4, :func:`random_answer_bleu4`) and ``flag``: above ``ratio`` x chance."""
    return {
        "n": n,
        "score": score,
        "low": None,
        "high": None,
        "chance": chance,
        "max_ratio": ratio,
        "flag": chance is not None and score > ratio * chance,
    }


def probe_row(n: int, correct: int, chance: float | None, *, margin: float = PROBE_MARGIN) -> dict[str, Any]:
    """``n``, ``correct``, ``score`` (percent), its Wilson 95% ``low`` / ``high`` (percent), ``chance``
    (percent) and ``flag``: the lower bound above chance + ``margin`` points (never without a chance)."""
    low, high = wilson_interval(correct, n)
    return {
        "n": n,
        "correct": correct,
        "score": 100.0 * correct / n,
        "low": 100.0 * low,
        "high": 100.0 * high,
        "chance": chance,
        "flag": chance is not None and 100.0 * low > chance + margin,
    }


def choice_rows(test: Sequence[ChoiceItem], chosen: Sequence[int], *, margin: float = PROBE_MARGIN) -> list[dict[str, Any]]:
    """One row per group of ``test`` (first-seen order): :func:`probe_row` of the probe's accuracy
    against chance, the expected accuracy of a uniform guess (mean of 1/#options)."""
    if len(chosen) != len(test):
        raise ValueError(f"{len(chosen)} choices for {len(test)} questions")
    stats: dict[str, list[float]] = {}  # group -> [n, correct, sum of 1/#options]
    for it, j in zip(test, chosen):
        for g in _unique(it.groups):
            s = stats.setdefault(g, [0, 0, 0.0])
            s[0] += 1
            s[1] += int(j == it.answer)
            s[2] += 1.0 / len(it.options)
    return [
        {"group": g, **probe_row(int(n), int(k), 100.0 * inv / n, margin=margin), "metric": "accuracy"} for g, (n, k, inv) in stats.items()
    ]


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


@dataclass(frozen=True)
class AnswerItem:
    """One short-answer question as a probe sees it: ``form`` (the question's wording without its
    objects, e.g. its first two words) decides which answers are its options, ``answer`` is the
    normalised right answer, ``context`` the probe's tokens."""

    key: str
    groups: tuple[str, ...]
    form: str
    answer: str
    context: tuple[str, ...]
    options: tuple[str, ...] = ()  # its own options when the question names them ("the sofa or the bed?")


def answer_choice_items(train: Sequence[AnswerItem], test: Sequence[AnswerItem]) -> tuple[list[ChoiceItem], list[ChoiceItem]]:
    """Short-answer questions as multiple choice for :func:`fit_choice_probe`: the options of a
    question are every answer of its ``form`` in either split (sorted), each option's features its
    words and its whole text; chance is then 1 / #options of the form. A question that names its
    options (``AnswerItem.options``, holding the answer) chooses among those."""
    options: dict[str, list[str]] = {}
    for it in (*train, *test):
        options.setdefault(it.form, [])
        if it.answer not in options[it.form]:
            options[it.form].append(it.answer)
    for form in options:
        options[form].sort()

    def item(it: AnswerItem) -> ChoiceItem:
        opts = sorted(set(it.options)) if it.answer in it.options else options[it.form]
        feats = tuple((f"a:{a}", *(f"w:{w}" for w in a.split())) for a in opts)
        return ChoiceItem(it.key, it.groups, it.context, feats, opts.index(it.answer))

    return [item(it) for it in train], [item(it) for it in test]


def word_tokens(text: str) -> tuple[str, ...]:
    """Lower-cased words and word bigrams of ``text``: a question-only probe's view."""
    words = re.findall(r"[a-z0-9']+", text.lower())
    return tuple([f"q:{w}" for w in words] + [f"q:{a}_{b}" for a, b in zip(words, words[1:])])
