"""What ``scenebench score|run surprise3d`` print: the mask table, then box detection when boxes were given."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from scenebench.consoles import make_console
from scenebench.report.console import print_results, results_table
from scenebench.results import Results


def show(res: Results, console: Console | None = None) -> None:
    from .scorer import MASK_METRICS, box_detection_results

    console = console or make_console()
    if res.extra.get("masks_from_boxes"):
        console.print(Text.assemble(("Box predictions scored as masks", "bold"), " (the points inside each box):"))
    print_results(res, metrics=MASK_METRICS, console=console)
    box = box_detection_results(res)
    if box is not None:
        console.print()
        console.print(
            results_table(
                box,
                metrics=list(box.metrics["overall"]),
                title=f"surprise3d BOX DETECTION — 3D IoU of predicted box vs box of GT points, hit at IoU >= t "
                f"(protocol: {res.protocol}; not comparable with the mask table above)",
            )
        )
