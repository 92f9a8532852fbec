"""A `generate` SIGKILLed while it writes its benchmark folders leaves nothing a reader takes for a benchmark.

Issue 28 item 3: killed while the 13 3DBench task files were written (before manifest.json), the
folder passed `validate 3dbench` and `run 3dbench` scored it as a whole benchmark with tasks missing.
Now the task files are written in a staging folder, each benchmark folder is renamed into place
whole, the manifest last, and every reader refuses a generated folder without its manifest.

The kills are real: `scenebench generate` runs in a subprocess with a hook that SIGKILLs its own
process at the chosen moment (after the sixth task file; after the first benchmark folder was
renamed into place), so the moment is exact rather than a race with a timer.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from cli_run import run_cli

pytestmark = pytest.mark.slow

GEN = ["--houses", "2", "--seed", "3", "--test-every", "2", "--min-rooms", "2", "--max-rooms", "2"]
GEN += ["--width", "48", "--height", "32", "--no-surprise-pth", "--quiet"]

# Runs the real CLI after installing a hook that SIGKILLs this very process.
KILL_AFTER_TASK_FILES = """
import os, signal, sys
import scenebench.benchmarks.bench3d.writer as w
real, n = w.atomic_write_json, [0]
def hooked(path, *a, **k):
    real(path, *a, **k)
    n[0] += 1
    if n[0] == 6:
        os.kill(os.getpid(), signal.SIGKILL)
w.atomic_write_json = hooked
from scenebench.cli import main
main(sys.argv[1:])
"""
KILL_AFTER_FIRST_RENAME = """
import os, signal, sys
real = os.replace
def hooked(src, dst, *a, **k):
    real(src, dst, *a, **k)
    if os.path.basename(os.path.dirname(os.fspath(src))).startswith(".staging-") and os.path.isdir(dst):
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = hooked
from scenebench.cli import main
main(sys.argv[1:])
"""


def _cli(args, code: str | None = None) -> subprocess.CompletedProcess:
    return run_cli(args, code=code)


def _readers(out: Path, tmp: Path) -> dict[str, list]:
    answers = tmp / "answers.jsonl"
    answers.write_text(json.dumps({"question_id": "1", "task": "classification", "text": "chair"}) + "\n")
    s3d = out / "surprise3d"
    return {
        "validate 3dbench": ["validate", "3dbench", "--data", out / "3dbench"],
        "run 3dbench": ["run", "3dbench", "--data", out / "3dbench", "--model", "oracle", "--out", tmp / "run-b3d", "--no-progress"],
        "score 3dbench": ["score", "3dbench", "--data", out / "3dbench", "--predictions", answers, "--allow-missing"],
        "validate surprise3d": ["validate", "surprise3d", "--annotations", s3d / "surprise-3d-val.json", "--scenes", s3d / "scenes"],
        "run surprise3d": ["run", "surprise3d", "--data", s3d, "--model", "oracle", "--out", tmp / "run-s3d", "--no-progress"],
        "validate rio": ["validate", "rio", "--data", out / "3rscan"],
        "run rio": ["run", "rio", "--data", out / "3rscan", "--model", "oracle", "--out", tmp / "run-rio", "--no-progress"],
    }


def test_killed_generate_leaves_no_benchmark_a_reader_accepts(tmp_path):
    out = tmp_path / "out"
    # 1. killed after 6 of the 13 task files: they are in the staging folder, not in OUT/3dbench
    r = _cli(["generate", *GEN, "--out", out], KILL_AFTER_TASK_FILES)
    assert r.returncode == -signal.SIGKILL, r.stderr[-2000:]
    assert not (out / "manifest.json").exists()
    staged = list(out.glob(".staging-*/3dbench/*.json"))
    assert len(staged) == 6, staged  # the kill landed mid-write
    assert not (out / "3dbench").exists()
    v = _cli(["validate", "3dbench", "--data", out / "3dbench"])
    assert v.returncode == 2 and "does not exist" in v.stderr, v.stdout + v.stderr
    v = _cli(["validate", "3dbench", "--data", staged[0].parent])  # nor is the staging folder a benchmark
    assert v.returncode == 2 and "unfinished `scenebench generate` output" in v.stderr, v.stdout + v.stderr

    # 2. resumed, killed right after the first complete benchmark folder was renamed in, before the manifest
    r = _cli(["generate", *GEN, "--out", out], KILL_AFTER_FIRST_RENAME)
    assert r.returncode == -signal.SIGKILL, r.stderr[-2000:]
    assert not (out / "manifest.json").exists()
    placed = [f for f in ("3dbench", "3rscan", "surprise3d") if (out / f).is_dir()]
    assert placed == ["3dbench"], placed  # staged entries are renamed in sorted order
    assert len(list((out / "3dbench").glob("*.json"))) == 13
    (out / "3rscan").mkdir()  # and a folder a half-done older run might have left
    (out / "surprise3d").mkdir()
    (out / "surprise3d" / "surprise-3d-val.json").write_text("[]")
    for name, args in _readers(out, tmp_path).items():
        v = _cli(args)
        assert v.returncode == 2, f"{name}: {v.returncode}\n{v.stdout}\n{v.stderr}"
        assert "unfinished `scenebench generate` output" in v.stderr and "rerun the same generate command" in v.stderr, name
        assert "Traceback" not in v.stderr, name
    (out / "surprise3d" / "surprise-3d-val.json").unlink()
    (out / "surprise3d").rmdir()
    (out / "3rscan").rmdir()

    # 3. the plain rerun finishes: every reader accepts the output, no staging or swap folder is left
    r = _cli(["generate", *GEN, "--out", out])
    assert r.returncode == 0, r.stderr[-2000:]
    assert (out / "manifest.json").is_file()
    assert not list(out.glob(".staging-*")) and not list(out.glob(".swap-*"))
    v = _cli(["validate", "3dbench", "--data", out / "3dbench"])
    assert v.returncode == 0 and v.stdout.strip().endswith("ok"), v.stdout + v.stderr
    assert len([ln for ln in v.stdout.splitlines() if " records (" in ln]) == 13
    v = _cli(["validate", "rio", "--data", out / "3rscan"])
    assert v.returncode == 0, v.stdout + v.stderr


def test_released_data_without_a_generate_folder_is_not_affected(tmp_path):
    """The refusal needs generate's working folder above the data: released data has none."""
    from scenebench.errors import InputError
    from scenebench.io.generated import generate_root, require_finished

    data = tmp_path / "out" / "3dbench" / "train"
    data.mkdir(parents=True)
    require_finished(data)  # no .houses/settings.json above: nothing to check
    assert generate_root(data) is None
    (tmp_path / "out" / ".houses").mkdir()
    (tmp_path / "out" / ".houses" / "settings.json").write_text("{}")
    assert generate_root(data) == (tmp_path / "out").absolute()
    with pytest.raises(InputError, match="has no manifest.json"):
        require_finished(data)
    (tmp_path / "out" / "manifest.json").write_text("{}")
    require_finished(data)
