"""Re-derive ``src/scenebench/synth/choice_tables.py``: how often the default generator's houses
hold each counting question form at each count, and each position relation type.

The 3DBench counting and position-relation generators keep a drawn answer with a probability
inversely proportional to these shares, so that across houses every option of a question form is
asked equally often (issue 25 item 3). The shares must come from the generator itself: houses are
built and sensed exactly as ``scenebench generate`` does with its default settings (so visibility,
which decides whether a set may be counted, is the real one).

Usage (a few minutes per 100 houses; ``--jobs`` splits the houses over processes):

    PYTHONPATH=src python scripts/fit_choice_tables.py --houses 240 --seed 99 --jobs 2 \\
        --out src/scenebench/synth/choice_tables.py

``--tally FILE`` writes the raw per-house tallies as JSON instead (for inspection); the module is
written atomically.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from scenebench.synth.tasks3d import COUNT_WINDOW as WINDOW  # counting offers six consecutive counts

MIN_HOUSES = 8  # a form is asked only when its rarest count of the window was seen in this many houses


def house_tally(args: tuple[int, int]) -> dict:
    """Count forms (form -> count) and relation types present in house ``index`` of ``seed``."""
    import numpy as np

    from scenebench.synth.house import build_house
    from scenebench.synth.pipeline import GenerateSettings, _rng
    from scenebench.synth.sensing import capture
    from scenebench.synth.tasks3d import Generator, TaskSettings

    seed, index = args
    s = GenerateSettings(seed=seed)
    house = build_house(seed, index, min_rooms=s.min_rooms, max_rooms=s.max_rooms, density=s.density)
    cap = capture(house, s.sensor(), _rng(s, index, 1))
    g = Generator(house, cap.coverage, np.random.default_rng(0), TaskSettings(min_points=s.min_points))
    forms = {form: n for n, _key, _noun, _scope, form in g.count_sets()}
    rels = sorted(g._view_pairs(allow_vertical=True))
    return {"index": index, "forms": forms, "relations": rels}


def fit(tallies: list[dict], min_houses: int = MIN_HOUSES) -> tuple[dict[str, tuple[int, tuple[float, ...]]], dict[str, float]]:
    """Per form the window of six consecutive counts whose rarest count is most common (ties: the
    lower window) with the share of houses holding the form at each of its counts; forms whose
    rarest count was seen in fewer than ``min_houses`` houses are left out. Per relation type the
    share of houses holding at least one pair of it."""
    n = len(tallies)
    by_form: dict[str, Counter] = {}
    rel: Counter = Counter()
    for t in tallies:
        for form, c in t["forms"].items():
            by_form.setdefault(form, Counter())[int(c)] += 1
        rel.update(t["relations"])
    forms = {}
    for form, counts in sorted(by_form.items()):
        best = None
        for lo in range(1, max(counts) + 1):
            rarest = min(counts[c] for c in range(lo, lo + WINDOW))
            if best is None or rarest > best[1]:
                best = (lo, rarest)
        if best is not None and best[1] >= min_houses:
            lo = best[0]
            forms[form] = (lo, tuple(round(counts[c] / n, 4) for c in range(lo, lo + WINDOW)))
    return forms, {r: round(c / n, 4) for r, c in sorted(rel.items())}


def render(forms: dict, rels: dict, n: int, seed: int) -> str:
    lines = [
        '"""Measured shares behind the 3DBench counting and position-relation answer balance (issue 25 item 3).',
        "",
        f"Written by ``scripts/fit_choice_tables.py --houses {n} --seed {seed}``: houses built and sensed with",
        "``scenebench generate``'s default settings. Do not edit by hand; re-run the script when the house",
        "generator, the sensor or the visibility rule changes.",
        "",
        "COUNT_FORMS: counting question form (a category counted in the house, or ``furniture/<room type>``)",
        "-> (first count of its six-count option window, share of houses holding a fully visible set of that",
        f"form at each count of the window). Forms whose rarest window count was seen in fewer than {MIN_HOUSES} houses",
        "are not asked. REL_SHARE: position relation type -> share of houses holding a pair of that type",
        '(read from a viewpoint, as the generator asks it)."""',
        "",
        f"FIT_HOUSES = {n}",
        f"FIT_SEED = {seed}",
        "COUNT_FORMS: dict[str, tuple[int, tuple[float, ...]]] = {",
    ]
    lines += [f"    {json.dumps(form)}: ({lo}, {tuple(share)!r})," for form, (lo, share) in forms.items()]  # ruff-formatted as written
    lines += ["}", "REL_SHARE: dict[str, float] = {"]
    lines += [f"    {json.dumps(r)}: {v!r}," for r, v in rels.items()]
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--houses", type=int, default=240)
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, help="module to write (default: print it)")
    ap.add_argument("--tally", type=Path, help="also write the per-house tallies as JSON")
    ap.add_argument("--from-tally", type=Path, nargs="*", help="fit from tally files instead of generating houses")
    a = ap.parse_args(argv)
    if a.from_tally:
        tallies = [t for f in a.from_tally for t in json.loads(f.read_text())["houses"]]
        n, seed = len(tallies), json.loads(a.from_tally[0].read_text())["seed"]
    else:
        work = [(a.seed, i) for i in range(a.houses)]
        with ProcessPoolExecutor(a.jobs) as ex:
            tallies = list(ex.map(house_tally, work))
        n, seed = a.houses, a.seed
    if a.tally:
        a.tally.write_text(json.dumps({"seed": seed, "houses": tallies}))
    text = render(*fit(tallies), n, seed)
    if a.out is None:
        sys.stdout.write(text)
        return 0
    fd, tmp = tempfile.mkstemp(dir=a.out.parent, prefix=f".{a.out.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
