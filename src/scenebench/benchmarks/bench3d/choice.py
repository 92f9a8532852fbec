"""3DBench multiple choice (classification, counting, position relation): rules first, never a guess.

``strict`` extracts the chosen option — letter patterns, then the option text (whole words), then
for counting a single number or number word — and compares it with the answer index. ``official``
applies the released correctness rules (substring ``check_text`` for classification and position
relation; the ordered pattern chain of ``Counting``). Circular evaluation rotates the options.
Metric card: ``docs/metrics/bench3d_choice_accuracy.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import parsing as P

CIRCULAR_SEP = "#rot"


@dataclass(frozen=True)
class ChoiceOutcome:
    correct: bool
    chosen: int | None  # option index the strict rules read (None: none, or a number that is no option)
    rule: str  # which rule decided: letter, text, number, none (or official_* for official)
    parsed: bool  # the strict rules read an answer (same at both protocols, so counts agree)


def extract_choice(text: str, options: list[str], *, counting: bool = False) -> tuple[int | None, str, int | None]:
    """(option index or None, rule name, number read) with the strict rules.

    For counting a number that is no option still counts as an answer (a wrong one): the index is
    None, the rule is ``number`` and the number is returned.
    """
    n = len(options)
    i = P.parse_letter(text, n)
    if i is not None:
        return i, "letter", None
    if counting:
        v = P.parse_count(text)
        if v is not None:
            hit = [k for k, o in enumerate(options) if int(o) == v]
            return (hit[0] if hit else None), "number", v
        return None, "none", None
    i = P.parse_option_text(text, options, "strict")
    if i is not None:
        return i, "text", None
    return None, "none", None


def score_choice(text: str, options: list[str], gt: int, *, task: str, protocol: str) -> ChoiceOutcome:
    """Right or wrong for one answer; ``chosen`` is None when no rule could read an option."""
    counting = task == "counting"
    chosen, rule, number = extract_choice(text, options, counting=counting)
    parsed = chosen is not None or number is not None
    if protocol == "official":
        ok = P.official_counting_correct(text, options, gt) if counting else P.official_text_correct(text, options, gt)
        return ChoiceOutcome(ok, chosen, "official_counting" if counting else "official_text", parsed)
    return ChoiceOutcome(bool(chosen == gt), chosen, rule, parsed)


def rotate(options: list[str], gt: int, k: int) -> tuple[list[str], int]:
    """Rotation ``k``: option ``i`` shown at position ``(i - k) mod n``; returns (options, answer index).

    The model sees ``options[k:] + options[:k]``; its answer for id ``question_id#rot{k}`` is
    scored against this rotated list.
    """
    n = len(options)
    k %= n
    return options[k:] + options[:k], (gt - k) % n


def circular_id(question_id: str, k: int) -> str:
    return f"{question_id}{CIRCULAR_SEP}{k}"
