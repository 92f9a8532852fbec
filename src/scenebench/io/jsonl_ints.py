"""Read many JSON arrays of small non-negative integers at once from their raw text, with numpy.

Prediction files hold millions of point indices as JSON text (``[54, 92, 311, ...]``). Parsing them
one array at a time (``numpy.fromstring``: about 45 ns per value) or through Python ints costs more
than everything else of a SURPRISE3D run; here a batch of arrays (a few hundred kilobytes of text,
so every temporary stays in cache) is read with a handful of whole-array numpy operations:

1. every byte that starts a run of digits is found (a digit after a non-digit);
2. the 8 bytes from each start are loaded as one little-endian ``uint64`` (the text is padded);
3. the run length comes from the first non-digit byte of that word (SWAR byte test: no loop), the
   digits are shifted to the top of the word and combined pairwise (10, 100, 10,000: three
   multiply-and-shift steps, the classic "eight digits at once" parse).

Only the plain case is read: each array a flat list of integers written with digits alone, of at
most 7 digits (below 10,000,000: larger than any scene's point count, several million at most).
Anything else (a minus sign, a fraction or exponent, nesting, strings, ``null``, 8 digits or more)
makes :func:`parse_uint_arrays` return ``None`` and the caller reads the batch its usual, checked
way, so no message or result depends on this module. The text must be valid JSON (a decoder such
as ``msgspec`` has checked it): commas and leading zeros are not checked again here.
"""

from __future__ import annotations

import numpy as np

PAD = b"        "  # 8 bytes after the last array: the word read at a start never leaves the buffer
MAX_DIGITS = 7

_U = np.uint64
_LOW7 = _U(0x7F7F7F7F7F7F7F7F)
_HIGH = _U(0x8080808080808080)
_ABOVE_9 = _U(0x7676767676767676)  # (byte & 0x7F) + 0x76 sets the high bit when the byte is > 9
_ZEROS = _U(0x3030303030303030)  # "00000000"


