"""Question and answer templates for the 3DBench tasks.

Each task has lead-ins and cores for questions and for answers; a template is one lead-in joined
with one core, so every task has at least 6 x 5 = 30 distinct question templates and 30 distinct
answer templates (checked by tests). Fields in braces are filled from the scene graph.
"""

from __future__ import annotations

import numpy as np

Bank = tuple[tuple[str, ...], tuple[str, ...]]  # (lead-ins, cores)

_SCENE_Q = (
    "",
    "Look at this house. ",
    "Based on the point cloud, ",
    "In this scene, ",
    "Consider the whole house. ",
    "Looking at the 3D scan, ",
    "Take a look around the house. ",
    "Going by the scanned rooms, ",
    "From what the scan shows, ",
    "Walk through this home in your mind. ",
    "Using the reconstructed scene, ",
    "Study the whole home. ",
    "With the full scan in view, ",
    "Have a look at this home. ",
)
_OBJ_Q = (
    "",
    "Look at this point cloud. ",
    "Here is a 3D object. ",
    "Consider the following object. ",
    "Examine this 3D scan. ",
    "This is a scanned object. ",
    "Have a look at this item. ",
    "Here is a scanned item. ",
    "Study these points. ",
    "Consider this single object. ",
    "The points below belong to one thing. ",
    "Take this captured object. ",
)
_A = ("", "From the point cloud, ", "Looking carefully, ", "Based on the scene, ", "After checking the scan, ", "As far as I can tell, ")
_A_OBJ = ("", "From its shape, ", "Looking at the points, ", "Judging by the geometry, ", "Based on the scan, ", "As far as I can tell, ")

