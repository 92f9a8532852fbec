"""The ``vertex`` element of a PLY file as a structured array, fast for ASCII files.

3RScan ships its labelled scans (``labels.instances.annotated.v2.ply``) as ASCII PLY, and so does
the generator. plyfile parses ASCII one line at a time in Python (6.6 s for a 250k-vertex scan, and
the faces after it as well); here the vertex block goes through numpy's C text parser in one call
(:func:`numpy.loadtxt` with the property types of the header), the faces are not read. Binary files,
list properties in the vertex element, or any block the C parser refuses go to plyfile, which
gives the same array or names the problem; ``tests/core/test_ply.py`` checks both paths give the
same array, byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

# PLY scalar type names (both spellings) -> numpy, little-endian as plyfile reads ASCII
_TYPES = {
    "char": "i1",
    "int8": "i1",
    "uchar": "u1",
    "uint8": "u1",
    "short": "i2",
    "int16": "i2",
    "ushort": "u2",
    "uint16": "u2",
    "int": "i4",
    "int32": "i4",
    "uint": "u4",
    "uint32": "u4",
    "float": "f4",
    "float32": "f4",
    "double": "f8",
    "float64": "f8",
}
MAX_HEADER_LINES = 10_000  # a header is a few dozen lines; a file without end_header is not read whole


def _ascii_vertex_block(path: Path) -> np.ndarray | None:
    """The vertex rows of an ASCII PLY whose first element is ``vertex`` with scalar properties, or
    None when the file is anything else (then plyfile reads it)."""
    with open(path, "rb") as fh:
        if fh.readline().strip() != b"ply":
            return None
        fmt = None
        elements: list[tuple[str, int, list[tuple[str, str]]]] = []
        for _ in range(MAX_HEADER_LINES):
            line = fh.readline()
            if not line:
                return None
            words = line.split()
            if not words or words[0] in (b"comment", b"obj_info"):
                continue
            if words[0] == b"end_header":
                break
            if words[0] == b"format":
                fmt = words[1:2]
            elif words[0] == b"element" and len(words) == 3 and words[2].isdigit():
                elements.append((words[1].decode("ascii", "replace"), int(words[2]), []))
            elif words[0] == b"property" and elements:
                if len(elements) > 1:  # after the vertex element: not read here (faces hold list properties)
                    continue
                if len(words) != 3 or words[1].decode("ascii", "replace") not in _TYPES:
                    return None  # a list property in the vertex element, or a type plyfile knows better
                elements[-1][2].append((words[2].decode("ascii", "replace"), _TYPES[words[1].decode("ascii")]))
            else:
                return None
        else:
            return None
        if fmt != [b"ascii"] or not elements or elements[0][0] != "vertex" or not elements[0][2]:
            return None
        _, n, props = elements[0]
        if len({name for name, _ in props}) != len(props):
            return None
        dtype = np.dtype([(name, t) for name, t in props])
        if n == 0:
            return np.empty(0, dtype)
        try:
            rows = np.loadtxt(fh, dtype=dtype, max_rows=n, comments=None, ndmin=1, encoding="ascii")
        except (ValueError, OverflowError, UnicodeDecodeError):
            return None
        return rows if len(rows) == n else None


def read_ply_vertices(path: Path) -> np.ndarray:
    """Structured array of the ``vertex`` element (one field per property, the header's types).

    Raises ``KeyError`` when the file has no vertex element and whatever plyfile raises for a file
    it cannot read; callers name the file in their own error.
    """
    fast = _ascii_vertex_block(path)
    if fast is not None:
        return fast
    from plyfile import PlyData

    return np.asarray(PlyData.read(str(path))["vertex"].data)
