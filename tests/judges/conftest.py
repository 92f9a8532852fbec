from __future__ import annotations

import pytest

from .fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai():
    """Factory of scripted fake OpenAI servers on 127.0.0.1; all are stopped after the test."""
    made: list[FakeOpenAI] = []

    def make(script=None, default="ok", **kw) -> FakeOpenAI:
        s = FakeOpenAI(script, default, **kw)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


@pytest.fixture
def cache_path(tmp_path):
    return tmp_path / "judge.sqlite"