QUESTIONS: dict[str, Bank] = {
    "Classification": (
        _OBJ_Q,
        (
            "what is this object?",
            "what kind of object is shown here?",
            "which category does this object belong to?",
            "identify this object.",
            "what object does this point cloud represent?",
            "can you tell me what this object is?",
            "what would you call this thing?",
            "name the item these points belong to.",
            "what household item is this?",
        ),
    ),
    "Counting": (
        _SCENE_Q,
        (
            "how many {plural} are there?",
            "count the {plural}.",
            "what is the number of {plural} in the house?",
            "how many {plural} can you find?",
            "tell me how many {plural} this house has.",
            "how many {plural} do you see?",
            "what is the total of {plural}?",
            "give the count of {plural}.",
            "how many {plural} does this home hold?",
        ),
    ),
    "Detection": (
        _SCENE_Q,
        (
            "detect every {names} and give their bounding boxes.",
            "find all instances of {names} and output their boxes.",
            "where are the {names}? Give one bounding box per object.",
            "locate each {names} with a 3D bounding box.",
            "output the bounding boxes of all {names} in the scene.",
            "please list the boxes of every {names}.",
            "mark each {names} in the house with a box.",
            "box every {names} you can spot.",
        ),
    ),
    "VisualGrounding": (
        _SCENE_Q,
        (
            "where is the {desc}?",
            "find the {desc} and give its bounding box.",
            "locate the {desc}.",
            "give me the 3D box of the {desc}.",
            "which box contains the {desc}?",
            "point out the {desc} with a bounding box.",
            "mark the {desc} with a box.",
            "show me where the {desc} sits, as a 3D box.",
        ),
    ),
    "VisualGrounding_plus": (
        _SCENE_Q,
        (
            "find the object described as follows: {caption}",
            "locate this object: {caption}",
            "which object matches this description? {caption}",
            "give the box of the object in this description: {caption}",
            "where is the object described here? {caption}",
            "ground this description in the scene: {caption}",
        ),
    ),
    "RoomDetection": (
        _SCENE_Q,
        (
            "detect all rooms and give each a bounding box and a room type.",
            "what rooms does this house have, and where are they?",
            "list every room with its type and box.",
            "segment the house into rooms and output their boxes.",
            "give the bounding box and type of each room.",
            "find the rooms of this house and label them.",
        ),
    ),
    "PositionRelation": (
        _SCENE_Q,
        (
            "where is the {a} relative to the {b}?",
            "what is the position of the {a} with respect to the {b}?",
            "how is the {a} placed relative to the {b}?",
            "describe where the {a} is compared with the {b}.",
            "which sentence describes the {a} and the {b} correctly?",
            "what is the spatial relation between the {a} and the {b}?",
            "how do the {a} and the {b} sit relative to each other?",
            "pick the statement that fits the {a} and the {b}.",
        ),
    ),
    "Navigation": (
        _SCENE_Q,
        (
            "plan a path from {start} to the {target}.",
            "how do I walk from {start} to the {target}?",
            "give waypoints from {start} to the {target}.",
            "navigate from {start} to the {target}.",
            "find a walkable route from {start} to the {target}.",
            "starting at {start}, lead me to the {target}.",
            "I am standing at {start}. How do I reach the {target}?",
            "chart a route from {start} that ends at the {target}.",
            "guide me from {start} over to the {target}.",
        ),
    ),
    "DescriptionObj": (
        _OBJ_Q,
        (
            "describe this object in detail.",
            "what does this object look like?",
            "give a detailed description of this object.",
            "tell me about this object.",
            "write a caption for this object.",
            "describe the shape, colour and use of this object.",
        ),
    ),
    "ConversationObj": (
        _OBJ_Q,
        (
            "{question}",
            "please answer: {question}",
            "I have a question. {question}",
            "quick question: {question}",
            "tell me, {question}",
            "can you help? {question}",
        ),
    ),
    "SCaption": (
        _SCENE_Q,
        (
            "describe this house.",
            "write a caption for this scene.",
            "what does this house contain?",
            "give a summary of the rooms and objects here.",
            "describe the layout and furniture of this house.",
            "tell me about this scene in a few sentences.",
        ),
    ),
    "SVQA": (
        _SCENE_Q,
        (
            "{question}",
            "please answer: {question}",
            "I wonder: {question}",
            "answer the question about the scene: {question}",
            "tell me, {question}",
            "can you answer this? {question}",
        ),
    ),
    "Relation": (
        _SCENE_Q,
        (
            "what is the relation between the {a} and the {b}?",
            "explain how the {a} and the {b} are positioned.",
            "describe the spatial relationship of the {a} to the {b}.",
            "how are the {a} and the {b} arranged?",
            "reason about where the {a} is compared with the {b}.",
            "tell me where the {a} stands relative to the {b}.",
        ),
    ),
}

