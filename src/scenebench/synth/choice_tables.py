"""Measured shares behind the 3DBench counting and position-relation answer balance (issue 25 item 3).

Written by ``scripts/fit_choice_tables.py --houses 320 --seed 99``: houses built and sensed with
``scenebench generate``'s default settings. Do not edit by hand; re-run the script when the house
generator, the sensor or the visibility rule changes.

COUNT_FORMS: counting question form (a category counted in the house, or ``furniture/<room type>``)
-> (first count of its six-count option window, share of houses holding a fully visible set of that
form at each count of the window). Forms whose rarest window count was seen in fewer than 8 houses
are not asked. REL_SHARE: position relation type -> share of houses holding a pair of that type
(read from a viewpoint, as the generator asks it)."""

FIT_HOUSES = 320
FIT_SEED = 99
COUNT_FORMS: dict[str, tuple[int, tuple[float, ...]]] = {
    "chair": (1, (0.1906, 0.0938, 0.0906, 0.0594, 0.0375, 0.0344)),
    "furniture/bedroom": (4, (0.0563, 0.0813, 0.0844, 0.075, 0.0594, 0.0469)),
    "furniture/kitchen": (4, (0.0531, 0.1656, 0.2, 0.1969, 0.0844, 0.0594)),
    "furniture/living room": (5, (0.075, 0.1281, 0.1719, 0.1562, 0.1406, 0.0781)),
    "painting": (1, (0.1406, 0.2094, 0.1219, 0.1781, 0.1062, 0.0844)),
    "pillow": (1, (0.1469, 0.1688, 0.1844, 0.1094, 0.0875, 0.0813)),
    "sidetable": (1, (0.15, 0.2344, 0.1562, 0.1, 0.0563, 0.0312)),
}
REL_SHARE: dict[str, float] = {
    "above": 0.7625,
    "behind": 0.7875,
    "behind-left": 0.8656,
    "behind-right": 0.8719,
    "below": 0.7625,
    "front": 0.7875,
    "front-left": 0.8719,
    "front-right": 0.8656,
    "left": 0.7844,
    "right": 0.7844,
}
