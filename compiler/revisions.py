"""A game folder as it was at a git revision: `balance --against REV`, `print --changed-since REF`.

A repository is as untrusted as the content in it, and its own config may name programs
(smudge and textconv filters, hooks, an fsmonitor). So git is asked for objects only —
`rev-parse`, `ls-tree`, `cat-file --batch`, none of which runs a filter — never to archive,
show or check out, and with every setting that could run something overridden. What git
answers is read as a stream and capped while read: the listing, each blob, the whole. Each
name of the tree is written through writing.put_under, so a crafted tree (`..`, absolute
names) writes nothing outside the temporary folder. Only regular files are taken: links and
submodules are left out (a game's content is files), and so is a file over the size a
content file may have (the loader would refuse it). The user's work tree, index and branches
are never touched.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import threading

from .source import MAX_FILE_BYTES
from .writing import Refused, UnsafeName, put_under

MAX_FOLDER_BYTES = 200_000_000  # of one game folder at a revision: more is not a game's content
MAX_FILES = 20_000              # files in it
MAX_LISTING_BYTES = 16_000_000  # of `ls-tree`'s answer for it
TIMEOUT = 120                   # seconds for all git says about one revision

# Settings from the repository's config that could run a program, overridden on every call.
_SAFE = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false",
         "-c", "protocol.allow=never", "-c", "core.alternateRefsCommand=", "--no-replace-objects",
         "--literal-pathspecs"]
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_NO_LAZY_FETCH": "1", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat",
        "LC_ALL": "C"}
_FILE_MODES = (b"100644", b"100755")


class RevisionError(Exception):
    """The folder cannot be had at that revision; the message says why, on one line."""


class _NoGit(RevisionError):
    """git is not installed."""


class _Git:
    """One git process at a time for one revision, all of them ended by one deadline."""

    def __init__(self, top: str, option: str):
        self.top, self.option = top, option

    def start(self, args, stdin=False) -> subprocess.Popen:
        try:
            proc = subprocess.Popen(["git", *_SAFE, *args], cwd=self.top, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, **_ENV))
        except FileNotFoundError:
            raise _NoGit(f"{self.option} needs git, which is not installed") from None
        proc.timer = threading.Timer(TIMEOUT, proc.kill)
        proc.timer.start()
        return proc

    def end(self, proc: subprocess.Popen, what: str) -> None:
        """Wait for `proc`; a failure (or the deadline) is a RevisionError saying `what` failed."""
        if proc.stdin:
            proc.stdin.close()
        err = proc.stderr.read(4000)
        code = proc.wait()
        killed = not proc.timer.is_alive()
        proc.timer.cancel()
        if killed:
            raise RevisionError(f"{self.option}: git took over {TIMEOUT} seconds to {what}")
        if code != 0:
            said = err.decode("utf-8", "replace").strip().splitlines()
            raise RevisionError(f"{self.option}: git could not {what}" + (f": {said[-1][:300]}" if said else ""))

    def small(self, args, what: str) -> str:
        proc = self.start(args)
        try:
            out = proc.stdout.read(64 * 1024)
            self.end(proc, what)
        finally:
            _stop(proc)
        return out.decode("utf-8", "surrogateescape").strip()


def _stop(proc: subprocess.Popen) -> None:
    proc.timer.cancel()
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe:
            try:
                pipe.close()
            except OSError:
                pass


def export(folder: str, rev: str, into: str, option: str = "--against") -> str | None:
    """The game folder `folder` as it was at `rev`, written under `into` (a folder of the
    caller's, temporary()); its path there, or None where the folder held no file at `rev`."""
    folder = os.path.realpath(folder)
    if not os.path.isdir(folder):
        raise RevisionError(f"{option} works on a game folder, and {folder} is not one")
    try:
        top = _Git(folder, option).small(["rev-parse", "--show-toplevel"], "find the repository")
    except _NoGit:
        raise
    except RevisionError as exc:
        if "not a git repository" in str(exc).lower() or ": " not in str(exc):
            raise RevisionError(f"{option}: {folder} is not inside a git repository") from None
        raise  # (git's own reason: a repository of another user's, say)
    git = _Git(top, option)
    try:
        commit = git.small(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], "read the revision")
    except RevisionError:
        commit = ""
    if not commit:
        raise RevisionError(f"{option}: unknown git revision `{rev}` (no branch, tag or commit of {top} is named so)")
    inside = os.path.relpath(folder, os.path.realpath(top))
    if inside == "." or inside.startswith(".."):
        inside = "."
    files = _listing(git, commit, inside, rev)
    if not files:
        return None
    _write_blobs(git, files, into, rev)
    out = os.path.join(into, inside)
    return out if os.path.isdir(out) else None


