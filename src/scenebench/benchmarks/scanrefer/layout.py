"""ScanRefer's results table as the paper prints it (Table 2): unique, multiple, overall."""

from scenebench.report.layouts import Block, Layout

LAYOUT = Layout(
    group="unique_multiple",
    metrics=("Acc@0.25", "Acc@0.5"),
    blocks=(Block("unique", "Unique"), Block("multiple", "Multiple"), Block(None, "Overall")),
)
