"""`generate --out DIR --overwrite` deletes only what generate can prove it wrote (issue 29 item 1).

Before: `--overwrite` ran `shutil.rmtree(DIR)`, so a folder holding a dataset and a document was
wiped. Now generate's ledger (``.houses/published.json``), its manifest and the houses' file lists
say what it wrote; anything else in DIR stops the command, naming it, before anything is deleted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli

from scenebench.errors import InputError
from scenebench.io.owned import Ownership, foreign_entries, remove_owned

GEN = ["--houses", "1", "--test-every", "1", "--min-rooms", "2", "--max-rooms", "2", "--formats", "3dbench"]
GEN += ["--width", "32", "--height", "24", "--quiet"]


_cli = run_cli


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def test_overwrite_of_a_folder_generate_never_wrote_is_refused_and_deletes_nothing(tmp_path):
    out = tmp_path / "mine"
    (out / "dataset").mkdir(parents=True)
    (out / "dataset" / "scan.ply").write_bytes(b"ply\n" + bytes(range(256)))
    (out / "thesis.md").write_text("three years of work\n")
    before = _snapshot(out)
    r = _cli(["generate", *GEN, "--seed", "1", "--out", out, "--overwrite"])
    assert r.returncode == 2, r.stdout + r.stderr
    msg = r.stderr
    assert "--overwrite refused" in msg and "dataset/" in msg and "thesis.md" in msg and "nothing was deleted" in msg, msg
    assert "Traceback" not in msg
    assert _snapshot(out) == before


@pytest.mark.slow
def test_overwrite_of_a_generated_folder_with_foreign_files_names_them_then_works_once_they_are_gone(tmp_path):
    out = tmp_path / "gen"
    r = _cli(["generate", *GEN, "--seed", "1", "--out", out, "--preview", "1"])
    assert r.returncode == 0, r.stderr[-2000:]
    (out / "3dbench" / "my_answers.jsonl").write_text('{"question_id": "1"}\n')
    (out / "notes.txt").write_text("keep me\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("not under OUT\n")
    (out / "3dbench" / "link").symlink_to(outside)
    before = _snapshot(out)
    r = _cli(["generate", *GEN, "--seed", "2", "--out", out, "--overwrite"])  # other settings: a fresh start is asked for
    assert r.returncode == 2, r.stdout + r.stderr
    for name in ("3dbench/my_answers.jsonl", "notes.txt", "3dbench/link"):
        assert name in r.stderr, r.stderr
    assert "3 entries" in r.stderr and "Classification.json" not in r.stderr, r.stderr
    assert _snapshot(out) == before and outside.read_text() == "not under OUT\n"

    # the same command resumes when nothing foreign sits in the benchmark folders it replaces
    r = _cli(["generate", *GEN, "--seed", "1", "--out", out])
    assert r.returncode == 2 and "3dbench/my_answers.jsonl" in r.stderr and "notes.txt" not in r.stderr, r.stderr

    for p in (out / "3dbench" / "my_answers.jsonl", out / "notes.txt", out / "3dbench" / "link"):
        p.unlink()
    (out / ".staging-0badc0de" / "3dbench").mkdir(parents=True)  # leftovers of a killed run are generate's own
    r = _cli(["generate", *GEN, "--seed", "2", "--out", out, "--overwrite"])
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads((out / "manifest.json").read_text())["seed"] == 2
    assert not (out / "preview").exists() and not list(out.glob(".staging-*"))
    assert outside.read_text() == "not under OUT\n"


def test_remove_owned_removes_exactly_the_owned_tree(tmp_path):
    root = tmp_path / "r"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f.json").write_text("1")
    (root / "a" / "empty").mkdir()
    (root / ".work" / "x").mkdir(parents=True)
    (root / ".work" / "x" / "y").write_text("2")
    owned = Ownership(files=["a/b/f.json"], dirs=["a/empty"], trees=[".work"])
    assert foreign_entries(root, owned) == []
    (root / "a" / "b" / "g.txt").write_text("foreign")
    (root / "a" / "other").mkdir()
    assert foreign_entries(root, owned) == ["a/b/g.txt", "a/other/"]
    with pytest.raises(InputError, match=r"2 entries .* \(a/b/g\.txt, a/other/\)"):
        remove_owned(root, owned, what="the test", hint="-")
    assert (root / "a" / "b" / "f.json").exists() and (root / ".work" / "x" / "y").exists()
    (root / "a" / "b" / "g.txt").unlink()
    (root / "a" / "other").rmdir()
    remove_owned(root, owned, what="the test", hint="-")
    assert not root.exists()


def test_remove_owned_never_follows_a_symlink(tmp_path):
    target = tmp_path / "precious"
    target.mkdir()
    (target / "data.bin").write_bytes(b"x")
    root = tmp_path / "r"
    root.mkdir()
    (root / "f.json").write_text("1")
    (root / "d").symlink_to(target, target_is_directory=True)
    owned = Ownership(files=["f.json"], dirs=["d"])  # even a listed folder is foreign when it is a link
    assert foreign_entries(root, owned) == ["d"]
    with pytest.raises(InputError):
        remove_owned(root, owned, what="the test", hint="-")
    owned = Ownership(files=["f.json", "d"])  # a link listed as a file of ours: the link goes, not its target
    remove_owned(root, owned, what="the test", hint="-")
    assert not root.exists() and (target / "data.bin").read_bytes() == b"x"
