"""The upper bound that the openai-vision marks set, measured end to end on the demo data.

A scripted OpenAI-compatible server on 127.0.0.1 plays a perfect vision model: for every question
it answers the mark whose segment best matches the ground truth (SURPRISE3D: the highest point IoU;
3DBench grounding and detection: the highest box IoU, detection with the GT object's label). The real ``openai-vision:`` model, client, run engine and
scorers do the rest, so the scores printed are what no model can beat through these marks.

    python benchmarks/bench_vision_marks.py [DEMO_FOLDER]

DEMO_FOLDER is a ``scenebench demo`` folder (its ``data/``); generated there when missing.
Also prints the request size and the image count per sample (the cost side).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np


def serve(answers: dict[tuple[str, str], str], sizes: list[int]) -> tuple[ThreadingHTTPServer, str]:
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            sizes.append(len(raw))
            body = json.loads(raw)
            parts = body["messages"][-1]["content"]
            text = "\n".join(p["text"] for p in parts if p["type"] == "text")
            q = re.search(r"^Question: (.*)$", text, re.M).group(1)
            first = hashlib.sha256(parts[1]["image_url"]["url"].encode()).hexdigest()
            text = answers.get((q, first), "I cannot tell.")
            out = json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/v1"


def oracle_answers(source, model, samples) -> dict[tuple[str, str], str]:
    from scenebench.models.base import SceneBatch
    from scenebench.models.vision.marks import best_mark_boxes, best_mark_masks

    out = {}
    by_scene: dict[str, list] = {}
    for s in samples:
        by_scene.setdefault(s.scene_id, []).append(s)
    for scene_id, ss in by_scene.items():
        scene = source.scene(scene_id)
        imgs = model.images_for(SceneBatch(scene, ss))
        url = "data:image/png;base64," + base64.b64encode(imgs.image_paths()[0].read_bytes()).decode("ascii")
        first = hashlib.sha256(url.encode()).hexdigest()
        for s in ss:
            truth = source.truth(s)
            if s.answer_kind == "mask":
                gt = np.zeros(len(scene.points), bool)
                gt[truth.indices] = True
                ((k, _),) = best_mark_masks(imgs.segmentation, [gt])
            elif s.answer_kind == "boxes":  # detection: each GT object's best mark, with its label
                best = best_mark_boxes(imgs.segmentation, [b.box for b in truth.boxes])
                entries = [f"{b.label}: Mark {k}" for b, (k, _) in zip(truth.boxes, best) if k is not None]
                if entries:
                    out[(s.query, first)] = "\n".join(entries)
                continue
            else:
                ((k, _),) = best_mark_boxes(imgs.segmentation, [truth.box])
            if k is not None:
                out[(s.query, first)] = f"Mark {k}"
    return out


def main(folder: Path) -> None:
    from scenebench.models.registry import make_model
    from scenebench.models.sources.base import make_source
    from scenebench.runtime.runner import run_benchmark

    data = folder / "data"
    if not (data / "surprise3d").is_dir():
        from scenebench.commands.demo import generate_data

        generate_data(folder, progress=False)
    work = Path(tempfile.mkdtemp(prefix="vision-ub-"))
    for method in ("colour", "components"):
        opts = {"cache_dir": str(work / "cache"), "segmentation": method}
        for bench, tasks, metrics in [
            ("surprise3d", None, ("mIoU", "A25", "A50")),
            ("3dbench", ["visual_grounding", "visual_grounding_plus", "detection"], ("mean_iou", "acc_iou25", "acc_iou50")),
        ]:
            source = make_source(bench, data=str(data / bench))
            samples = [s for s in source.samples() if tasks is None or s.task in tasks]
            answers: dict = {}
            sizes: list[int] = []
            httpd, url = serve(answers, sizes)
            model = make_model("openai-vision:oracle-via-marks", base_url=url, **opts)
            t = time.perf_counter()
            answers.update(oracle_answers(source, model, samples))
            out = run_benchmark(
                source,
                "openai-vision:oracle-via-marks",
                work / f"{bench}-{method}",
                model_options={"base_url": url, **opts},
                tasks=tasks,
                progress=False,
                model=model,
            )
            dt = time.perf_counter() - t
            httpd.shutdown()
            m = out.results.metrics
            rows = [("overall", m["overall"])] if bench == "surprise3d" else [(t_, m["by_task"][t_]) for t_ in tasks if t_ in m["by_task"]]
            for name, vals in rows:
                figs = ", ".join(
                    f"{k} {v:.1f}" for k, v in vals.items() if isinstance(v, (int, float)) and (k in metrics or bench == "3dbench")
                )
                n = sum(1 for s in samples if name in ("overall", s.task))
                print(f"{bench:10s} {name:21s} segmentation={method:10s} n={n:3d}  {figs}")
            print(
                f"           requests {len(sizes)}, {model.usage['images'] / max(1, model.usage['calls']):.0f} images and "
                f"{np.mean(sizes) / 1024:.0f} KiB per request; {dt:.1f} s (rendering included)"
            )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("scenebench-demo"))
