"""``BenchmarkSpec.synthetic``: generate writes the data of any declared benchmark that asks, with no
edit to the generator (the hook names no benchmark)."""

from __future__ import annotations

import json
import textwrap

from scenebench.declarations import BenchmarkSpec, catalog
from scenebench.synth.pipeline import GenerateSettings, finalize

TOY = """
    def write(folder, root, summaries, rng):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "draws.json"
        path.write_text(__import__("json").dumps({"scenes": [s["scene_id"] for s in summaries], "draw": int(rng.integers(1 << 30))}))
        return [path]
"""


def test_finalize_calls_every_declared_synthetic_writer(tmp_path, monkeypatch):
    (tmp_path / "toysynth.py").write_text(textwrap.dedent(TOY))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = BenchmarkSpec(name="toysynth", info="x:y", scorer="x:y", synthetic="toysynth:write", data_folder="toy")
    monkeypatch.setattr(catalog, "_REGISTERED", [spec])
    summaries = [
        {
            "house_id": "house_000000",
            "index": 0,
            "split": "test",
            "scene_id": "s0",
            "n_objects": 0,
            "n_points": 0,
            "files": {},
            "sha256": "",
        }
    ]
    draws = []
    for run in ("a", "b"):
        out = tmp_path / run
        out.mkdir()
        manifest = finalize(out, GenerateSettings(seed=4, houses=1, formats=()), summaries)
        assert list(manifest["aggregated"]) == ["toy/draws.json"]  # nothing else was generated: no other writer wrote
        draws.append(json.loads((out / "toy" / "draws.json").read_text()))
    assert draws[0] == draws[1] and draws[0]["scenes"] == ["s0"]  # seeded from the run seed and the name