ANSWERS: dict[str, Bank] = {
    "Classification": (
        _A_OBJ,
        (
            "it is {a_name}.",
            "this is {a_name}.",
            "the object is {a_name}.",
            "the answer is ({letter}) {name}.",
            "it looks like {a_name}.",
            "this point cloud shows {a_name}.",
        ),
    ),
    "Counting": (
        _A,
        (
            "there are {n} {plural_n}.",
            "the house contains {n} {plural_n}.",
            "I count {n} {plural_n}.",
            "the number of {plural} is {n}.",
            "the answer is ({letter}) {n}.",
            "the scene holds {n} {plural_n}.",
        ),
    ),
    "Detection": (
        _A,
        (
            "the boxes are: {boxes}.",
            "I found these objects: {boxes}.",
            "here are the detections: {boxes}.",
            "the objects are located at {boxes}.",
            "detected: {boxes}.",
            "these are the bounding boxes: {boxes}.",
        ),
    ),
    "VisualGrounding": (
        _A,
        (
            "the {desc} is at {box}.",
            "its bounding box is {box}.",
            "the box is {box}.",
            "you can find it at {box}.",
            "the {desc} occupies {box}.",
            "the answer is {box}.",
        ),
    ),
    "VisualGrounding_plus": (
        _A,
        (
            "the described object is the {name} at {box}.",
            "its bounding box is {box}.",
            "that is the {name}, box {box}.",
            "the object is at {box}.",
            "it matches the {name} located at {box}.",
            "the answer is {box}.",
        ),
    ),
    "RoomDetection": (
        _A,
        (
            "the rooms are: {rooms}.",
            "I found these rooms: {rooms}.",
            "the house is divided into {rooms}.",
            "here are the rooms with their boxes: {rooms}.",
            "the room layout is {rooms}.",
            "detected rooms: {rooms}.",
        ),
    ),
    "PositionRelation": (
        _A,
        (
            "{sentence}",
            "the answer is ({letter}): {sentence}",
            "option {letter}. {sentence}",
            "({letter}) {sentence}",
            "the correct option is {letter}: {sentence}",
            "I choose {letter}, because {sentence_lc}",
        ),
    ),
    "Navigation": (
        _A,
        (
            "the path is {path}.",
            "follow these waypoints: {path}.",
            "walk along {path}.",
            "a walkable route is {path}.",
            "go through {path}.",
            "the waypoints are {path}.",
        ),
    ),
    "DescriptionObj": (
        _A_OBJ,
        (
            "{description}",
            "this is {a_name}. {description}",
            "I see {a_name}. {description}",
            "{description} It is clearly {a_name}.",
            "the object is {a_name}. {description}",
            "here is a description: {description}",
        ),
    ),
    "ConversationObj": (
        _A_OBJ,
        (
            "{answer}",
            "{answer} Hope that helps.",
            "sure. {answer}",
            "well, {answer_lc}",
            "good question. {answer}",
            "{answer} It is {a_name}.",
        ),
    ),
    "SCaption": (
        _A,
        (
            "{caption}",
            "this house has {n_rooms} rooms. {caption}",
            "here is the scene. {caption}",
            "in short: {caption}",
            "{caption} Overall it is a furnished home.",
            "the scan shows a home. {caption}",
        ),
    ),
    "SVQA": (
        _A,
        (
            "{answer}",
            "the answer is: {answer_lc}",
            "{answer} That is what the scan shows.",
            "I can say that {answer_lc}",
            "well, {answer_lc}",
            "after looking at the rooms, {answer_lc}",
        ),
    ),
    "Relation": (
        _A,
        (
            "{sentence}",
            "looking at both objects, {sentence_lc}",
            "{sentence} The distance between them is about {dist} m.",
            "their relation: {sentence_lc}",
            "{sentence} This follows from their centres.",
            "in the house, {sentence_lc}",
        ),
    ),
}


def join(lead: str, core: str) -> str:
    core = core[:1].upper() + core[1:] if (not lead or lead.endswith(". ") or lead.endswith("? ")) else core
    return lead + core


def all_templates(bank: Bank) -> list[str]:
    leads, cores = bank
    return [join(lead, core) for lead in leads for core in cores]


def render(bank: Bank, rng: np.random.Generator, **fields) -> str:
    leads, cores = bank
    lead, core = leads[int(rng.integers(len(leads)))], cores[int(rng.integers(len(cores)))]
    return join(lead.format(**fields), core.format(**fields))


def question(task: str, rng: np.random.Generator, **fields) -> str:
    return render(QUESTIONS[task], rng, **fields)


def answer(task: str, rng: np.random.Generator, **fields) -> str:
    text = render(ANSWERS[task], rng, **fields)
    return text[:1].upper() + text[1:]


def article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


_IRREGULAR = {"knife": "knives", "butter knife": "butter knives", "shelf": "shelves", "loaf": "loaves"}


def plural(noun: str) -> str:
    if " of " in noun:
        head, rest = noun.split(" of ", 1)
        return f"{plural(head)} of {rest}"
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    last = noun.split()[-1]
    if last in _IRREGULAR:
        return noun[: -len(last)] + _IRREGULAR[last]
    if noun.endswith(("s", "x", "ch", "sh")) or noun.endswith(("tomato", "potato")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def counted(n: int, noun: str) -> str:
    return noun if n == 1 else plural(noun)


def lower_first(s: str) -> str:
    return s[:1].lower() + s[1:]
