"""A game folder as it was at a git revision, for `rulepress balance GAME --against REV`.

The folder's files at REV are exported with `git archive` into a temporary folder and read
from there: the user's work tree, index and branches are never touched (no checkout, no
worktree). Only plain files and folders are unpacked, each at a path checked to lie inside
the temporary folder, whatever the history holds (links are left out: a game's content
is files).
"""
from __future__ import annotations

import io
import os
import subprocess
import tarfile
import tempfile

MAX_ARCHIVE = 200_000_000  # bytes of one game folder at a revision: more is not a game's content


class RevisionError(Exception):
    """The folder cannot be had at that revision; the message says why, on one line."""


def _git(args, cwd, limit=None) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=120)
    except FileNotFoundError:
        raise RevisionError("--against needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git {args[0]} took over two minutes") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RevisionError(said[-1] if said else f"git {args[0]} failed")
    if limit is not None and len(done.stdout) > limit:
        raise RevisionError(f"the folder at that revision is over {limit // 1_000_000} MB")
    return done.stdout


def export(folder: str, rev: str, into: str) -> str:
    """The game folder `folder` as it was at `rev`, unpacked under `into`; returns its path there."""
    folder = os.path.realpath(folder)
    if not os.path.isdir(folder):
        raise RevisionError(f"--against works on a game folder, and {folder} is not one")
    try:
        top = _git(["rev-parse", "--show-toplevel"], folder).decode("utf-8", "replace").strip()
    except RevisionError:
        raise RevisionError(f"--against: {folder} is not inside a git repository") from None
    commit = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], folder).decode().strip()
    inside = os.path.relpath(folder, os.path.realpath(top))
    if inside == "." or inside.startswith(".."):
        inside = "."
    data = _git(["archive", "--format=tar", commit, "--", inside], top, MAX_ARCHIVE)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if not tar.getmembers():
            raise RevisionError(f"--against: {inside} does not exist at {rev}")
        _unpack(tar, into)
    out = os.path.join(into, inside)
    if not os.path.isdir(out):
        raise RevisionError(f"--against: {inside} is not a folder at {rev}")
    return out


def _unpack(tar, into: str) -> None:
    root = os.path.realpath(into)
    for m in tar.getmembers():
        path = os.path.realpath(os.path.join(root, m.name))
        if path != root and not path.startswith(root + os.sep):
            raise RevisionError(f"--against: the archive names a path outside its folder: {m.name[:80]!r}")
        if m.isdir():
            os.makedirs(path, exist_ok=True)
        elif m.isfile():
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with tar.extractfile(m) as src, open(path, "xb") as dst:
                dst.write(src.read())


def temporary() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="rulepress-rev-")
