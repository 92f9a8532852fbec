"""Injection flags see through invisible and compatibility characters (issue 28, item 7).

Before, the patterns ran over the raw answer: a zero-width space inside ``score`` (or full-width
letters) hid every attack of the corpus. Flags now run on NFKC text with invisible characters
removed (:func:`scenebench.judges.prompts.normalise_for_flags`).
"""

from __future__ import annotations

import pytest
from injection_corpus import INJECTIONS

from scenebench.judges.prompts import injection_flags, normalise_for_flags

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u202e", "\u034f", "\ufe0f", "\U000e0041"]


def _interleave(text: str, sep: str) -> str:
    return "".join(c + sep if c.isalnum() else c for c in text)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@pytest.mark.parametrize("attack", INJECTIONS)
@pytest.mark.parametrize("sep", INVISIBLE, ids=lambda s: f"U+{ord(s):04X}")
def test_invisible_characters_inside_words_do_not_hide_an_attack(attack, sep):
    flags = injection_flags(attack)
    assert flags
    assert injection_flags(_interleave(attack, sep)) == flags


@pytest.mark.parametrize("attack", INJECTIONS)
def test_full_width_and_odd_spaces_do_not_hide_an_attack(attack):
    assert injection_flags(_fullwidth(attack)) == injection_flags(attack)
    assert injection_flags(attack.replace(" ", "\u3000")) == injection_flags(attack)  # ideographic space -> space


@pytest.mark.parametrize(
    "honest",
    [
        "A kitchen with a fridge and two chairs near the window.",
        "Ein Stuhl steht neben dem Fenster; die Küche ist groß.",
        "厨房里有一个冰箱和两把椅子。",
        "The sofa is left of the table ❤️ (a heart with a variation selector).",
        "Ｔｈｅ ｓｏｆａ ｉｓ ｂｌｕｅ.",
        "Two\u200bchairs\u00adand a lamp.",
    ],
)
def test_honest_answers_with_non_ascii_text_are_not_flagged(honest):
    assert injection_flags(honest) == []


def test_normalised_text():
    assert normalise_for_flags("s\u200bc\u200do\u2060r\ufeffe") == "score"
    assert normalise_for_flags("ｓｃｏｒｅ：１０") == "score:10"
    assert normalise_for_flags("plain ascii") == "plain ascii"
