"""Multi3DRefer's results table as the paper prints it: F1 per evaluation type, then overall."""

from scenebench.report.layouts import Block, Layout

LAYOUT = Layout(
    group="eval_type",
    metrics=("F1@0.25", "F1@0.5"),
    blocks=(
        Block("zt_wo_d", "ZT w/o D"),
        Block("zt_w_d", "ZT w/ D"),
        Block("st_wo_d", "ST w/o D"),
        Block("st_w_d", "ST w/ D"),
        Block("mt", "MT"),
        Block(None, "Overall"),
    ),
)
