import json

import numpy as np
import pytest

from scenebench.errors import InputError
from scenebench.io.arrays import load_npy, load_npz
from scenebench.io.files import atomic_write_json, iter_jsonl, read_json, sha256_file


def test_iter_jsonl_reports_line_numbers(tmp_path):
    p = tmp_path / "p.jsonl"
    p.write_text('{"a": 1}\n\n{"a": 2}\n{"a": \n')
    it = iter_jsonl(p)
    assert next(it) == (1, {"a": 1})
    assert next(it) == (3, {"a": 2})
    with pytest.raises(InputError) as e:
        next(it)
    assert "p.jsonl" in str(e.value) and "line 4" in str(e.value)


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"[1, 2]\n", "expected a JSON object"),
        (b'{"x": NaN}\n', "finite"),
        (b"\xff\xfe{}\n", "UTF-8"),
        (b"", "no records"),
    ],
)
def test_iter_jsonl_bad_inputs(tmp_path, content, needle):
    p = tmp_path / "bad.jsonl"
    p.write_bytes(content)
    with pytest.raises(InputError) as e:
        list(iter_jsonl(p))
    assert needle in str(e.value)
    assert "bad.jsonl" in str(e.value)


def test_read_json_errors_name_position(tmp_path):
    p = tmp_path / "a.json"
    p.write_text('[{"a": 1},\n {"a": ]')
    with pytest.raises(InputError, match=r"a.json: line 2"):
        read_json(p)
    with pytest.raises(InputError, match="does not exist"):
        read_json(tmp_path / "nope.json")


def test_atomic_write_leaves_no_temp(tmp_path):
    p = tmp_path / "sub" / "r.json"
    atomic_write_json(p, {"x": 1})
    assert json.loads(p.read_text()) == {"x": 1}
    assert [q.name for q in p.parent.iterdir()] == ["r.json"]
    assert len(sha256_file(p)) == 64


def test_atomic_write_refuses_nan(tmp_path):
    with pytest.raises(ValueError):
        atomic_write_json(tmp_path / "r.json", {"x": float("nan")})
    assert not (tmp_path / "r.json").exists()


def test_arrays_refuse_pickles(tmp_path):
    p = tmp_path / "obj.npy"
    np.save(p, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(InputError, match="pickled"):
        load_npy(p)
    z = tmp_path / "obj.npz"
    np.savez(z, good=np.arange(3), bad=np.array([{"a": 1}], dtype=object))
    with pytest.raises(InputError, match="pickled"):
        load_npz(z)


def test_arrays_truncated(tmp_path):
    p = tmp_path / "t.npy"
    np.save(p, np.arange(100))
    p.write_bytes(p.read_bytes()[:60])
    with pytest.raises(InputError, match="t.npy"):
        load_npy(p)


READ_JSON_CASES = [
    b'{"a": [1, 2.5, -0.0, 1e308, 5e-324, "caf\\u00e9"], "b": {"c": null, "d": true}}',
    b"\xef\xbb\xbf[1, 2]",
    b'{"a": 1, "a": 2}',
    b"[1e999]",
    b'{"x": [0, NaN]}',
    b'{"x": {"y": -Infinity}}',
    b"[" + b"9" * 4300 + b"]",
    b"[" + b"9" * 4301 + b"]",
    b"[" * 5000 + b"]" * 5000,
    b'["\xff"]',
    b'{"a": 1,}',
    b"[1] [2]",
    '["é"]'.encode(),
]


@pytest.mark.parametrize("raw", READ_JSON_CASES)
def test_read_json_fast_path_gives_what_the_standard_library_path_gives(tmp_path, monkeypatch, raw):
    import scenebench.io.files as F

    p = tmp_path / "doc.json"
    p.write_bytes(raw)

    def outcome():
        try:
            return ("ok", F.read_json(p))
        except InputError as exc:
            return ("error", str(exc))

    fast = outcome()
    monkeypatch.setattr(F, "_fast_json", lambda raw: F._REFUSED)
    assert fast == outcome()


def test_read_json_floats_equal_the_standard_library_ones(tmp_path):
    import json
    import random

    rng = random.Random(0)
    xs = [repr(rng.uniform(-1e6, 1e6)) for _ in range(20000)] + [repr(rng.random() * 10.0 ** rng.randint(-300, 300)) for _ in range(20000)]
    xs += ["%.3f" % rng.random() for _ in range(20000)] + ["%.25e" % rng.random() for _ in range(2000)]
    text = "[" + ",".join(xs) + "]"
    (tmp_path / "f.json").write_text(text)
    assert read_json(tmp_path / "f.json") == json.loads(text)


JSONL_LINES = READ_JSON_CASES + [
    b'{"a": 1}',
    b"[1, 2]",
    b'"text"',
    b'{"a": "\xff"}',
    b'{"a": 1} {"b": 2}',
    b'{"t": "x\\ny", "n": -12.5e-3}',
]


@pytest.mark.parametrize("raw", JSONL_LINES)
def test_jsonl_fast_path_gives_what_the_standard_library_path_gives(tmp_path, monkeypatch, raw):
    import scenebench.io.files as F

    p = tmp_path / "r.jsonl"
    p.write_bytes(b'{"first": 1}\n' + raw + b"\n")

    def outcome():
        try:
            return ("ok", list(F.iter_jsonl(p)))
        except InputError as exc:
            return ("error", str(exc))

    fast = outcome()

    def refuse(raw):
        raise ValueError("standard-library path")

    monkeypatch.setattr(F, "_dict_decoder", lambda: refuse)
    assert fast == outcome()


def test_sha256_file_is_the_digest_of_the_bytes(tmp_path):
    import hashlib

    data = bytes(range(256)) * 5000  # > one read buffer
    p = tmp_path / "x.bin"
    p.write_bytes(data)
    assert sha256_file(p) == hashlib.sha256(data).hexdigest()
    (tmp_path / "empty").write_bytes(b"")
    assert sha256_file(tmp_path / "empty") == hashlib.sha256(b"").hexdigest()


def test_file_fingerprint_is_the_sha256_of_the_bytes_read(tmp_path):
    import hashlib

    from scenebench.io import files

    a = tmp_path / "a.jsonl"
    a.write_bytes(b'{"x": 1}\n' * 100_000)
    assert files.file_fingerprint(a) == {"path": str(a), "sha256": hashlib.sha256(a.read_bytes()).hexdigest(), "bytes": a.stat().st_size}
