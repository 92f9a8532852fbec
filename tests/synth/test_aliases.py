"""Category aliases widen the questions' wording (issue 42 item 5) without making them ambiguous
or letting a query name its target."""

from __future__ import annotations

from collections import Counter

import numpy as np

from scenebench.synth.categories import ALIASES, CATEGORIES, spoken_names
from scenebench.synth.surprise import leaks_name, say_as


def test_every_spoken_name_names_one_category():
    names = Counter(n.lower() for c in CATEGORIES for n in spoken_names(c))
    assert not [n for n, k in names.items() if k > 1]
    assert set(ALIASES) <= set(CATEGORIES)
    assert spoken_names("sofa") == ("sofa", "couch", "settee")
    assert spoken_names("apple") == ("apple",)


def test_an_alias_names_its_target_for_the_leak_check():
    assert leaks_name("Which object is next to the couch?", "sofa")
    assert leaks_name("What lies on the chest of drawers?", "dresser")
    assert leaks_name("Segment the thing by the TV set.", "television")
    # "set" alone (in "set the table", "TV set") is no name of the shelving unit ("set of shelves")
    assert not leaks_name("I want to set the table.", "shelvingunit")


def test_say_as_swaps_the_display_name_only():
    assert say_as("blue sofa in the living room", "sofa", "couch") == "blue couch in the living room"
    assert say_as("pillow on the bed", "bed", "bed") == "pillow on the bed"
    assert say_as("TV stand", "tvstand", "media unit") == "media unit"
    # a whole-word match: the bed's name inside "bedroom" is left alone
    assert say_as("bed in the bedroom", "bed", "cot") == "cot in the bedroom"


def test_counting_and_navigation_questions_use_aliases():
    """Counting and navigation name their category by one of its spoken names (answers keep the display name)."""
    from scenebench.synth.house import build_house
    from scenebench.synth.sensing import SensorSettings, capture
    from scenebench.synth.tasks3d import FURNITURE_NAMES, TaskSettings, house_tasks

    seen = set()
    for i in range(3):
        h = build_house(5, i, max_rooms=4)
        cap = capture(h, SensorSettings(width=64, height=48), np.random.default_rng([5, i, 1]))
        out = house_tasks(h, cap.coverage, np.random.default_rng([5, i, 2]), TaskSettings(), test=False)
        for rec in out.records["Counting"] + out.records["Navigation"]:
            if "object" not in rec:  # navigation: its target
                rec = {**rec, "object": rec["target"]}
            q = rec["query"].lower()
            names = FURNITURE_NAMES if rec["object"] == "furniture" else spoken_names(rec["object"])
            hits = [n for n in names if n.lower().split()[0] in q]
            assert hits, q
            seen |= {n for n in hits if n not in (names[0],)}
    assert seen  # some question used a name other than the display name
