"""Everyday words for the object categories, shared by the generator and the benchmarks' solvers.

Pure data, importing nothing of scenebench: the synthetic generator (``synth/``) words its
questions with it and a benchmark's sighted probe (``benchmarks/surprise3d/solver.py``) reads
the same questions with it, and ``benchmarks`` may not import ``synth`` (import-linter layers).
``synth.categories`` re-exports :data:`ALIASES`; ``synth.surprise`` re-exports
:data:`AFFORDANCES` and :data:`USES`.
"""

from __future__ import annotations

import re

# Other everyday names of a category, each naming it and no other category of the 93 (no "table",
# "lamp" or "bin"), so a question may say "the couch" where it said "the sofa" and stay
# unambiguous. Questions draw among the display name and these (issue 42: 3DBench questions used
# 291 word types and SURPRISE3D queries 359 on generator 10). Words of an alias also count as
# naming the category when a query must not name its target (``surprise.name_stems``).
ALIASES: dict[str, tuple[str, ...]] = {
    "alarmclock": ("bedside clock",),
    "box": ("carton",),
    "cellphone": ("mobile phone", "smartphone"),
    "clothesdryer": ("tumble dryer",),
    "countertop": ("worktop", "kitchen worktop"),
    "desklamp": ("reading lamp",),
    "diningtable": ("dinner table",),
    "dogbed": ("pet bed",),
    "dresser": ("chest of drawers",),
    "floorlamp": ("standard lamp", "standing lamp"),
    "fridge": ("fridge",),
    "garbagecan": ("trash can", "rubbish bin", "waste bin"),
    "houseplant": ("potted plant", "indoor plant"),
    "laundryhamper": ("laundry basket", "clothes basket"),
    "painting": ("picture", "framed picture", "artwork"),
    "pillow": ("cushion",),
    "remotecontrol": ("remote",),
    "shelvingunit": ("set of shelves", "shelf unit"),
    "sidetable": ("end table",),
    "sink": ("washbasin", "basin"),
    "sofa": ("couch", "settee"),
    "statue": ("sculpture", "figurine"),
    "stool": ("bar stool",),
    "teddybear": ("soft toy", "stuffed bear"),
    "television": ("TV", "TV set"),
    "tvstand": ("TV cabinet", "media unit"),
    "vacuumcleaner": ("hoover",),
    "washingmachine": ("washer",),
}


