"""Safe reading of zip archives from users (3RScan ``sequence.zip`` and the like).

An archive is data, and its member names are untrusted. Before anything is read or extracted,
:func:`check_members` refuses (with an :class:`~scenebench.errors.InputError` naming the archive and
the member):

- absolute names (``/etc/x``, ``C:\\x``, ``\\\\server\\x``), names with a ``..`` component or a
  backslash (a Windows separator that a later ``Path`` join would honour), NUL bytes;
- symbolic links (Unix mode ``S_IFLNK`` in ``external_attr``), which could point outside the target;
- two members that land on the same path;
- zip bombs: more than ``max_members`` members, a declared total uncompressed size above
  ``max_total_bytes``, one member declaring more than ``max_member_bytes``, or one member whose
  uncompressed/compressed ratio exceeds ``max_ratio`` (members declaring at most
  ``ratio_floor_bytes`` are exempt from the ratio: a small member that compresses well is no bomb).

:data:`ARRAY_LIMITS` are the limits of array archives (``.npz``, zip ``.pth``,
:mod:`scenebench.io.arrays`): no member over 4 GiB, none over 64 MiB compressing more than 200:1.

Declared sizes can lie, so :func:`read_member` and :func:`extract` also count the bytes actually
inflated and stop at the declared size (and the limits) rather than trusting the header.
"""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from scenebench.errors import InputError

_CHUNK = 1 << 20


@dataclass(frozen=True)
class ArchiveLimits:
    """Defaults fit a 3RScan ``sequence.zip`` (a few thousand frames, a few GB)."""

    max_members: int = 100_000
    max_total_bytes: int = 16 << 30
    max_member_bytes: int = 1 << 30
    max_ratio: float = 200.0  # depth PNGs compress ~3-10x; a bomb compresses ~1000x
    ratio_floor_bytes: int = 0


DEFAULT_LIMITS = ArchiveLimits()
# torch.save stores members uncompressed (ratio 1) and numpy.savez_compressed deflates arrays
# ~2-50x; an instance-id array of one repeated value can pass 200x, so small members are exempt.
ARRAY_LIMITS = ArchiveLimits(max_members=10_000, max_total_bytes=16 << 30, max_member_bytes=4 << 30, ratio_floor_bytes=64 << 20)


def _safe_name(archive: Path, name: str) -> PurePosixPath:
    if "\x00" in name:
        raise InputError(archive, "member name holds a NUL byte", field=repr(name[:80]))
    if "\\" in name:
        raise InputError(
            archive, "member name holds a backslash (Windows separator)", field=name[:120], expected="'/'-separated relative names"
        )
    p = PurePosixPath(name)
    if p.is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise InputError(archive, "absolute member path", field=name[:120], expected="paths relative to the archive")
    if any(part == ".." for part in p.parts):
        raise InputError(archive, "member path climbs out with '..'", field=name[:120], expected="paths inside the archive")
    return p


def check_members(archive: str | Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> list[zipfile.ZipInfo]:
    """Open ``archive`` and return its file members after every check in the module docstring."""
    path = Path(archive)
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError) as exc:  # (an unknown zip version)
        raise InputError(path, f"not a readable zip archive: {exc}") from None
    if len(infos) > limits.max_members:
        raise InputError(path, f"{len(infos)} members", expected=f"at most {limits.max_members}")
    seen: set[str] = set()
    total = 0
    out: list[zipfile.ZipInfo] = []
    for info in infos:
        name = _safe_name(path, info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise InputError(path, "member is a symbolic link", field=info.filename[:120], expected="regular files")
        key = name.as_posix().rstrip("/")
        if key in seen:
            raise InputError(path, "two members with the same path", field=info.filename[:120])
        seen.add(key)
        if info.is_dir():
            continue
        if info.file_size > limits.max_member_bytes:
            raise InputError(
                path,
                f"member declares {info.file_size:,} bytes",
                field=info.filename[:120],
                expected=f"at most {limits.max_member_bytes:,}",
            )
        if info.file_size > limits.ratio_floor_bytes and info.file_size / max(info.compress_size, 1) > limits.max_ratio:
            raise InputError(
                path,
                f"member compresses {info.file_size / max(info.compress_size, 1):,.0f}:1 (zip bomb?)",
                field=info.filename[:120],
                expected=f"a ratio below {limits.max_ratio:g}",
            )
        total += info.file_size
        if total > limits.max_total_bytes:
            raise InputError(
                path, f"members declare more than {limits.max_total_bytes:,} bytes in total (zip bomb?)", field=info.filename[:120]
            )
        out.append(info)
    return out


def _bounded_chunks(
    path: Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ArchiveLimits, first: int | None = None
) -> Iterator[bytes]:
    """Inflate one member (its first ``first`` bytes only, when given), refusing more bytes than
    it declares (headers can lie)."""
    budget = min(info.file_size, limits.max_member_bytes)
    want = budget if first is None else min(first, budget)
    n = 0
    try:
        with zf.open(info) as fh:
            while (first is None or n < want) and (chunk := fh.read(_CHUNK if first is None else min(_CHUNK, want - n))):
                n += len(chunk)
                if n > budget:
                    raise InputError(path, "member inflates beyond its declared size", field=info.filename[:120])
                yield chunk
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:  # CRC mismatch, truncated data, bad method
        raise InputError(path, f"damaged member: {exc}", field=info.filename[:120]) from None


def read_info(
    archive: str | Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ArchiveLimits = DEFAULT_LIMITS, first: int | None = None
) -> bytes:
    """The bytes of a member of the open ``zf`` that :func:`check_members` returned (its first
    ``first`` bytes only, when given), inflated under the same bound as :func:`read_member`."""
    return b"".join(_bounded_chunks(Path(archive), zf, info, limits, first))


def read_member(archive: str | Path, name: str, limits: ArchiveLimits = DEFAULT_LIMITS) -> bytes:
    """The bytes of member ``name`` (after :func:`check_members`)."""
    path = Path(archive)
    infos = {i.filename: i for i in check_members(path, limits)}
    if name not in infos:
        raise InputError(path, "no such member", field=name[:120])
    with zipfile.ZipFile(path) as zf:
        return b"".join(_bounded_chunks(path, zf, infos[name], limits))


def extract(archive: str | Path, dest: str | Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> list[Path]:
    """Extract every file member under ``dest`` (created) and return the written paths."""
    path, root = Path(archive), Path(dest)
    infos = check_members(path, limits)
    root.mkdir(parents=True, exist_ok=True)
    base = root.resolve()
    written: list[Path] = []
    with zipfile.ZipFile(path) as zf:
        for info in infos:
            target = (base / _safe_name(path, info.filename)).resolve()
            if base not in target.parents:  # belt and braces: a symlinked folder inside dest
                raise InputError(path, "member would land outside the target folder", field=info.filename[:120])
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.part")
            with open(tmp, "wb") as out:
                for chunk in _bounded_chunks(path, zf, info, limits):
                    out.write(chunk)
            os.replace(tmp, target)
            written.append(target)
    return written
