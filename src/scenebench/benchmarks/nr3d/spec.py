"""Nr3D and Sr3D (ReferIt3D), declared: one package, two benchmarks (read by the CLI at start-up: no heavy imports)."""

from scenebench.declarations.types import BenchmarkSpec, Headline, Input, Option

P = "scenebench.benchmarks.nr3d"
# official:<lineage>: ReferIt3D (the dataset authors' protocol), then Chat-Scene's copy (GPT4Scene, Inst3D-LMM, 3D-LLaVA)
# M3DRef-CLIP's evaluator (boxes, IoU >= 0.9 as identity) and Video-3D-LLM's (Ross3D: Acc@0.25 / Acc@0.5 of the box)
LINEAGES = ("original", "chatscene", "m3drefclip", "video3dllm")


def _inputs(csv: str) -> tuple[Input, ...]:
    return (
        Input("annotations", "truth", "file", f"{csv} (ReferIt3D's utterance table; not needed for Video-3D-LLM's result JSONL, which carries its own truth).", ("--annotations", "-a"), optional_for=("score",)),
        Input("scans", "truth", "file", "Test scans: ReferIt3D's test_scans.txt (JSON list) or one id per line (default: every row).", optional_for=("score", "validate")),
        Input("predictions", "predictions", "file", "Predictions: JSON list / JSONL of {sample_id | scan_id, target_id, ann_id; pred_id | pred | aabb}, or Video-3D-LLM's result JSONL {gt_response, pred_response, question_type} (official:video3dllm).", ("--predictions", "-p")),
        Input("boxes", "truth", "folder", "Folder of <scan_id>_aligned_bbox.npy box tables (read by official:m3drefclip and official:video3dllm only).", optional_for=("score", "validate")),
    )  # fmt: skip


def _spec(name: str, csv: str, title: str) -> BenchmarkSpec:
    return BenchmarkSpec(
        name=name,
        info=f"{P}.info:{name.upper()}",
        scorer=f"{P}.scorer:prepare_{name}",
        validate=f"{P}.scorer:validate_command",
        source=f"{P}.source:{name.capitalize()}Source",
        view=f"{P}.view:build_views",
        layout=f"{P}.layout:LAYOUT",
        synthetic=f"{P}.synthetic:write_{name}",
        audit=f"{P}.audit:rows_{name}",
        data_folder=name,
        inputs=_inputs(csv),
        options=(
            Option("data", f"{title} data folder (see docs/metrics/nr3d_accuracy.md).", None, "path", commands=("run",), required=True),
        ),
        primary_metric="accuracy",
        lineages=LINEAGES,
        headline=(
            Headline(("overall", "accuracy"), f"{title} acc", f"{title}: share of utterances whose chosen object is the target (%)"),
        ),
    )


SPEC = _spec("nr3d", "nr3d.csv", "Nr3D")
SR3D = _spec("sr3d", "sr3d.csv", "Sr3D")
