"""Short-answer normalisation and matching, as the question-answering evaluators of 3D-LLM papers
apply them (spec: the 3D-LLM benchmark notes §7.2), and one stated normaliser for ``strict``.

Normalisers (each a pure ``str -> str``):

- :func:`normalize` (``qa-norm-1``, the strict rule, applied to both sides): lower-case; unicode
  apostrophes to ``'``; every character that is not a letter, digit, ``-``, ``'`` or whitespace
  becomes a space, and so does a ``-``/``'`` that is not between two word characters; the articles
  ``a``, ``an``, ``the`` are dropped; numbers 0-20 written as digits become words; whitespace is
  collapsed and trimmed.
- :func:`clean_answer` (LEO's ``clean_answer``, copied by Chat-Scene, Video-3D-LLM, 3D-LLaVA,
  GPT4Scene, Inst3D-LMM and SQA3D's LLM script), step by step: lower-case; trailing then leading
  spaces trimmed; runs of spaces collapsed; ``". "`` + more spaces -> ``". "``; every run of
  characters outside ``[a-zA-Z0-9,'\\s\\-:]`` deleted (so ``it’s`` -> ``its``, ``façade`` ->
  ``faade``: the later ``ç``/``’`` fixes can never fire); whole-word fixes ``letf``/``let`` ->
  ``left``, ``tehre`` -> ``there``, ``rigth``/``rght`` -> ``right``, ``behine`` -> ``behind``,
  ``tv`` -> ``TV`` (upper case after lower-casing), ``chai`` -> ``chair``, ``wasing`` ->
  ``washing``, ``waslked`` -> ``walked``, ``oclock`` and ``o'  clock`` -> ``o'clock``; whole-number
  words ``0`` and ``none`` -> ``zero``, ``1``..``20`` -> words, ``23`` -> ``twenty-three``; a digit
  glued to the end of a word dropped (``mat2`` -> ``mat``); ``a``/``an``/``the`` before a word
  dropped; ``backwards`` -> ``backward``.
- :func:`chatscene_trim`: Chat-Scene's step before ``clean_answer``: when longer than one
  character, one trailing ``.`` dropped and the first character lower-cased.

Matchers return ``(em, refined)`` pairs of 0/1:

- :func:`match_leo`: references in their order; the first equal one gives (1, 1), the first that
  contains the answer or is contained in it (whitespace removed) gives (0, 1): EM depends on the
  order, and an empty answer earns refined credit;
- :func:`match_chatscene`: an empty answer is (0, 0); exact over all references first, then
  containment (whitespace removed);
- :func:`match_contains`: strict's labelled secondary: exact or containment over all references,
  an empty answer (or reference) never contains or is contained.
- :func:`match_lenient`: SQA3D's zero-shot LLM script: exact, substring, space-free substring or
  any shared whitespace token (an empty answer is a substring of everything).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

NORMALIZER_VERSION = "qa-norm-1"

_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
NUMBER_WORDS = dict(enumerate(_WORDS.split()))

# -- strict -----------------------------------------------------------------------------------
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
_NOT_WORDISH = re.compile(r"[^\w\s'-]|_")
_LOOSE_JOINER = re.compile(r"(?<!\w)['-]|['-](?!\w)")
_ARTICLES = frozenset({"a", "an", "the"})


def normalize(text: str) -> str:
    """The strict normaliser ``qa-norm-1`` (module docstring), applied to answers and references alike."""
    s = _NOT_WORDISH.sub(" ", text.lower().translate(_APOSTROPHES))
    s = _LOOSE_JOINER.sub(" ", s)
    out = []
    for w in s.split():
        if w in _ARTICLES:
            continue
        if w.isascii() and w.isdigit() and int(w) <= 20:
            w = NUMBER_WORDS[int(w)]
        out.append(w)
    return " ".join(out)


# -- LEO's clean_answer -------------------------------------------------------------------------
def _word(w: str) -> re.Pattern[str]:
    return re.compile(rf"\b{w}\b")


_CLEAN_STEPS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"[ ]+$"), ""),
    (re.compile(r"^[ ]+"), ""),
    (re.compile(r" {2,}"), " "),
    (re.compile(r"\.[ ]{2,}"), ". "),
    (re.compile(r"[^a-zA-Z0-9,'\s\-:]+"), ""),
    (re.compile("\u00e7"), "c"),
    (re.compile("\u2019"), "'"),
]
_CLEAN_STEPS += [(_word(a), b) for a, b in (("letf", "left"), ("let", "left"), ("tehre", "there"), ("rigth", "right"))]
_CLEAN_STEPS += [(_word(a), b) for a, b in (("rght", "right"), ("behine", "behind"), ("tv", "TV"), ("chai", "chair"))]
_CLEAN_STEPS += [(_word(a), b) for a, b in (("wasing", "washing"), ("waslked", "walked"), ("oclock", "o'clock"))]
_CLEAN_STEPS.append((re.compile(r"\bo'[ ]+clock\b"), "o'clock"))
_CLEAN_STEPS += [(_word("0"), "zero"), (_word("none"), "zero")]
_CLEAN_STEPS += [(_word(str(k)), NUMBER_WORDS[k]) for k in range(1, 21)]
_CLEAN_STEPS.append((_word("23"), "twenty-three"))
_CLEAN_STEPS.append((re.compile(r"\b([a-zA-Z]+)([0-9])\b"), r"\g<1>"))
_CLEAN_STEPS += [(re.compile(rf"\b{a}\b ([a-zA-Z]+)"), r"\g<1>") for a in ("a", "an", "the")]
_CLEAN_STEPS.append((_word("backwards"), "backward"))


def clean_answer(text: str) -> str:
    """LEO's ``clean_answer`` (module docstring), step for step."""
    s = text.lower()
    for pattern, repl in _CLEAN_STEPS:
        s = pattern.sub(repl, s)
    return s


