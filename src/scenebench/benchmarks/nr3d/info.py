"""What Nr3D and Sr3D declare for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations.types import BenchmarkInfo, MetricDoc

_METRICS = (
    MetricDoc("accuracy", "share of utterances whose chosen object id is the target (x100)", "docs/metrics/nr3d_accuracy.md"),
    MetricDoc("easy/hard, view-dependent/independent", "the same per subset", "docs/metrics/nr3d_accuracy.md"),
    MetricDoc(
        "Acc@0.25, Acc@0.5",
        "official:video3dllm only: share of answered utterances whose box has IoU >= k with the target's",
        "docs/metrics/nr3d_accuracy.md",
    ),
)
_PROTOCOLS = {
    "strict": "default: utterances naming the target class, any length; text without an id is wrong",
    "official": "= official:original",
    "official:original": "ReferIt3D: utterances naming the target class and of at most 24 tokens",
    "official:chatscene": "Chat-Scene: every utterance; the first <OBJnnn> of the text, else object 0",
    "official:m3drefclip": "M3DRef-CLIP: every utterance; the answered box is the target when IoU >= 0.9 with its box (needs --boxes)",
    "official:video3dllm": "Video-3D-LLM: Acc@0.25 / Acc@0.5 of the answered box against the target's box over the answered utterances (needs --boxes)",
}
_PAPER = "Achlioptas et al. 2020, ECCV (ReferIt3D), arXiv 2007.11429"
_TASK = "one object id among the scan's objects per utterance"

NR3D = BenchmarkInfo(
    name="nr3d",
    title="Nr3D: natural referring utterances among same-class distractors (ReferIt3D, ScanNet)",
    paper=_PAPER, task=_TASK, metrics=_METRICS, protocols=_PROTOCOLS, groups=("difficulty", "view"),
)  # fmt: skip
SR3D = BenchmarkInfo(
    name="sr3d",
    title="Sr3D: template spatial-relation utterances among same-class distractors (ReferIt3D, ScanNet)",
    paper=_PAPER, task=_TASK, metrics=_METRICS, protocols=_PROTOCOLS, groups=("difficulty", "view"),
)  # fmt: skip
