"""Wavefront OBJ/MTL to a :class:`~scenebench.synth.meshes.Mesh` with one colour per face.

Polygons are fanned into triangles; each face takes its material's diffuse colour ``Kd``. When the
material has a diffuse texture (``map_Kd``) and Pillow is installed, the face's colour is the texture
sampled at the face's mean UV (cheap: one lookup per face) times ``Kd``; without Pillow the texture's
``Kd`` alone is used. Normals and smoothing are ignored; groups and objects (``g``/``o``) only where
parts are left out by name (a door's opening leaf, ``skip_parts``).
"""

from __future__ import annotations

import io
import posixpath
from collections.abc import Callable

import numpy as np

from scenebench.errors import InputError
from scenebench.synth.meshes import Mesh

MAX_FACES = 400_000  # a model with more triangles is refused (memory and ray-casting time)
_GREY = (0.7, 0.7, 0.7)


def _floats(lines: list[str], n: int, what: str, src: str) -> np.ndarray:
    if not lines:
        return np.zeros((0, n))
    try:
        rows = [ln.split()[1 : n + 1] for ln in lines]
        arr = np.array(rows, dtype=float)
    except ValueError:
        raise InputError(src, f"a {what} line is not {n} numbers") from None
    if arr.ndim != 2 or arr.shape[1] != n or not np.isfinite(arr).all():
        raise InputError(src, f"a {what} line is not {n} finite numbers")
    return arr


def parse_mtl(text: str) -> dict[str, tuple[tuple[float, float, float], str | None]]:
    """Material name -> (Kd, map_Kd or None)."""
    out: dict[str, tuple[tuple[float, float, float], str | None]] = {}
    name = None
    kd: tuple[float, float, float] = _GREY
    tex: str | None = None
    for raw in text.splitlines():
        t = raw.strip().split(None, 1)
        if not t:
            continue
        key, rest = t[0], (t[1] if len(t) > 1 else "")
        if key == "newmtl":
            if name is not None:
                out[name] = (kd, tex)
            name, kd, tex = rest.strip(), _GREY, None
        elif key == "Kd":
            try:
                v = [float(x) for x in rest.split()[:3]]
                if len(v) == 3 and all(np.isfinite(v)):
                    kd = (min(max(v[0], 0.0), 1.0), min(max(v[1], 0.0), 1.0), min(max(v[2], 0.0), 1.0))
            except ValueError:
                pass
        elif key == "map_Kd" and rest.strip():
            tex = rest.strip().split()[-1]  # options (-s, -o ...) come before the file name
    if name is not None:
        out[name] = (kd, tex)
    return out


def _decode_texture(data: bytes) -> np.ndarray | None:
    try:
        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.thumbnail((64, 64))  # one lookup per face: a small copy is plenty and bounds memory
            return np.asarray(im.convert("RGB"), np.float32) / 255.0
    except Exception:  # a damaged texture falls back to Kd, as a viewer would show it
        return None


def parse_obj(data: bytes, name: str, read: Callable[[str], bytes | None], skip_parts: tuple[str, ...] = ()) -> Mesh:
    """The mesh of OBJ ``name`` (``read(path)`` returns a sibling file's bytes, or None). Faces of a
    part (the last ``g`` or ``o`` name before them) whose name starts with one of ``skip_parts`` are
    left out, and so are the vertices only they used."""
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    v_lines = [ln for ln in lines if ln.startswith("v ")]
    vt_lines = [ln for ln in lines if ln.startswith("vt ")]
    verts = _floats(v_lines, 3, "vertex", name)
    uvs = _floats([ln + " 0" for ln in vt_lines], 2, "texture coordinate", name)
    base = posixpath.dirname(name)
    materials: dict[str, tuple[tuple[float, float, float], str | None]] = {}
    tri_v: list[list[int]] = []
    tri_t: list[list[int]] = []
    tri_m: list[int] = []
    mat_names: list[str] = []
    mat_index: dict[str, int] = {}
    cur = -1
    skipping = False
    nv, nt = len(verts), len(uvs)
    for ln in lines:
        if skip_parts and (ln.startswith("g ") or ln.startswith("o ")):
            skipping = ln[2:].strip().startswith(skip_parts)
        elif skipping and ln.startswith("f "):
            continue
        elif ln.startswith("f "):
            toks = ln.split()[1:]
            if len(toks) < 3:
                continue
            vi, ti = [], []
            for tok in toks:
                parts = tok.split("/")
                try:
                    a = int(parts[0])
                    b = int(parts[1]) if len(parts) > 1 and parts[1] else 0
                except ValueError:
                    raise InputError(name, f"bad face {ln.strip()!r}", field="f") from None
                vi.append(a - 1 if a > 0 else nv + a)
                ti.append((b - 1 if b > 0 else nt + b) if b else -1)
            for k in range(1, len(vi) - 1):
                tri_v.append([vi[0], vi[k], vi[k + 1]])
                tri_t.append([ti[0], ti[k], ti[k + 1]])
                tri_m.append(cur)
            if len(tri_v) > MAX_FACES:
                raise InputError(name, f"more than {MAX_FACES} triangles", expected="a lighter model")
        elif ln.startswith("usemtl"):
            m = ln[6:].strip()
            if m not in mat_index:
                mat_index[m] = len(mat_names)
                mat_names.append(m)
            cur = mat_index[m]
        elif ln.startswith("mtllib"):
            for lib in ln[6:].split():
                blob = read(posixpath.join(base, lib))
                if blob is not None:
                    materials.update(parse_mtl(blob.decode("utf-8", errors="replace")))
    faces = np.asarray(tri_v, np.int64).reshape(-1, 3)
    if not len(faces):
        raise InputError(name, "no faces", expected="a triangle mesh")
    if (faces < 0).any() or (faces >= nv).any():
        raise InputError(name, "a face names a vertex that does not exist", field="f")
    fm = np.asarray(tri_m, np.int64)
    kd = np.array([materials.get(m, (_GREY, None))[0] for m in mat_names] + [_GREY], np.float32)
    colors = kd[fm]  # -1 (no material) takes the last row: grey
    ft = np.asarray(tri_t, np.int64).reshape(-1, 3)
    for j, m in enumerate(mat_names):
        tex = materials.get(m, (_GREY, None))[1]
        sel = (fm == j) & (ft >= 0).all(1)
        if tex is None or not sel.any() or nt == 0:
            continue
        blob = read(posixpath.join(base, tex))
        img = _decode_texture(blob) if blob is not None else None
        if img is None:
            continue
        t = np.clip(ft[sel], 0, nt - 1)
        uv = uvs[t].mean(1) % 1.0  # repeat wrap, as renderers default to
        h, w = img.shape[:2]
        px = np.minimum((uv[:, 0] * w).astype(int), w - 1)
        py = np.minimum(((1.0 - uv[:, 1]) * h).astype(int), h - 1)
        colors[sel] = np.clip(img[py, px] * kd[j], 0.0, 1.0)
    if skip_parts:  # the bounds are those of the parts kept
        used, faces = np.unique(faces, return_inverse=True)
        return Mesh(verts[used], faces.reshape(-1, 3), colors.astype(np.float32))
    return Mesh(verts, faces, colors.astype(np.float32))
