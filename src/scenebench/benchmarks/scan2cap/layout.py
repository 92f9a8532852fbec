"""Scan2Cap's results table as the papers print it: C, B-4, R at 0.25 and 0.5 IoU."""

from scenebench.report.layouts import Block, Layout

LAYOUT = Layout(
    group=None,
    metrics=("CIDEr@0.25", "BLEU-4@0.25", "ROUGE-L@0.25", "CIDEr@0.5", "BLEU-4@0.5", "ROUGE-L@0.5"),
    blocks=(Block(None, "Overall"),),
)
