"""The 3DBench task table: file names, answer kinds, levels and abilities.

Levels and abilities follow the paper's split of the ten tasks (object vs scene scale; perception,
reasoning, expression). scenebench assigns each task to exactly one ability so the aggregates are a
partition; the assignment is documented in ``docs/metrics/bench3d_aggregates.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["choice", "detection", "grounding", "grounding_plus", "room_detection", "navigation", "text"]
Level = Literal["object", "scene"]
Ability = Literal["perception", "reasoning", "expression"]


@dataclass(frozen=True)
class TaskDef:
    key: str  # scenebench's name (answers.jsonl "task" may use it or the file stem)
    stem: str  # official file / prompt key, e.g. "Classification" -> Classification.json
    kind: Kind
    level: Level
    ability: Ability
    n_options: int = 0  # multiple-choice tasks only

    @property
    def filename(self) -> str:
        return f"{self.stem}.json"


TASKS: dict[str, TaskDef] = {
    t.key: t
    for t in (
        TaskDef("classification", "Classification", "choice", "object", "perception", 6),
        TaskDef("object_caption", "DescriptionObj", "text", "object", "expression"),
        TaskDef("object_conversation", "ConversationObj", "text", "object", "expression"),
        TaskDef("counting", "Counting", "choice", "scene", "perception", 6),
        TaskDef("detection", "Detection", "detection", "scene", "perception"),
        TaskDef("visual_grounding", "VisualGrounding", "grounding", "scene", "perception"),
        TaskDef("visual_grounding_plus", "VisualGrounding_plus", "grounding_plus", "scene", "perception"),
        TaskDef("room_detection", "RoomDetection", "room_detection", "scene", "perception"),
        TaskDef("position_relation", "PositionRelation", "choice", "scene", "reasoning", 4),
        TaskDef("navigation", "Navigation", "navigation", "scene", "reasoning"),
        TaskDef("scene_caption", "SCaption", "text", "scene", "expression"),
        TaskDef("scene_qa", "SVQA", "text", "scene", "reasoning"),
        TaskDef("relation", "Relation", "text", "scene", "reasoning"),
    )
}

TASK_FILES: dict[str, str] = {k: t.filename for k, t in TASKS.items()}

_ALIASES: dict[str, str] = {}
for _k, _t in TASKS.items():
    for _name in (_k, _t.stem, f"Test_{_t.stem}"):
        _ALIASES[_name.lower()] = _k


def task_key(name: str) -> str | None:
    """The task key for a scenebench key or an official stem (case-insensitive, ``Test_`` accepted)."""
    return _ALIASES.get(str(name).strip().lower())


def parse_task_list(text: str | None) -> list[str]:
    """``"counting,navigation"`` -> task keys; unknown names raise ValueError naming the known ones."""
    if not text:
        return list(TASKS)
    out: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key = task_key(part)
        if key is None:
            raise ValueError(f"unknown 3DBench task '{part}'; known: {', '.join(TASKS)}")
        if key not in out:
            out.append(key)
    return out
