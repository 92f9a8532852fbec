"""The bottom layer: what a benchmark declares about itself (:mod:`.types`) and where each
declaration lives (:mod:`.catalog`).

Every layer may import it; it imports nothing of scenebench but the base modules ``errors`` and
``registry`` (the catalog's lazy tables), so the CLI reads declarations at start-up without
importing any benchmark code.
"""

from scenebench.declarations.types import (
    AUDIT_PROBES,
    BaselineWarning,
    BenchmarkInfo,
    BenchmarkSpec,
    Command,
    Headline,
    Input,
    Kind,
    MetricDoc,
    Option,
    OptionType,
    Role,
    ShowSamples,
)

__all__ = [
    "AUDIT_PROBES",
    "BaselineWarning",
    "BenchmarkInfo",
    "BenchmarkSpec",
    "Command",
    "Headline",
    "Input",
    "Kind",
    "MetricDoc",
    "Option",
    "OptionType",
    "Role",
    "ShowSamples",
]
