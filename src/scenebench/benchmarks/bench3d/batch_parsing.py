"""The ``strict`` readers of :mod:`.parsing` over many answers at once, as flat numpy columns.

Per answer, reading boxes cost a regex call per bracketed group, a list per group and a
:class:`~.parsing.Span` per box (~25 µs an answer); here every answer of a batch is read by two
regex passes in all: the groups of all answers joined into one text, then the numbers of all
groups joined into another. The rules that pick boxes, points or waypoints among the groups are
the ones of :func:`.parsing.parse_box_spans`, :func:`.parsing.parse_point` and
:func:`.parsing.parse_waypoints`, written on the columns; tests compare every result with those
functions, bit for bit (``tests/bench3d/test_batch_parsing.py``).

Why joining changes nothing:

- answers are joined with ``"[)"``: a group cannot contain a bracket, so no group runs from one
  answer into the next, an unclosed group at an answer's end stays unclosed, and ``"[)"`` itself
  is no group (``[`` is closed by ``]`` only);
- group contents are joined with ``"]"``, the character that follows every ``[...]`` content in
  its answer (and, like ``)``, is no letter, digit, dot, sign or space): each number sees the
  same characters around it as when its group is read alone. ``"]"`` cannot occur inside a
  content, so a match of it is a boundary between two groups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from scenebench.benchmarks.bench3d.parsing import _GROUP, _NUMBER, _NUMBER_ALONE, _UNIT, normalize_text, strict_numbers

_JOIN_ANSWERS = "[)"
_JOIN_GROUPS = "]"
_NUMBER_OR_BOUNDARY = re.compile(r"(\])|" + _NUMBER.pattern)
# the same without units, one group: a boundary gives "" and a number its text
_NUMBER_OR_BOUNDARY_BARE = re.compile(r"\]|" + _NUMBER_ALONE)


@dataclass
class GroupTable:
    """The groups holding at least one number (``strict_group_spans`` of every answer), in order.

    ``nums[lo[g] : lo[g] + count[g]]`` are the numbers of group ``g`` (metres), ``owner[g]`` its
    answer, ``start[g]`` / ``end[g]`` its offsets in that answer's normalised text.
    """

    n_texts: int
    nums: np.ndarray
    owner: np.ndarray
    start: np.ndarray
    end: np.ndarray
    lo: np.ndarray
    count: np.ndarray
    texts: list[str]  # the normalised answers

    def groups_per_text(self) -> np.ndarray:
        return np.bincount(self.owner, minlength=self.n_texts)


def _ints(values: list[int]) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64, count=len(values))


def _per_text(owner: np.ndarray, flags: np.ndarray, n: int) -> np.ndarray:
    """How many of each text's groups have ``flags``."""
    return np.bincount(owner[flags], minlength=n)


