"""Bad input to every reader: hypothesis-driven damage, then the error contract.

For each target of ``fuzz/harness.py`` (SURPRISE3D annotations, .npz/.pth scenes, JSONL/Parquet
predictions; 3DBench task files, answers and .npy clouds; 3RScan index, objects.json, semseg.v2.json,
labelled PLY and pose predictions; run.json) three kinds of damage are tried:

- **named cases**, one per kind the issue lists (truncated, empty, non-UTF-8, NaN, Infinity, 1e999,
  enormous numbers, wrong types, duplicated records, unknown ids, wrong shapes);
- **structured** mutations (hypothesis, derandomized): one value of a valid file replaced by a nasty
  value, deleted, duplicated, reshaped or wrapped; array files with wrong shapes, dtypes, NaN/inf;
- **byte** mutations (hypothesis, derandomized): truncation, flipped bytes, spliced blocks.

The property: the full read-and-score path either succeeds or raises a ScenebenchError naming the
file (and, when the file is still well-formed, the record / line / key); see
``harness.check_failure``. Case counts are printed at the end of the session.
"""

from __future__ import annotations

import importlib.util
import json

import harness
import pytest
from faultlog import record
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FAST = [n for n, t in harness.TARGETS.items() if n not in ("rio_ply", "surprise3d_scene_pth")]
SLOW = ["rio_ply", "surprise3d_scene_pth"]  # 0.1-0.6 s per case (PLY text parse, torch.load)


