"""Speed of 3DBench scoring (issue 4, part 6). Prints figures; asserts nothing.

Builds 8,000 answers of the eight rule-scored tasks (1,000 each: classification, counting,
position relation, detection, visual grounding, visual grounding plus, room detection, navigation)
with verbose, chain-of-thought style texts, then measures, in this run:

1. parse + metric time of ``Bench3DScorer.score_record`` over all 8,000 (both protocols), in answers/s;
2. the official number reader: scenebench's ``official_group_numbers`` (regex over bracket spans)
   against the released character loop (``parse_num``), on the same answers, as a ratio;
3. end to end: ``score_3dbench`` (task files, answers.jsonl, SQLite run folder, 1,000-resample
   house-clustered bootstrap, results.json).

Usage: python benchmarks/bench_3dbench.py [--per-task 1000] [--houses 40] [--skip-e2e]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenebench.benchmarks.bench3d import parsing as P  # noqa: E402
from scenebench.benchmarks.bench3d.loader import Bench  # noqa: E402
from scenebench.benchmarks.bench3d.predictions import Answers  # noqa: E402
from scenebench.benchmarks.bench3d.records import validate_records  # noqa: E402
from scenebench.benchmarks.bench3d.scorer import Bench3DScorer, Settings  # noqa: E402
from scenebench.benchmarks.bench3d.writer import write_task  # noqa: E402

TASKS = [
    "classification",
    "counting",
    "position_relation",
    "detection",
    "visual_grounding",
    "visual_grounding_plus",
    "room_detection",
    "navigation",
]
NAMES = ["chair", "cup", "sofa", "bed", "vase", "mug"]


def box(rng: random.Random) -> list[float]:
    return [
        round(rng.uniform(-6, 6), 2),
        round(rng.uniform(0, 2), 2),
        round(rng.uniform(-6, 6), 2),
        round(rng.uniform(0.2, 2), 2),
        round(rng.uniform(0.2, 2), 2),
        round(rng.uniform(0.2, 2), 2),
    ]


def jitter(b: list[float], rng: random.Random, s: float = 0.3) -> list[float]:
    return [round(v + rng.uniform(-s, s), 2) for v in b[:3]] + b[3:]


def make(per_task: int, houses: int, seed: int = 0) -> tuple[dict[str, list[dict]], dict[str, str]]:
    rng = random.Random(seed)
    recs: dict[str, list[dict]] = {t: [] for t in TASKS}
    ans: dict[str, str] = {}
    cot = "Let me think step by step. The room is about 4 m wide and 2.5 m high, and there are 3 windows. "
    for t in TASKS:
        for k in range(per_task):
            h = str(460 + k % houses)
            q = {"question_id": f"{t}-{k}", "id": h, "pcl": f"pcl/{h}.npy", "query": "q"}
            g = k % 6
            if t == "classification":
                q |= {"gt_choices": NAMES, "gt_choice": g}
                a = rng.choice([f"The answer is ({'ABCDEF'[g]}).", f"{cot}It looks like a {NAMES[g]}.", "I am not sure."])
            elif t == "counting":
                q |= {"gt_choices": [1, 2, 3, 4, 5, 12], "gt_choice": g, "object": "chair"}
                a = rng.choice([f"{cot}So there are {[1, 2, 3, 4, 5, 12][g]} chairs.", "ANSWER: B", "There are three chairs."])
            elif t == "position_relation":
                opts = [
                    "The sofa is to the left of the bed.",
                    "The sofa is to the right of the bed.",
                    "The sofa is in front of the bed.",
                    "The sofa is behind the bed.",
                ]
                q |= {"gt_choices": opts, "gt_choice": k % 4}
                a = rng.choice([opts[k % 4], f"{cot}The answer is ({'ABCD'[k % 4]}).", "(C)"])
            elif t == "detection":
                objs = [{"name": rng.choice(NAMES), "BoundingBox": box(rng)} for _ in range(rng.randint(1, 5))]
                q |= {"object": objs}
                a = cot + " ".join(f"There is a {o['name']} at {jitter(o['BoundingBox'], rng)}." for o in objs)
            elif t == "visual_grounding":
                b = box(rng)
                q |= {"object": b, "name": "vase"}
                a = f"{cot}The vase is located at {jitter(b, rng, 0.8)}."
            elif t == "visual_grounding_plus":
                b = box(rng)
                q |= {"object": b, "name": "vase", "caption": "a vase"}
                c = jitter(b, rng, 0.5)
                a = f"{cot}Its centre is ({c[0]}, {c[1]}, {c[2]})."
            elif t == "room_detection":
                rooms = [
                    {"label": r, "bbox": [rng.uniform(-5, 5), rng.uniform(-5, 5), 1.25, rng.uniform(2, 6), rng.uniform(2, 6), 2.5]}
                    for r in ("Kitchen", "LivingRoom", "Bedroom")
                ]
                q |= {"object": rooms}
                a = "; ".join(f"{r['label']}: {[round(v + rng.uniform(-0.2, 0.2), 2) for v in r['bbox']]}" for r in rooms)
            else:
                pos = [[round(rng.uniform(-5, 5), 2), round(rng.uniform(-5, 5), 2)] for _ in range(rng.randint(3, 12))]
                q |= {"positions": pos, "start": pos[0], "target": "fridge"}
                a = " -> ".join(str([round(x + rng.uniform(-0.3, 0.3), 2) for x in p]) for p in pos)
            recs[t].append(q)
            ans[q["question_id"]] = a
    return recs, ans


def released_parse_num(num_list: list[float], a: str, b: str, text: str) -> list[float]:
    """The released character loop, for the speed ratio (same output, see tests)."""
    flag, tmp = 0, ""
    for c in text:
        if c == a:
            flag = 1
        elif c == b:
            flag = 0
            if P._is_number(tmp):
                num_list.append(float(tmp))
                tmp = ""
        elif flag == 0:
            continue
        elif c != "," and c != " ":
            tmp += c
        elif P._is_number(tmp):
            num_list.append(float(tmp))
            tmp = ""
    return num_list


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-task", type=int, default=1000)
    ap.add_argument("--houses", type=int, default=40)
    ap.add_argument("--skip-e2e", action="store_true")
    args = ap.parse_args()
    raw, ans = make(args.per_task, args.houses)
    records = {t: validate_records(t, rs) for t, rs in raw.items()}
    n = sum(len(r) for r in records.values())
    print(
        f"answers: {n} ({args.per_task} per task x {len(TASKS)} rule-scored tasks), mean length {sum(map(len, ans.values())) / n:.0f} chars"
    )
    bench = Bench(Path("."), records, {})
    for protocol in ("strict", "official"):
        scorer = Bench3DScorer(bench, Answers(ans), Settings(protocol=protocol))
        flat = [r for rs in records.values() for r in rs]
        best, best_cpu = float("inf"), float("inf")
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            for r in flat:
                scorer.score_record(r)
            best, best_cpu = min(best, time.perf_counter() - t0), min(best_cpu, time.process_time() - c0)
        # CPU time is reported beside wall time: on a shared 2-core machine other processes inflate the wall clock
        print(
            f"parse + metrics [{protocol}]: {best * 1000:.0f} ms wall, {best_cpu * 1000:.0f} ms CPU for {n} answers = {n / best:,.0f} answers/s (wall)"
        )
    texts = list(ans.values())
    t0 = time.process_time()
    ours = [P.official_group_numbers(x, "[", "]") + P.official_group_numbers(x, "(", ")") for x in texts]
    t_ours = time.process_time() - t0
    t0 = time.process_time()
    ref = [released_parse_num(released_parse_num([], "[", "]", x), "(", ")", x) for x in texts]
    t_ref = time.process_time() - t0
    assert ours == ref
    print(
        f"official number reader (CPU): scenebench {t_ours * 1000:.0f} ms vs released character loop {t_ref * 1000:.0f} ms (x{t_ref / t_ours:.1f}), identical output"
    )
    if args.skip_e2e:
        return
    from scenebench.benchmarks.bench3d.api import score_3dbench

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for t, rs in raw.items():
            write_task(root / "bench", t, rs)
        with open(root / "answers.jsonl", "w") as f:
            for t, rs in raw.items():
                for r in rs:
                    f.write(json.dumps({"question_id": r["question_id"], "task": t, "text": ans[r["question_id"]]}) + "\n")
        t0 = time.perf_counter()
        res = score_3dbench(root / "bench", root / "answers.jsonl", out=root / "run", n_resamples=1000)
        dt = time.perf_counter() - t0
        print(
            f"end to end (load, pair, score, SQLite, 1000-resample bootstrap, results.json): {dt:.2f} s = {n / dt:,.0f} answers/s; overall mean_primary {res.metrics['overall']['mean_primary']:.1f}"
        )


if __name__ == "__main__":
    main()