def strict_group_table(answers: list[str]) -> GroupTable:
    """:func:`.parsing.strict_group_spans` of every answer (normalised here), as one table."""
    texts = [normalize_text(t) for t in answers]
    n = len(texts)
    pieces = _GROUP.split(_JOIN_ANSWERS.join(texts))  # outside, [content], (content), outside, ...
    contents = [b if b is not None else p for b, p in zip(pieces[1::3], pieces[2::3])]
    n_groups = len(contents)
    # offsets: lens alternates outside text, whole group (content and its two brackets)
    lens = np.empty(2 * n_groups + 1, dtype=np.int64)
    lens[0::2] = _ints(list(map(len, pieces[0::3])))
    lens[1::2] = _ints(list(map(len, contents))) + 2
    ends = np.cumsum(lens)
    g_start, g_end = ends[0:-1:2], ends[1::2]
    text_len = _ints(list(map(len, texts)))
    base = np.cumsum(text_len + len(_JOIN_ANSWERS)) - (text_len + len(_JOIN_ANSWERS))
    owner = np.searchsorted(base, g_start, side="right") - 1

    joined = _JOIN_GROUPS.join(contents)
    if "m" in joined or "米" in joined:  # every unit holds one of them
        toks = _NUMBER_OR_BOUNDARY.findall(joined)  # (boundary, number, unit)
        num_s = [t[1] for t in toks]
        units = [t[2] for t in toks if t[1]]
    else:  # no unit can follow a number: the matches alone (strings, no tuples), "" for a boundary
        num_s = _NUMBER_OR_BOUNDARY_BARE.findall(joined)
        units = []
    is_num = _ints(list(map(len, num_s))) > 0
    nums = np.fromiter(map(float, filter(None, num_s)), dtype=float)
    with_unit = [i for i, u in enumerate(units) if u]
    if with_unit:  # ``float(n) * unit``: the same multiplication in numpy
        nums[with_unit] = nums[with_unit] * np.array([_UNIT[units[i].lower()] for i in with_unit])
    # group g's tokens lie between boundaries g - 1 and g
    bounds = np.concatenate(([-1], np.flatnonzero(~is_num), [len(num_s)])) if n_groups else np.zeros(1, dtype=np.int64)
    count = np.diff(bounds) - 1
    lo = bounds[:-1] + 1 - np.arange(n_groups)
    keep = count > 0
    return GroupTable(
        n,
        nums,
        owner[keep],
        (g_start - base[owner])[keep],
        (g_end - base[owner])[keep],
        lo[keep],
        count[keep],
        texts,
    )


@dataclass
class Boxes:
    """Boxes of many answers (:func:`.parsing.parse_box_spans`, strict): ``values[b]`` is box ``b``,
    ``owner[b]`` its answer, ``start[b]`` / ``end[b]`` its span (-1 when read from the whole text)."""

    owner: np.ndarray
    start: np.ndarray
    end: np.ndarray
    values: np.ndarray  # (boxes, 6)
    texts: list[str]  # the normalised answers (offsets refer to them)

    def per_answer(self, n: int) -> np.ndarray:
        return np.bincount(self.owner, minlength=n)


