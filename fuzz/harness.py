"""Shared fault-injection harness: every scenebench reader, fed one mutated input file at a time.

Used by the atheris targets (``fuzz/fuzz_<target>.py``) and by the property tests in
``tests/faults/``. A **target** is one input file of one reader (for example the SURPRISE3D
annotation JSON, or a 3RScan ``semseg.v2.json``). :func:`run_target` builds a copy of a small valid
dataset (hard links, so nothing is copied) in which only that file is replaced by the bytes under
test, then runs the public reading *and scoring* path on it (``score_run``, ``score_3dbench``,
``score_rio``, ``RunDir.open``), so a bad value that slips past a reader and breaks a metric is
caught as well.

**The contract** (:func:`check_failure`): a run either succeeds or raises a
:class:`scenebench.errors.ScenebenchError` whose message names a file of the input (an
:class:`~scenebench.errors.InputError` must also carry it in ``.path``). When the file still parses
as the container the reader expects (valid JSON of the right top-level type, a loadable array
archive) the error must also say *where*: a record / line / key (``where``) or a field (``field``).
Anything else (``KeyError``, ``TypeError``, ``OverflowError``, numpy's ``ValueError``, ``MemoryError``
...) is a bug and propagates, which atheris reports as a crash and pytest as a failure.

The valid dataset ("context") is generated once with ``scenebench.synth`` (two tiny houses) and
reused: set ``SCENEBENCH_FUZZ_CONTEXT`` to a folder to share it between processes.

The harness is split by concern: :mod:`harness_context` (the valid dataset), :mod:`harness_targets`
(targets and the contract), :mod:`harness_mutators` (mutations); this module re-exports them and
holds the atheris entry point.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from harness_context import CONTEXT_ENV, CONTEXT_VERSION, SCENE_STRIDE, Context, build_context, default_context, overlay
from harness_mutators import (  # _paths, _parent: used by the property tests
    HUGE_DIGITS,
    HUGE_INT,
    NASTY_VALUES,
    RAW_TOKENS,
    Choose,
    _parent,
    _paths,
    bytes_chooser,
    decode_arrays,
    dump_json,
    encode_arrays,
    mutate_arrays,
    mutate_bytes,
    mutate_json,
    mutate_jsonl,
    mutate_ply,
    structured_mutation,
)
from harness_targets import TARGETS, ContractViolation, Target, check_failure, run_target

__all__ = [
    "CONTEXT_ENV",
    "CONTEXT_VERSION",
    "HUGE_DIGITS",
    "HUGE_INT",
    "NASTY_VALUES",
    "RAW_TOKENS",
    "SCENE_STRIDE",
    "TARGETS",
    "_parent",
    "_paths",
    "Choose",
    "Context",
    "ContractViolation",
    "Target",
    "build_context",
    "bytes_chooser",
    "check_failure",
    "decode_arrays",
    "default_context",
    "dump_json",
    "encode_arrays",
    "fuzz_main",
    "fuzz_one",
    "mutate_arrays",
    "mutate_bytes",
    "mutate_json",
    "mutate_jsonl",
    "mutate_ply",
    "overlay",
    "run_target",
    "structured_mutation",
]


def fuzz_one(name: str, data: bytes, ctx: Context, work: Path, seed: bytes) -> str:
    """One fuzzer input: the first byte picks raw bytes, a byte-level or a structured mutation of the seed."""
    if not data:
        return run_target(name, b"", ctx, work)
    mode, rest = data[0] % 3, data[1:]
    if mode == 0:
        return run_target(name, rest, ctx, work)
    if mode == 1:
        mutated, _ = mutate_bytes(seed, bytes_chooser(rest))
        return run_target(name, mutated, ctx, work)
    mutated, _, located = structured_mutation(TARGETS[name], seed, bytes_chooser(rest))
    return run_target(name, mutated, ctx, work, located=located)


def fuzz_main(name: str) -> None:
    """Entry point of ``fuzz/fuzz_<name>.py``: ``python fuzz/fuzz_<name>.py [corpus] -atheris_runs=N``."""
    import atexit
    import sys

    import atheris

    # Instrument scenebench (coverage feedback for libFuzzer) before anything imports it. The CI smoke
    # run skips it (SCENEBENCH_FUZZ_NO_INSTRUMENT=1): a few dozen inputs gain nothing from coverage
    # and instrumenting costs a second per process.
    instrument = os.environ.get("SCENEBENCH_FUZZ_NO_INSTRUMENT") != "1"
    with atheris.instrument_imports(include=["scenebench"]) if instrument else contextlib.nullcontext():
        import scenebench.benchmarks.bench3d.run  # noqa: F401
        import scenebench.benchmarks.bench3d.source  # noqa: F401
        import scenebench.benchmarks.rio.scorer  # noqa: F401
        import scenebench.benchmarks.surprise3d.scorer  # noqa: F401
        import scenebench.io.arrays  # noqa: F401
        import scenebench.runtime.rundir  # noqa: F401
    ctx = default_context()
    seed = TARGETS[name].seed_path(ctx).read_bytes()
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # fsync-free run folders
    work = Path(tempfile.mkdtemp(prefix=f"fuzz-{name}-", dir=shm))
    counts: dict[str, int] = {}

    def one_input(data: bytes) -> None:
        label = fuzz_one(name, data, ctx, work, seed)
        key = "ok" if label == "ok" else label.split(":")[0]
        counts[key] = counts.get(key, 0) + 1

    def summary() -> None:  # libFuzzer ends the process with exit(): report from atexit
        shutil.rmtree(work, ignore_errors=True)
        print(f"fuzz {name}: {sum(counts.values())} inputs, outcomes {json.dumps(counts, sort_keys=True)}", file=sys.stderr, flush=True)

    atexit.register(summary)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
