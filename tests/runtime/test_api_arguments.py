"""The API checks its numeric arguments before any work (issue 41): ``bootstrap=-1`` was accepted
and ``bootstrap="10"`` failed with a raw TypeError after every sample had been scored. Each bad
value is now an InputError naming the keyword, raised before the run folder is created."""

from __future__ import annotations

import pytest

import scenebench
from scenebench.errors import InputError


@pytest.mark.parametrize("value", [-1, "10", 2.5, True, None])
def test_score_refuses_a_bad_bootstrap_before_reading_anything(tmp_path, value):
    with pytest.raises(InputError, match=r"field 'bootstrap': got .* \(expected a whole number >= 0") as ei:
        scenebench.score(
            "surprise3d",
            annotations=tmp_path / "none.json",
            scenes=tmp_path,
            predictions=tmp_path / "p.jsonl",
            bootstrap=value,
            out=tmp_path / "run",
        )
    assert repr(value) in str(ei.value)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("kw", "value"), [("seed", -3), ("seed", "0"), ("limit", 0), ("limit", "5")])
def test_run_refuses_a_bad_seed_or_limit_before_building_anything(tmp_path, kw, value):
    with pytest.raises(InputError, match=f"field '{kw}': got"):
        scenebench.run("surprise3d", "oracle", data=tmp_path / "none", out=tmp_path / "run", **{kw: value})
    assert not (tmp_path / "run").exists()


def test_numpy_integers_are_whole_numbers(tmp_path):
    np = pytest.importorskip("numpy")
    with pytest.raises(InputError, match="annotation file does not exist"):  # got past the argument checks
        scenebench.score(
            "surprise3d",
            annotations=tmp_path / "none.json",
            scenes=tmp_path,
            predictions=tmp_path / "p.jsonl",
            bootstrap=np.int64(10),
            out=tmp_path / "run",
        )
