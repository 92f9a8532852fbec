"""Delete only what scenebench can prove it wrote.

``--overwrite`` used to delete a whole folder. Now the caller says which entries of the folder it
owns (from a manifest or ledger it wrote there), :func:`foreign_entries` lists everything else, and
:func:`remove_owned` refuses, naming those entries, before deleting anything. Symlinks are never
followed: a link is an entry of its own (owned only when its own path is listed).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from scenebench.errors import InputError

SHOWN = 5  # foreign entries named in the refusal


class Ownership:
    """What a folder's owner wrote there: ``files`` and ``dirs`` are POSIX paths relative to the
    folder; everything under a path in ``trees`` is owned too (private working folders)."""

    def __init__(self, files: Iterable[str] = (), dirs: Iterable[str] = (), trees: Iterable[str] = ()) -> None:
        self.files = set(files)
        self.trees = set(trees)
        self.dirs = set(dirs)
        for rel in [*self.files, *self.dirs]:  # the folders holding owned entries are owned
            parts = rel.split("/")[:-1]
            for k in range(1, len(parts) + 1):
                self.dirs.add("/".join(parts[:k]))

    def in_tree(self, rel: str) -> bool:
        return any(rel == t or rel.startswith(t + "/") for t in self.trees)


def foreign_entries(root: Path, owned: Ownership) -> list[str]:
    """Relative paths under ``root`` that ``owned`` does not cover (a foreign folder is listed once,
    not its content), sorted."""
    foreign: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        keep = []
        for d in sorted(dirnames):
            rel = prefix + d
            if (Path(dirpath) / d).is_symlink():  # a link to a folder: an entry of its own, never walked
                if rel not in owned.files and not owned.in_tree(rel):
                    foreign.append(rel)
            elif owned.in_tree(rel):
                continue  # owned wholesale: not walked
            elif rel in owned.dirs:
                keep.append(d)
            else:
                foreign.append(rel + "/")
        dirnames[:] = keep
        for f in sorted(filenames):
            rel = prefix + f
            if rel not in owned.files and not owned.in_tree(rel):
                foreign.append(rel)
    return sorted(foreign)


def remove_owned(root: Path, owned: Ownership, *, what: str, hint: str) -> None:
    """Delete what ``owned`` covers in ``root`` and the folders left empty (``root`` itself too);
    refuse (:class:`InputError` naming the entries, nothing deleted) when ``root`` holds anything else.

    ``what`` names the owner in the message ("scenebench generate"); ``hint`` says what to do instead.
    """
    if not root.exists():
        return
    if root.is_symlink() or not root.is_dir():
        raise InputError(root, f"is not a folder written by {what}; refusing to delete it", expected=hint)
    foreign = foreign_entries(root, owned)
    if foreign:
        more = f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else ""
        raise InputError(
            root,
            f"--overwrite refused: holds {len(foreign)} entr{'y' if len(foreign) == 1 else 'ies'} {what} did not write "
            f"({', '.join(foreign[:SHOWN])}{more}); nothing was deleted",
            expected=hint,
        )
    for t in sorted(owned.trees):
        p = root / t
        if p.is_symlink() or p.is_file():
            p.unlink()
        elif p.is_dir():
            shutil.rmtree(p)
    for rel in sorted(owned.files):
        p = root / rel
        if p.is_symlink() or p.is_file():
            p.unlink()
    for rel in sorted(owned.dirs, key=lambda r: r.count("/"), reverse=True):  # deepest first
        p = root / rel
        if p.is_dir() and not p.is_symlink() and not any(p.iterdir()):
            p.rmdir()
    if not any(root.iterdir()):
        root.rmdir()


__all__ = ["Ownership", "foreign_entries", "remove_owned"]
