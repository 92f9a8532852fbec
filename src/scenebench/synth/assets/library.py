"""Asset libraries: SweetHome3D furniture libraries (``.sh3f``) and generic JSON-lines catalogs.

A **SweetHome3D library** is a zip holding ``PluginFurnitureCatalog.properties`` (one numbered
block per model: ``id#N``, ``name#N``, ``model#N`` (the OBJ inside the zip), ``width#N``,
``depth#N``, ``height#N`` in centimetres, ``creator#N``, optional ``modelRotation#N`` and
``license#N``; the library's own ``name``, ``version`` and ``license``) plus the OBJ/MTL meshes
and their textures. Which of its models scenebench uses, and as what, is the reviewed table
``mapping.tsv`` next to this module, never a guess from names at run time.

A **generic catalog** is a ``.jsonl`` file, one model a line (paths relative to the file)::

    {"id": "my-chair-01", "mesh": "chairs/c01.obj", "category": "chair", "size": [0.48, 0.86, 0.52],
     "creator": "A. Maker", "licence": "CC-BY-4.0", "up": "+y", "front": "+z", "name": "Oak chair"}

``size`` is the model's real (w, h, d) in metres after ``up``/``front`` are applied; ``up`` is the
axis pointing up in the file (``+y`` or ``+z``), ``front`` the direction the model faces once
upright (``+z``, ``-z``, ``+x``, ``-x``). Its ``category`` must be a scenebench category.

Models whose licence forbids derivatives or redistribution are never used (:func:`licence_ok`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from scenebench.errors import InputError
from scenebench.synth.assets.archive import Archive, Folder
from scenebench.synth.categories import CATEGORIES, SYMMETRY_CLASSES

CATALOG = "PluginFurnitureCatalog.properties"
DEBIAN_FOLDER = Path("/usr/share/sweethome3d/furniture")  # the sweethome3d-furniture package
FRONTS = ("+z", "-z", "+x", "-x")
UPS = ("+y", "+z")
OPENINGS = ("doorway", "window")  # categories filled by SweetHome3D door and window models (stretched to the opening)
_FORBIDDEN = re.compile(
    r"(\bND\b|no[-_ ]?deriv|noderivatives|non[-_ ]?redistribut|not for redistribution|all rights reserved|proprietary)", re.I
)


def licence_ok(text: str) -> bool:
    """True when a licence text allows adapting and redistributing the model (CC-0, CC-BY, ...)."""
    return bool(text.strip()) and not _FORBIDDEN.search(text)


@dataclass(frozen=True)
class Library:
    name: str
    version: str
    licence: str
    path: str  # as given (not recorded in the manifest: same libraries elsewhere give the same bytes)
    sha256: str
    kind: str  # sh3f | jsonl


@dataclass(frozen=True)
class AssetModel:
    key: str  # unique id (the SweetHome3D id, or the catalog's id)
    name: str
    category: str  # scenebench category
    creator: str
    licence: str
    library: int  # index into the set's libraries
    mesh: str  # member / relative path of the OBJ
    size: tuple[float, float, float]  # real (w, h, d) metres, upright and facing +z
    rotation: tuple[float, ...] = ()  # SweetHome3D modelRotation (row-major 3x3), applied first
    up: str = "+y"
    front: str = "+z"
    scale: float = 1.0  # the reviewed scale fix
    symmetry: str = ""  # the model's own symmetry class when it differs from its category's (a round side table)


@dataclass
class AssetSet:
    libraries: list[Library] = field(default_factory=list)
    models: list[AssetModel] = field(default_factory=list)
    sources: list[Archive | Folder] = field(default_factory=list)

    def by_category(self) -> dict[str, list[AssetModel]]:
        out: dict[str, list[AssetModel]] = {}
        for m in self.models:
            out.setdefault(m.category, []).append(m)
        return out

    def manifest(self) -> list[dict[str, str]]:
        """The libraries as the manifest records them: name, version, licence, kind, sha256."""
        return [
            {"name": lib.name, "version": lib.version, "licence": lib.licence, "kind": lib.kind, "sha256": lib.sha256}
            for lib in self.libraries
        ]


# --- the reviewed mapping -----------------------------------------------------------------------


@lru_cache(maxsize=1)
def reviewed_mapping() -> dict[str, tuple[str, str, float, str]]:
    """``mapping.tsv``: SweetHome3D model id -> (category, front, scale fix, symmetry class or "")."""
    text = resources.files("scenebench.synth.assets").joinpath("mapping.tsv").read_text(encoding="utf-8")
    out: dict[str, tuple[str, str, float, str]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if (
            len(cols) not in (4, 5)
            or cols[1] not in CATEGORIES
            or cols[2] not in FRONTS
            or (len(cols) == 5 and cols[4] not in SYMMETRY_CLASSES)
        ):
            raise InputError("mapping.tsv", f"bad row {line!r}", where=f"line {n}", expected="id, category, front, scale[, symmetry]")
        out[cols[0]] = (cols[1], cols[2], float(cols[3]), cols[4] if len(cols) == 5 else "")
    return out


# --- readers --------------------------------------------------------------------------------------


def _unescape(s: str) -> str:
    return (
        re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), s).replace("\\:", ":").replace("\\=", "=").replace("\\\\", "\\")
    )


def parse_properties(text: str) -> dict[str, str]:
    """Java ``.properties``: comments, ``key=value`` / ``key: value``, continuation lines, ``\\uXXXX``."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].lstrip()
        i += 1
        if not line or line[0] in "#!":
            continue
        while (len(line) - len(line.rstrip("\\"))) % 2 == 1 and i < len(lines):
            line = line[:-1] + lines[i].lstrip()
            i += 1
        m = re.match(r"((?:\\.|[^=:\s\\])+)\s*[=:\s]\s*(.*)$", line)
        if m:
            out[_unescape(m.group(1))] = _unescape(m.group(2).strip())
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _num(v: str | None, path: Path, where: str, fld: str) -> float:
    try:
        x = float(v) if v is not None else float("nan")
    except ValueError:
        x = float("nan")
    if not np.isfinite(x) or x <= 0:
        raise InputError(path, f"{v!r} is not a positive size", where=where, field=fld, expected="centimetres > 0")
    return x


