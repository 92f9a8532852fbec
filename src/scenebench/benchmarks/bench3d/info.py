"""What ``scenebench list`` shows for 3DBench."""

from __future__ import annotations

from scenebench.benchmarks.base import BenchmarkInfo, MetricDoc

_C = "docs/metrics/"

INFO = BenchmarkInfo(
    name="3dbench",
    title="3DBench: ten object- and scene-level tasks scored from free-text answers",
    paper="Zhang et al., 3DBench: A Scalable 3D Benchmark and Instruction-Tuning Dataset, IJCAI 2024 (arXiv 2404.14678)",
    task="answer parsing, multiple choice, localization, navigation and judged text over ProcTHOR houses",
    metrics=(
        MetricDoc("accuracy / circular_accuracy", "classification, counting, position relation: option read by rules", _C + "bench3d_choice.md"),
        MetricDoc("judge_same", "position relation: judge says the answer states the right relation", _C + "bench3d_choice.md"),
        MetricDoc("around_box_linf / around_box_l2", "visual grounding: one box, centre within 1 m", _C + "bench3d_localization.md"),
        MetricDoc("in_box, mean_iou, acc_iou25/50", "grounding: centre in GT box; clamped AABB IoU", _C + "bench3d_localization.md"),
        MetricDoc("within_1m", "visual grounding plus: point within 1 m of the centre", _C + "bench3d_localization.md"),
        MetricDoc("precision_official / precision, recall, f1", "detection and room detection", _C + "bench3d_detection.md"),
        MetricDoc("success, mean_path_loss, spl, ndtw", "navigation path loss and figures", _C + "bench3d_navigation.md"),
        MetricDoc("judge_score", "text tasks: LLM judge 0-10", _C + "bench3d_judge_score.md"),
        MetricDoc("bleu4_py, rouge_l_py, cider_d_py, meteor_java", "text tasks: caption metrics vs references", _C + "bench3d_text.md"),
        MetricDoc("mean_primary", "aggregates per level and ability", _C + "bench3d_aggregates.md"),
        MetricDoc("(parsing)", "how answers become boxes, points, waypoints, options", _C + "bench3d_parsing.md"),
    ),
    protocols={
        "strict": "signed-number parser, whole-word options, one-to-one matching, Euclidean around-box, invalid judge replies counted (default)",
        "official": "released parser and rules: bracket-first, minus signs lost in the fallback, substring options, precision-like denominators, L∞ around-box, invalid judge = -1",
    },
    groups=("task", "level", "ability"),
)
