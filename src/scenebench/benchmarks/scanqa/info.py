"""What ScanQA declares for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations.types import BenchmarkInfo, MetricDoc

_C = "docs/metrics/"
INFO = BenchmarkInfo(
    name="scanqa",
    title="ScanQA: 3D question answering (ScanNet)",
    paper="Azuma et al. 2022, CVPR, arXiv 2112.10482",
    task="ranked short answers (top 10) per question about a ScanNet scene",
    metrics=(
        MetricDoc("EM@1", "top-1 answer equals a reference (the lineage's normalisation and matching)", _C + "scanqa_em.md"),
        MetricDoc("EM@10", "a reference among the first ten answers", _C + "scanqa_em.md"),
        MetricDoc("EM@1_refined", "EM@1 or containment (LEO / Chat-Scene 'refined')", _C + "scanqa_em.md"),
        MetricDoc("F-value", "top-1 token F1 with the best reference", _C + "scanqa_em.md"),
        MetricDoc(
            "bleu1_py..bleu4_py, rouge_l_py, meteor_java, cider_d_py", "caption metrics of the top-1 answer", _C + "scanqa_captions.md"
        ),
    ),
    protocols={
        "strict": "default: qa-norm-1 on both sides, every gold question counts (missing = wrong), PTB caption metrics, IDF over all gold",
        "official": "official:original, the dataset authors' score.py: raw strings, F-value, PTB caption metrics",
        "official:leo": "LEO: clean_answer both sides, order-dependent EM/refined, no tokenizer, answered questions only",
        "official:chatscene": "Chat-Scene / GPT4Scene: cleaned answer vs raw references, PTB, answered questions only",
        "official:video3dllm": "Video-3D-LLM / Ross3D: raw EM, no tokenizer, answered questions only",
        "official:ll3da": "LL3DA: caption metrics only, no tokenizer, predicted keys only",
    },
    groups=("question_type",),
)
