"""What Multi3DRefer declares for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations.types import BenchmarkInfo, MetricDoc

INFO = BenchmarkInfo(
    name="multi3drefer",
    title="Multi3DRefer: grounding a description to zero, one or several 3D objects (ScanNet)",
    paper="Zhang, Gong, Chang 2023, ICCV, arXiv 2309.05251",
    task="a set of axis-aligned boxes per (scene_id, ann_id) description",
    metrics=(
        MetricDoc("F1@0.25", "F1 of the predicted box set against the targets at IoU >= 0.25 (x100)", "docs/metrics/multi3drefer_f1.md"),
        MetricDoc("F1@0.5", "F1 of the predicted box set against the targets at IoU >= 0.5 (x100)", "docs/metrics/multi3drefer_f1.md"),
        MetricDoc("by eval_type", "the same per zt_w_d / zt_wo_d / st_w_d / st_wo_d / mt", "docs/metrics/multi3drefer_f1.md"),
    ),
    protocols={
        "strict": "default: per threshold the most pairs with IoU >= k; IoU = inter/union; every query in its type",
        "official": "= official:original",
        "official:original": "M3DRef-CLIP: Hungarian on the IoU sum, thresholded after; float32 IoU + eps; missing queries in no type",
        "official:chatscene": "Chat-Scene: the same matching, IoU + 1e-8 stored as float32; averages over prediction records only",
        "official:video3dllm": "Video-3D-LLM: the same matching, IoU + 1e-8; zero targets by box counts (P = G = 0: 1); prediction records only",
    },
    groups=("eval_type",),
)
