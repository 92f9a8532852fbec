"""Fast paths of 3DBench parsing and record checking against their per-item reference versions
(the code they replaced), on many random and adversarial inputs: same values, same errors."""

import math
import random

import pytest

from scenebench.benchmarks.bench3d import parsing as P
from scenebench.benchmarks.bench3d import records as R
from scenebench.errors import InputError

PIECES = [
    "1",
    "-2",
    "+3.5",
    ".5",
    "5.",
    "1e3",
    "2E-2",
    "-0",
    "0.0",
    "1e400",
    "-1e400",
    "12345678901234567890",
    " m",
    "m",
    " cm",
    "cm",
    "mm",
    " metres",
    "meters",
    "centimetre",
    "millimeters",
    "米",
    "厘米",
    "毫米",
    "mx",
    " cmd",
    ",",
    ", ",
    " ",
    "[",
    "]",
    "(",
    ")",
    "a",
    "x1",
    "1.2.3",
    "e5",
    "-",
    "+",
    ".",
    "\n",
    "，",
    "（",
    "）",
    "【",
    "】",
    "−",
    "Chair",
    "dining table",
    "_",
    "coffee-table",
]


def random_text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))


def strict_numbers_reference(text):
    out = []
    for m in P._NUMBER.finditer(text):
        v = float(m.group(1))
        if m.group(2):
            v *= P._UNIT[m.group(2).lower()]
        out.append(v)
    return out


def same_floats(a, b):
    return len(a) == len(b) and all((x == y and math.copysign(1, x) == math.copysign(1, y)) or (x != x and y != y) for x, y in zip(a, b))


def test_strict_numbers_matches_the_per_match_reference():
    rng = random.Random(18)
    for _ in range(20000):
        t = random_text(rng)
        assert same_floats(P.strict_numbers(t), strict_numbers_reference(t)), t
        n = P.normalize_text(t)
        assert same_floats(P.strict_numbers(n), strict_numbers_reference(n)), n


def test_group_spans_match_the_reference():
    rng = random.Random(7)
    for _ in range(5000):
        t = P.normalize_text(random_text(rng))
        ref = []
        for m in P._GROUP.finditer(t):
            nums = strict_numbers_reference(m.group(1) if m.group(1) is not None else m.group(2))
            if nums:
                ref.append((nums, m.start(), m.end()))
        got = P.strict_group_spans(t)
        assert [(s.start, s.end) for s in got] == [(s, e) for _, s, e in ref]
        assert all(same_floats(s.values, v) for s, (v, _, _) in zip(got, ref))


def numbers_reference(value, n):
    """The checks of ``_numbers`` before the fast path: (floats) or the error message."""
    ctx = R._Ctx("f.json", 3, {"question_id": "q"})
    if not isinstance(value, (list, tuple)) or (n is not None and len(value) != n) or not all(R._num(v) for v in value):
        got = f"{type(value).__name__} of length {len(value)}" if isinstance(value, (list, tuple)) else type(value).__name__
        return str(
            ctx.fail(
                f"got {got}" if not isinstance(value, (list, tuple)) or (n is not None and len(value) != n) else "holds a non-number",
                "box",
                "six",
            )
        )
    return [float(v) for v in value]


VALUES = [0, 1, -1, 0.5, -0.0, 1e308, -1e308, 10**400, -(10**400), True, False, None, "1", math.nan, math.inf, -math.inf, 2**53 + 1, [1]]


@pytest.mark.parametrize("n", [None, 2, 6])
def test_numbers_fast_path_matches_the_reference(n):
    rng = random.Random(n or 0)
    ctx = R._Ctx("f.json", 3, {"question_id": "q"})
    cases = [None, "x", 3, (1, 2), (1.0,) * 6, [], {"a": 1}]
    cases += [[rng.choice(VALUES) for _ in range(rng.choice([0, 1, 2, 3, 6, 7]))] for _ in range(5000)]
    cases += [[rng.uniform(-1e3, 1e3) for _ in range(k)] for k in (2, 6) for _ in range(200)]
    for v in cases:
        ref = numbers_reference(v, n)
        try:
            got = R._numbers(ctx, v, n, "box", "six")
        except InputError as exc:
            got = str(exc)
        assert type(got) is type(ref) and (got == ref if isinstance(ref, str) else same_floats(got, ref)), v


def test_record_errors_still_name_the_record():
    with pytest.raises(InputError, match=r"record 4 \(question_id 'q9'\).*bbox"):
        R.validate_record(
            "visual_grounding_plus", {"question_id": "q9", "id": "1", "pcl": "p", "query": "q", "bbox": [1, 2, math.nan, 1, 1, 1]}, index=4
        )
    with pytest.raises(InputError, match=r"record 2 \(derived id 'row2'\)"):
        R.validate_record("visual_grounding_plus", {"id": "1", "pcl": "p", "query": "q", "bbox": [1, 2]}, index=2)
