"""Outcome counts of every fault case tried in the session (printed by conftest at the end)."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

FUZZ_DIR = Path(__file__).resolve().parents[2] / "fuzz"
OUTCOMES: dict[str, Counter] = defaultdict(Counter)


def record(target: str, kind: str, outcome: str) -> None:
    OUTCOMES[f"{target} [{kind}]"]["ok" if outcome == "ok" else outcome.split(":")[0]] += 1
