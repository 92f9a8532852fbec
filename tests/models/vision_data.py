"""Data and a scripted vision server for the ``openai-vision:`` tests.

The scenes are dense lattices of box-shaped objects floating 0.1 m or more above a floor slab and
below a ceiling slab, with gaps wider than the segmentation's voxel between them, so the
class-agnostic over-segmentation finds exactly the objects: the best mark of every question covers
its object's points exactly (IoU 1 by construction), the upper bound worked out by hand.

:class:`VisionServer` wraps the judges' scripted OpenAI-compatible server: it decodes every image
of every request (PNG, checked for size and count, yellow mark boxes counted) and answers from a
side channel: ``answers[question text] = reply text`` set by the test.
"""

from __future__ import annotations

import base64
import re
import struct
import zlib
from pathlib import Path

import numpy as np
from fake_openai import FakeOpenAI

MARK_FILL = (255, 255, 0)


def lattice_box(lo, hi, step=0.05):
    axes = [np.linspace(a, b, max(2, int(round((b - a) / step)) + 1)) for a, b in zip(lo, hi)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)


def slab(lo, hi, step=0.1):
    return lattice_box(lo, hi, step)


# SURPRISE3D (z up): id, label, min corner, max corner, colour
S3D_OBJECTS = [
    (1, "armchair", (0.5, 0.5, 0.1), (1.1, 1.1, 0.9), (200, 40, 40)),
    (2, "bookshelf", (2.5, 0.5, 0.1), (3.3, 0.9, 1.8), (40, 160, 40)),
    (3, "floorlamp", (0.6, 3.0, 0.1), (0.9, 3.3, 1.7), (40, 40, 220)),
    # hangs from the ceiling: a distractor, and it keeps the tall objects from looking like wall columns
    (4, "pendant", (3.0, 3.0, 2.0), (3.3, 3.3, 2.3), (230, 200, 40)),
]


def make_s3d(root: Path) -> Path:
    from scenebench.benchmarks.surprise3d.writer import annotation_record, write_annotations, write_scene

    pts, inst, col = [slab((0, 0, 0), (4, 4, 0)), slab((0, 0, 2.5), (4, 4, 2.5))], [], []
    inst = [np.full(len(pts[0]), -1), np.full(len(pts[1]), -1)]
    col = [np.full((len(pts[0]), 3), 120.0), np.full((len(pts[1]), 3), 230.0)]
    for oid, _, lo, hi, c in S3D_OBJECTS:
        p = lattice_box(lo, hi)
        pts.append(p)
        inst.append(np.full(len(p), oid))
        col.append(np.tile(np.asarray(c, float), (len(p), 1)))
    write_scene(root / "scenes" / "room01.npz", np.concatenate(pts), np.concatenate(col), np.concatenate(inst))
    val = [
        annotation_record("room01", 1, "Where would a tired reader sit down?", ["armchair"], "hi"),
        annotation_record("room01", 2, "Where are the novels kept?", ["bookshelf"], "cs"),
        annotation_record("room01", 3, "What brightens the corner at night?", ["floorlamp"], "rel_pos"),
        annotation_record("room01", [1, 3], "Which two things make the reading corner?", ["armchair", "floorlamp"], "cs"),
    ]
    write_annotations(root / "surprise-3d-val.json", val)
    return root


# 3DBench (y up): label, min corner, max corner (x, y, z)
B3D_OBJECTS = [
    ("armchair", (0.5, 0.1, 0.5), (1.1, 0.9, 1.1)),
    ("bookshelf", (2.5, 0.1, 0.5), (3.3, 1.8, 0.9)),
    ("floorlamp", (0.6, 0.1, 3.0), (0.9, 1.7, 3.3)),
    ("pendant", (3.0, 2.0, 3.0), (3.3, 2.3, 3.3)),
]


def centre_size(lo, hi):
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return [*((lo + hi) / 2).tolist(), *(hi - lo).tolist()]


