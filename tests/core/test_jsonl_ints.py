"""The batch reader of JSON integer arrays against json.loads: the same values for every array it
reads, ``None`` (the caller's checked path) for every one it does not."""

import json

import numpy as np
import pytest

from scenebench.io.jsonl_ints import MAX_DIGITS, PAD, UintArrayReader, parse_uint_arrays


def _batch(texts: list[bytes]) -> tuple[bytes, np.ndarray]:
    bounds = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in texts], out=bounds[1:])
    return b"".join([*texts, PAD]), bounds


def _array_text(rng: np.random.Generator, vals: list[int]) -> bytes:
    seps = [", ", ",", " ,\n", "\t,\t", " , ", ",\r\n"]
    pad = ["", " ", "\n", "\t "]
    sep = seps[int(rng.integers(len(seps)))]
    return ("[" + pad[int(rng.integers(4))] + sep.join(map(str, vals)) + pad[int(rng.integers(4))] + "]").encode()


def test_values_and_counts_are_those_of_json_loads():
    rng = np.random.default_rng(18)
    reader = UintArrayReader()  # one reader for every batch: its buffers grow and are reused
    for _ in range(1500):
        k = int(rng.integers(1, 8))
        texts = []
        for _ in range(k):
            top = 10 ** int(rng.integers(1, MAX_DIGITS + 1))
            vals = rng.integers(0, top, int(rng.integers(0, 40 if rng.random() < 0.9 else 3000))).tolist()
            texts.append(_array_text(rng, vals))
        text, bounds = _batch(texts)
        got = reader.read(text, bounds)
        assert got is not None
        values, counts = got
        want = [json.loads(t) for t in texts]
        assert values.dtype == np.int32 and counts.dtype == np.int64
        assert counts.tolist() == [len(w) for w in want]
        assert values.tolist() == [x for w in want for x in w]
        assert parse_uint_arrays(text, bounds) is not None


def test_every_digit_count_and_the_largest_value():
    for d in range(1, MAX_DIGITS + 1):
        vals = [10 ** (d - 1), 10**d - 1, 0, 7]
        text, bounds = _batch([json.dumps(vals).encode(), b"[]", b"[ ]", json.dumps(vals[::-1]).encode()])
        values, counts = parse_uint_arrays(text, bounds)
        assert values.tolist() == vals + vals[::-1] and counts.tolist() == [4, 0, 0, 4]


@pytest.mark.parametrize(
    "bad",
    [
        b"[1, -2]",
        b"[-0]",
        b"[10000000]",  # 8 digits
        b"[123456789012]",
        b"[1.5]",
        b"[1e3]",
        b"[1E3]",
        b"[[1], [2]]",
        b'["1"]',
        b"[null]",
        b"[true]",
        b'[{"a": 1}]',
        b"5",
        b"null",
        b'"[1]"',
        b"[1,\x002]",  # control characters, other punctuation, bytes beyond ASCII
        b"[1,\x0b 2]",
        b"[1, 2\xff]",
        b"[1;2]",
        b"[1:2]",
        b"[1#2]",
        b"[1/2]",
        b"[1, 2}",
    ],
)
def test_anything_but_plain_small_integers_is_left_to_the_caller(bad):
    text, bounds = _batch([b"[1, 2]", bad, b"[3]"])
    assert parse_uint_arrays(text, bounds) is None


def test_malformed_batches_are_refused():
    text, bounds = _batch([b"[1, 2]", b"[3]"])
    assert parse_uint_arrays(text[: -len(PAD)], bounds) is None  # no padding
    assert parse_uint_arrays(text, bounds + 1) is None  # bounds not from 0
    assert parse_uint_arrays(text, np.array([0, 3, bounds[-1]])) is None  # a bound inside an array
    assert parse_uint_arrays(text, np.array([0])) is None  # no array
