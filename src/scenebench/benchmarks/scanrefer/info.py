"""What ScanRefer declares for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations import BenchmarkInfo, MetricDoc

INFO = BenchmarkInfo(
    name="scanrefer",
    title="ScanRefer: 3D object localization from referring descriptions (ScanNet)",
    paper="Chen et al. 2020, ECCV, arXiv 1912.08830",
    task="one axis-aligned box per (scene_id, object_id, ann_id) description",
    metrics=(
        MetricDoc("Acc@0.25", "share of descriptions whose box IoU >= 0.25 (x100)", "docs/metrics/scanrefer_acc_iou.md"),
        MetricDoc("Acc@0.5", "share of descriptions whose box IoU >= 0.5 (x100)", "docs/metrics/scanrefer_acc_iou.md"),
        MetricDoc(
            "unique/multiple", "the same, by whether the target's class is alone in the scene", "docs/metrics/scanrefer_unique_multiple.md"
        ),
    ),
    protocols={
        "strict": "default: the object's own box-table row (no row: excluded); IoU = inter/union",
        "official": "released code: GT row among the first 128 rows, else row 0; IoU denominator + 1e-8",
    },
    groups=("unique_multiple",),
)
