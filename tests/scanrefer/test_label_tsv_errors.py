"""The ScanRefer label TSV: a Latin-1 byte or an overlong field is a one-line InputError naming the
file and the line (issue 41). Before, both ended as "unexpected ... a bug in scenebench"
(UnicodeDecodeError; csv's "field larger than field limit")."""

from __future__ import annotations

import pytest
from cli_run import run_cli
from tests.scanrefer.test_scanrefer import data  # noqa: F401 - the fixture

from scenebench.benchmarks.scanrefer.data import MAX_TSV_FIELD, read_raw2label
from scenebench.benchmarks.scanrefer.writer import TSV, TSV_HEAD
from scenebench.errors import InputError


def _tsv(path, body: bytes):
    path.write_bytes("\t".join(TSV_HEAD).encode() + b"\n" + body)
    return path


def _row(raw: bytes) -> bytes:
    cols = [b"1", raw, b"5", b"chair", b"2", b"chair", b"n03001627", b"chair.n.01", b"chair", b"chair", b"5"]
    return b"\t".join(cols[: len(TSV_HEAD)]) + b"\n"


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        (_row(b"chair") + _row(b"caf\xe9 table"), r"line 3: not UTF-8 text \(byte 0xe9 at offset \d+\) \(expected a UTF-8 TSV"),
        (_row(b"chair") + _row(b"x" * 200_000), r"line 3: is not a readable TSV: field larger than field limit"),
        (_row(b"y" * 20_000), rf"line 2: holds a field of 20,000 characters \(expected fields of at most {MAX_TSV_FIELD:,}"),
    ],
    ids=["latin-1", "over-csv-limit", "overlong"],
)
def test_bad_label_tsv_names_file_and_line(tmp_path, body, pattern):
    p = _tsv(tmp_path / TSV, body)
    with pytest.raises(InputError, match=pattern) as ei:
        read_raw2label(p)
    assert str(p) in str(ei.value)


def test_run_with_a_latin1_label_tsv_is_one_line_exit_2(data, tmp_path):  # noqa: F811 - the fixture
    tsv = data / TSV
    tsv.write_bytes(tsv.read_bytes().replace(b"table", b"t\xe9ble", 1))
    r = run_cli(["run", "scanrefer", "--data", data, "--model", "oracle", "--out", tmp_path / "run", "--no-progress"])
    assert r.returncode == 2, r.stderr[-1500:]
    assert "bug in scenebench" not in r.stderr and "not UTF-8 text (byte 0xe9" in r.stderr and str(tsv) in r.stderr
