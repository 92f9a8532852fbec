"""Resource bombs (issue 28, items 1-2): small files that declare huge data are refused with bounded memory.

Each bomb is read in a child process whose own peak RSS (``os.wait4``) must stay under 300 MB;
before the fixes each of these inflated its payload whole (a 1 GiB ``data.pkl``: 2.1 GB RSS).
"""

from __future__ import annotations

import io
import json
import random
import shutil
import sys

import bombs
import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.io.arrays import load_npz, read_pth

RSS_LIMIT_MB = 300
HALF_GIB = 512 << 20


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def _scene_npz(path, inst_zeros: int, inst_suffix: bytes = b"", n: int = 100):
    """A SURPRISE3D scene of ``n`` points whose instance-id member declares (and holds) ``inst_zeros``
    zero bytes plus ``inst_suffix``."""
    coords = _npy(np.zeros((n, 3), np.float32))
    inst_shape = ((inst_zeros + len(inst_suffix)) // 8,)
    return bombs.write_zip(
        path,
        [
            ("sampled_coords.npy", coords, 0, b""),
            ("sampled_colors.npy", coords, 0, b""),
            ("sampled_instance_anno_id.npy", bombs.npy_header(inst_shape), inst_zeros, inst_suffix),
        ],
    )


def _rss(code: str) -> tuple[int, float, str]:
    rc, mb, out = bombs.peak_rss_mb(code)
    assert mb < RSS_LIMIT_MB, (mb, out)
    return rc, mb, out


def test_pth_whose_data_pkl_inflates_to_half_a_gib_is_refused_before_inflating(tmp_path):
    p = bombs.write_zip(tmp_path / "scene.pth", [("archive/data.pkl", b"\x80\x02}q\x00.", HALF_GIB, b"")])
    assert p.stat().st_size < 1 << 20
    rc, _mb, out = _rss(f"from scenebench.io.arrays import load_arrays; load_arrays({str(p)!r})")
    assert rc == 1 and "InputError" in out and "archive/data.pkl" in out and "compresses" in out, out


def test_npz_instance_ids_bomb_is_refused_by_its_ratio(tmp_path):
    assert _scene_npz(tmp_path / "scene0.npz", HALF_GIB).stat().st_size < 1 << 20
    code = f"from scenebench.benchmarks.surprise3d.scenes import load_scene_for_scoring as f; f({str(tmp_path)!r}, 'scene0')"
    rc, _mb, out = _rss(code)
    assert rc == 1 and "sampled_instance_anno_id" in out and "compresses" in out, out


@pytest.mark.parametrize("loader", ["load_scene_for_scoring", "load_scene"])
def test_npz_instance_ids_of_the_wrong_shape_are_refused_from_the_header(tmp_path, loader):
    # 3 MiB of random bytes keep the ratio under 200:1, so only the shape check can stop it.
    p = _scene_npz(tmp_path / "scene0.npz", HALF_GIB, random.Random(0).randbytes(3 << 20))
    assert p.stat().st_size < 5 << 20
    code = f"from scenebench.benchmarks.surprise3d.scenes import {loader} as f; f({str(tmp_path)!r}, 'scene0')"
    rc, _mb, out = _rss(code)
    assert rc == 1 and "field 'sampled_instance_anno_id'" in out and "(100,) like sampled_coords" in out, out


def test_npy_header_declaring_more_than_its_member_holds_is_refused(tmp_path):
    p = bombs.write_zip(tmp_path / "x.npz", [("a.npy", bombs.npy_header((1 << 40,)), 0, b"\0" * 64)])
    with pytest.raises(
        InputError, match=r"header declares shape \(1099511627776,\) of int64 \(8,796,093,022,208 bytes\), the member holds 64"
    ):
        load_npz(p)


def test_pth_tensor_larger_than_its_storage_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "x.pth"
    torch.save({"sampled_coords": torch.zeros(1).expand(10**9)}, p)  # a stride-0 view: 4 bytes stored
    with pytest.raises(InputError, match="a tensor of 1,000,000,000 elements over storage '0' of 1"):
        read_pth(p)


def test_pth_storage_shorter_than_the_pickle_says_is_refused_before_reading(tmp_path):
    torch = pytest.importorskip("torch")
    import zipfile

    src = tmp_path / "ok.pth"
    torch.save({"a": torch.arange(1000, dtype=torch.int64)}, src)
    bad = tmp_path / "bad.pth"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            zout.writestr(info, data[:80] if info.filename.endswith("data/0") else data)
    with pytest.raises(InputError, match=r"storage '0' holds 80 bytes, the pickle says 1000 elements \(8000 bytes\)"):
        read_pth(bad)


def test_score_surprise3d_with_a_bomb_scene_is_one_line_and_bounded(fuzz_ctx, tmp_path):
    s3d = tmp_path / "s3d"
    shutil.copytree(fuzz_ctx.s3d, s3d)
    sid = fuzz_ctx.scene_ids()[0]
    _scene_npz(s3d / "scenes" / f"{sid}.npz", HALF_GIB, random.Random(0).randbytes(3 << 20))
    cmd = [sys.executable, "-m", "scenebench", "score", "surprise3d", "-a", str(s3d / "annotations.json"), "-s", str(s3d / "scenes")]
    cmd += ["-p", str(s3d / "predictions.jsonl"), "--out", str(tmp_path / "run"), "--bootstrap", "0", "--no-progress"]
    rc, _mb, out = _rss(cmd)
    assert rc == 2 and f"{sid}.npz" in out and "sampled_instance_anno_id" in out and "Traceback" not in out, out


# ------------------------------------------------------------------------------------------------
# Item 2: one huge JSONL line.


def _huge_line(path, size: int):
    """A JSONL file whose second line is ``size`` bytes with no newline (sparse: a few bytes on disk)."""
    with open(path, "wb") as fh:
        fh.write(b'{"index": 0, "mask_indices": [1]}\n{"index": 1, "note": "')
        fh.truncate(size)
    return path


def test_score_surprise3d_with_a_huge_predictions_line_is_one_line_and_bounded(fuzz_ctx, tmp_path):
    s3d = fuzz_ctx.s3d
    p = _huge_line(tmp_path / "p.jsonl", 600 << 20)
    cmd = [sys.executable, "-m", "scenebench", "score", "surprise3d", "-a", str(s3d / "annotations.json"), "-s", str(s3d / "scenes")]
    cmd += ["-p", str(p), "--out", str(tmp_path / "run"), "--bootstrap", "0", "--no-progress"]
    rc, _mb, out = _rss(cmd)
    assert rc == 2 and "p.jsonl: line 2: record of more than" in out and "Traceback" not in out, out


@pytest.mark.parametrize("reader", ["iter_jsonl", "iter_jsonl_decoded", "iter_jsonl_offsets"])
def test_long_lines_below_the_limit_are_read_whole_and_the_next_line_follows(tmp_path, monkeypatch, reader):
    import scenebench.io.files as F

    monkeypatch.setattr(F, "_LINE_PROBE_BYTES", 64)  # lines past 64 bytes take the measuring path
    monkeypatch.setattr(F, "_SCAN_CHUNK", 16)
    monkeypatch.setattr(F, "MAX_JSONL_LINE_BYTES", 1000)
    recs = [{"n": i, "pad": "x" * size} for i, size in enumerate([1, 100, 500, 1000 - 17])]  # the last line is 1000 bytes
    lines = [(json.dumps(r, separators=(",", ":")) + "\n").encode() for r in recs]
    assert len(lines[-1]) == 1000
    p = tmp_path / "a.jsonl"
    p.write_bytes(b"".join(lines) + b'{"last": 1}')  # and a final line without a newline
    rows = list(getattr(F, reader)(p) if reader != "iter_jsonl_decoded" else F.iter_jsonl_decoded(p, F._dict_decoder()))
    assert [r[-1] for r in rows] == [*recs, {"last": 1}]
    if reader == "iter_jsonl_offsets":
        assert [r[1] for r in rows] == [sum(map(len, lines[:i])) for i in range(len(lines) + 1)]
    p.write_bytes(b"".join(lines[:2]) + b'{"pad": "' + b"y" * 1000 + b'"}\n' + lines[0])
    with pytest.raises(InputError, match=r"line 3: record of more than 1,000 bytes is too large \(expected at most 1,000 bytes per line\)"):
        list(F.iter_jsonl(p))


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1" + "0" * 400 + ".0"])
def test_iter_jsonl_refuses_numbers_beyond_float_range(tmp_path, number):
    from scenebench.io.files import iter_jsonl

    p = tmp_path / "a.jsonl"
    p.write_text('{"a": 1}\n{"t": [0, ' + number + "]}\n")
    with pytest.raises(InputError, match=r"line 2: field 't': non-finite number") as ei:
        list(iter_jsonl(p))
    assert str(p) in str(ei.value)
