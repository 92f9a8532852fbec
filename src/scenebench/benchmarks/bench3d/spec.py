"""3DBench, declared: inputs, options, report rules (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.bench3d"
HOUSES = "Folder of house JSONs ((<id>).json, rooms[].roomType) for scene text tasks (default: --data/houses)."
OBJECTS_GT = "GT/Classification.json (object names per house) for scene text tasks (default: --data/GT/Classification.json)."
GT = "Ground-truth folder with scene_graph/<house>.json (default: --data/../gt/3dbench when present)."
JUDGE = "LLM judge for text tasks: none, local, local:PATH.gguf, openai:MODEL."

SPEC = BenchmarkSpec(
    name="3dbench",
    info=f"{P}.info:INFO",
    scorer=f"{P}.run:prepare_scoring",
    validate=f"{P}.validate:validate_command",
    summary=f"{P}.report:print_3dbench",
    cli_values=f"{P}.cli:values",
    source=f"{P}.source:Bench3DSource",
    view=f"{P}.view:build_views",
    layout=f"{P}.layout:LAYOUT",
    audit=f"{P}.audit:rows",
    audit_trained=f"{P}.audit:trained",
    synthetic_house=f"{P}.synthetic:stage_house",
    synthetic=f"{P}.synthetic:write_synthetic",
    inputs=(
        Input("data", "data", "folder", "3DBench folder: one JSON list per task (Classification.json, ...)."),
        Input("predictions", "predictions", "file", "answers.jsonl: {question_id, task, text} per record.", ("--predictions", "-p")),
    ),
    options=(
        Option(
            "tasks", "Comma-separated tasks (keys or official names); default: every task file present.", commands=("score", "validate")
        ),
        Option("judge", JUDGE, "none", commands=("score", "run"), to="score"),
        Option("judge_base_url", "OpenAI-compatible server for --judge openai:MODEL.", commands=("score", "run"), to="score"),
        Option("judge_cache", "Judge cache file (SQLite).", commands=("score", "run"), to="score"),
        Option("judge_concurrency", "Judge requests in flight.", 4, "int", commands=("score",), min=1),
        Option(
            "circular",
            "Circular multiple choice: answers for ids question_id#rot0..#rot{n-1}.",
            False,
            "bool",
            commands=("score", "validate"),
        ),
        Option("allow_missing", "Score records without an answer as wrong (counted).", False, "bool", commands=("score", "validate")),
        Option("limit", "Score only the first N records of each task.", None, "int", commands=("score",), min=1),
        Option(
            "check_clouds", "Check that every pcl exists and is (N, 6).", True, "bool", ("--check-clouds/--no-check-clouds",), ("validate",)
        ),
        Option(
            "list_ids",
            "Print task, question_id (given or derived row<i>), row, house, pcl of every record (TSV).",
            False,
            "bool",
            commands=("validate",),
        ),
        Option("data", "Benchmark data folder.", None, "path", commands=("run",), required=True),
        Option("train", "Train split (same task files) for baselines that learn (default: --data/train).", None, "path", commands=("run",)),
        Option("gt", GT, None, "path", commands=("run",)),
        Option("houses", HOUSES, None, "path", commands=("score", "validate", "run")),
        Option("objects_gt", OBJECTS_GT, None, "path", commands=("score", "validate", "run")),
    ),
    headline=(
        Headline(
            ("overall", "mean_rule"), "3DBench", "mean of the rule-scored tasks' primary metrics (%), the same with and without a judge"
        ),
    ),
    data_folder="3dbench",
)