def box_spans_many(answers: list[str]) -> Boxes:
    """:func:`.parsing.parse_box_spans` (strict) of every answer, boxes in answer then text order.

    The answer's rule decides among its groups: groups of six numbers if any; else pairs of
    consecutive three-number groups (centre, size) when there is an even, non-zero number of
    them; else the groups whose count is a multiple of six, each cut into boxes; else, when no
    group holds a number, all the answer's numbers if their count is a multiple of six.
    """
    tab = strict_group_table(answers)
    n, own, cnt = tab.n_texts, tab.owner, tab.count
    six = _per_text(own, cnt == 6, n) > 0
    threes = _per_text(own, cnt == 3, n)
    pairs = ~six & (threes > 0) & (threes % 2 == 0)
    multi = ~six & ~pairs & (_per_text(own, cnt % 6 == 0, n) > 0)
    whole = tab.groups_per_text() == 0
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # owner, start, end, number index (k, 6)
    g = np.flatnonzero(six[own] & (cnt == 6))
    parts.append((own[g], tab.start[g], tab.end[g], tab.lo[g, None] + np.arange(6)))
    g = np.flatnonzero(pairs[own] & (cnt == 3))
    a, b = g[0::2], g[1::2]  # an answer's triples are even in number: pairs never straddle answers
    parts.append(
        (own[a], tab.start[a], tab.end[b], np.concatenate([tab.lo[a, None] + np.arange(3), tab.lo[b, None] + np.arange(3)], axis=1))
    )
    g = np.flatnonzero(multi[own] & (cnt % 6 == 0))
    reps = cnt[g] // 6
    j = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)  # box j of its group
    g = np.repeat(g, reps)
    parts.append((own[g], tab.start[g], tab.end[g], tab.lo[g, None] + 6 * j[:, None] + np.arange(6)))
    owner = np.concatenate([p[0] for p in parts])
    start = np.concatenate([p[1] for p in parts])
    end = np.concatenate([p[2] for p in parts])
    values = tab.nums[np.concatenate([p[3] for p in parts]).reshape(-1, 6)] if len(owner) else np.zeros((0, 6))
    # answers without groups: all their numbers, when a multiple of six
    w_owner: list[int] = []
    w_values: list[float] = []
    for k in np.flatnonzero(whole).tolist():
        nums = strict_numbers(tab.texts[k])
        if nums and len(nums) % 6 == 0:
            w_owner.extend([k] * (len(nums) // 6))
            w_values.extend(nums)
    if w_owner:
        owner = np.concatenate([owner, _ints(w_owner)])
        start = np.concatenate([start, np.full(len(w_owner), -1)])
        end = np.concatenate([end, np.full(len(w_owner), -1)])
        values = np.concatenate([values, np.array(w_values, dtype=float).reshape(-1, 6)])
    order = np.argsort(owner, kind="stable")  # each answer uses one rule, whose boxes are in text order
    return Boxes(owner[order], start[order], end[order], values[order], tab.texts)


def _first_per_text(owner: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """For each text, the first of ``rows`` (indices into ``owner``, ascending) it owns, or -1."""
    out = np.full(n, -1, dtype=np.int64)
    texts, first = np.unique(owner[rows], return_index=True)
    out[texts] = rows[first]
    return out


def points_many(answers: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.parsing.parse_point` (strict) of every answer: (found (n,) bool, points (n, 3)).

    The first group of three numbers; else the centre of the first group of six; else, when no
    group holds a number, all the answer's numbers if there are exactly three.
    """
    tab = strict_group_table(answers)
    n, own, cnt = tab.n_texts, tab.owner, tab.count
    rows = np.arange(len(own))
    g3 = _first_per_text(own, rows[cnt == 3], n)
    g6 = _first_per_text(own, rows[cnt == 6], n)
    g = np.where(g3 >= 0, g3, g6)
    found = g >= 0
    points = np.zeros((n, 3))
    points[found] = tab.nums[tab.lo[g[found], None] + np.arange(3)]
    for k in np.flatnonzero(tab.groups_per_text() == 0).tolist():
        nums = strict_numbers(tab.texts[k])
        if len(nums) == 3:
            found[k] = True
            points[k] = nums
    return found, points


def waypoints_many(answers: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.parsing.parse_waypoints` (strict) of every answer: (owner (w,), waypoints (w, 2)),
    in answer then text order.

    Groups of two numbers, and groups of three read as ``(x, y, z)`` without ``y``, if any; else the
    groups of an even count cut into pairs; else, when no group holds a number, all the answer's
    numbers cut into pairs if their count is even.
    """
    tab = strict_group_table(answers)
    n, own, cnt = tab.n_texts, tab.owner, tab.count
    small = (cnt == 2) | (cnt == 3)
    has_small = _per_text(own, small, n) > 0
    g = np.flatnonzero(has_small[own] & small)
    parts = [(own[g], tab.lo[g, None] + np.where(cnt[g] == 3, 2, 1)[:, None] * np.arange(2))]
    g = np.flatnonzero(~has_small[own] & (cnt % 2 == 0))
    reps = cnt[g] // 2
    j = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)  # pair j of its group
    g = np.repeat(g, reps)
    parts.append((own[g], tab.lo[g, None] + 2 * j[:, None] + np.arange(2)))
    owner = np.concatenate([p[0] for p in parts])
    values = tab.nums[np.concatenate([p[1] for p in parts]).reshape(-1, 2)] if len(owner) else np.zeros((0, 2))
    w_owner: list[int] = []
    w_values: list[float] = []
    for k in np.flatnonzero(tab.groups_per_text() == 0).tolist():
        nums = strict_numbers(tab.texts[k])
        if nums and len(nums) % 2 == 0:
            w_owner.extend([k] * (len(nums) // 2))
            w_values.extend(nums)
    if w_owner:
        owner = np.concatenate([owner, _ints(w_owner)])
        values = np.concatenate([values, np.array(w_values, dtype=float).reshape(-1, 2)])
    order = np.argsort(owner, kind="stable")
    return owner[order], values[order]
