"""Safe reads of asset archives (SweetHome3D ``.sh3f`` files are zips).

A member is read only by a name that stays inside the archive (no absolute path, no ``..``, no
drive letter), only when its declared and actual uncompressed sizes are within bounds, and the
archive as a whole has a bounded number of members: a hostile or damaged library gives an
``InputError`` naming the archive and the member, never a file written or a memory blow-up.
"""

from __future__ import annotations

import os
import posixpath
import zipfile
from pathlib import Path

from scenebench.errors import InputError

MAX_MEMBERS = 50_000
MAX_MEMBER_BYTES = 64 * 1024 * 1024  # one OBJ or texture
MAX_RATIO = 200  # uncompressed / compressed: beyond it a member is treated as a zip bomb


def clean_member(name: str) -> str | None:
    """The normalised member name, or None when it would leave the archive's root."""
    n = name.replace("\\", "/").lstrip("/")
    if not n or ":" in n.split("/")[0]:
        return None
    norm = posixpath.normpath(n)
    if norm.startswith("../") or norm == ".." or norm.startswith("/"):
        return None
    return norm


class Archive:
    """Read-only view of one zip with bounded, name-checked member reads."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._zf: zipfile.ZipFile | None = None
        self._pid = -1
        infos = self._open().infolist()
        if len(infos) > MAX_MEMBERS:
            raise InputError(self.path, f"{len(infos)} members", expected=f"at most {MAX_MEMBERS}")
        self._members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = clean_member(info.filename)
            if name is not None and not info.is_dir():
                self._members[name] = info

    def _open(self) -> zipfile.ZipFile:
        # one open file per process: forked workers inherit the parent's descriptor, and with it its
        # file offset, so concurrent seek-then-read through a shared one would mix members
        if self._zf is None or self._pid != os.getpid():
            try:
                self._zf = zipfile.ZipFile(self.path)
            except (OSError, zipfile.BadZipFile) as exc:
                raise InputError(self.path, f"not a readable zip archive ({exc})") from None
            self._pid = os.getpid()
        return self._zf

    def names(self) -> list[str]:
        return sorted(self._members)

    def has(self, name: str) -> bool:
        n = clean_member(name)
        return n is not None and n in self._members

    def read(self, name: str, *, where: str | None = None) -> bytes:
        n = clean_member(name)
        if n is None:
            raise InputError(self.path, f"member {name!r} points outside the archive", where=where, field="path")
        info = self._members.get(n)
        if info is None:
            raise InputError(self.path, f"no member {n!r}", where=where, field="path")
        if info.file_size > MAX_MEMBER_BYTES or info.file_size > MAX_RATIO * max(info.compress_size, 1024):
            raise InputError(self.path, f"member {n!r} is too large ({info.file_size} bytes)", where=where, expected="a bounded member")
        with self._open().open(info) as fh:
            data = fh.read(MAX_MEMBER_BYTES + 1)  # the declared size may lie: never read past the bound
        if len(data) > MAX_MEMBER_BYTES:
            raise InputError(self.path, f"member {n!r} is larger than declared", where=where)
        return data

    def close(self) -> None:
        if self._zf is not None and self._pid == os.getpid():
            self._zf.close()
        self._zf = None


class Folder:
    """The same interface over a plain folder (a generic JSON-lines catalog): paths stay inside it."""

    def __init__(self, root: Path):
        self.path = Path(root)
        self._root = self.path.resolve()

    def _resolve(self, name: str) -> Path | None:
        n = clean_member(name)
        if n is None:
            return None
        p = (self._root / n).resolve()
        return p if p.is_relative_to(self._root) else None

    def has(self, name: str) -> bool:
        p = self._resolve(name)
        return p is not None and p.is_file()

    def read(self, name: str, *, where: str | None = None) -> bytes:
        p = self._resolve(name)
        if p is None:
            raise InputError(self.path, f"path {name!r} points outside the catalog's folder", where=where, field="mesh")
        if not p.is_file():
            raise InputError(self.path, f"no file {name!r}", where=where, field="mesh")
        if p.stat().st_size > MAX_MEMBER_BYTES:
            raise InputError(p, f"too large ({p.stat().st_size} bytes)", where=where, expected=f"at most {MAX_MEMBER_BYTES} bytes")
        return p.read_bytes()

    def close(self) -> None:
        pass
