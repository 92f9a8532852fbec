"""Output folders of ``scenebench generate``: recognise one, and refuse it while it is unfinished.

``generate`` keeps its working state in ``OUT/.houses/`` (``settings.json`` from the first moment)
and writes ``OUT/manifest.json`` last, after every benchmark folder is in place. A benchmark folder
inside such an output without the manifest is the remains of a stopped run (tasks or scenes may be
missing), so the readers of all three benchmarks refuse it instead of scoring part of a benchmark.
Released data (no ``.houses/`` above it) is not affected.
"""

from __future__ import annotations

from pathlib import Path

from scenebench.errors import InputError

HOUSES_DIR = ".houses"
SETTINGS = "settings.json"
MANIFEST = "manifest.json"
LEVELS = 3  # OUT/<format>/<sub>/<file> is the deepest path a reader is given


def generate_root(path: str | Path) -> Path | None:
    """The ``generate`` output folder holding ``path`` (within :data:`LEVELS` levels up), or None."""
    p = Path(path).absolute()
    for cand in [p, *list(p.parents)[:LEVELS]]:
        if (cand / HOUSES_DIR / SETTINGS).is_file():
            return cand
    return None


def require_finished(path: str | Path) -> None:
    """Refuse ``path`` when it lies in a ``generate`` output that has no manifest yet."""
    root = generate_root(path)
    if root is not None and not (root / MANIFEST).is_file():
        raise InputError(
            path,
            f"is part of an unfinished `scenebench generate` output: {root} has no {MANIFEST} (the run stopped "
            "before every benchmark folder was complete)",
            expected="rerun the same generate command to finish it",
        )


__all__ = ["HOUSES_DIR", "MANIFEST", "SETTINGS", "generate_root", "require_finished"]
