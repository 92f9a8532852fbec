"""``scenebench run rio`` goes through the shared runner: every model kind, resume, one-line errors."""

import json
import subprocess
import sys

import pytest
from fixtures import make_rio
from typer.testing import CliRunner

from scenebench.cli import build_app

app = build_app()


@pytest.fixture(scope="module")
def rio_data(tmp_path_factory):
    return make_rio(tmp_path_factory.mktemp("rio") / "data")


def _invoke(args):
    res = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res


def test_run_rio_oracle_scores_100_and_resumes(rio_data, tmp_path):
    out = tmp_path / "oracle"
    args = ["run", "rio", "--data", str(rio_data), "--model", "oracle", "--out", str(out), "--bootstrap", "20", "--no-progress"]
    res = _invoke(args)
    # 2 changed instances (rigid[]): the chair listed with the identity, the moved table; the
    # unlisted shelf is static and not a sample
    assert "2 new, 0 reused" in res.output
    saved = json.loads((out / "results.json").read_text())
    assert saved["benchmark"] == "rio" and saved["protocol"] == "strict"
    assert saved["counts"]["n_scored"] == 2 and saved["counts"]["n_missing"] == 0
    for m in ("recall_10cm_10deg", "recall_20cm_20deg"):
        assert saved["metrics"]["overall"][m] == 100.0
    assert saved["metrics"]["overall"]["MRE"] == pytest.approx(0.0, abs=1e-6)
    assert saved["metrics"]["overall"]["MTE"] == pytest.approx(0.0, abs=1e-6)
    assert saved["settings"]["model"] == "oracle" and saved["settings"]["bootstrap"]["n_resamples"] == 20
    rows = [json.loads(line) for line in (out / "rio_predictions.jsonl").read_text().splitlines()]
    assert [(r["rescan"], r["instance"]) for r in rows] == [("scan0", 1), ("scan0", 2)]
    # resumed: nothing predicted again; another protocol re-scores the stored predictions
    res = _invoke([*args, "--protocol", "official"])
    assert "0 new, 2 reused" in res.output
    assert json.loads((out / "results.json").read_text())["protocol"] == "official"


def test_run_rio_prior_and_random_go_through_the_runner(rio_data, tmp_path):
    _invoke(
        [
            "run",
            "rio",
            "--data",
            str(rio_data),
            "--model",
            "baseline:prior",
            "--out",
            str(tmp_path / "p"),
            "--bootstrap",
            "0",
            "--no-progress",
        ]
    )
    prior = json.loads((tmp_path / "p" / "results.json").read_text())
    # identity pose: right for the chair listed unmoved, wrong for the moved table (30 deg, ~0.5 m)
    assert prior["metrics"]["overall"]["recall_10cm_10deg"] == 50.0
    assert prior["metrics"]["by_motion"]["moved"]["recall_20cm_20deg"] == 0.0
    _invoke(
        [
            "run",
            "rio",
            "--data",
            str(rio_data),
            "--model",
            "random",
            "--seed",
            "3",
            "--out",
            str(tmp_path / "r"),
            "--bootstrap",
            "0",
            "--no-progress",
        ]
    )
    rand = json.loads((tmp_path / "r" / "results.json").read_text())
    assert rand["counts"]["n_scored"] == 2 and rand["settings"]["seed"] == 3


def test_run_rio_plugin(rio_data, tmp_path):
    # plugin:module:Class works for RIO like for every benchmark (the oracle class named by its path)
    _invoke(
        [
            "run",
            "rio",
            "--data",
            str(rio_data),
            "--model",
            "plugin:scenebench.models.builtin.oracle:OracleModel",
            "--out",
            str(tmp_path / "o"),
            "--bootstrap",
            "0",
            "--no-progress",
        ]
    )
    assert json.loads((tmp_path / "o" / "results.json").read_text())["metrics"]["overall"]["recall_10cm_10deg"] == 100.0


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "scenebench", *args], capture_output=True, text=True, timeout=120)


def test_run_rio_protocol_typo_fails_before_any_work(rio_data, tmp_path):
    out = tmp_path / "typo"
    p = _cli("run", "rio", "--data", str(rio_data), "--model", "oracle", "--protocol", "offical", "--out", str(out), "--no-progress")
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unknown protocol 'offical'" in lines[0] and "did you mean official" in lines[0], p.stderr
    assert not out.exists()  # no run folder, nothing predicted


@pytest.mark.parametrize("command", ["run", "score"])
def test_every_command_checks_the_protocol_first(command, tmp_path):
    # the data does not exist: the protocol error must come first
    missing = str(tmp_path / "missing")
    args = {
        "run": [["run", b, "--data", missing, "--model", "oracle"] for b in ("surprise3d", "3dbench", "rio")],
        "score": [
            ["score", "surprise3d", "-a", missing, "-s", missing, "-p", missing],
            ["score", "3dbench", "--data", missing, "--predictions", missing, "--judge", "local"],
            ["score", "rio", "--data", missing, "--predictions", missing],
        ],
    }[command]
    for a in args:
        p = _cli(*a, "--protocol", "loose")
        assert p.returncode == 2 and "unknown protocol 'loose'" in p.stderr and "Traceback" not in p.stderr, (a, p.stderr)


def test_unknown_model_arg_names_the_accepted_ones(rio_data, tmp_path):
    out = tmp_path / "m"
    p = _cli("run", "rio", "--data", str(rio_data), "--model", "baseline:fpfh", "--model-arg", "voxle=0.05", "--out", str(out))
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert "'voxle'" in p.stderr and "accepted: seed, voxel" in p.stderr
    assert not out.exists()
    p = _cli(
        "run", "rio", "--data", str(rio_data), "--model", "oracle", "--model-arg", "seed=1", "--model-arg", "temp=1", "--out", str(out)
    )
    assert p.returncode == 2 and "'temp'" in p.stderr and "accepted: none" in p.stderr, p.stderr


def test_deprecated_voxel_is_the_model_arg(monkeypatch):
    from scenebench.benchmarks.rio import cli as rio_cli
    from scenebench.errors import InputError

    assert rio_cli._voxel_alias(None, ["a=1"]) == ["a=1"]
    assert rio_cli._voxel_alias(0.05, None) == ["voxel=0.05"]
    assert rio_cli._voxel_alias(0.05, ["seed_x=1"]) == ["seed_x=1", "voxel=0.05"]
    with pytest.raises(InputError, match="both --voxel and --model-arg voxel="):
        rio_cli._voxel_alias(0.05, ["voxel=0.03"])


def test_voxel_reaches_the_fpfh_model_and_warns(rio_data, tmp_path, monkeypatch):
    from scenebench.runtime import execute as execute_mod

    # A model that takes no voxel refuses it, as it refuses --model-arg voxel=, before reading data.
    bad = CliRunner().invoke(
        app, ["run", "rio", "--data", str(rio_data), "--model", "oracle", "--voxel", "0.05", "-o", str(tmp_path / "o")]
    )
    assert bad.exit_code != 0 and "voxel" in str(bad.exception) and not (tmp_path / "o").exists()

    seen = {}

    def fake_execute(benchmark, kwargs, options, **rest):
        seen.update(model_args=options.model_args)
        raise SystemExit(0)

    monkeypatch.setattr(execute_mod, "execute", fake_execute)
    res = CliRunner().invoke(app, ["run", "rio", "--data", str(rio_data), "--model", "baseline:fpfh", "--voxel", "0.05"])
    assert res.exit_code == 0 and seen["model_args"] == ["voxel=0.05"]
    assert "--voxel is deprecated" in res.output and "--model-arg voxel=0.05" in res.output
