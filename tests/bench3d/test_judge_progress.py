"""Off a terminal, the judge pass of 3DBench scoring writes periodic progress lines (issue 27 UX)."""

from tests.bench3d.fixtures import make_bench
from tests.bench3d.test_scorer import FakeJudge, write_answers

from scenebench.benchmarks.bench3d.api import score_3dbench
from scenebench.progress import progress_bar


class LineJudge(FakeJudge):
    """FakeJudge's verdicts, reporting through the same progress helper as the real client."""

    def judge_many(self, requests, *, progress=False):
        with progress_bar(len(requests), "judging", enabled=progress, unit="items") as advance:
            out = super().judge_many(requests)
            advance(len(requests))
        return out


def test_judge_pass_writes_progress_lines_off_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCENEBENCH_PROGRESS_INTERVAL", "0")
    bench = make_bench(tmp_path / "b", ["scene_caption"])
    ans = write_answers(tmp_path / "a.jsonl", ["scene_caption"])
    score_3dbench(bench, ans, judge=LineJudge(), out=tmp_path / "r", n_resamples=0, progress=True)
    err = capsys.readouterr().err
    assert "judging: 2/2 items" in err and "scoring 3dbench: 2/2 samples" in err
    score_3dbench(bench, ans, judge=LineJudge(), out=tmp_path / "q", n_resamples=0, progress=False)
    assert "judging" not in capsys.readouterr().err