def _listing(git: _Git, commit: str, inside: str, rev: str) -> list[tuple[bytes, int, str]]:
    """(object id, size, path) of each regular file of the folder at the commit, at most MAX_FILES."""
    proc = git.start(["ls-tree", "-r", "-z", "-l", "--full-name", commit, "--", *(() if inside == "." else (inside,))])
    try:
        data = proc.stdout.read(MAX_LISTING_BYTES + 1)
        if len(data) > MAX_LISTING_BYTES:
            raise RevisionError(f"{git.option}: the folder at {rev} lists over {MAX_LISTING_BYTES // 1_000_000} MB of names: not a game's content")
        git.end(proc, "list the folder's files")
    finally:
        _stop(proc)
    files, total = [], 0
    prefix = "" if inside == "." else inside.replace(os.sep, "/") + "/"
    for record in data.split(b"\0"):
        meta, tab, raw = record.partition(b"\t")
        fields = meta.split()
        if not tab or len(fields) != 4:
            continue
        mode, kind, oid, size = fields
        if mode not in _FILE_MODES or kind != b"blob" or not size.isdigit():
            continue  # (a link, a submodule)
        name = os.fsdecode(raw)
        if prefix and name == prefix[:-1]:
            return []  # (the game's folder was a file then: no folder of it at that revision)
        if not name.startswith(prefix):
            raise RevisionError(f"{git.option}: the tree at {rev} names a path outside its folder: {name[:80]!r}")
        if int(size) > MAX_FILE_BYTES:
            continue  # (no content file is this large: the loader would refuse it)
        total += int(size)
        files.append((oid, int(size), name))
        if len(files) > MAX_FILES or total > MAX_FOLDER_BYTES:
            raise RevisionError(f"{git.option}: the folder at {rev} holds over {MAX_FILES} files or "
                                f"{MAX_FOLDER_BYTES // 1_000_000} MB: not a game's content")
    return files


def _write_blobs(git: _Git, files, into: str, rev: str) -> None:
    """Each file's bytes from one `cat-file --batch`, asked one at a time (so neither pipe
    fills while the other waits) and each read no further than its size."""
    proc = git.start(["cat-file", "--batch"], stdin=True)
    try:
        for oid, size, name in files:
            proc.stdin.write(oid + b"\n")
            proc.stdin.flush()
            head = proc.stdout.readline(200).split()
            if len(head) != 3 or head[1] != b"blob" or not head[2].isdigit() or int(head[2]) != size:
                raise RevisionError(f"{git.option}: git gave no file {name[:80]!r} at {rev}")
            data = proc.stdout.read(size)
            if len(data) != size or proc.stdout.read(1) != b"\n":
                raise RevisionError(f"{git.option}: git's answer for {name[:80]!r} at {rev} was cut short")
            try:
                put_under(into, name, data)
            except UnsafeName:
                raise RevisionError(f"{git.option}: the tree at {rev} names a path outside its folder: {name[:80]!r}") from None
            except Refused as exc:  # (two names of one tree, one a file and one a folder above it)
                raise RevisionError(f"{git.option}: the tree at {rev} names {name[:80]!r} twice: {exc.strerror}") from None
            except OSError as exc:  # (a name too long for this file system, a full disk)
                raise RevisionError(f"{git.option}: cannot copy {name[:80]!r} of {rev}: {exc.strerror or exc}") from None
        git.end(proc, "read the folder's files")
    except (BrokenPipeError, ConnectionResetError):
        raise RevisionError(f"{git.option}: git stopped while reading the folder at {rev}") from None
    finally:
        _stop(proc)


def temporary() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="rulepress-rev-")
