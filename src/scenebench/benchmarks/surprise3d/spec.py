"""SURPRISE3D, declared: inputs, options, report rules (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.surprise3d"

SPEC = BenchmarkSpec(
    name="surprise3d",
    info=f"{P}.info:INFO",
    scorer=f"{P}.scorer:prepare_scoring",
    validate=f"{P}.validate:validate_command",
    summary=f"{P}.report:show",
    source=f"{P}.source:Surprise3DSource",
    view=f"{P}.view:build_views",
    layout=f"{P}.layout:LAYOUT",
    audit=f"{P}.audit:rows",
    synthetic_house=f"{P}.synthetic:stage_house",
    synthetic=f"{P}.synthetic:write_synthetic",
    audit_trained=f"{P}.audit:trained",
    inputs=(
        Input(
            "annotations",
            "truth",
            "file",
            "SURPRISE3D annotation JSON (e.g. surprise-3d-val.json).",
            ("--annotations", "-a"),
            in_data="surprise-3d-val.json",
        ),
        Input(
            "scenes",
            "data",
            "folder",
            "Folder of <scene_id>.pth (torch extra) or <scene_id>.npz point clouds (validate: also load and check every scene).",
            ("--scenes", "-s"),
            optional_for=("validate",),
            in_data="scenes",
        ),
        Input("predictions", "predictions", "file", "Predictions, JSONL or Parquet (one record per sample).", ("--predictions", "-p")),
    ),
    options=(
        Option(
            "score_threshold",
            "A point with score (or sigmoid of its logit) >= this is predicted (both protocols; official compares in float32).",
            0.5,
            "float",
            commands=("score", "validate"),
        ),
        Option("list_ids", "Print sample_id, index, scene_id, question_type of every sample (TSV).", False, "bool", commands=("validate",)),
        Option("data", "Benchmark data folder.", None, "path", commands=("run",), required=True),
        Option("annotations", "Annotation JSON (default: surprise-3d-val.json in --data).", None, "path", commands=("run",)),
        Option("scenes", "Scene folder (default: --data/scenes).", None, "path", commands=("run",)),
        Option(
            "train",
            "Train annotations for baselines that learn (default: surprise-3d-train.json in --data).",
            None,
            "path",
            commands=("run",),
        ),
        Option(
            "labels_dir",
            "ScanNet++ folder with <scene>/scans/segments_anno.json: object labels for the scene list (default: DATA/scannetpp when it exists).",
            None,
            "path",
            commands=("run",),
        ),
    ),
    primary_metric="mIoU",
    headline=(
        Headline(("overall", "mIoU"), "S3D mIoU", "SURPRISE3D mask mIoU (%)"),
        Headline(("overall", "A50"), "S3D A50", "share of samples with IoU over 0.5 (%)"),
    ),
    data_folder="surprise3d",
)
