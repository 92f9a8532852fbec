"""Resource bombs for the fault tests: small on disk, huge once read, built in well under a second.

A zip member of ``n`` zero bytes is written as one raw-deflate segment of 16 MiB of zeros (ended by
a full flush, which resets the compressor's history) repeated ``n / 16 MiB`` times, then an empty
final block: a valid deflate stream of about 1/1000 of its inflated size, without compressing
``n`` bytes. :func:`peak_rss_mb` runs Python code in a child and reads that child's own peak RSS
(``os.wait4``), so nothing else the test process ran counts.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from functools import cache
from pathlib import Path

SEGMENT = 16 << 20


@cache
def _zero_segment() -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(bytes(SEGMENT)) + c.flush(zlib.Z_FULL_FLUSH)


def _final_block() -> bytes:
    return zlib.compressobj(9, zlib.DEFLATED, -15).flush()


@cache
def _crc_after(crc: int, n_zeros: int) -> int:
    chunk = bytes(SEGMENT)
    for _ in range(n_zeros // SEGMENT):
        crc = zlib.crc32(chunk, crc)
    return crc


def write_zip(path: Path, members: list[tuple[str, bytes, int, bytes]]) -> Path:
    """A zip of ``(name, prefix, n_zeros, suffix)`` members: each inflates to ``prefix`` +
    ``n_zeros`` zero bytes (a multiple of 16 MiB) + ``suffix``, which is stored uncompressed (a
    random suffix lowers the compression ratio). Sizes in the headers are the true ones."""
    out = bytearray()
    central = bytearray()
    for name, prefix, n_zeros, suffix in members:
        assert n_zeros % SEGMENT == 0
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
        stored = zlib.compressobj(0, zlib.DEFLATED, -15)
        tail = stored.compress(suffix) + stored.flush(zlib.Z_FULL_FLUSH)
        data = head + _zero_segment() * (n_zeros // SEGMENT) + tail + _final_block()
        crc = zlib.crc32(suffix, _crc_after(zlib.crc32(prefix), n_zeros))
        size = len(prefix) + n_zeros + len(suffix)
        fname = name.encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(data), size, len(fname), 0) + fname + data
        central += (
            struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(data), size, len(fname), 0, 0, 0, 0, 0, offset)
            + fname
        )
    cd_offset = len(out)
    out += central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), cd_offset, 0)
    path.write_bytes(bytes(out))
    return path


def npy_header(shape: tuple[int, ...], descr: str = "<i8") -> bytes:
    """A version 1.0 ``.npy`` header declaring ``shape`` (the data is whatever follows)."""
    d = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape!r}, }}"
    pad = 64 - (10 + len(d) + 1) % 64
    body = (d + " " * pad + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body


DRIVER = r"""
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=os.environ)
out = p.stdout.read()
_, status, ru = os.wait4(p.pid, 0)
sys.stdout.write(f"{os.waitstatus_to_exitcode(status)} {ru.ru_maxrss}\n")
sys.stdout.flush()
sys.stdout.buffer.write(out)
"""


def peak_rss_mb(code: str | list[str], env: dict[str, str] | None = None) -> tuple[int, float, str]:
    """(exit code, peak RSS in MB, output) of ``python -c code`` (or of the command ``code``) in a child."""
    cmd = [sys.executable, "-c", code] if isinstance(code, str) else code
    r = subprocess.run([sys.executable, "-c", DRIVER, *cmd], capture_output=True, text=True, env=env or dict(os.environ))
    first, _, rest = r.stdout.partition("\n")
    rc, kb = first.split()
    return int(rc), int(kb) / 1024, rest + r.stderr
