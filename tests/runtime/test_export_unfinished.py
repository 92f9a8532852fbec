"""`scenebench export` and `Results.samples()` refuse a run that was stopped or is still running.

Before: a killed or running run gave a table of part of its samples and exit 0, read as the run's.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from fixtures import make_surprise3d

import scenebench
from scenebench.benchmarks.surprise3d.scorer import Surprise3DScorer
from scenebench.cli import main
from scenebench.errors import InputError
from scenebench.io.store import STATE_KIND
from scenebench.results import Results
from scenebench.runtime.rundir import RunDir
from scenebench.samples import export_samples


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return make_surprise3d(tmp_path_factory.mktemp("s3d") / "s3d")


def _killed_after_first_scene(monkeypatch):
    """Make scoring stop like a Ctrl-C after its first scene (its records are stored, results.json is not)."""
    real = Surprise3DScorer.iter_scores

    def once(self, skip):
        for batch in real(self, skip):
            yield batch
            raise KeyboardInterrupt

    monkeypatch.setattr(Surprise3DScorer, "iter_scores", once)


def test_a_finished_run_exports_and_a_killed_one_is_refused(data, tmp_path, monkeypatch, capsys):
    full = scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "full")
    assert full.samples().num_rows == full.counts.n_samples == 6  # 3 questions on each of 2 scenes
    assert export_samples(tmp_path / "full", tmp_path / "full.csv", "csv").read_text().count("\n") == 7  # header + 6

    _killed_after_first_scene(monkeypatch)
    with pytest.raises(KeyboardInterrupt):  # first scoring of a run: results.json never written
        scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "killed")
    with RunDir(tmp_path / "killed").store() as store:
        assert (
            store.count("score") == 3
        )  # the first scene: a partial store, what used to be exported  # a partial store: what used to be exported
    with pytest.raises(InputError, match=r"is not a finished run: scoring stopped or is still running \(3 samples scored so far\)"):
        Results.samples(full, run=tmp_path / "killed")
    with pytest.raises(SystemExit) as e:
        main(["export", str(tmp_path / "killed"), "--format", "csv"])
    assert e.value.code == 2 and "not a finished run" in capsys.readouterr().err
    assert not (tmp_path / "killed" / "samples.csv").exists()


def test_a_resumed_run_killed_while_scoring_is_refused_though_an_older_results_json_is_there(data, tmp_path, monkeypatch):
    scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "r", limit=1)  # finished over 1 sample
    assert Results.load(tmp_path / "r").samples().num_rows == 1
    _killed_after_first_scene(monkeypatch)
    with pytest.raises(KeyboardInterrupt):  # extended to every sample, stopped while scoring
        scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "r")
    assert (tmp_path / "r" / "results.json").is_file()  # the old one, for 1 sample
    with pytest.raises(InputError, match="not a finished run"):
        Results.load(tmp_path / "r").samples()
    monkeypatch.undo()
    assert scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "r").samples().num_rows == 6  # resumed: finished


def test_a_run_another_process_is_writing_is_refused_naming_it(data, tmp_path):
    scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "busy")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX); "
            "os.ftruncate(fd, 0); os.write(fd, str(os.getpid()).encode()); print('held', flush=True); time.sleep(60)",
            str(tmp_path / "busy" / ".lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(InputError, match=rf"another scenebench process \(pid {holder.pid}\) is writing it now"):
            export_samples(tmp_path / "busy", tmp_path / "busy.jsonl", "jsonl")
    finally:
        holder.kill()
        holder.wait()
    assert export_samples(tmp_path / "busy", tmp_path / "busy.jsonl", "jsonl").read_text().count("\n") == 6


def test_a_folder_of_an_older_scenebench_exports_when_results_json_covers_its_scores(data, tmp_path):
    scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "old")
    with RunDir(tmp_path / "old").store() as store:
        store.clear(STATE_KIND)  # folders written before the finished record existed
    assert Results.load(tmp_path / "old").samples().num_rows == 6
    (tmp_path / "old" / "results.json").unlink()
    with pytest.raises(InputError, match="results.json absent"):
        export_samples(tmp_path / "old", tmp_path / "old.csv", "csv")
