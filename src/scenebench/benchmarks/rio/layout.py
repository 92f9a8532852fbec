"""RIO's results table (Table 3 of the paper): recall at both thresholds and median errors.

Declared in the catalog as ``layout=``; :mod:`scenebench.report.layouts` explains the fields.
"""

from __future__ import annotations

from scenebench.report.layouts import Block, Layout

# RIO (Table 3 of the paper): recall at both thresholds and median errors, for all instances and
# split by whether the instance moved between the scans.
LAYOUT = Layout(
    group="motion",
    metrics=("recall_10cm_10deg", "recall_20cm_20deg", "MRE", "MTE"),
    blocks=(Block(None, "All instances"), Block("static", "Static"), Block("moved", "Moved")),
    metric_labels={"recall_10cm_10deg": "R@10cm,10°", "recall_20cm_20deg": "R@20cm,20°", "MRE": "MRE (°)", "MTE": "MTE (m)"},
)
