"""Multi3DRefer, declared: inputs and report rules (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations.types import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.multi3drefer"
# official:<lineage>: M3DRef-CLIP (the dataset authors' evaluator), then Chat-Scene's copy (GPT4Scene, Inst3D-LMM, 3D-LLaVA)
# and Video-3D-LLM's (Ross3D)
LINEAGES = ("original", "chatscene", "video3dllm")

SPEC = BenchmarkSpec(
    name="multi3drefer",
    info=f"{P}.info:INFO",
    scorer=f"{P}.scorer:prepare_scoring",
    validate=f"{P}.scorer:validate_command",
    source=f"{P}.source:Multi3DReferSource",
    view=f"{P}.view:build_views",
    layout=f"{P}.layout:LAYOUT",
    synthetic=f"{P}.synthetic:write_synthetic",
    audit=f"{P}.audit:rows",
    inputs=(
        Input("annotations", "truth", "file", "multi3drefer_<split>.json (the evaluated split).", ("--annotations", "-a")),
        Input("boxes", "truth", "folder", "Folder of <scene_id>_aligned_bbox.npy box tables (ScanNet preprocessed)."),
        Input(
            "predictions",
            "predictions",
            "file",
            "Predictions: M3DRef-CLIP folder of <scene_id>.json, or a JSON list / JSONL of {scene_id, ann_id, aabb}.",
            ("--predictions", "-p"),
        ),
    ),
    options=(
        Option("data", "Multi3DRefer data folder (see docs/metrics/multi3drefer_f1.md).", None, "path", commands=("run",), required=True),
    ),
    primary_metric="F1@0.5",
    lineages=LINEAGES,
    data_folder="multi3drefer",
    headline=(Headline(("overall", "F1@0.5"), "M3DR F1@0.5", "Multi3DRefer F1 of the predicted box sets at IoU >= 0.5 (%)"),),
)
