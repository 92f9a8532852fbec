"""``scenebench audit`` on 3DBench: every probe through the runner, per task against chance."""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from scenebench.declarations import AUDIT_PROBES as PROBES


def _num(v: Any) -> float | None:
    return None if v is None else float(v)


# the headline metric of each task in results.json (metrics.by_task.<task>)
TASK_METRIC = {
    "classification": "accuracy",
    "counting": "accuracy",
    "position_relation": "accuracy",
    "detection": "f1",
    "visual_grounding": "acc_iou25",
    "visual_grounding_plus": "within_1m",
    "room_detection": "f1",
    "navigation": "success",
    "object_caption": "bleu4_py",
    "object_conversation": "bleu4_py",
    "scene_caption": "bleu4_py",
    "scene_qa": "bleu4_py",
    "relation": "bleu4_py",
}


def rows(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """The audit rows of a 3DBench folder: per task, every probe on its headline metric (``split``: unused)."""
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    train = root / "train"
    source = make_source("3dbench", data=str(root), train=str(train) if train.is_dir() else None)
    samples = source.samples()
    chance: dict[str, float] = {}
    for task in sorted({s.task for s in samples}):
        opts = [len(s.options) for s in samples if s.task == task and s.options]
        if opts:
            chance[task] = 100.0 * sum(1.0 / k for k in opts) / len(opts)
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for probe, model in PROBES.items():
        res = run_benchmark(source, model, out / "3dbench" / probe, seed=seed, progress=progress).results
        scores[probe] = res.metrics.get("by_task", {})
    rows = []
    for task in sorted(scores["oracle"]):
        block = scores["oracle"][task]
        metric = _task_metric(task, block)
        if metric is None:
            continue
        row = {"benchmark": "3dbench", "task": task, "group": "all", "metric": metric, "chance": chance.get(task), "n": None}
        for probe in PROBES:
            row[probe] = _num(scores[probe].get(task, {}).get(metric))
        if row["chance"] is None:
            row["chance"] = row["random"]
        rows.append(row)
    return rows


def _task_metric(task: str, block: dict[str, Any]) -> str | None:
    want = TASK_METRIC.get(task)
    if want and want in block:
        return want
    for k in ("accuracy", "bleu4_py", "f1", "success", "mIoU"):
        if k in block:
            return k
    numeric = [k for k, v in block.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return numeric[0] if numeric else None


# --- trained probes (scikit-learn, the audit extra): fitted on train/, scored on the test split ---

_WORD = re.compile(r"[a-z0-9]+")
_OPTIONS = re.compile(r"\boptions\s*:", re.IGNORECASE)  # the query lists its options after this
_QUESTION_TYPE = {  # the record field that says what kind of question it is (else: "all" only)
    "counting": lambda r: f"object={r.raw.get('object')}" if r.raw.get("object") is not None else None,
    "position_relation": lambda r: "with viewpoint" if r.raw.get("viewpoint") else "no viewpoint",
}


def _ngrams(text: str, prefix: str, n: int = 2) -> tuple[str, ...]:
    toks = _WORD.findall(text.lower())
    return tuple(f"{prefix}{' '.join(toks[i : i + k])}" for k in range(1, n + 1) for i in range(len(toks) - k + 1))


def _option_tokens(choices: list[Any]) -> tuple[tuple[str, ...], ...]:
    """Per option: position, text n-grams and the whole text; numeric options also their rank among the options."""
    texts = [str(c) for c in choices]
    nums: list[float] | None = []
    for c in choices:
        try:
            nums.append(float(c))  # type: ignore[union-attr]
        except (TypeError, ValueError):
            nums = None
            break
    out = []
    for j, t in enumerate(texts):
        toks = (f"pos={j}", f"text={t.strip().lower()}", *_ngrams(t, "w:"))
        if nums is not None:
            rank = sorted(nums).index(nums[j])
            toks += (f"rank={rank}", f"rank_from_top={len(nums) - 1 - rank}")
        out.append(toks)
    return tuple(out)


def _metadata_tokens(rec: Any, in_house: int, k: int) -> tuple[str, ...]:
    """What the metadata probe sees: point-cloud file name tokens, ids and record order; no question text."""
    stem = Path(rec.pcl).stem.lower()
    parts = [p for p in re.split(r"[^a-z0-9]+", stem) if p]
    toks = [f"file:{p}" for p in parts] + [f"file_letters:{re.sub(r'[0-9]+', '#', p)}" for p in parts]
    digits = [int(d) for d in re.findall(r"[0-9]+", stem)]
    if digits:
        toks += [f"file_last_mod{k}={digits[-1] % k}", f"file_sum_mod{k}={sum(digits) % k}"]
    qid = re.findall(r"[0-9]+", str(rec.question_id))
    if qid:
        toks.append(f"qid_mod{k}={int(qid[-1]) % k}")
    toks += [f"row_mod{k}={rec.row % k}", f"in_house={in_house}", f"in_house_mod{k}={in_house % k}"]
    return tuple(toks)


def file_ranks(root: Path) -> dict[str, tuple[float, float]]:
    """``Objects/<name>.npy`` -> its rank by modification time and by inode number among the object
    files of its house (the name before its last ``_``), each as a fraction in [0, 1]: what the file
    system says about the order files were written in."""
    folder = root / "Objects"
    if not folder.is_dir():
        return {}
    by_house: dict[str, list[tuple[str, int, int]]] = {}
    for p in folder.glob("*.npy"):
        st = p.stat()
        by_house.setdefault(p.stem.rsplit("_", 1)[0], []).append((f"Objects/{p.name}", st.st_mtime_ns, st.st_ino))
    out: dict[str, tuple[float, float]] = {}
    for files in by_house.values():
        n = max(1, len(files) - 1)
        by_time = {f[0]: k for k, f in enumerate(sorted(files, key=lambda f: (f[1], f[2])))}
        by_inode = {f[0]: k for k, f in enumerate(sorted(files, key=lambda f: f[2]))}
        for name, *_ in files:
            out[name] = (by_time[name] / n, by_inode[name] / n)
    return out


def _file_order_tokens(rec: Any, ranks: dict[str, tuple[float, float]]) -> tuple[str, ...]:
    """What the file-order probe sees: the asked cloud's write-order rank in its house (by mtime and
    by inode, in tenths), nothing else."""
    r = ranks.get(str(rec.pcl).replace("\\", "/"))
    if r is None:
        return ("no_file_rank",)
    return (f"mtime_tenth={min(9, int(10 * r[0]))}", f"inode_tenth={min(9, int(10 * r[1]))}")


@functools.cache
def _house_doc(path: Path) -> dict[str, Any]:
    import json

    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _house_tokens(root: Path | None, rec: Any) -> tuple[str, ...]:
    """What the house-JSON probe sees besides the question: the house JSON's room count and types,
    its listed object categories and how many, and the scene file's size in 200 kB steps."""
    if root is None:
        return ()
    # a house is in one split: the test folder's houses/ or train/houses/ (pcl paths are from the test folder)
    doc = _house_doc(root / "houses" / f"({rec.house}).json") or _house_doc(root / "train" / "houses" / f"({rec.house}).json")
    rooms = [str(r.get("roomType")) for r in doc.get("rooms", []) if isinstance(r, dict)]
    objs = [str(o.get("assetId")) for o in doc.get("objects", []) if isinstance(o, dict)]
    toks = [f"rooms={len(rooms)}", f"objects={len(objs)}"] + [f"room:{t}" for t in sorted(set(rooms))]
    toks += [f"room_n:{t}={rooms.count(t)}" for t in sorted(set(rooms))] + [f"obj:{o}" for o in sorted(set(objs))]
    scene = root / rec.pcl
    if scene.is_file():
        toks.append(f"scene_size={scene.stat().st_size // 200_000}")
    return tuple(toks)


def choice_items(records: list[Any], view: str, ranks: dict[str, tuple[float, float]] | None = None, root: Path | None = None) -> list[Any]:
    """The multiple-choice ``records`` as :class:`~scenebench.metrics.probes.ChoiceItem` for the
    ``question`` (query n-grams, without its options list), ``metadata``, ``file_order`` or
    ``house_json`` view (``ranks``: :func:`file_ranks` of the data folder; ``root``:
    the test folder, for the house JSONs of both splits and the scene files)."""
    from scenebench.metrics.probes import ChoiceItem

    items = []
    seen_in_house: dict[tuple[str, str], int] = {}
    for rec in records:
        choices = list(rec.gt["choices"])
        k = len(choices)
        where = (rec.task, rec.house)
        in_house = seen_in_house.get(where, 0)
        seen_in_house[where] = in_house + 1
        if view == "question":
            stem = _OPTIONS.split(rec.query, maxsplit=1)[0]
            context = _ngrams(stem, "q:")
        elif view == "metadata":
            context = _metadata_tokens(rec, in_house, k)
        elif view == "file_order":
            context = _file_order_tokens(rec, ranks or {})
        elif view == "house_json":
            stem = _OPTIONS.split(rec.query, maxsplit=1)[0]
            context = _ngrams(stem, "q:", 1) + _house_tokens(root, rec)
        else:
            raise ValueError(f"unknown probe view {view!r}")
        qtype = _QUESTION_TYPE.get(rec.task, lambda r: None)(rec)
        groups = ("all",) if qtype is None else ("all", qtype)
        items.append(ChoiceItem(rec.key, groups, context, _option_tokens(choices), int(rec.gt["answer"])))
    if len({it.groups for it in items}) == 1:  # one question type: its row would repeat "all"
        items = [replace(it, groups=("all",)) for it in items]
    return items


class _StartProbe:
    """Navigation without looking: stand still at the start point."""

    name = "probe:nav-start"

    def settings(self) -> dict[str, Any]:
        return {}

    def predict(self, batch: Any) -> list[Any]:
        from scenebench.models.predictions import WaypointsPrediction

        return [WaypointsPrediction(s.sample_id, points=[list(s.inputs["start"])] * 2) for s in batch.samples]


class _MeanOffsetProbe:
    """Navigation without looking: a straight line from the start by the mean train start-to-goal offset."""

    name = "probe:nav-mean-offset"

    def __init__(self, offset: list[float]) -> None:
        self.offset = offset

    def settings(self) -> dict[str, Any]:
        return {"offset": self.offset}

    def predict(self, batch: Any) -> list[Any]:
        from scenebench.models.predictions import WaypointsPrediction

        out = []
        for s in batch.samples:
            x, z = (float(v) for v in s.inputs["start"])
            out.append(WaypointsPrediction(s.sample_id, points=[[x, z], [x + self.offset[0], z + self.offset[1]]]))
        return out


class _GoalPriorProbe:
    """Navigation without looking: a straight line from the start to the train-mean goal of the
    named category (the train-mean goal of every route when the category has none)."""

    name = "probe:nav-goal-prior"

    def __init__(self, paths: dict[str, list[list[float]]]) -> None:
        self.paths = paths  # query -> waypoints

    def settings(self) -> dict[str, Any]:
        return {}

    def predict(self, batch: Any) -> list[Any]:
        from scenebench.models.predictions import WaypointsPrediction

        return [WaypointsPrediction(s.sample_id, points=self.paths.get(s.query, [list(s.inputs["start"])] * 2)) for s in batch.samples]


def goal_prior_paths(train: list[Any], test: list[Any]) -> dict[str, list[list[float]]]:
    """Per test navigation question (its query): start, then the mean goal of the train routes to
    the same category (``target``), else of every train route. A frame shared by every house makes
    this a good guess (issue 42: 14.4% strict success on generator 10)."""
    import numpy as np

    goals: dict[str, list[np.ndarray]] = {}
    for r in train:
        goals.setdefault(str(r.raw.get("target")), []).append(np.asarray(r.gt["positions"][-1], float))
    everything = np.mean([g for v in goals.values() for g in v], axis=0)
    out = {}
    for r in test:
        g = goals.get(str(r.raw.get("target")))
        goal = np.mean(g, axis=0) if g else everything
        out[r.query] = [[float(v) for v in r.gt["start"]], [float(goal[0]), float(goal[1])]]
    return out


CLOUD_FEATURES = 22  # length of :func:`cloud_features`


def cloud_features(cloud: Any) -> Any:
    """Geometric and colour features of one object cloud ``(N, 6)`` (x y z r g b, y up) that do not
    depend on where the house sits or how it is turned: point count, height and the two floor-plane
    extents (sorted), the spread along the principal floor axes, height quantiles above the lowest
    point, bottom height, colour mean, spread and quantiles."""
    import numpy as np

    p = np.asarray(cloud, float)
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] < 6:
        return np.zeros(CLOUD_FEATURES)
    xyz, rgb = p[:, :3], p[:, 3:6]
    y = xyz[:, 1]
    xz = xyz[:, [0, 2]] - xyz[:, [0, 2]].mean(0)
    ev = np.sort(np.linalg.eigvalsh(np.cov(xz.T) if len(xz) > 2 else np.eye(2)))[::-1]
    ext = np.sort(np.ptp(xz @ np.linalg.eigh(np.cov(xz.T) if len(xz) > 2 else np.eye(2))[1], axis=0))[::-1]
    yq = np.quantile(y - y.min(), [0.1, 0.5, 0.9])
    return np.concatenate(
        [
            [np.log1p(len(p)), float(np.ptp(y)), float(y.min())],
            ext,
            np.sqrt(np.maximum(ev, 0)),
            yq,
            rgb.mean(0),
            rgb.std(0),
            np.quantile(rgb.mean(1), [0.1, 0.5, 0.9]),
            [float(ext[1] / max(ext[0], 1e-6)), float(np.ptp(y) / max(ext[0], 1e-6)), float(len(p) / max(ext[0] * ext[1], 1e-3))],
        ]
    )


def sighted_classification(root: Path, train: list[Any], test: list[Any], *, seed: int) -> list[int] | None:
    """The sighted probe of classification: a random forest on :func:`cloud_features` of the asked
    object cloud, fitted on the train questions' right categories; per test question the option it
    finds likeliest. What a model that looks at the cloud learns, beside the blind probes. None when
    a cloud is missing or the train split has fewer than two categories."""
    import numpy as np

    from scenebench.extras import require

    require("sklearn", "audit", "the sighted classification probe of scenebench audit")
    from sklearn.ensemble import RandomForestClassifier

    def features(recs: list[Any]) -> Any:
        out = []
        for r in recs:
            path = root / r.pcl
            if not path.is_file():
                return None
            out.append(cloud_features(np.load(path, allow_pickle=False)))
        return np.array(out)

    xtr, xte = features(train), features(test)
    ytr = [str(r.gt["choices"][r.gt["answer"]]) for r in train]
    if xtr is None or xte is None or len(set(ytr)) < 2:
        return None
    model = RandomForestClassifier(n_estimators=300, random_state=seed, n_jobs=1).fit(xtr, ytr)
    col = {c: k for k, c in enumerate(model.classes_)}
    prob = model.predict_proba(xte)
    chosen = []
    for r, pr in zip(test, prob):
        scores = [pr[col[str(c)]] if str(c) in col else -1.0 for c in r.gt["choices"]]
        chosen.append(int(np.argmax(scores)))
    return chosen


class _TextProbe:
    """Free text without looking: per task and question text, an answer fixed before the run (the
    task's template answer, or the answer of the most similar train question)."""

    def __init__(self, name: str, answers: dict[tuple[str, str], str]) -> None:
        self.name = f"probe:{name}"
        self.answers = answers  # (task, query) -> text

    def settings(self) -> dict[str, Any]:
        return {}

    def predict(self, batch: Any) -> list[Any]:
        from scenebench.models.predictions import TextPrediction

        return [TextPrediction(s.sample_id, text=self.answers.get((s.task, s.query), "")) for s in batch.samples]


_NAME_WORDS = 3  # the longest object name looked for in a question, in words ("tabletop decoration" is 2)


@functools.cache
def _name_vocab() -> frozenset[str]:
    from scenebench.benchmarks.bench3d.sample_scores import VOCAB

    return frozenset(VOCAB)


def question_names(query: str) -> list[str]:
    """The object and room names a 3DBench question gives, in order of first appearance: the
    longest runs of up to ``_NAME_WORDS`` words that spell a 3DBench category or room type with
    their spaces taken out ("TV stand" -> tvstand). What the slot and named probes key on."""
    vocab = _name_vocab()
    words = _WORD.findall(query.lower())
    out: list[str] = []
    i = 0
    while i < len(words):
        for k in range(min(_NAME_WORDS, len(words) - i), 0, -1):
            if "".join(words[i : i + k]) in vocab:
                name = " ".join(words[i : i + k])
                if name not in out:
                    out.append(name)
                i += k
                break
        else:
            i += 1
    return out


def _text_probes(test_bench: Any, train_bench: Any, *, seed: int) -> tuple[dict[str, dict[tuple[str, str], str]], dict[str, float]]:
    """``template``, ``retrieval``, ``slot`` and ``named`` answers to every test question of each text
    task with train references, and each task's chance: a random train answer's mean BLEU-4."""
    from scenebench.benchmarks.bench3d.tasks import TASKS
    from scenebench.metrics.probes import (
        best_constant_answer,
        named_template_answers,
        random_answer_bleu4,
        retrieve_answers,
        slot_template_answers,
    )

    out: dict[str, dict[tuple[str, str], str]] = {"template": {}, "retrieval": {}, "slot": {}, "named": {}}
    chance: dict[str, float] = {}
    for task in sorted(TASKS):
        if TASKS[task].kind != "text":
            continue
        train = [r for r in train_bench.records.get(task, []) if r.gt.get("references")]
        test = [r for r in test_bench.records.get(task, []) if r.gt.get("references")]
        if not train or not test:
            continue
        refs = [r.gt["references"][0] for r in train]
        template = best_constant_answer(refs, seed=seed)
        queries = list(dict.fromkeys(r.query for r in test))
        train_queries = [r.query for r in train]
        train_names, test_names = [question_names(q) for q in train_queries], [question_names(q) for q in queries]
        slotted = slot_template_answers(train_names, refs, test_names, seed=seed)
        named = named_template_answers(train_names, refs, test_names, seed=seed)
        for q, a, filled, by_name in zip(queries, retrieve_answers(train_queries, refs, queries), slotted, named):
            out["template"][(task, q)] = template
            out["retrieval"][(task, q)] = a
            out["slot"][(task, q)] = filled
            out["named"][(task, q)] = by_name
        chance[task] = random_answer_bleu4(refs, [r.gt["references"] for r in test], seed=seed)
    return out, chance


def trained(root: Path, out: Path, *, seed: int, split: str, progress: bool) -> list[dict[str, Any]]:
    """The trained-probe rows of a 3DBench folder (``split``: unused; train questions from ``train/``):
    per multiple-choice task and question type the question-only and metadata-only probes' accuracy,
    and the blind navigation paths' strict success, each with its Wilson interval against chance;
    per free-text task the template, retrieval, slot and named answers' BLEU-4 against 1.5x a random one's."""
    import numpy as np

    from scenebench.benchmarks.bench3d.loader import load_bench
    from scenebench.benchmarks.bench3d.tasks import TASKS
    from scenebench.metrics.probes import choice_rows, fit_choice_probe, probe_row, text_row
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    train_root = root / "train"
    if not train_root.is_dir():
        return []
    test_bench, train_bench = load_bench(root), load_bench(train_root)
    rows: list[dict[str, Any]] = []
    ranks = file_ranks(root)
    for task in sorted(TASKS):
        if TASKS[task].kind != "choice" or not test_bench.records.get(task) or not train_bench.records.get(task):
            continue
        views = ["question", "metadata"]
        if any(str(r.pcl).startswith("Objects/") for r in test_bench.records[task]) and ranks:
            views.append("file_order")  # a benchmark shipping per-object files: their write order
        if task == "counting" and (root / "houses").is_dir():
            views.append("house_json")  # the house metadata: rooms, listed categories, scene file size
        for view in views:
            test = choice_items(test_bench.records[task], view, ranks, root)
            chosen = fit_choice_probe(choice_items(train_bench.records[task], view, ranks, root), test, seed=seed)
            for r in choice_rows(test, chosen):
                rows.append({"benchmark": "3dbench", "task": task, "probe": view, **r})
        if task == "classification":
            sighted = sighted_classification(root, train_bench.records[task], test_bench.records[task], seed=seed)
            if sighted is not None:
                test = choice_items(test_bench.records[task], "question")
                for r in choice_rows(test, sighted):
                    rows.append({"benchmark": "3dbench", "task": task, "probe": "sighted-cloud", **r, "flag": False})
        if task == "counting":
            from scenebench.benchmarks.bench3d.sighted_count import sighted_counting

            counted = sighted_counting(root, train_bench.records[task], test_bench.records[task], seed=seed, features=cloud_features)
            if counted is not None:
                test = choice_items(test_bench.records[task], "question")
                for r in choice_rows(test, counted):
                    rows.append({"benchmark": "3dbench", "task": task, "probe": "sighted-count", **r, "flag": False})
    nav_test = [r for r in test_bench.records.get("navigation", []) if "start" in r.gt]
    nav_train = [r for r in train_bench.records.get("navigation", []) if "start" in r.gt and len(r.gt["positions"])]
    if nav_test and nav_train:
        moves = [np.asarray(r.gt["positions"][-1], float) - np.asarray(r.gt["start"], float) for r in nav_train]
        offset = [float(v) for v in np.mean(moves, axis=0)]
        source = make_source("3dbench", data=str(root), train=str(train_root))
        goal_model = _GoalPriorProbe(goal_prior_paths(nav_train, nav_test))
        for probe, model in (("nav-start", _StartProbe()), ("nav-mean-offset", _MeanOffsetProbe(offset)), ("nav-goal-prior", goal_model)):
            res = run_benchmark(
                source, model.name, out / "3dbench" / "trained" / probe, model=model, tasks=["navigation"], seed=seed, progress=progress
            ).results
            n = res.counts.n_samples
            success = float(res.metrics.get("by_task", {}).get("navigation", {}).get("success", 0.0))
            k = round(success / 100.0 * n)
            # chance None: the audit fills in the random probe's success on the same task
            rows.append(
                {"benchmark": "3dbench", "task": "navigation", "probe": probe, "group": "all", **probe_row(n, k, None), "metric": "success"}
            )
    text, text_chance = _text_probes(test_bench, train_bench, seed=seed)
    tasks = sorted(text_chance)
    if tasks:
        source = make_source("3dbench", data=str(root), train=str(train_root))
        n_test = {t: sum(1 for r in test_bench.records[t] if r.gt.get("references")) for t in tasks}
        for probe, answers in text.items():
            text_model = _TextProbe(probe, answers)
            res = run_benchmark(
                source, text_model.name, out / "3dbench" / "trained" / probe, model=text_model, tasks=tasks, seed=seed, progress=progress
            ).results
            by_task = res.metrics.get("by_task", {})
            for t in tasks:
                score = float(by_task.get(t, {}).get("bleu4_py") or 0.0)
                row = text_row(n_test[t], score, text_chance[t])
                rows.append({"benchmark": "3dbench", "task": t, "probe": probe, "group": "all", **row, "metric": "bleu4_py"})
    return rows
