"""Set-up errors are one line `error: ...`, exit 2, not "a bug in scenebench" (issue 27 UX)."""

import socket

import pytest

from scenebench.cli import _configuration_error, main


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed when the block ends: connecting is refused


def test_model_server_refusing_the_connection_is_one_line(b3d_dir, tmp_path, capsys):
    pytest.importorskip("openai")
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "run",
                "3dbench",
                "--data",
                str(b3d_dir),
                "--model",
                "openai:some-model",
                "--base-url",
                url,
                "--out",
                str(tmp_path / "r"),
                "--no-progress",
            ]
        )
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and len(err.splitlines()) == 1
    # the model adapter's server-fault line (issue 29.9): names the model and the server, says how to resume
    assert err.startswith(f"error: model openai:some-model at {url} unavailable:") and "Connection refused" in err
    assert "bug" not in err and "rerun the same command" in err


def test_no_ray_cluster_is_a_set_up_error():
    # what ray.init(address="auto") raises when no cluster runs (ray/_private/services.py)
    exc = ConnectionError(
        "Could not find any running Ray instance. Please specify the one to connect to by setting `--address` flag or "
        "`RAY_ADDRESS` environment variable."
    )
    msg = _configuration_error(exc)
    assert msg.startswith("no Ray cluster to join: Could not find any running Ray instance") and "ray start --head" in msg
    assert _configuration_error(ValueError("x")) is None
