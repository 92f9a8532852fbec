"""scenebench.io.archives: traversal, symlinks, duplicates and zip bombs are refused before any byte is written."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from scenebench.errors import InputError
from scenebench.io.archives import ArchiveLimits, check_members, extract, read_member


def _zip(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for m in members:
            if isinstance(m, zipfile.ZipInfo):
                zf.writestr(m, b"target")
            else:
                name, data = m
                zf.writestr(name, data)
    return path


def test_a_sequence_zip_extracts_and_reads(tmp_path):
    z = _zip(
        tmp_path / "sequence.zip",
        [
            ("frame-000000.color.jpg", b"\xff\xd8jpeg"),
            ("frame-000000.depth.pgm", b"P5 2 2 65535\n" + b"\0" * 8),
            ("frame-000000.pose.txt", b"1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n"),
            ("_info.txt", b"m_colorWidth = 960\n"),
        ],
    )
    assert [i.filename for i in check_members(z)][0] == "frame-000000.color.jpg"
    assert read_member(z, "frame-000000.pose.txt").startswith(b"1 0 0 0")
    out = extract(z, tmp_path / "out")
    assert sorted(p.name for p in out) == ["_info.txt", "frame-000000.color.jpg", "frame-000000.depth.pgm", "frame-000000.pose.txt"]
    assert (tmp_path / "out" / "_info.txt").read_bytes() == b"m_colorWidth = 960\n"


@pytest.mark.parametrize(
    "name, why",
    [
        ("../evil.txt", "climbs out"),
        ("frames/../../evil.txt", "climbs out"),
        ("/etc/evil.txt", "absolute"),
        ("C:/evil.txt", "absolute"),
        ("..\\evil.txt", "backslash"),
        ("frames\\..\\..\\evil.txt", "backslash"),
    ],
)
def test_path_traversal_is_refused_and_nothing_is_written(tmp_path, name, why):
    z = _zip(tmp_path / "sequence.zip", [("ok.txt", b"fine"), (name, b"pwned")])
    dest = tmp_path / "a" / "b"
    with pytest.raises(InputError, match=why) as ei:
        extract(z, dest)
    assert str(z) in str(ei.value)
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "a" / "evil.txt").exists() and not dest.exists()


def test_symlink_member_is_refused(tmp_path):
    link = zipfile.ZipInfo("frames/link")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    z = _zip(tmp_path / "s.zip", [("a.txt", b"x"), link])
    with pytest.raises(InputError, match="symbolic link"):
        check_members(z)


def test_duplicate_member_is_refused(tmp_path):
    buf = io.BytesIO()
    with pytest.warns(UserWarning):  # zipfile warns but writes it
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("a.txt", b"1")
            zf.writestr("a.txt", b"2")
    (tmp_path / "d.zip").write_bytes(buf.getvalue())
    with pytest.raises(InputError, match="same path"):
        check_members(tmp_path / "d.zip")


def test_zip_bomb_ratio_total_and_count(tmp_path):
    bomb = _zip(tmp_path / "bomb.zip", [("zeros.bin", b"\0" * (20 << 20))])  # 20 MB -> ~20 kB
    with pytest.raises(InputError, match="zip bomb"):
        extract(bomb, tmp_path / "out")
    assert not (tmp_path / "out" / "zeros.bin").exists()
    many = _zip(tmp_path / "many.zip", [(f"f{i}.txt", b"x") for i in range(20)])
    with pytest.raises(InputError, match="20 members"):
        check_members(many, ArchiveLimits(max_members=10))
    big = _zip(tmp_path / "big.zip", [(f"f{i}.bin", bytes(range(256)) * 64) for i in range(4)], compression=zipfile.ZIP_STORED)
    with pytest.raises(InputError, match="in total"):
        check_members(big, ArchiveLimits(max_total_bytes=40_000))


def test_member_that_lies_about_its_size_is_stopped(tmp_path):
    z = tmp_path / "lie.zip"
    _zip(z, [("a.bin", b"A" * 5000)], compression=zipfile.ZIP_STORED)
    raw = bytearray(z.read_bytes())
    # Shrink the declared size in the central directory (the one zipfile trusts) to 10 bytes.
    cd = raw.rfind(b"PK\x01\x02")
    raw[cd + 24 : cd + 28] = (10).to_bytes(4, "little")
    z.write_bytes(bytes(raw))
    with pytest.raises(InputError, match="a.bin"):
        read_member(z, "a.bin")


@pytest.mark.parametrize("data", [b"", b"PK\x03\x04 truncated", b"not a zip at all"])
def test_damaged_archive(tmp_path, data):
    (tmp_path / "x.zip").write_bytes(data)
    with pytest.raises(InputError, match="x.zip.*not a readable zip"):
        check_members(tmp_path / "x.zip")