def _settings(n: int):
    return settings(max_examples=n, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _skip_missing(name: str) -> None:
    if name == "surprise3d_scene_pth" and importlib.util.find_spec("torch") is None:
        pytest.skip("needs the torch extra for .pth scenes")


def _chooser(data):
    return lambda n: data.draw(st.integers(0, n - 1)) if n > 1 else 0


@pytest.mark.parametrize("name", FAST + SLOW)
def test_structured_damage(name, fuzz_ctx, work):
    _skip_missing(name)
    target = harness.TARGETS[name]
    seed = target.seed_path(fuzz_ctx).read_bytes()

    @_settings(12 if name in SLOW else 30)
    @given(st.data())
    def prop(data):
        mutated, what, located = harness.structured_mutation(target, seed, _chooser(data))
        outcome = harness.run_target(name, mutated, fuzz_ctx, work, located=located)
        record(name, "structured", outcome)

    prop()


@pytest.mark.parametrize("name", FAST + SLOW)
def test_byte_damage(name, fuzz_ctx, work):
    _skip_missing(name)
    seed = harness.TARGETS[name].seed_path(fuzz_ctx).read_bytes()

    @_settings(8 if name in SLOW else 20)
    @given(st.data())
    def prop(data):
        mutated, what = harness.mutate_bytes(seed, _chooser(data))
        record(name, "bytes", harness.run_target(name, mutated, fuzz_ctx, work))

    prop()


# ------------------------------------------------------------------------------------------------
# Named cases: each kind of damage the issue lists, on every JSON / JSONL reader.

JSON_TARGETS = [n for n, t in harness.TARGETS.items() if t.fmt in ("json", "jsonl")]


def _first_leaf(doc, want):
    """Path of the first leaf of ``doc`` (depth-first) for which ``want(value)`` holds."""
    for path in harness._paths(doc):
        v = harness._parent(doc, path)[path[-1]]
        if want(v):
            return path
    return None


def _replace(doc, path, value):
    import copy

    doc = copy.deepcopy(doc)
    harness._parent(doc, path)[path[-1]] = value
    return doc


def named_cases(name: str, seed: bytes):
    """``(kind, bytes, located)`` for the named kinds of damage."""
    fmt = harness.TARGETS[name].fmt
    yield "empty file", b"", False
    yield "truncated", seed.rstrip()[:-5], False  # cut inside the last record
    yield "non-UTF-8 bytes", seed[:1] + b"\xff\xfe" + seed[1:], False
    if fmt == "jsonl":
        lines = seed.decode().splitlines()
        first = json.loads(lines[0])

        def as_jsonl(rec, raw=None):
            text = harness.dump_json(rec, raw).decode()
            return ("\n".join([text] + lines[1:]) + "\n").encode()

        docs = [("duplicated record", ("\n".join([lines[0]] + lines) + "\n").encode())]
    else:
        first = json.loads(seed)

        def as_jsonl(doc, raw=None):
            return harness.dump_json(doc, raw)

        docs = []
        top = harness._paths(first)[0] if harness._paths(first) else None
        if isinstance(first, list) and first:
            docs.append(("duplicated record", harness.dump_json(first + [first[0]], None)))
        if top is not None:
            docs.append(("wrong type of a record", as_jsonl(_replace(first, top, "not a record"))))
    for kind, data in docs:
        yield kind, data, True
    num = _first_leaf(first, lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
    if num is not None:
        for token in ("NaN", "Infinity", "1e999"):
            yield f"{token} number", as_jsonl(_replace(first, num, "@@RAW@@"), token), True
        yield "enormous number", as_jsonl(_replace(first, num, harness.HUGE_DIGITS)), True
        yield "number as a string", as_jsonl(_replace(first, num, "12")), True
    text = _first_leaf(first, lambda v: isinstance(v, str))
    if text is not None:
        yield "unknown id / string", as_jsonl(_replace(first, text, "no-such-id-zz")), True
        yield "string as a number", as_jsonl(_replace(first, text, 7)), True
        yield "null value", as_jsonl(_replace(first, text, None)), True
    seq = _first_leaf(first, lambda v: isinstance(v, list) and len(v) > 1)
    if seq is not None:
        v = harness._parent(first, seq)[seq[-1]]
        yield "wrong shape (one element short)", as_jsonl(_replace(first, seq, v[:-1])), True
        yield "wrong shape (nested)", as_jsonl(_replace(first, seq, [v])), True


@pytest.mark.parametrize("name", JSON_TARGETS)
def test_named_bad_inputs(name, fuzz_ctx, work):
    seed = harness.TARGETS[name].seed_path(fuzz_ctx).read_bytes()
    tried = 0
    for kind, data, located in named_cases(name, seed):
        outcome = harness.run_target(name, data, fuzz_ctx, work, located=located)
        record(name, f"named: {kind}", outcome)
        must_refuse = {"empty file", "truncated", "non-UTF-8 bytes", "NaN number", "Infinity number", "1e999 number"}
        if name == "rio_predictions":
            must_refuse.discard("empty file")  # scored: every instance missing (n_missing), by design of score rio
        if kind in must_refuse:
            assert outcome != "ok", f"{name}: {kind} was accepted"
        tried += 1
    assert tried >= 6


@pytest.mark.parametrize("name", ["surprise3d_scene_npz", "surprise3d_scene_pth", "bench3d_pointcloud_npy"])
def test_pickled_arrays_are_refused(name, fuzz_ctx, work):
    """An array file holding Python objects is refused without being unpickled."""
    _skip_missing(name)
    import io

    import numpy as np

    marker = work.parent / f"{name}.pwned"

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    buf = io.BytesIO()
    target = harness.TARGETS[name]
    arrays = harness.decode_arrays(target.fmt, target.seed_path(fuzz_ctx).read_bytes())
    if target.fmt == "npz":
        arrays = {**arrays, "sampled_coords": np.array([Boom()], dtype=object)}
        np.savez(buf, **arrays, allow_pickle=True)
    elif target.fmt == "npy":
        np.save(buf, np.array([Boom()], dtype=object), allow_pickle=True)
    else:
        import torch

        torch.save({**{k: torch.from_numpy(v) for k, v in arrays.items()}, "sampled_coords": Boom()}, buf)
    outcome = harness.run_target(name, buf.getvalue(), fuzz_ctx, work, located=False)
    record(name, "named: pickled object", outcome)
    assert not marker.exists(), "the file was unpickled"
    if name != "bench3d_pointcloud_npy":
        assert outcome.startswith("InputError")
