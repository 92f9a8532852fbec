"""Bounds for numbers read from free text (model answers): an answer is a failure, never a crash.

Python's ``int("9" * 5000)`` raises ``ValueError`` (the 4,300-digit conversion limit) and
``int(float("9" * 400))`` raises ``OverflowError``; a 1e308 coordinate turns every distance into
``inf``. Parsers read numbers through these helpers: a whole number of more than
:data:`MAX_INT_DIGITS` significant digits is no number, and a strict coordinate beyond
:data:`MAX_MAGNITUDE` (or not finite) makes the answer unreadable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

MAX_INT_DIGITS = 18  # every such integer fits an int64 (and no count or index has more)
MAX_MAGNITUDE = 1e9  # metres (or any unit a strict answer gives): far beyond any scene


def whole_number(digits: str) -> int | None:
    """The integer of a run of ASCII digits (a ``.000`` tail allowed), or None beyond ``MAX_INT_DIGITS`` digits."""
    head, _, tail = digits.partition(".")
    if not head.isdigit() or not head.isascii() or (tail and tail.strip("0")):
        return None
    significant = head.lstrip("0")
    if len(significant) > MAX_INT_DIGITS:
        return None
    return int(significant or "0")


def within_bounds(values: Iterable[float], limit: float = MAX_MAGNITUDE) -> bool:
    """True when every value is finite and ``|v| <= limit`` (a NaN is out of bounds)."""
    return all(math.isfinite(v) and abs(v) <= limit for v in values)


__all__ = ["MAX_INT_DIGITS", "MAX_MAGNITUDE", "whole_number", "within_bounds"]
