"""What ``scenebench list`` shows for 3DBench."""

from __future__ import annotations

from scenebench.declarations import BenchmarkInfo, MetricDoc

_C = "docs/metrics/"

INFO = BenchmarkInfo(
    name="3dbench",
    title="3DBench: ten object- and scene-level tasks scored from free-text answers",
    paper="Zhang et al., 3DBench: A Scalable 3D Benchmark and Instruction-Tuning Dataset, IJCAI 2024 (arXiv 2404.14678)",
    task="answer parsing, multiple choice, localization, navigation and judged text over ProcTHOR houses",
    metrics=(
        MetricDoc(
            "accuracy / circular_accuracy / parsed_rate",
            "classification, counting, position relation: option read by rules",
            _C + "bench3d_choice_accuracy.md",
        ),
        MetricDoc("judge_same", "position relation: judge says the answer states the right relation", _C + "bench3d_judge_same.md"),
        MetricDoc("around_box_linf / around_box_l2", "visual grounding: one box, centre within 1 m", _C + "bench3d_around_box.md"),
        MetricDoc("in_box", "predicted centre inside the GT box", _C + "bench3d_in_box.md"),
        MetricDoc("mean_iou, acc_iou25, acc_iou50", "clamped AABB IoU", _C + "bench3d_iou.md"),
        MetricDoc("within_1m", "visual grounding plus: point within 1 m of the centre", _C + "bench3d_within_1m.md"),
        MetricDoc("precision_official / precision, recall, f1", "detection", _C + "bench3d_detection.md"),
        MetricDoc("precision_official / precision, recall, f1", "room detection", _C + "bench3d_room_detection.md"),
        MetricDoc("success, mean_path_loss", "navigation path loss and success", _C + "bench3d_navigation_success.md"),
        MetricDoc("spl", "navigation path-length efficiency", _C + "bench3d_spl.md"),
        MetricDoc("ndtw", "navigation normalised dynamic time warping", _C + "bench3d_ndtw.md"),
        MetricDoc("judge_score", "text tasks: LLM judge 0-10", _C + "bench3d_judge_score.md"),
        MetricDoc("bleu4_py", "text tasks: corpus BLEU-4", _C + "bench3d_bleu4.md"),
        MetricDoc("rouge_l_py", "text tasks: ROUGE-L", _C + "bench3d_rouge_l.md"),
        MetricDoc("cider_d_py", "text tasks: CIDEr-D (corpus-dependent)", _C + "bench3d_cider_d.md"),
        MetricDoc("meteor_java", "text tasks: METEOR 1.5 through Java", _C + "bench3d_meteor.md"),
        MetricDoc("mean_rule", "headline: rule-scored tasks' mean; mean_judged, mean_primary beside it", _C + "bench3d_aggregates.md"),
        MetricDoc("(parsing)", "how answers become boxes, points, waypoints, options", _C + "bench3d_parsing.md"),
    ),
    protocols={
        "strict": "signed-number parser, whole-word options, one-to-one matching, Euclidean around-box, invalid judge replies counted (default)",
        "official": "released parser and rules: bracket-first, minus signs lost in the fallback, substring options, precision-like denominators, L∞ around-box, invalid judge = -1",
    },
    groups=("task", "level", "ability"),
)
