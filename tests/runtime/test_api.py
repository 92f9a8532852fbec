"""scenebench.score and scenebench.run give what the commands give (docs/api.md)."""

import json

from fixtures import make_surprise3d

import scenebench
from scenebench.cli import main


def test_run_then_score_through_the_api_match_the_commands(tmp_path, capsys):
    data = make_surprise3d(tmp_path / "s3d")
    res = scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "run")
    assert res.metrics["overall"]["mIoU"] == 100.0 and res.settings["model"] == "oracle"
    table = res.samples()
    assert table.num_rows == res.counts.n_samples and set(table.column("status").to_pylist()) <= {"scored", "excluded"}
    preds = tmp_path / "run" / "surprise3d_predictions.jsonl"
    for protocol in ("strict", "official"):
        api = scenebench.score(
            "surprise3d",
            annotations=data / "surprise-3d-val.json",
            scenes=data / "scenes",
            predictions=preds,
            protocol=protocol,
            out=tmp_path / f"api-{protocol}",
        )
        main(
            ["score", "surprise3d", "-a", str(data / "surprise-3d-val.json"), "-s", str(data / "scenes"), "-p", str(preds)]
            + ["--protocol", protocol, "-o", str(tmp_path / f"cli-{protocol}"), "--no-progress"]
        )
        cli = json.loads((tmp_path / f"cli-{protocol}" / "results.json").read_text())
        assert api.protocol == protocol and api.model_dump()["metrics"] == cli["metrics"]
        assert api.model_dump()["confidence_intervals"] == cli["confidence_intervals"]


def test_the_model_plug_in_surface_is_importable_from_one_place():
    from scenebench import models
    from scenebench.models.base import Model
    from scenebench.models.predictions import BoxPrediction

    assert models.Model is Model and models.BoxPrediction is BoxPrediction
    assert {"Model", "SceneBatch", "ModelSample", "MaskPrediction", "PosePrediction", "TextPrediction"} <= set(models.__all__)


def test_an_unknown_backend_or_model_option_fails_before_anything_is_written(tmp_path):
    import pytest

    from scenebench.errors import ScenebenchError

    data = make_surprise3d(tmp_path / "s3d")
    with pytest.raises(ScenebenchError, match="local or ray"):
        scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "a", backend="nope")
    with pytest.raises(ScenebenchError, match="colour"):
        scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "b", model_options={"colour": 1})
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_threads_scoring_into_one_folder_get_their_own_numbers_or_a_clear_refusal(tmp_path):
    """The run-folder lock is one thread's: another thread is refused while the holder lives, and the
    API gives the lock up when its call returns (before: the lock was per process, and one thread got
    the other's numbers)."""
    import threading

    from scenebench.runtime.rundir import RunDir, RunLockedError, release_run_folder

    data = make_surprise3d(tmp_path / "s3d")
    full = scenebench.run("surprise3d", "oracle", data=data, out=tmp_path / "run")
    preds = {"all": tmp_path / "run" / "surprise3d_predictions.jsonl", "one": tmp_path / "one.jsonl"}
    preds["one"].write_text(preds["all"].read_text().splitlines()[0] + "\n")
    kw = {"annotations": data / "surprise-3d-val.json", "scenes": data / "scenes"}
    one = scenebench.score("surprise3d", predictions=preds["one"], out=tmp_path / "alone", **kw).overall()["mIoU"]
    assert one < full.overall()["mIoU"] == 100.0

    out = tmp_path / "shared"
    RunDir(out).open({"benchmark": "surprise3d", "protocol": "strict", "fingerprint": "held-by-this-thread"})
    errors: list[BaseException] = []

    def call(name: str, results: dict, overwrite: bool = True) -> None:
        try:
            results[name] = scenebench.score("surprise3d", predictions=preds[name], out=out, overwrite=overwrite, **kw).overall()["mIoU"]
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            errors.append(exc)

    got: dict = {}
    t = threading.Thread(target=call, args=("one", got))
    t.start()
    t.join()
    assert not got and len(errors) == 1 and isinstance(errors[0], RunLockedError) and "another thread" in str(errors[0])
    release_run_folder(out)

    errors.clear()
    for name in ("one", "all"):  # one after the other in two threads: each call gives the lock up when it returns
        t = threading.Thread(target=call, args=(name, got))
        t.start()
        t.join()
    assert not errors and got == {"one": one, "all": 100.0}

    for _ in range(3):  # at the same time: each gets its own numbers or is refused, never the other's
        got, barrier = {}, threading.Barrier(2)
        errors.clear()

        def racing(name: str) -> None:
            barrier.wait()
            call(name, got)

        threads = [threading.Thread(target=racing, args=(n,)) for n in ("one", "all")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(isinstance(e, RunLockedError) for e in errors), errors
        assert got == {k: {"one": one, "all": 100.0}[k] for k in got} and len(got) + len(errors) == 2
    # every call gave the lock up: this thread takes it again
    assert RunDir(out).open({"benchmark": "surprise3d", "protocol": "strict", "fingerprint": "x"}, overwrite=True).path == out
    release_run_folder(out)