# Function wording shared by several categories: use -> the categories that serve it (many-to-many,
# every use has at least two categories). A SURPRISE3D common-sense or intention question says the use,
# never a category, and is checked unambiguous over every instance of every category of the use
# (generator 14: its target is drawn among all of them, so the words do not give the category).
AFFORDANCES: dict[str, tuple[str, ...]] = {
    "sit down": ("chair", "sofa", "armchair", "stool", "ottoman", "bed"),
    "put a drink down": ("diningtable", "coffeetable", "sidetable", "desk", "countertop", "dresser", "tvstand"),
    "store things out of sight": ("dresser", "shelvingunit", "box", "safe", "cart", "tvstand", "fridge", "laundryhamper"),
    "get more light": ("floorlamp", "desklamp", "candle", "window"),
    "have something to drink": ("cup", "mug", "bottle", "winebottle", "kettle", "fridge"),
    "serve a meal": ("plate", "bowl", "pot", "pan", "diningtable", "ladle"),
    "heat up food": ("pan", "pot", "microwave", "toaster", "kettle"),
    "clean up a mess": ("cloth", "dishsponge", "spraybottle", "vacuumcleaner", "papertowelroll", "garbagecan", "garbagebag"),
    "get rid of rubbish": ("garbagecan", "garbagebag", "box"),
    "wash something": ("sink", "faucet", "soapbar", "soapbottle", "washingmachine", "dishsponge"),
    "lie down for a while": ("bed", "sofa", "dogbed", "pillow"),
    "pass the time reading": ("book", "newspaper", "laptop", "desklamp", "armchair"),
    "find out what time it is": ("alarmclock", "watch", "cellphone", "laptop", "desktop"),
    "write something down": ("pen", "pencil", "desk", "laptop", "desktop"),
    "watch a film": ("television", "laptop", "desktop", "sofa"),
    "get some exercise": ("dumbbell", "basketball", "tennisracket", "baseballbat"),
    "make the place look nicer": ("painting", "vase", "statue", "tabletopdecor", "houseplant", "candle", "teddybear"),
    "keep food fresh": ("fridge", "bowl", "pot", "box"),
    "move things around": ("cart", "box", "laundryhamper", "garbagebag"),
    "cut something": ("knife", "butterknife", "fork", "spatula"),
    "flavour a dish": ("saltshaker", "peppershaker", "winebottle", "tomato"),
    "eat a snack": ("apple", "bread", "tomato", "lettuce", "potato", "egg"),
    "stir or scoop food": ("spoon", "ladle", "spatula", "fork"),
    "contact a friend": ("cellphone", "laptop", "desktop"),
    "pay for something": ("creditcard", "cellphone", "laptop"),
    "rest the feet": ("ottoman", "stool", "sofa", "coffeetable"),
    "dry something": ("clothesdryer", "cloth", "papertowelroll", "toiletpaper"),
    "do some work": ("desk", "laptop", "desktop", "pen"),
    "keep things safe": ("safe", "box", "dresser", "keychain"),
    "make a home cosy": ("pillow", "houseplant", "floorlamp", "armchair", "teddybear"),
    "fix a bathroom problem": ("plunger", "toilet", "toiletpaper", "spraybottle", "sink"),
    "play a game": ("basketball", "tennisracket", "baseballbat", "teddybear", "dumbbell"),
    "hold flowers or plants": ("vase", "houseplant", "bottle", "cup"),
    "put clothes away": ("dresser", "laundryhamper", "washingmachine", "clothesdryer", "boots", "box"),
    "open the front door": ("keychain", "boots"),
    "wipe the hands": ("cloth", "papertowelroll", "toiletpaper", "soapbar"),
    "cool down a drink": ("fridge", "cup", "bottle"),
    "set the table": ("plate", "fork", "spoon", "knife", "bowl", "cup"),
    "relax in the evening": ("sofa", "armchair", "television", "book", "candle", "winebottle"),
    "charge the mind with news": ("newspaper", "television", "cellphone", "laptop"),
}
USES: dict[str, tuple[str, ...]] = {}
for _u, _cats in AFFORDANCES.items():
    for _c in _cats:
        USES[_c] = USES.get(_c, ()) + (_u,)


def _spelling(name: str) -> str:
    return "".join(re.findall(r"[a-z]+", name.lower()))


# Display names (``synth.categories``) whose words do not run together to the category's label
# ("kitchen counter" is ``countertop``); a test checks this against the category table.
DISPLAY_NAMES: dict[str, str] = {
    "boots": "pair of boots",
    "box": "cardboard box",
    "bread": "loaf of bread",
    "cart": "utility cart",
    "countertop": "kitchen counter",
    "desktop": "desktop computer",
    "fridge": "refrigerator",
    "pan": "frying pan",
    "pot": "cooking pot",
    "soapbar": "bar of soap",
    "tabletopdecor": "tabletop decoration",
}

# a name as its words run together ("couch", "tvcabinet", "kitchencounter") -> the category it names
NAME_LABELS: dict[str, str] = {
    _spelling(a): c for c, names in [*ALIASES.items(), *((c, (d,)) for c, d in DISPLAY_NAMES.items())] for a in names if _spelling(a) != c
}


def use_in(text: str) -> str | None:
    """The use of :data:`AFFORDANCES` that ``text`` states (the longest one it contains), or None."""
    low = " ".join(re.findall(r"[a-z']+", text.lower()))
    found = [u for u in AFFORDANCES if f" {u} " in f" {low} "]
    return max(found, key=len) if found else None