def read_sh3f(path: Path, lib_index: int, mapping: dict[str, tuple[str, str, float, str]]) -> tuple[Library, list[AssetModel], Archive]:
    arc = Archive(path)
    if not arc.has(CATALOG):
        raise InputError(path, f"no {CATALOG}", expected="a SweetHome3D furniture library (.sh3f)")
    props = parse_properties(arc.read(CATALOG).decode("latin-1"))
    lib_licence = props.get("license", "")
    lib = Library(props.get("name", path.stem), props.get("version", ""), lib_licence, str(path), _sha256(path), "sh3f")
    numbers = sorted({int(k.split("#", 1)[1]) for k in props if re.fullmatch(r"id#\d+", k)})
    models = []
    for n in numbers:
        g = {k.split("#", 1)[0]: v for k, v in props.items() if k.endswith(f"#{n}") and k.split("#", 1)[1] == str(n)}
        key = g.get("id", "")
        if key not in mapping or (g.get("doorOrWindow") == "true") != (mapping[key][0] in OPENINGS):
            continue  # doors and windows fill wall openings only, and furniture never does
        where = f"model #{n} ({key})"
        licence = g.get("license", lib_licence)
        if not licence_ok(licence):
            continue
        if "model" not in g:
            raise InputError(path, "no model file", where=where, field=f"model#{n}")
        cat, front, scale, symmetry = mapping[key]
        size = tuple(_num(g.get(f), path, where, f"{f}#{n}") / 100.0 for f in ("width", "height", "depth"))
        rot: tuple[float, ...] = ()
        if g.get("modelRotation"):
            try:
                rot = tuple(float(x) for x in g["modelRotation"].split())
            except ValueError:
                rot = ()
            if len(rot) != 9:
                raise InputError(path, "modelRotation is not 9 numbers", where=where, field=f"modelRotation#{n}")
        models.append(
            AssetModel(
                key,
                g.get("name", key),
                cat,
                g.get("creator", ""),
                licence,
                lib_index,
                g["model"],
                size,
                rot,
                "+y",
                front,
                scale,
                symmetry,  # type: ignore[arg-type]
            )
        )
    return lib, models, arc


