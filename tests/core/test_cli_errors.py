"""How the ``scenebench`` command ends when things go wrong (issue 15), through the real entry point.

Runs in a core-only install with the oldest and the newest typer the pins allow
(``scripts/ci_core.sh``): usage errors, Ctrl-C, unexpected errors, a busy run folder, disk full.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "models"))
from fixtures import make_surprise3d


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), *filter(None, [env.get("PYTHONPATH")])])
    env.update(COLUMNS="200", **extra)
    return env


def cli(*args, env=None, preexec_fn=None, timeout=180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scenebench", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        env=env or _env(),
        timeout=timeout,
        preexec_fn=preexec_fn,
    )


def lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip()]


@pytest.mark.parametrize(
    "args, expect",
    [
        (["score", "surprise3d", "--bogus"], "No such option: --bogus"),
        (["run", "surprise3d", "--model", "oracle", "--limit"], "requires an argument"),
        (["run", "surprise3d", "--data", ".", "--model", "oracle", "--limit", "zero"], "--limit"),
        (["no-such-command"], "no-such-command"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(args, expect):
    p = cli(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert len(lines(p.stderr)) == 1 and p.stderr.startswith("error: "), p.stderr
    assert expect in p.stderr and "Traceback" not in p.stderr


def test_help_and_version():
    p = cli("--help")
    assert p.returncode == 0 and "score" in p.stdout and "run" in p.stdout, p.stderr
    p = cli("run", "surprise3d", "--help")
    assert p.returncode == 0 and "--model" in p.stdout
    p = cli("--version")
    assert p.returncode == 0 and p.stdout.startswith("scenebench ")


def _metrics(run: Path) -> dict:
    res = json.loads((run / "results.json").read_text())
    return {"metrics": res["metrics"], "counts": res["counts"]}


def test_ctrl_c_exits_130_and_the_rerun_resumes_to_identical_results(tmp_path):
    data = make_surprise3d(tmp_path / "s3d", n_scenes=3)
    marker = tmp_path / "interrupted-once"
    args = [
        "run",
        "surprise3d",
        "--data",
        data,
        "--model",
        "plugin:cli_plugins:InterruptOnce",
        "--model-arg",
        f"marker={marker}",
        "--no-progress",
    ]
    p = cli(*args, "--out", tmp_path / "run")
    assert p.returncode == 130, (p.stdout, p.stderr)
    assert marker.exists()
    assert "interrupted:" in p.stderr and "rerun" in p.stderr and "resume" in p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "run" / "results.json").exists()
    p = cli(*args, "--out", tmp_path / "run")
    assert p.returncode == 0, p.stderr
    assert "reused" in p.stdout and "0 reused" not in p.stdout, p.stdout  # the first scene was kept
    p = cli(*args, "--out", tmp_path / "reference")  # marker exists: an uninterrupted run
    assert p.returncode == 0, p.stderr
    assert _metrics(tmp_path / "run") == _metrics(tmp_path / "reference")


def test_unexpected_error_is_one_line_and_a_traceback_log_in_the_run_folder(tmp_path):
    data = make_surprise3d(tmp_path / "s3d")
    run = tmp_path / "run"
    p = cli("run", "surprise3d", "--data", data, "--model", "plugin:cli_plugins:BuggyModel", "--out", run, "--no-progress")
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert len(lines(p.stderr)) == 1, p.stderr
    assert "unexpected KeyError" in p.stderr and "Traceback" not in p.stderr and "Abort" not in p.stderr
    logs = list((run / "logs").glob("error-*.log"))
    assert len(logs) == 1 and str(logs[0]) in p.stderr
    text = logs[0].read_text()
    assert "Traceback" in text and "no-such-key" in text and "cli_plugins.py" in text


def test_unexpected_error_before_a_run_folder_logs_to_the_temp_folder(tmp_path):
    data = make_surprise3d(tmp_path / "s3d")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = cli(
        "run",
        "surprise3d",
        "--data",
        data,
        "--model",
        "plugin:cli_plugins:BrokenConstructor",
        "--out",
        tmp_path / "run",
        "--no-progress",
        env=_env(TMPDIR=str(tmp)),
    )
    assert p.returncode in (1, 2), (p.stdout, p.stderr)
    assert len(lines(p.stderr)) == 1, p.stderr
    assert "[bold]not markup[/bold]" in p.stderr  # printed literally, not as Rich markup
    if p.returncode == 1:  # an unexpected error: its traceback is in the user's private temp folder (issue 29.4)
        logs = list((tmp / f"scenebench-logs-{os.getuid()}").glob("error-*.log"))
        assert len(logs) == 1 and str(logs[0]) in p.stderr and "constructor exploded" in logs[0].read_text()


def test_a_second_process_on_a_busy_run_folder_is_refused(tmp_path):
    """Two identical ``score`` commands at once would both write every row: the second is refused."""
    from scenebench.runtime.rundir import RunDir, release_run_folder

    data = make_surprise3d(tmp_path / "s3d")
    pred = tmp_path / "pred.jsonl"
    from scenebench.benchmarks.surprise3d.annotations import load_annotations

    first = load_annotations(data / "surprise-3d-val.json").samples[0].sample_id
    pred.write_text(json.dumps({"sample_id": first, "mask_indices": [0, 1]}) + "\n")
    run = tmp_path / "run"
    args = [
        "score",
        "surprise3d",
        "--annotations",
        data / "surprise-3d-val.json",
        "--scenes",
        data / "scenes",
        "--predictions",
        pred,
        "--out",
        run,
        "--no-progress",
    ]
    RunDir(run).open({"benchmark": "surprise3d", "protocol": "strict", "fingerprint": "held-by-the-test"})
    try:
        p = cli(*args)
        assert p.returncode == 2, (p.stdout, p.stderr)
        assert "in use by another scenebench process" in p.stderr and f"pid {os.getpid()}" in p.stderr
    finally:
        release_run_folder(run)
    p = cli(*args, "--overwrite")
    assert p.returncode == 0, p.stderr
    assert (run / "results.json").exists()


def test_disk_full_is_one_line_and_the_rerun_resumes_to_identical_results(tmp_path):
    """Writes fail part-way (a file-size limit makes every write past 40 kB fail, like a full disk):
    one clear line, exit 1, the store stays consistent, and the rerun resumes to the same results."""
    resource = pytest.importorskip("resource")
    import signal

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write instead of a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))

    data = make_surprise3d(tmp_path / "s3d", n_scenes=8)
    args = ["run", "surprise3d", "--data", data, "--model", "baseline:cluster", "--no-progress"]
    p = cli(*args, "--out", tmp_path / "run", preexec_fn=limited)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert len(lines(p.stderr)) == 1 and "could not write to disk" in p.stderr and "rerun the same command" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "run" / "results.json").exists()
    p = cli(*args, "--out", tmp_path / "run")
    assert p.returncode == 0, p.stderr
    assert "reused" in p.stdout and " 0 reused" not in p.stdout, p.stdout  # what was saved before the failure is kept
    assert cli(*args, "--out", tmp_path / "reference").returncode == 0
    assert _metrics(tmp_path / "run") == _metrics(tmp_path / "reference")