def make_b3d(root: Path) -> Path:
    from scenebench.benchmarks.bench3d.writer import write_point_cloud, write_task

    parts = [slab((0, 0, 0), (4, 0, 4)), slab((0, 2.5, 0), (4, 2.5, 4))]
    cols = [np.full((len(parts[0]), 3), 120.0), np.full((len(parts[1]), 3), 230.0)]
    for k, (_, lo, hi) in enumerate(B3D_OBJECTS):
        p = lattice_box(lo, hi)
        parts.append(p)
        cols.append(np.tile(np.asarray([(200, 40, 40), (40, 160, 40), (40, 40, 220), (230, 200, 40)][k], float), (len(p), 1)))
    write_point_cloud(root, "pcl/house0.npy", np.c_[np.concatenate(parts), np.concatenate(cols)])
    base = {"id": "house0", "pcl": "pcl/house0.npy"}
    write_task(
        root,
        "visual_grounding",
        [
            {
                **base,
                "question_id": "vg-0",
                "query": "Where is the armchair?",
                "object": centre_size(*B3D_OBJECTS[0][1:]),
                "name": "armchair",
            },
            {
                **base,
                "question_id": "vg-1",
                "query": "Where is the bookshelf?",
                "object": centre_size(*B3D_OBJECTS[1][1:]),
                "name": "bookshelf",
            },
            {
                **base,
                "question_id": "vg-2",
                "query": "Where is the floor lamp?",
                "object": centre_size(*B3D_OBJECTS[2][1:]),
                "name": "floorlamp",
            },
        ],
    )
    write_task(
        root,
        "detection",
        [
            {
                **base,
                "question_id": "det-0",
                "query": "Detect every armchair and floor lamp.",
                "object": [{"name": n, "BoundingBox": centre_size(lo, hi)} for n, lo, hi in B3D_OBJECTS if n in ("armchair", "floorlamp")],
            }
        ],
    )
    write_task(
        root,
        "counting",
        [
            {
                **base,
                "question_id": "cnt-0",
                "query": "How many lamps are there?",
                "gt_choices": [1, 2, 3, 4],
                "gt_choice": 0,
                "object": "floorlamp",
            }
        ],
    )
    write_task(
        root,
        "navigation",
        [
            {
                **base,
                "question_id": "nav-0",
                "query": "Go to the lamp.",
                "positions": [[2.0, 2.0], [1.0, 2.8]],
                "start": [2.0, 2.0],
                "target": "floorlamp",
            }
        ],
    )
    return root


def decode_png(data: bytes) -> np.ndarray:
    """(H, W, 3) uint8 of an 8-bit RGB, non-interlaced PNG (all five row filters)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n = struct.unpack(">I", data[pos : pos + 4])[0]
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        assert zlib.crc32(tag + body) & 0xFFFFFFFF == struct.unpack(">I", data[pos + 8 + n : pos + 12 + n])[0], "bad CRC"
        if tag == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    assert (depth, ctype, interlace) == (8, 2, 0), "expected 8-bit RGB, not interlaced"
    raw = zlib.decompress(idat)
    stride = w * 3
    out = np.zeros((h, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) % 256
        else:  # 1, 3, 4: need the left neighbour, row by row
            cur = np.zeros(stride, np.int32)
            for x in range(stride):
                a = cur[x - 3] if x >= 3 else 0
                b, c = prev[x], (prev[x - 3] if x >= 3 else 0)
                if f == 1:
                    pred = a
                elif f == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pred) % 256
        out[y] = cur
        prev = cur
    return out.reshape(h, w, 3).astype(np.uint8)


class VisionServer(FakeOpenAI):
    """The scripted server, answering vision requests from ``answers`` (question text -> reply)."""

    def __init__(self, width=640, height=480, n_images=5, **kw):
        self.answers: dict[str, str] = {}
        self.checked: list[dict] = []  # per request: question, image sizes, yellow pixels per image
        self.texts: list[str] = []
        self.expect = (width, height, n_images)
        super().__init__(reply=self._reply, **kw)

    def _reply(self, body: dict) -> str:
        user = body["messages"][-1]["content"]
        assert isinstance(user, list) and user[0]["type"] == "text" and user[-1]["type"] == "text"
        text = "\n".join(p["text"] for p in user if p["type"] == "text")
        images = [decode_png(base64.b64decode(p["image_url"]["url"].split(",", 1)[1])) for p in user[1:] if p["type"] == "image_url"]
        q = re.search(r"^Question: (.*)$", text, re.M).group(1)
        self.texts.append(body["messages"][0]["content"] + "\n" + text)
        self.checked.append(
            {
                "question": q,
                "sizes": [(im.shape[1], im.shape[0]) for im in images],
                "yellow": [int(np.all(im == MARK_FILL, axis=2).sum()) for im in images],
            }
        )
        return self.answers.get(q, "I cannot tell.")