def read_jsonl(path: Path, lib_index: int) -> tuple[Library, list[AssetModel], Folder]:
    models = []
    licences = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read ({exc})") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"not JSON ({exc.msg})", where=where) from None
        if not isinstance(rec, dict):
            raise InputError(path, "not an object", where=where)
        for f in ("id", "mesh", "category", "licence"):
            if not isinstance(rec.get(f), str) or not rec[f]:
                raise InputError(path, "missing or not a string", where=where, field=f)
        if rec["category"] not in CATEGORIES:
            raise InputError(path, f"unknown category {rec['category']!r}", where=where, field="category", expected="a scenebench category")
        size = rec.get("size")
        if not (isinstance(size, list) and len(size) == 3 and all(isinstance(x, (int, float)) and np.isfinite(x) and x > 0 for x in size)):
            raise InputError(path, f"{size!r}", where=where, field="size", expected="[w, h, d] in metres, all > 0")
        up, front = rec.get("up", "+y"), rec.get("front", "+z")
        if up not in UPS:
            raise InputError(path, f"{up!r}", where=where, field="up", expected=" or ".join(UPS))
        if front not in FRONTS:
            raise InputError(path, f"{front!r}", where=where, field="front", expected=", ".join(FRONTS))
        sym = rec.get("symmetry", "")
        if sym not in ("", *SYMMETRY_CLASSES):
            raise InputError(path, f"{sym!r}", where=where, field="symmetry", expected=", ".join(SYMMETRY_CLASSES))
        licences.add(rec["licence"])
        if not licence_ok(rec["licence"]):
            continue
        models.append(
            AssetModel(
                rec["id"],
                str(rec.get("name", rec["id"])),
                rec["category"],
                str(rec.get("creator", "")),
                rec["licence"],
                lib_index,
                rec["mesh"],
                tuple(float(x) for x in size),
                (),
                up,
                front,
                1.0,
                sym,
            )  # type: ignore[arg-type]
        )
    lib = Library(path.stem, "", ", ".join(sorted(licences)), str(path), _sha256(path), "jsonl")
    return lib, models, Folder(path.parent)


def expand(paths: list[Path]) -> list[Path]:
    """Library files named or found (non-recursively, sorted) in the folders named."""
    out = []
    for p in paths:
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.suffix.lower() in (".sh3f", ".jsonl") and q.is_file())
            if not found:
                raise InputError(p, "no .sh3f or .jsonl library in this folder")
            out += found
        elif p.is_file():
            if p.suffix.lower() not in (".sh3f", ".jsonl"):
                raise InputError(p, "not an asset library", expected="a .sh3f file, a .jsonl catalog or a folder of them")
            out.append(p)
        else:
            raise InputError(p, "no such file or folder", field="--assets")
    return out


def load_assets(paths: list[Path] | tuple[Path, ...]) -> AssetSet:
    """Read the libraries at ``paths`` (files or folders); models not mapped or not licensed are left out."""
    mapping = reviewed_mapping()
    out = AssetSet()
    keys: set[str] = set()
    for p in expand([Path(x) for x in paths]):
        i = len(out.libraries)
        lib, models, src = read_sh3f(p, i, mapping) if p.suffix.lower() == ".sh3f" else read_jsonl(p, i)
        out.libraries.append(lib)
        out.sources.append(src)
        for m in models:
            if m.key in keys:
                raise InputError(p, f"model id {m.key!r} also in an earlier library", field="id", expected="ids unique across libraries")
            keys.add(m.key)
            out.models.append(m)
    return out


def default_assets() -> list[Path]:
    """The Debian package's folder when it holds libraries, else nothing (primitives)."""
    if DEBIAN_FOLDER.is_dir() and any(DEBIAN_FOLDER.glob("*.sh3f")):
        return [DEBIAN_FOLDER]
    return []


def asset_paths(values: Sequence[str], say: Callable[[str], object] = print) -> tuple[str, ...]:
    """``--assets`` / ``SCENEBENCH_ASSETS`` values to library paths: ``auto`` (the Debian package's
    folder if present, else primitives with one line through ``say``), ``none`` (primitives) or
    paths of libraries. ``generate`` and ``demo`` both read it, so the demo furnishes its houses as
    ``generate`` does."""
    vals = [v for v in values if v.strip()] or ["auto"]
    if len(vals) == 1 and vals[0] == "none":
        return ()
    if len(vals) == 1 and vals[0] == "auto":
        found = default_assets()
        if not found:
            say(f"no furniture library at {DEBIAN_FOLDER} (apt-get install sweethome3d-furniture): objects are primitives")
        return tuple(str(p) for p in found)
    if "auto" in vals or "none" in vals:
        raise InputError(None, "--assets auto and none stand alone", field="--assets", expected="paths, or one of auto / none")
    missing = [v for v in vals if not Path(v).exists()]
    if missing:
        raise InputError(missing[0], "no such file or folder", field="--assets")
    return tuple(str(Path(v).resolve()) for v in vals)
