"""``audit --benchmarks`` names what is wrong with the names it is given (issue 41): ScanRefer has no
audit probes, and before, ``audit --benchmarks scanrefer`` on a folder holding ScanRefer data said
the folder held none of the benchmarks."""

from __future__ import annotations

import pytest

from scenebench.commands.audit import run_audit
from scenebench.declarations import catalog
from scenebench.errors import InputError

# the benchmarks the audit has probes for, in catalog order (what the message lists)
AUDITED = ", ".join(s.name for s in catalog.specs() if s.audit and s.data_folder)


@pytest.fixture
def data(tmp_path):
    for folder in ("scanrefer", "3dbench"):
        (tmp_path / "data" / folder).mkdir(parents=True)
    return tmp_path / "data"


@pytest.mark.parametrize(
    ("names", "pattern"),
    [
        (
            ("scanrefer",),
            r"field '--benchmarks': the audit does not support scanrefer \(it has no probes\) \(expected one or more of " + AUDITED + r"\)",
        ),
        (("scanreferr",), r"field '--benchmarks': unknown benchmark 'scanreferr'"),
        (("3dbench", "rio"), r"holds no 3rscan/ for rio"),
    ],
)
def test_named_benchmarks_the_audit_cannot_run_are_named(data, tmp_path, names, pattern):
    with pytest.raises(InputError, match=pattern):
        run_audit(data, tmp_path / "out", benchmarks=names)
