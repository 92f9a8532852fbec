"""The generate command, its light import, and the preview pictures."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib

import numpy as np
from typer.testing import CliRunner

from scenebench.cli import build_app

app = build_app()
from scenebench.io.png import png_bytes


def _decode_png(data: bytes) -> np.ndarray:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        assert zlib.crc32(tag + body) & 0xFFFFFFFF == struct.unpack(">I", data[pos + 8 + n : pos + 12 + n])[0]
        if tag == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
            assert body[8:10] == b"\x08\x02"  # 8-bit RGB
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * 3)
    assert (raw[:, 0] == 0).all()  # filter type none
    return raw[:, 1:].reshape(h, w, 3)


def test_png_round_trip():
    img = np.random.default_rng(0).random((7, 5, 3)).astype(np.float32)
    back = _decode_png(png_bytes(img))
    assert np.array_equal(back, (np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8))


def test_generate_command_with_preview(tmp_path):
    out = tmp_path / "g"
    res = CliRunner().invoke(
        app,
        [
            "generate",
            "--out",
            str(out),
            "--houses",
            "2",
            "--max-rooms",
            "3",
            "--width",
            "48",
            "--height",
            "36",
            "--formats",
            "3dbench,surprise3d",
            "--preview",
            "1",
            "--quiet",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "2 houses" in res.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["formats"] == ["3dbench", "surprise3d"] and not (out / "3rscan").exists()
    top = _decode_png((out / "preview" / "house_000000_top.png").read_bytes())
    cloud = _decode_png((out / "preview" / "house_000000_cloud.png").read_bytes())
    assert len(np.unique(top.reshape(-1, 3), axis=0)) > 8  # rooms, walls, objects, path: a picture, not a blank page
    assert len(np.unique(cloud.reshape(-1, 3), axis=0)) > 100  # shaded points
    # the navigation path is drawn in red on the plan
    assert ((top[..., 0] > 200) & (top[..., 1] < 60) & (top[..., 2] < 60)).sum() > 20


def test_bad_options_are_one_line_errors(tmp_path):
    res = CliRunner().invoke(app, ["generate", "--out", str(tmp_path / "x"), "--formats", "3dbench,scannet"])
    assert res.exit_code != 0 and "scannet" in str(res.exception or res.output)


def test_help_does_not_import_heavy_modules():
    code = (
        "import sys, json; import scenebench.synth.cli; import scenebench.cli; "
        "print(json.dumps([m for m in ('torch', 'ray', 'open3d', 'trimesh', 'embreex', 'shapely') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert json.loads(out.splitlines()[-1]) == []