class UintArrayReader:
    """Reads batches of JSON integer arrays (:meth:`read`), reusing its work buffers from batch to batch.

    Fresh temporaries of a few hundred kilobytes per batch cost more than the arithmetic when the
    process is young (each one is new memory from the system: page faults, measured 2x slower on a
    first pass through a file), so every intermediate array lives in a buffer that only grows.
    One reader per thread (the buffers are not shared safely).
    """

    def __init__(self) -> None:
        self._bytes = np.zeros(0, dtype=np.uint8)
        self._flags = np.zeros(0, dtype=bool)
        self._words = np.zeros(0, dtype=np.uint64)

    def _byte_buffers(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Work buffers for a batch of ``n`` bytes: bytes (n,) and flags (3n,)."""
        if self._bytes.size < n:
            self._bytes = np.zeros(n, dtype=np.uint8)
            self._flags = np.zeros(3 * n, dtype=bool)
        return self._bytes, self._flags

    def _word_buffer(self, m: int) -> np.ndarray:
        """Work words for a batch of ``m`` numbers: (2m,)."""
        if self._words.size < 2 * m:
            self._words = np.zeros(2 * m, dtype=np.uint64)
        return self._words

    def read(self, text: bytes, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Values and lengths of K JSON arrays laid end to end in ``text``.

        ``bounds`` (K + 1,) int: array k is ``text[bounds[k]:bounds[k + 1]]``, ``bounds[0] == 0``;
        ``text`` ends with :data:`PAD` after ``bounds[K]``. Returns ``(values, counts)``: ``values``
        int32 (a new array), all arrays' elements in order, ``counts`` (K,) int64 elements per
        array; or ``None`` when some array is not a flat list of plain integers in
        ``[0, 10**MAX_DIGITS)`` (module docstring).
        """
        k = bounds.size - 1
        n = len(text)
        if k <= 0 or bounds[0] != 0 or n != int(bounds[-1]) + len(PAD) or text[n - len(PAD) :] != PAD:
            return None
        if (np.diff(bounds) < 2).any():  # every array has its two brackets
            return None
        # Each array opens with "[" and closes with "]"; with k "[" in all, none is nested.
        a = np.frombuffer(text, dtype=np.uint8)
        if not ((a[bounds[:-1]] == 0x5B).all() and (a[bounds[1:] - 1] == 0x5D).all()):
            return None
        byte_buf, flag_buf = self._byte_buffers(n)
        # (numpy's count: bytes.count of one character was 5 instructions per byte)
        if np.count_nonzero(np.equal(a, 0x5B, out=flag_buf[:n])) != k:
            return None
        shifted = np.subtract(a, np.uint8(0x30), out=byte_buf[:n])
        digit = np.less(shifted, 10, out=flag_buf[:n])
        if not _plain_text(a, digit, flag_buf[n : 2 * n], flag_buf[2 * n : 3 * n]):
            return None
        # first[i]: a number starts at byte i + 1 (byte i is no digit, byte i + 1 is), i + 1 < bounds[K];
        # array k's numbers start at bytes bounds[k] + 1 .. bounds[k + 1] - 2: first[bounds[k]:bounds[k + 1]]
        first = np.greater(digit[1 : n - 7], digit[: n - 8], out=flag_buf[n : 2 * n - 8])
        # (one count per array: np.add.reduceat over a boolean array was measured 10x slower)
        b = bounds.tolist()
        counts = np.array([np.count_nonzero(first[b[j] : b[j + 1]]) for j in range(k)], dtype=np.int64)
        m = int(counts.sum())
        # the 8 bytes from each start, as one little-endian word (first byte lowest)
        starts8 = np.ndarray((n - 8,), dtype="S8", buffer=text, offset=1, strides=(1,))
        words = starts8[first].view("<u8")  # (boolean indexing: faster than np.compress into a buffer)
        work = self._word_buffer(m)
        values = _digits_value(words, work[:m], work[m : 2 * m])
        if values is None:
            return None
        return values, counts


def _plain_text(a: np.ndarray, digit: np.ndarray, bad: np.ndarray, work: np.ndarray) -> bool:
    """True when every byte of ``a`` is a digit, a comma, a bracket or JSON whitespace (space, tab,
    line feed, carriage return). Whole-array comparisons (``bytes.translate`` with deletion was a
    twentieth of a whole run's instructions); ``bad`` and ``work`` are buffers of ``a``'s size."""
    np.greater(a, 0x20, out=bad)  # neither whitespace nor a control character ...
    np.not_equal(bad, digit, out=bad)  # ... nor a digit (digits are above 0x20)
    for c in b",[]":
        np.not_equal(a, c, out=work)
        bad &= work
    if bad.any():
        return False
    np.less(a, 0x20, out=bad)
    if bad.any():  # below the space: only tab, line feed and carriage return (rare: checked apart)
        for c in b"\t\n\r":
            np.not_equal(a, c, out=work)
            bad &= work
        return not bad.any()
    return True


def parse_uint_arrays(text: bytes, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:meth:`UintArrayReader.read` with a reader of its own (one batch)."""
    return UintArrayReader().read(text, bounds)


def _digits_value(x: np.ndarray, t: np.ndarray, shift: np.ndarray) -> np.ndarray | None:
    """Value of the run of decimal digits that opens each 8-byte word of ``x`` (first byte lowest),
    as int32; ``None`` when a run is longer than :data:`MAX_DIGITS`. ``x`` is overwritten; ``t``
    and ``shift`` are work buffers of its size."""
    x ^= _ZEROS  # digit bytes become 0..9
    np.bitwise_and(x, _LOW7, out=t)
    t += _ABOVE_9
    t |= x
    t &= _HIGH  # high bit of every byte that is no digit
    np.negative(t, out=shift)  # two's complement: t & -t is the lowest set bit, 2**(8 * length + 7)
    t &= shift
    if not t.all():  # no non-digit in 8 bytes: 8 digits or more
        return None
    # 64 - 8 * length from the float64 exponent of that power of two (exact)
    f = shift.view(np.float64)
    np.copyto(f, t, casting="unsafe")
    shift >>= _U(52)
    np.subtract(_U(64 + 1023 + 7), shift, out=shift)
    if (shift < _U(64 - 8 * MAX_DIGITS)).any():
        return None
    x <<= shift  # digits to the top bytes (the last one in byte 7), zeros below
    # pairs, then quads, then the eight digits (most significant in the lowest byte)
    for mask, mul, down in ((0x0F0F0F0F0F0F0F0F, 2561, 8), (0x00FF00FF00FF00FF, 6553601, 16), (0x0000FFFF0000FFFF, 42949672960001, 32)):
        x &= _U(mask)
        x *= _U(mul)
        x >>= _U(down)
    return x.astype(np.int32)
