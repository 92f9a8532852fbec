"""ScanRefer, declared: inputs, report rules, synthetic data (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.scanrefer"

SPEC = BenchmarkSpec(
    name="scanrefer",
    info=f"{P}.info:INFO",
    scorer=f"{P}.scorer:prepare_scoring",
    validate=f"{P}.scorer:validate_command",
    source=f"{P}.source:ScanReferSource",
    view=f"{P}.view:build_views",
    layout=f"{P}.layout:LAYOUT",
    synthetic=f"{P}.writer:write_synthetic",
    inputs=(
        Input(
            "annotations",
            "truth",
            "file",
            "ScanRefer_filtered_<split>.json (the evaluated split).",
            ("--annotations", "-a"),
            in_data="ScanRefer_filtered_val.json",
        ),
        Input(
            "boxes", "truth", "folder", "Folder of <scene_id>_aligned_bbox.npy box tables (ScanNet preprocessed).", in_data="scannet_data"
        ),
        Input(
            "labels",
            "truth",
            "file",
            "scannetv2-labels.combined.tsv (raw_category -> nyu40class).",
            in_data="scannetv2-labels.combined.tsv",
        ),
        Input(
            "predictions",
            "predictions",
            "file",
            "Predictions: JSON list (or JSONL) of {scene_id, object_id, ann_id, bbox}.",
            ("--predictions", "-p"),
        ),
    ),
    options=(
        Option("data", "ScanRefer data folder (see docs/metrics/scanrefer_acc_iou.md).", None, "path", commands=("run",), required=True),
    ),
    primary_metric="Acc@0.5",
    headline=(Headline(("overall", "Acc@0.5"), "SR Acc@0.5", "ScanRefer share of boxes with IoU >= 0.5 (%)"),),
    data_folder="scanrefer",
)
