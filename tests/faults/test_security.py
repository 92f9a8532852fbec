"""No way in: the source never deserialises code from users, never runs strings, never shells out.

The scan is an AST walk (docstrings and comments that *mention* ``allow_pickle=True`` do not count)
over ``src/``, ``fuzz/``, ``benchmarks/`` and ``scripts/``. Each rule is shown to fire on a planted
example, so the scan cannot pass by matching nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ["src", "fuzz", "benchmarks", "scripts"]
SAFE_YAML_LOADERS = {"SafeLoader", "CSafeLoader", "BaseLoader"}


def _name(node: ast.AST) -> str:
    """Dotted name of a call target: ``pickle.load``, ``np.load``, ``eval``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _name(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    return ""


def _kw(call: ast.Call, key: str):
    for k in call.keywords:
        if k.arg == key:
            return k.value
    return None


def _const(node, value) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _restricted_unpickler(tree: ast.AST) -> bool:
    """True when the module defines a ``pickle.Unpickler`` subclass that overrides ``find_class``
    (an allow-list of globals; scenebench.io.arrays reads .pth files this way). Such a module may
    import ``pickle``; calling ``pickle.load``/``loads`` is still flagged."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(_name(b) == "pickle.Unpickler" for b in node.bases):
            if any(isinstance(f, ast.FunctionDef) and f.name == "find_class" for f in node.body):
                return True
    return False


def findings(source: str, filename: str = "<src>") -> list[str]:
    """Every unsafe construct in ``source`` as ``file:line: what``."""
    out: list[str] = []
    tree = ast.parse(source, filename)
    restricted = _restricted_unpickler(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for m in mods:
                if m == "pickle" and restricted and isinstance(node, ast.Import):
                    continue
                if m.split(".")[0] in ("pickle", "cPickle", "dill", "cloudpickle", "marshal", "shelve"):
                    out.append(f"{filename}:{node.lineno}: imports {m}")
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        short = name.rsplit(".", 1)[-1]
        where = f"{filename}:{node.lineno}"
        if name in ("eval", "exec", "builtins.eval", "builtins.exec"):
            out.append(f"{where}: {name}()")
        if name.endswith(("pickle.load", "pickle.loads", "marshal.loads", "marshal.load")) or name in ("dill.load", "dill.loads"):
            out.append(f"{where}: {name}()")
        if _const(_kw(node, "allow_pickle"), True):
            out.append(f"{where}: allow_pickle=True")
        if _const(_kw(node, "weights_only"), False):
            out.append(f"{where}: weights_only=False")
        if name.endswith("torch.load") and not _const(_kw(node, "weights_only"), True):
            out.append(f"{where}: torch.load without weights_only=True")
        if _const(_kw(node, "shell"), True):
            out.append(f"{where}: shell=True")
        if name in ("os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput"):
            out.append(f"{where}: {name}()")
        if name in ("yaml.unsafe_load", "yaml.full_load", "yaml.unsafe_load_all", "yaml.full_load_all"):
            out.append(f"{where}: {name}()")
        if name in ("yaml.load", "yaml.load_all"):
            loader = _kw(node, "Loader") or (node.args[1] if len(node.args) > 1 else None)
            if _name(loader).rsplit(".", 1)[-1] not in SAFE_YAML_LOADERS if loader is not None else True:
                out.append(f"{where}: {name} without a safe Loader")
        if short == "extractall" or (short == "extract" and name.startswith(("zipfile", "tarfile", "zf", "tf", "tar"))):
            out.append(f"{where}: {name}() (use scenebench.io.archives)")
    return out


def _files():
    for d in SCANNED:
        yield from sorted((ROOT / d).rglob("*.py")) if (ROOT / d).exists() else []


def test_source_has_no_unsafe_deserialisation_eval_or_shell():
    files = list(_files())
    assert len(files) > 50  # the scan really covers the package
    problems = [f for p in files for f in findings(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))]
    assert problems == []


@pytest.mark.parametrize(
    "snippet, rule",
    [
        ("import pickle\npickle.load(open('x', 'rb'))", "pickle"),
        ("import numpy as np\nnp.load('x.npy', allow_pickle=True)", "allow_pickle=True"),
        ("import torch\ntorch.load('x.pth', weights_only=False)", "weights_only=False"),
        ("import torch\ntorch.load('x.pth')", "without weights_only=True"),
        ("eval('1+1')", "eval()"),
        ("exec('x = 1')", "exec()"),
        ("import yaml\nyaml.load(open('c.yaml'))", "without a safe Loader"),
        ("import yaml\nyaml.load(open('c.yaml'), Loader=yaml.FullLoader)", "without a safe Loader"),
        ("import yaml\nyaml.unsafe_load('a: 1')", "unsafe_load"),
        ("import subprocess\nsubprocess.run('ls', shell=True)", "shell=True"),
        ("import os\nos.system('ls')", "os.system"),
        ("import zipfile\nzipfile.ZipFile('s.zip').extractall('out')", "extractall"),
        ("import pickle\nclass U(pickle.Unpickler):\n    pass", "imports pickle"),  # no find_class: no allow-list
        ("import pickle\nclass U(pickle.Unpickler):\n    def find_class(self, m, n): ...\npickle.loads(b'')", "pickle.loads"),
    ],
)
def test_each_rule_fires_on_a_planted_example(snippet, rule):
    assert any(rule in f for f in findings(snippet)), findings(snippet)


@pytest.mark.parametrize(
    "snippet",
    [
        '"""Mentions np.load(allow_pickle=True) and eval( in prose only."""',
        "import yaml\nyaml.load(open('c.yaml'), Loader=yaml.SafeLoader)",
        "import yaml\nyaml.safe_load('a: 1')",
        "import numpy as np\nnp.load('x.npy', allow_pickle=False)",
        "import torch\ntorch.load('x.pth', map_location='cpu', weights_only=True)",
        "import subprocess\nsubprocess.run(['ls', '-l'])",
        "import re\nre.compile('eval(')",
        "import pickle\nclass U(pickle.Unpickler):\n    def find_class(self, module, name):\n        raise pickle.UnpicklingError(name)",
    ],
)
def test_safe_uses_are_not_flagged(snippet):
    assert findings(snippet) == []
