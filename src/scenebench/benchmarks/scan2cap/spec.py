"""Scan2Cap, declared: inputs and report rules (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations.types import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.scan2cap"
# official:<lineage>: the training repo's scorer (lib/eval_helper.py) first, then the benchmark server's
# (benchmark/eval.py), Chat-Scene's (GPT4Scene, Inst3D-LMM, 3D-LLaVA), LL3DA's, LEO's and Video-3D-LLM's (Ross3D) copies
LINEAGES = ("original", "benchmark", "chatscene", "ll3da", "leo", "video3dllm")

SPEC = BenchmarkSpec(
    name="scan2cap",
    info=f"{P}.info:INFO",
    scorer=f"{P}.scorer:prepare_scoring",
    validate=f"{P}.scorer:validate_command",
    source=f"{P}.source:Scan2CapSource",
    view=f"{P}.view:build_views",
    layout=f"{P}.layout:LAYOUT",
    synthetic=f"{P}.synthetic:write_synthetic",
    audit=f"{P}.audit:rows",
    inputs=(
        Input(
            "annotations",
            "truth",
            "file",
            "ScanRefer_filtered_<split>.json (descriptions with their token lists).",
            ("--annotations", "-a"),
        ),
        Input("boxes", "truth", "folder", "Folder of <scene_id>_aligned_bbox.npy box tables (ScanNet preprocessed)."),
        Input(
            "predictions",
            "predictions",
            "file",
            "The benchmark's pred.json: {scene_id: [{caption, box: 8 corners}]}.",
            ("--predictions", "-p"),
        ),
    ),
    options=(
        Option("data", "Scan2Cap data folder (see docs/metrics/scan2cap_m_at_kiou.md).", None, "path", commands=("run",), required=True),
        Option(
            "meteor",
            "Also METEOR@k (Java and the METEOR 1.5 jar of pycocoevalcap; adds about half a minute: the jar loads its paraphrase table).",
            False,
            "bool",
            commands=("score", "run"),
            to="score",
        ),
    ),
    primary_metric="CIDEr@0.5",
    lineages=LINEAGES,
    data_folder="scan2cap",
    headline=(Headline(("overall", "CIDEr@0.5"), "S2C C@0.5", "Scan2Cap CIDEr of captions on boxes with IoU >= 0.5 (x100)"),),
)
