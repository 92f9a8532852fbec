"""What Scan2Cap declares for ``scenebench list`` (no heavy imports)."""

from scenebench.declarations.types import BenchmarkInfo, MetricDoc

CARD = "docs/metrics/scan2cap_m_at_kiou.md"
INFO = BenchmarkInfo(
    name="scan2cap",
    title="Scan2Cap: dense captioning of ScanNet objects (ScanRefer descriptions)",
    paper="Chen, Gholami, Niessner, Chang 2021, CVPR, arXiv 2012.02206",
    task="boxes with captions per scene; each described object scored through the proposal matched to it",
    metrics=(
        MetricDoc("CIDEr@0.25 / CIDEr@0.5", "CIDEr-D of the caption matched at IoU k, 0 unmatched (x100)", CARD),
        MetricDoc("BLEU-4@k, ROUGE-L@k", "the same with BLEU-4 and ROUGE-L", CARD),
        MetricDoc("precision / F1 (strict, benchmark)", "the same sums over the submitted boxes, and their F1", CARD),
        MetricDoc("METEOR@k (--meteor)", "METEOR 1.5 through Java: per-sample (strict, benchmark) or the jar's corpus score", CARD),
    ),
    protocols={
        "strict": "default: one-to-one matching (most pairs >= k); 0 for unmatched objects; PTB tokens; per-sample scores",
        "official": "= official:original",
        "official:original": "training repo: nearest-centre proposal, IoU > k, last wins; 'sos eos' placeholder; references cut at 30 tokens",
        "official:chatscene": "Chat-Scene: each object keeps its best max-IoU voter, IoU >= k; PTB on both sides; 'sos eos' placeholder",
        "official:ll3da": "LL3DA: each object keeps its best max-IoU voter, IoU > k; references cut at 30 tokens; 'sos eos' placeholder",
        "official:leo": "LEO: the best-IoU proposal of the first 50, IoU >= k; '. ' split off the caption; 'sos eos' placeholder",
        "official:video3dllm": "Video-3D-LLM: the best-IoU proposal of the first 50, IoU >= k; '.'/',' split, lower case; a miss keeps the previous references",
        "official:benchmark": "benchmark server: Hungarian on GIoU, unassigned objects take proposal 0, IoU >= k; per-sample scores; P/R/F1",
    },
)
