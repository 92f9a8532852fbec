"""SQA3D, declared: inputs and lineages (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations.types import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.sqa3d"

SPEC = BenchmarkSpec(
    name="sqa3d",
    info=f"{P}.info:INFO",
    scorer=f"{P}.scorer:prepare_scoring",
    validate=f"{P}.scorer:validate_command",
    source=f"{P}.source:SQA3DSource",
    synthetic=f"{P}.synthetic:write_synthetic",
    view=f"{P}.view:build_views",
    audit=f"{P}.audit:rows",
    audit_trained=f"{P}.audit:trained",
    inputs=(
        Input("questions", "truth", "file", "v1_balanced_questions_<split>_scannetv2.json.", ("--questions", "-q")),
        Input("annotations", "truth", "file", "v1_balanced_sqa_annotations_<split>_scannetv2.json.", ("--annotations", "-a")),
        Input(
            "predictions",
            "predictions",
            "file",
            "Answers: {question_id, answer} JSON list / JSONL, or {question_id: answer}.",
            ("--predictions", "-p"),
        ),
    ),
    options=(
        Option(
            "data",
            "SQA3D data folder: the split's questions + annotations files and scannet_data/.",
            None,
            "path",
            commands=("run",),
            required=True,
        ),
        Option("split", "The evaluated split.", "test", "str", commands=("run",)),
    ),
    primary_metric="EM@1",
    headline=(Headline(("overall", "EM@1"), "SQA3D EM@1", "SQA3D exact match (%)"),),
    data_folder="sqa3d",
    lineages=("original", "leo", "chatscene", "video3dllm"),
)
