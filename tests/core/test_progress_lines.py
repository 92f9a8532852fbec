"""Progress off a terminal: plain periodic lines, silence for a short pass (issue 27 UX)."""

from scenebench.progress import progress_bar, progress_lines


def test_off_a_terminal_progress_is_periodic_lines(capsys, monkeypatch):
    monkeypatch.setenv("SCENEBENCH_PROGRESS_INTERVAL", "0")  # a line at every step
    with progress_bar(3, "scoring toy", unit="samples") as advance:  # pytest's stderr is no terminal
        for _ in range(3):
            advance(1)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 4  # three steps and the closing line
    assert lines[0].startswith("scoring toy: 1/3 samples (") and "elapsed" in lines[0]
    assert lines[-1].startswith("scoring toy: 3/3 samples (") and "ETA" not in lines[-1]
    assert "\r" not in "".join(lines) and "━" not in "".join(lines)  # no bar redraws in a log


def test_a_pass_shorter_than_the_interval_writes_nothing(capsys):
    with progress_lines(1000, "houses", unit="houses", interval=3600) as advance:
        advance(1000)
    assert capsys.readouterr().err == ""


def test_disabled_progress_writes_nothing(capsys, monkeypatch):
    monkeypatch.setenv("SCENEBENCH_PROGRESS_INTERVAL", "0")
    with progress_bar(5, "judging", enabled=False) as advance:
        advance(5)
    assert capsys.readouterr().err == ""
