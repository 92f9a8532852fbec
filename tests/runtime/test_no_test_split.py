"""``generate --houses 3`` makes no test split (house i is a test house when i % 5 == 4); before,
``generate`` said nothing of it and ``run`` said only "no samples" (issue 41). Now both say why."""

from __future__ import annotations

from cli_run import run_cli


def test_generate_without_a_test_house_warns_and_run_says_why(tmp_path):
    gen = run_cli(["generate", "--out", tmp_path / "g", "--houses", 1, "--formats", "3dbench", "--min-rooms", 2, "--max-rooms", 2]
                  + ["--width", 32, "--height", 24, "--quiet"])  # fmt: skip
    assert gen.returncode == 0, gen.stderr[-1500:]
    assert "(seed 0; 0 test, 1 train)" in gen.stdout
    assert "warning: no test house: house i is a test house when i % 5 == 4, so --houses 1 makes train houses only" in gen.stderr
    assert "use --houses 5 or more, or --test-every 1" in gen.stderr
    run = run_cli(["run", "3dbench", "--data", tmp_path / "g" / "3dbench", "--model", "oracle", "--out", tmp_path / "run", "--no-progress"])
    assert run.returncode == 2
    assert "no samples to run: the data holds no samples of the evaluated split" in run.stderr
    assert "test houses only from --houses N >= --test-every" in run.stderr
