"""What RIO on 3RScan declares for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations import BenchmarkInfo, MetricDoc

INFO = BenchmarkInfo(
    name="rio",
    title="RIO on 3RScan: object instance re-localization in changing indoor scenes",
    paper="Wald et al. 2019, arXiv 1908.06109",
    task="for every reference instance, the 6DoF pose that maps it into the rescan (JSONL: rescan, instance, pose)",
    metrics=(
        MetricDoc(
            "recall_10cm_10deg", "primary: share of instances with t_err <= 0.1 m and r_err <= 10 deg (%)", "docs/metrics/rio_recall.md"
        ),
        MetricDoc("recall_20cm_20deg", "share of instances with t_err <= 0.2 m and r_err <= 20 deg (%)", "docs/metrics/rio_recall.md"),
        MetricDoc("MRE", "median rotation error, symmetry-aware (deg)", "docs/metrics/rio_mre_mte.md"),
        MetricDoc("MTE", "median translation error (m)", "docs/metrics/rio_mre_mte.md"),
        MetricDoc(
            "top1_accuracy", "score rio-matching: positive nearest among 1 + 50 seeded negatives (%)", "docs/metrics/rio_matching_top1.md"
        ),
    ),
    protocols={
        "strict": "default: exact vertical symmetry group about the instance centroid, translation = centroid distance, "
        "missing = infinite error, interchangeable instances matched one-to-one",
        "official": "public-code shortcuts: min(e, |180-e|, |90-e|) for symmetric objects, |t_pred - t_gt| of the 4x4s, "
        "medians over predicted instances, interchangeable instances min over partners",
    },
    groups=("motion", "label", "symmetry", "scene"),
)
