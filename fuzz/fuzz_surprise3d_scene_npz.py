"""atheris target: surprise3d_scene_npz (see fuzz/harness.py and fuzz/README.md).

python fuzz/fuzz_surprise3d_scene_npz.py -atheris_runs=100000 [CORPUS_DIR]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

if __name__ == "__main__":
    harness.fuzz_main("surprise3d_scene_npz")
