"""Judged items per second against the real local llama.cpp judge (SmolLM2-135M, CPU).

Three figures, measured in one run on the same server:
  * concurrency 1, cold cache (every item is a call);
  * concurrency 4, cold cache (four requests in flight on four llama.cpp slots), with its ratio to 1;
  * warm cache: the concurrency-4 items again (zero calls), with its ratio to the cold run.
Concurrency 1 and 4 judge different but same-shaped items so llama.cpp's prompt cache does not favour
the second phase.

    python benchmarks/bench_judge.py [--items 16] [--repeats 3] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from scenebench.judges.api import JudgeRequest
from scenebench.judges.client import OpenAICompatibleJudge
from scenebench.judges.local_server import LocalServer

ROOMS = ["Kitchen", "LivingRoom", "Bedroom", "Bathroom"]
OBJECTS = ["fridge", "sofa", "bed", "toilet", "television", "diningtable", "chair", "sink"]


def make_items(n: int, tag: str) -> list[JudgeRequest]:
    out = []
    for i in range(n):
        obj = OBJECTS[i % len(OBJECTS)]
        if i % 3 == 2:
            out.append(
                JudgeRequest(
                    "same",
                    {
                        "question": f"Where is the {obj} relative to the bed? ({tag}{i})",
                        "answer": f"The {obj} is to the left of the bed.",
                        "reference": f"The {obj} is behind the bed.",
                    },
                )
            )
        else:
            out.append(
                JudgeRequest(
                    "score",
                    {
                        "task": "Caption",
                        "question": f"Describe the house ({tag}{i}).",
                        "answer": f"A house with a {ROOMS[i % 4].lower()} holding a {obj} and two chairs.",
                        "reference": None,
                        "rooms": ROOMS,
                        "objects": OBJECTS,
                        "level": "scene",
                    },
                )
            )
    return out


def timed(server: LocalServer, cache: Path, items: list[JudgeRequest], concurrency: int) -> tuple[float, dict]:
    with OpenAICompatibleJudge(
        server.model_alias, base_url=server.base_url, api_key="EMPTY", model_id=server.model_id, cache_path=cache, concurrency=concurrency
    ) as j:
        t = time.perf_counter()
        out = j.judge_many(items)
        dt = time.perf_counter() - t
        assert len(out) == len(items)
        return len(items) / dt, j.usage()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=16, help="items per phase")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds of (concurrency 1, concurrency 4); medians reported")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    r1s, r4s, rws = [], [], []
    with tempfile.TemporaryDirectory() as tmp, LocalServer(None, parallel=4, threads=a.threads) as server:
        print(f"model {server.model_id}, {a.items} items per phase x {a.repeats} rounds, {a.threads} CPU threads, llama.cpp slots 4")
        # One throwaway call so model warm-up is not billed to the first phase.
        timed(server, Path(tmp) / "warmup.sqlite", make_items(1, "warm"), 1)
        for r in range(a.repeats):
            # Interleaved so a change in machine load hits both concurrencies alike.
            r1, u1 = timed(server, Path(tmp) / f"c1-{r}.sqlite", make_items(a.items, f"a{r}-"), 1)
            r4, u4 = timed(server, Path(tmp) / f"c4-{r}.sqlite", make_items(a.items, f"b{r}-"), 4)
            rw, uw = timed(server, Path(tmp) / f"c4-{r}.sqlite", make_items(a.items, f"b{r}-"), 4)
            assert uw["calls"] == 0 and uw["cache_hits"] == a.items
            print(
                f"  round {r}: c1 {r1:6.2f}/s  c4 {r4:6.2f}/s  warm {rw:8.0f}/s  "
                f"({u1['prompt_tokens'] // a.items} prompt + {u1['completion_tokens'] / a.items:.1f} completion tokens per item)"
            )
            r1s.append(r1), r4s.append(r4), rws.append(rw)
    m1, m4, mw = statistics.median(r1s), statistics.median(r4s), statistics.median(rws)
    print(f"load average (1 min) before / after: {load0:.2f} / {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"concurrency 1, cold cache : {m1:8.2f} items/s (median)")
    print(f"concurrency 4, cold cache : {m4:8.2f} items/s (median)  x{m4 / m1:.2f} vs concurrency 1")
    print(f"warm cache (zero calls)   : {mw:8.0f} items/s (median)  x{mw / m4:.0f} vs cold concurrency 4")


if __name__ == "__main__":
    main()
