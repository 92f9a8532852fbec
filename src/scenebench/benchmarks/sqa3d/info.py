"""What SQA3D declares for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations.types import BenchmarkInfo, MetricDoc

INFO = BenchmarkInfo(
    name="sqa3d",
    title="SQA3D: situated question answering (ScanNet)",
    paper="Ma et al. 2023, ICLR, arXiv 2210.07474",
    task="one short answer per situated question (agent pose + situation text)",
    metrics=(
        MetricDoc("EM@1", "answer equals a reference (the lineage's normalisation and matching)", "docs/metrics/sqa3d_em.md"),
        MetricDoc("EM@1_refined", "EM@1 or containment (LEO / Chat-Scene 'refined')", "docs/metrics/sqa3d_em.md"),
    ),
    protocols={
        "strict": "default: qa-norm-1 on both sides, exact match, first-token types, every gold question counts (missing = wrong)",
        "official": "official:original, SQA3D's LLM script: clean_answer on the answer, substring / shared-word credit, answered questions only",
        "official:leo": "LEO: clean_answer both sides, order-dependent EM/refined, prefix types, answered questions only",
        "official:chatscene": "Chat-Scene / GPT4Scene: trimmed + cleaned answer vs cleaned references, answered questions only",
        "official:video3dllm": "Video-3D-LLM: clean_answer both sides, equality with the one reference, answered questions only",
    },
    groups=("question_type",),
)
