"""RIO on 3RScan, declared: inputs, options, report rules (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations import BaselineWarning, BenchmarkSpec, Command, Headline, Input, Option, ShowSamples

P = "scenebench.benchmarks.rio"
ALL_COMMANDS: tuple[Command, ...] = ("score", "validate", "run")
SCOPE = (
    "changed: the objects listed in rigid[] (the protocol's denominator, default); "
    "all: also every unlisted instance as static with the identity pose (a diagnostic, marked in results)."
)
RUN_MODEL = (
    "oracle, random, baseline:prior (identity pose), baseline:fpfh (FPFH + RANSAC + ICP, open3d extra; --model-arg voxel=0.03, voxel_per_extent=0.05 for a grid per object size, change_margin=0.1 to search near changes), "
    "plugin:package.module:Class or an entry-point name."
)
IDENTITY = (
    "{base} (identity pose: nothing moved) beats {other} on all instances ({metric} {a_all:.1f} vs {b_all:.1f}) "
    "but not on moved ones ({a_sub:.1f} vs {b_sub:.1f}): the overall number rewards predicting no motion; rank by the moved column"
)

SPEC = BenchmarkSpec(
    name="rio",
    info=f"{P}.info:INFO",
    scorer=f"{P}.scorer:prepare_scoring",
    validate=f"{P}.validate:validate_command",
    summary=f"{P}.report:show",
    cli_values=f"{P}.cli:values",
    source=f"{P}.source:RIOSource",
    view=f"{P}.view:build_views",
    layout=f"{P}.layout:LAYOUT",
    audit=f"{P}.audit:rows",
    synthetic_house=f"{P}.synthetic:stage_house",
    synthetic=f"{P}.synthetic:write_synthetic",
    extra_commands=(("score", "rio-matching", f"{P}.cli:matching_command"),),
    inputs=(
        Input("data", "data", "folder", "3RScan root: 3RScan.json, objects.json and one folder per scan.", ("--data", "-d")),
        Input(
            "predictions",
            "predictions",
            "file",
            "JSONL: {rescan, instance, pose 4x4 | R+t | quaternion(w,x,y,z)+t}.",
            ("--predictions", "-p"),
        ),
    ),
    options=(
        Option(
            "data",
            "3RScan root: 3RScan.json, objects.json and one folder per scan.",
            None,
            "path",
            ("--data", "-d"),
            ("run",),
            required=True,
        ),
        Option(
            "gt",
            "Ground-truth tree of generated data (3RScan.json, objects.json, the evaluated rescans' label files); "
            "default: <data>/../gt/3rscan when present.",
            None,
            "path",
            commands=ALL_COMMANDS,
        ),
        Option("split", "train, validation or all (train + validation); test ground truth is hidden.", "validation", commands=ALL_COMMANDS),
        Option("scope", SCOPE, "changed", commands=ALL_COMMANDS),
        Option("units", "Translation unit of 3RScan.json: auto (detected and logged), m or mm.", "auto", commands=ALL_COMMANDS),
        Option(
            "symmetry_code",
            "Accept an extra symmetry code: CODE=ORDER (e.g. 5=8; ORDER 0 = continuous). Repeatable.",
            None,
            "strs",
            commands=("score", "run"),
            keyword="symmetry_codes",
        ),
        Option("geometry", "Also read every evaluated scan's labelled PLY.", False, "bool", commands=("validate",)),
        Option(
            "voxel",
            "Deprecated (0.2.0), to be removed: same as --model-arg voxel=M (baseline:fpfh voxel size, metres).",
            None,
            "float",
            commands=("run",),
        ),
        Option(
            "bootstrap",
            "Scene-clustered bootstrap resamples for the 95% CIs (0: none).",
            1000,
            "int",
            commands=("run",),
            keyword="n_resamples",
            to="score",
            min=0,
        ),
    ),
    primary_metric="recall_10cm_10deg",
    show_samples=(ShowSamples("motion", "moved"),),
    warnings=(BaselineWarning(("baseline:prior", "identity"), ("recall_10cm_10deg", "recall_20cm_20deg"), "motion", "moved", IDENTITY),),
    headline=(
        Headline(("overall", "recall_10cm_10deg"), "RIO R@10", "Recall(0.1 m, 10°) (%)"),
        Headline(("overall", "MTE"), "RIO MTE", "median translation error (m)"),
    ),
    extra_models=(("baseline:fpfh", "open3d", f"{P}.model:FPFHModel"),),
    data_folder="3rscan",
)
