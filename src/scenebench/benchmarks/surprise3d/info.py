"""What SURPRISE3D declares for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations import BenchmarkInfo, MetricDoc

INFO = BenchmarkInfo(
    name="surprise3d",
    title="SURPRISE3D: 3D reasoning segmentation (ScanNet++)",
    paper="Huang et al. 2025, arXiv 2507.07781",
    task="segment the object a question describes without naming it: a point mask (or a box) per question",
    metrics=(
        MetricDoc("mIoU", "mean point-mask IoU (x100)", "docs/metrics/surprise3d_miou.md"),
        MetricDoc("A25", "share of samples with IoU over 0.25 (x100)", "docs/metrics/surprise3d_acc_iou.md"),
        MetricDoc("A50", "share of samples with IoU over 0.5 (x100)", "docs/metrics/surprise3d_acc_iou.md"),
        MetricDoc(
            "box_Acc@0.25",
            "box predictions only: 3D box IoU >= 0.25 with the GT points' box (separate table)",
            "docs/metrics/surprise3d_box_acc.md",
        ),
        MetricDoc(
            "box_Acc@0.5",
            "box predictions only: 3D box IoU >= 0.5 with the GT points' box (separate table)",
            "docs/metrics/surprise3d_box_acc.md",
        ),
    ),
    protocols={
        "strict": "default: IoU = |P∩G|/|P∪G| (0 on an empty union), A25/A50 count IoU >= t",
        "official": "published script: IoU denominator + 1e-6, A25/A50 count IoU > t",
    },
    groups=("question_type",),
)