def chatscene_trim(text: str) -> str:
    """Chat-Scene's trim before :func:`clean_answer`: one trailing ``.`` off and the first character
    lower-cased, for answers longer than one character."""
    if len(text) > 1:
        if text[-1] == ".":
            text = text[:-1]
        text = text[0].lower() + text[1:]
    return text


# -- matchers ---------------------------------------------------------------------------------
def _squeeze(s: str) -> str:
    return "".join(s.split())


def match_leo(pred: str, refs: Sequence[str]) -> tuple[int, int]:
    """LEO's ``answer_match``: the first reference that is equal (1, 1) or contains / is contained
    (0, 1) decides, in reference order."""
    p = _squeeze(pred)
    for r in refs:
        if pred == r:
            return 1, 1
        q = _squeeze(r)
        if p in q or q in p:
            return 0, 1
    return 0, 0


def match_chatscene(pred: str, refs: Sequence[str]) -> tuple[int, int]:
    """Chat-Scene's ``answer_match``: empty (0, 0); exact over all references; then containment."""
    if not pred:
        return 0, 0
    if pred in refs:
        return 1, 1
    p = _squeeze(pred)
    return (0, 1) if any(p in (q := _squeeze(r)) or q in p for r in refs) else (0, 0)


def match_contains(pred: str, refs: Sequence[str]) -> tuple[int, int]:
    """Strict's pair: exact over all references, and containment with an empty-string guard."""
    if pred in refs:
        return 1, 1
    p = _squeeze(pred)
    if not p:
        return 0, 0
    return (0, 1) if any((q := _squeeze(r)) and (p in q or q in p) for r in refs) else (0, 0)


def match_lenient(pred: str, ref: str) -> int:
    """SQA3D's LLM script: exact, substring, space-free substring or one shared whitespace token."""
    if pred == ref or pred in ref or pred.replace(" ", "") in ref.replace(" ", ""):
        return 1
    return int(bool(set(pred.split()) & set(ref.split())))


Matcher = Callable[[str, Sequence[str]], tuple[int, int]]


def cleaned_fixed_point(phrase: str) -> str:
    """``phrase`` cleaned as every lineage cleans an answer (:func:`chatscene_trim`, then
    :func:`clean_answer`) until that changes nothing: an answer written so is equal to itself under
    every lineage's rules (``"the TV."`` -> ``"TV"``, ``"2"`` -> ``"two"``). What generated data
    gives as its first reference, the oracle's answer."""
    s = phrase
    for _ in range(4):
        t = clean_answer(chatscene_trim(s))
        if t == s:
            break
        s = t
    return s
