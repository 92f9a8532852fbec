"""ScanQA, declared: inputs, lineages, options (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations.types import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.scanqa"

SPEC = BenchmarkSpec(
    name="scanqa",
    info=f"{P}.info:INFO",
    scorer=f"{P}.scorer:prepare_scoring",
    validate=f"{P}.validate:validate_command",
    source=f"{P}.source:ScanQASource",
    synthetic=f"{P}.synthetic:write_synthetic",
    view=f"{P}.view:build_views",
    audit=f"{P}.audit:rows",
    audit_trained=f"{P}.audit:trained",
    inputs=(
        Input(
            "annotations",
            "truth",
            "file",
            "ScanQA_v1.0_<split>.json (the evaluated split; a test file for --submission).",
            ("--annotations", "-a"),
        ),
        Input(
            "predictions",
            "predictions",
            "file",
            "Predictions: answer_top10 list (EvalAI), {question_id, answer(s)} JSON/JSONL, or a lineage's result file.",
            ("--predictions", "-p"),
        ),
    ),
    options=(
        Option(
            "meteor",
            "METEOR, as ScanQA tables report it (java and the METEOR 1.5 jar; one jar start a process; --no-meteor skips it).",
            True,
            "bool",
            ("--meteor/--no-meteor",),
            commands=("score", "run"),
            to="score",
        ),
        Option("data", "ScanQA data folder: ScanQA_v1.0_<split>.json and scannet_data/.", None, "path", commands=("run",), required=True),
        Option("split", "The evaluated split (its file ScanQA_v1.0_<split>.json).", "val", "str", commands=("run",)),
        Option("submission", "EvalAI test submission (pred.test_w_obj.json) to check offline.", None, "path", commands=("validate",)),
    ),
    primary_metric="EM@1",
    headline=(Headline(("overall", "EM@1"), "ScanQA EM@1", "ScanQA top-1 exact match (%)"),),
    data_folder="scanqa",
    lineages=("original", "leo", "chatscene", "video3dllm", "ll3da"),
)
