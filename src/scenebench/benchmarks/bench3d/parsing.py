"""The one place where 3DBench free-text answers become numbers, boxes, waypoints and options.

Two protocols (``docs/protocols.md`` (3DBench), metric card ``docs/metrics/bench3d_parsing.md``):

``official`` reproduces the released LAMM/3DBench parser (``parse_num`` + ``parse_bbox_3d``):

1. numbers are read from every ``[...]`` group first, then from every ``(...)`` group (so bracket
   numbers always come before parenthesis numbers, whatever their order in the text);
2. inside a group, characters are accumulated until ``,``, a space or the closing bracket; the
   accumulated text becomes a number only if ``float()`` accepts it, and it is *not reset* when it
   does not: a label such as ``chair:`` inside a group swallows every later number of the answer;
   newlines and tabs are not separators; an unclosed group's last token is never read;
3. the list is cut to a multiple of 6 (boxes) or 2 (waypoints); if nothing is left, the fallback
   regex ``[0-9]+\\.?[0-9]*`` runs over the whole text, which drops minus signs and exponents;
4. consecutive chunks of 6 (or 2) numbers are the boxes (or waypoints).

``strict`` reads what a reader would: signed numbers (``-1.5``, ``+2``, ``1e-3``, Unicode minus),
units (``m``, ``cm``, ``mm``; converted to metres), Chinese punctuation (，。：（）【】), boxes as
bracketed groups of exactly six numbers (labels inside a group are ignored), a centre group and a
size group of three numbers each, lists of boxes, and only when no group fits, all numbers of the
text when their count is an exact multiple — never a silent truncation.

Options: letter patterns (``The answer is (B)``, ``ANSWER: B``, ``option B``, ``(B)``, a bare
``B``), option text (whole words in ``strict``), and for counting a single number or number word.
Every function is pure and returns ``None`` (or an empty list) when nothing can be read; the caller
counts that as an unparseable answer, never a guess.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from scenebench.io.numbers import whole_number, within_bounds
from scenebench.protocol import Protocol

# ---------------------------------------------------------------------------------------------
# official: the released parser, reproduced

_OFFICIAL_FALLBACK = re.compile(r"[0-9]+\.?[0-9]*")
_OFFICIAL_SEP = re.compile(r"[, ]")


def _is_number(s: str) -> bool:
    # The released ``is_number`` is ``float(s)`` in a try block: it accepts "nan", "inf", "1e3", "1_0".
    try:
        float(s)
    except ValueError:
        return False
    return True


_OFFICIAL_GROUP = {
    (o, c): re.compile(re.escape(o) + "([^" + re.escape(c) + "]*)(" + re.escape(c) + r"|\Z)") for o, c in (("[", "]"), ("(", ")"))
}


def official_group_numbers(text: str, open_ch: str, close_ch: str) -> list[float]:
    """Numbers the released ``parse_num(num_list, open_ch, close_ch, text)`` reads, in order.

    Equivalent to its character loop: the characters inside groups form one stream in which the
    closing bracket acts like a separator and a nested opening bracket is dropped; tokens between
    separators are appended to a carry that is emptied only when it parses as a number. An
    unclosed last group is read to the end, but its last token never meets a separator.
    """
    if open_ch not in text:
        return []
    pat = _OFFICIAL_GROUP.get((open_ch, close_ch)) or re.compile(
        re.escape(open_ch) + "([^" + re.escape(close_ch) + "]*)(" + re.escape(close_ch) + r"|\Z)"
    )
    parts: list[str] = []
    unclosed = False
    for m in pat.finditer(text):
        parts.append(m.group(1).replace(open_ch, ""))
        unclosed = not m.group(2)
        parts.append("" if unclosed else ",")
    tokens = _OFFICIAL_SEP.split("".join(parts))
    if unclosed:
        tokens = tokens[:-1]  # the loop ends before the last token meets a separator
    out: list[float] = []
    carry = ""
    for tok in tokens:
        if not tok:
            continue
        carry += tok
        try:
            out.append(float(carry))
        except ValueError:
            continue
        carry = ""
    return out


def official_numbers(text: str, multiple: int) -> list[float]:
    """The released number list: bracket groups, then parenthesis groups, cut to ``multiple``; else fallback."""
    nums = official_group_numbers(text, "[", "]") + official_group_numbers(text, "(", ")")
    nums = nums[: (len(nums) // multiple) * multiple]
    if not nums:
        nums = [float(s) for s in _OFFICIAL_FALLBACK.findall(text)]
        nums = nums[: (len(nums) // multiple) * multiple]
    return nums


def _chunks(nums: list[float], k: int) -> list[list[float]]:
    return [nums[i : i + k] for i in range(0, len(nums) - k + 1, k)]


# ---------------------------------------------------------------------------------------------
# strict: signed numbers, units, Chinese punctuation, groups

_PUNCT = str.maketrans(
    {
        "，": ",",
        "。": ".",
        "：": ":",
        "（": "(",
        "）": ")",
        "【": "[",
        "】": "]",
        "；": ";",
        "、": ",",
        "－": "-",
        "−": "-",
        "＋": "+",
        "［": "[",
        "］": "]",
        "\u3000": " ",
    }
)
_UNIT = {
    "m": 1.0,
    "meter": 1.0,
    "meters": 1.0,
    "metre": 1.0,
    "metres": 1.0,
    "cm": 0.01,
    "centimeter": 0.01,
    "centimeters": 0.01,
    "centimetre": 0.01,
    "centimetres": 0.01,
    "mm": 0.001,
    "millimeter": 0.001,
    "millimeters": 0.001,
    "millimetre": 0.001,
    "millimetres": 0.001,
    "米": 1.0,
    "厘米": 0.01,
    "毫米": 0.001,
}
_NUMBER_ALONE = r"(?<![\w.])([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"  # (every unit holds "m" or "米")
_NUMBER = re.compile(_NUMBER_ALONE + r"(?:\s?(centimet(?:er|re)s?|millimet(?:er|re)s?|met(?:er|re)s?|cm|mm|m|厘米|毫米|米)(?![A-Za-z]))?")
_GROUP = re.compile(r"\[([^\[\]()]*)\]|\(([^\[\]()]*)\)")


def normalize_text(text: str) -> str:
    """Chinese and full-width punctuation to ASCII, Unicode minus to '-'. Version: ``norm-1``."""
    return text if text.isascii() else text.translate(_PUNCT)


def strict_numbers(text: str) -> list[float]:
    """Every number in ``text`` with its sign, in metres when a length unit follows it."""
    # one findall (no match objects); ``float(n) * unit`` is what multiplying in place gave
    return [float(n) * _UNIT[u.lower()] if u else float(n) for n, u in _NUMBER.findall(text)]


def strict_groups(text: str) -> list[list[float]]:
    """Numbers of each innermost ``[...]`` / ``(...)`` group, in text order (groups without numbers skipped)."""
    groups = []
    for m in _GROUP.finditer(text):
        nums = strict_numbers(m.group(1) if m.group(1) is not None else m.group(2))
        if nums:
            groups.append(nums)
    return groups


class Span(NamedTuple):
    """A parsed group and where it sits in the (normalised) text, for label lookup."""

    values: list[float]
    start: int
    end: int


def strict_group_spans(text: str) -> list[Span]:
    spans = []
    for m in _GROUP.finditer(text):
        a, b = m.groups()
        nums = strict_numbers(a if a is not None else b)
        if nums:
            spans.append(Span(nums, m.start(), m.end()))
    return spans


# ---------------------------------------------------------------------------------------------
# boxes, points, waypoints


def parse_boxes(text: str, protocol: Protocol = "strict") -> list[list[float]]:
    """Boxes ``[cx, cy, cz, dx, dy, dz]`` (or room order, as written) read from an answer."""
    return [s.values for s in parse_box_spans(text, protocol)]


def parse_box_spans(text: str, protocol: Protocol = "strict") -> list[Span]:
    """Boxes with their positions in the text (official boxes carry no position: start = end = -1).

    ``strict``: a box with a value beyond ``io.numbers.MAX_MAGNITUDE`` (or not finite) makes the
    answer unreadable (``official`` keeps the released unbounded ``float()``)."""
    if protocol == "official":
        return [Span(b, -1, -1) for b in _chunks(official_numbers(text, 6), 6)]
    spans = _strict_box_spans(text)
    return spans if all(within_bounds(s.values) for s in spans) else []


def _strict_box_spans(text: str) -> list[Span]:
    t = normalize_text(text)
    spans = strict_group_spans(t)
    boxes = [s for s in spans if len(s.values) == 6]
    if boxes:
        return boxes
    triples = [s for s in spans if len(s.values) == 3]
    if triples and len(triples) % 2 == 0:  # "centre (x, y, z), size (l, w, h)"
        return [Span(a.values + b.values, a.start, b.end) for a, b in zip(triples[0::2], triples[1::2])]
    multi = [s for s in spans if len(s.values) % 6 == 0]
    if multi:  # "[x1, ..., h1, x2, ..., h2]" in one group
        return [Span(c, s.start, s.end) for s in multi for c in _chunks(s.values, 6)]
    if not spans:
        nums = strict_numbers(t)
        if nums and len(nums) % 6 == 0:
            return [Span(c, -1, -1) for c in _chunks(nums, 6)]
    return []


def parse_point(text: str, protocol: Protocol = "strict") -> list[float] | None:
    """A 3D point ``[x, y, z]`` (visual grounding plus: the object's centre)."""
    if protocol == "official":
        nums = official_numbers(text, 3)
        return nums[:3] if nums else None
    point = _strict_point(text)
    return point if point is None or within_bounds(point) else None


def _strict_point(text: str) -> list[float] | None:
    t = normalize_text(text)
    spans = strict_group_spans(t)
    for s in spans:
        if len(s.values) == 3:
            return s.values
    for s in spans:
        if len(s.values) == 6:  # a whole box: its centre
            return s.values[:3]
    if not spans:
        nums = strict_numbers(t)
        if len(nums) == 3:
            return nums
    return None


def parse_waypoints(text: str, protocol: Protocol = "strict") -> list[list[float]]:
    """Waypoints ``[x, z]`` of a navigation answer.

    ``strict``: groups of two numbers; a group of three is read as ``(x, y, z)`` and its ``y``
    (height) dropped; a single group holding pairs is split; with no groups, all numbers if even.
    """
    if protocol == "official":
        return _chunks(official_numbers(text, 2), 2)
    pts = _strict_waypoints(text)
    return pts if all(within_bounds(p) for p in pts) else []


def _strict_waypoints(text: str) -> list[list[float]]:
    t = normalize_text(text)
    spans = strict_group_spans(t)
    pts: list[list[float]] = []
    for s in spans:
        if len(s.values) == 2:
            pts.append(s.values)
        elif len(s.values) == 3:
            pts.append([s.values[0], s.values[2]])
    if pts:
        return pts
    for s in spans:
        if len(s.values) % 2 == 0:
            pts.extend(_chunks(s.values, 2))
    if pts or spans:
        return pts
    nums = strict_numbers(t)
    return _chunks(nums, 2) if nums and len(nums) % 2 == 0 else []


# ---------------------------------------------------------------------------------------------
# options, numbers and number words

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
NUMBER_WORDS = {
    "zero": 0,
    "no": 0,
    "none": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "a single": 1,
    "a pair of": 2,
}
_WORDS_RE = re.compile(
    r"(?<![a-z])("
    + "|".join(sorted((re.escape(w) for w in NUMBER_WORDS if w not in ("no", "none")), key=len, reverse=True))
    + r")(?![a-z])"
)
_FINAL = re.compile(
    r"(?:answer|option|choice|选项|答案)\s*(?:is|:|=|-|是|为)?\s*(?:option|choice)?\s*[:\s]*\(?\s*([A-Z])\s*\)?(?![A-Za-z])", re.IGNORECASE
)
_PAREN = re.compile(r"\(([A-Z])\)")
_LEAD = re.compile(r"^\s*\(?([A-Z])(?:[.):,]|\s*$|\s+[-–:])")


def parse_letter(text: str, n_options: int) -> int | None:
    """Index of the option letter the answer names, or None (no letter, or conflicting letters).

    Order: the last ``answer is (B)`` / ``ANSWER: B`` / ``option B`` / ``选项B``; else ``(B)``
    occurrences if they all agree; else a leading ``B.``/``B)``/bare ``B``. Letters beyond the
    option count are ignored.
    """
    t = normalize_text(text)
    valid = LETTERS[:n_options]
    finals = [m.group(1).upper() for m in _FINAL.finditer(t) if m.group(1).upper() in valid and m.group(1).isupper()]
    if finals:
        return valid.index(finals[-1])
    paren = {m.group(1) for m in _PAREN.finditer(t) if m.group(1) in valid}
    if len(paren) == 1:
        return valid.index(paren.pop())
    if len(paren) > 1:
        return None
    m = _LEAD.match(t)
    if m and m.group(1) in valid:
        return valid.index(m.group(1))
    return None


_NON_WORD = re.compile(r"[^0-9a-z\u4e00-\u9fff]+")
_COUNT_FINAL = re.compile(r"answer\s*(?:is|:|=)?\s*(\d+|" + "|".join(w for w in NUMBER_WORDS if " " not in w) + r")\b")
_COUNT_DIGITS = re.compile(r"(?<![\w.])\d+(?:\.0+)?(?![\w.]|\.\d)")
_COUNT_NONE = re.compile(r"\bthere (?:are|is) no\b|\bnone\b")


def _norm_words(s: str) -> str:
    return " " + _NON_WORD.sub(" ", normalize_text(s).lower()).strip() + " "


@lru_cache(maxsize=4096)
def _norm_option(s: str) -> str:
    """:func:`_norm_words` of an option text (a small vocabulary, seen again in every record)."""
    return _norm_words(s)


def parse_option_text(text: str, options: list[str], protocol: Protocol = "strict") -> int | None:
    """Index of the single option whose text the answer contains, or None (none or several).

    ``official``: case-insensitive substring ("cup" is found in "cupboard"); ``strict``: whole words
    after lower-casing and turning punctuation into spaces. When several options match, one that
    contains all the others (``"coffee table"`` vs ``"table"``) wins in ``strict``; else the text
    after the last word "answer" decides.
    """
    if protocol == "official":
        low = text.lower()
        hits = [i for i, o in enumerate(options) if o.lower() in low]
        return hits[0] if len(hits) == 1 else None
    t = _norm_words(text)
    norm = [_norm_option(o) for o in options]
    hits = [i for i, o in enumerate(norm) if o.strip() and o in t]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        longest = [i for i in hits if all(norm[j] in norm[i] for j in hits)]
        if len(longest) == 1:
            return longest[0]
        # an answer that lists the options first and concludes "the answer is ...": read the conclusion
        cut = t.rfind(" answer ")
        if cut >= 0:
            return parse_option_text(t[cut + len(" answer ") :], options, "strict")
    return None


def parse_count(text: str) -> int | None:
    """The one whole number an answer gives (digits or a number word), or None when zero or several
    differ or one has more than ``io.numbers.MAX_INT_DIGITS`` digits.

    A final ``answer is 3`` wins over other numbers in the text.
    """
    t = normalize_text(text).lower()
    final = _COUNT_FINAL.findall(t)
    if final:  # a number of more than 18 digits is no count: the answer is unreadable (at both protocols)
        v = final[-1]
        return whole_number(v) if v[0].isdigit() else NUMBER_WORDS[v]
    read = [whole_number(n) for n in _COUNT_DIGITS.findall(t)]
    if None in read:
        return None
    values: set[int] = set(read)  # type: ignore[arg-type]
    values |= {NUMBER_WORDS[w] for w in _WORDS_RE.findall(t)}
    if _COUNT_NONE.search(t):
        values.add(0)
    return values.pop() if len(values) == 1 else None


# ---------------------------------------------------------------------------------------------
# official multiple-choice rules (correctness tests, not extractors: that is how the script works)

_OFF_ANSWER_IS = re.compile(r"The answer is \(?[A-F]\)?\W|the answer is \(?[A-F]\)?\W")
_OFF_ANSWER_COLON = re.compile(r"ANSWER: [A-F]")
_OFF_PAREN = re.compile(r"\([A-F]\)")
_OFF_NUM = re.compile(r"\d+(?:\.\d+)?")
_OFF_WORDS = {str(v): w for w, v in NUMBER_WORDS.items() if w not in ("no", "none", "a single", "a pair of")}


def official_text_correct(text: str, choices: list[str], gt: int) -> bool:
    """Released ``check_text``: the right option is a case-insensitive substring and no other option is."""
    low = text.lower()
    if choices[gt].lower() not in low:
        return False
    return not any(c.lower() in low for i, c in enumerate(choices) if i != gt)


def official_counting_correct(text: str, choices: list[str], gt: int) -> bool:
    """Released ``Counting``: the first rule that fires decides (letters A–F, then numbers, then text).

    1. ``The answer is (X)`` matches: right iff every match contains the right letter;
    2. else ``ANSWER: X``: the first match's letter; 3. else ``(X)``: every match;
    4. else exactly one number in the text equal to the right count;
    5. else the right count (digits or its English word, 0–20) is a substring and no other option's
       digits are (so "12" also "contains" the option "1").
    """
    letter = "ABCDEF"[gt] if gt < 6 else "?"
    r1 = _OFF_ANSWER_IS.findall(text)
    if r1:
        return all(letter in r for r in r1)
    r2 = _OFF_ANSWER_COLON.findall(text)
    if r2:
        return r2[0][-1] == letter
    r3 = _OFF_PAREN.findall(text)
    if r3:
        return all(letter in r for r in r3)
    nums = _OFF_NUM.findall(text)
    answer = str(choices[gt])
    if len(nums) == 1 and nums[0] == answer:
        return True
    low = text.lower()
    word = _OFF_WORDS.get(answer)  # the script raises KeyError beyond twenty; scenebench treats it as no word
    if answer not in low and (word is None or word not in low):
        return False
    return not any(str(c) in low for i, c in enumerate(choices) if i != gt)
