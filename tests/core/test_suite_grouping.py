"""The suite's worker groups hold (scripts/test.sh: pytest-xdist ``--dist loadgroup``).

Tests that share an expensive fixture (the demo folder, the local LLM server, Ray, the pycocoevalcap
reference) are marked ``xdist_group`` so one worker builds it once. pytest-xdist 3.8 groups them by
appending ``@<group>`` to the node ids it schedules; pytest 9.2 made that renaming a no-op
(pytest-dev/pytest-xdist#1386) and the groups were silently spread over the workers, each building
the fixture again. This test fails when grouping stops working, rather than the suite just slowing.
"""

from __future__ import annotations

import os

import pytest


@pytest.mark.xdist_group("grouping-check")
@pytest.mark.parametrize("i", [0, 1])
def test_a_grouped_test_is_scheduled_by_its_group(request, i):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("runs under pytest-xdist workers only (scripts/test.sh)")
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not started with --dist loadgroup")
    assert request.node.nodeid.endswith("@grouping-check"), (
        f"pytest-xdist did not tag {request.node.nodeid} with its group: --dist loadgroup is not grouping "
        "(pytest >= 9.2 with pytest-xdist 3.8? see pytest-dev/pytest-xdist#1386)"
    )
