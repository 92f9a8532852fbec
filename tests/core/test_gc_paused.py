import gc

import pytest

from scenebench.benchmarks.base import JobHooks, ScoringJob
from scenebench.metrics.records import gc_paused, with_gc_paused


def test_gc_paused_restores_the_collector_and_can_freeze():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    before = gc.get_freeze_count()
    kept = [[i] for i in range(1000)]
    with gc_paused(freeze=True):
        more = [[i] for i in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() > before
    gc.unfreeze()
    del kept, more


def test_with_gc_paused_wraps_the_job_hooks_and_restores_the_collector_when_scoring_fails():
    seen = []

    def summarize(records, run):
        seen.append(("summarize", gc.isenabled(), records, run))
        return "results"

    def stop(run):
        seen.append(("stop", gc.isenabled(), run))
        raise RuntimeError("disk full")

    hooks = JobHooks(on_open=lambda s: seen.append(("open", s)), on_stop=stop)
    job = with_gc_paused(ScoringJob("toy", "strict", None, summarize, hooks=hooks))
    job.hooks.on_open("scorer")
    assert not gc.isenabled()  # scoring runs with the collector paused
    with pytest.raises(RuntimeError, match="disk full"):
        job.hooks.on_stop("run")  # the benchmark's own hook still runs, and its error is the one raised
    assert gc.isenabled() and gc.get_freeze_count() > 0  # inputs and records frozen until the summary
    assert job.summarize([1], "run") == "results"
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert seen == [("open", "scorer"), ("stop", False, "run"), ("summarize", False, [1], "run")]


def test_gc_paused_freezes_only_what_a_successful_block_built():
    gc.unfreeze()
    with pytest.raises(ValueError, match="bad input"):
        with gc_paused(freeze=True):
            junk = [[i] for i in range(100)]
            raise ValueError("bad input")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    del junk
