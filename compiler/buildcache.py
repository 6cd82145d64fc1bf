"""Rebuilding a game that did not change: its outputs, kept by the hash of all they are made from.

A build's outputs (game.json, the rulebooks) and its findings follow from the game's files,
the game's own templates and the compiler itself. When none of those changed since the last
build of the folder, the kept outputs are the outputs: the build writes them instead of
loading, checking and rendering again.

An entry is a folder beside the validation cache of the same folder (`cache.cache_dir()`,
with `RULEPRESS_CACHE_DIR` and `RULEPRESS_NO_CACHE=1` honoured the same way), named by the
hash of the build's inputs: the outputs under their own names, and build.json, sealed JSON
(see cache._sealed: an HMAC keyed by the user's own key) with the game id, the findings and
the digest of each output. A kept game.json is content all the same: whatever runs it checks
it as it checks any (runtime/tables.checked). Only the
latest build of a folder is kept; an entry is made under a temporary name and renamed into
place when complete. An entry never names where anything is written: the build writes the
fixed output names (outputs.OUTPUT_NAMES) into a folder named by a game id that must look
like one. An entry of any other shape, or whose outputs changed, is no entry.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from typing import NamedTuple

from .cache import _hash, _key, _plain, _report, _sealed, _Store, _unsealed, diagnostics_of, enabled
from .content import RUNTIME_DIR, SCHEMA_DIR, shown_path, yaml_files
from .diagnostics import Report
from . import writing
from .source import leads_outside
from .outputs import OUTPUT_NAMES

FORMAT = 2
GAME_ID = re.compile(r"[a-z][a-z0-9_]*")  # as the schemas have it: safe as a folder name


class KeptBuild(NamedTuple):
    game_id: str
    files: dict          # output name -> (the kept file, the digest of its bytes when kept): see put
    report: Report


def _tree_files(folder: str, within: str | None = None) -> list[str]:
    """Every file below the folder, in a fixed order, following links to folders once each
    (a template can include one through a link); with `within`, none leading outside it."""
    out, seen = [], set()
    for d, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(d)
        if real in seen or (within is not None and leads_outside(within, real)):
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        out += [os.path.join(d, f) for f in sorted(files) if not f.endswith((".pyc", ".pyo"))]
    return out


@functools.lru_cache(maxsize=1)
def build_version() -> str:
    """Everything of the toolchain that a build's outputs can depend on: the compiler with its
    grammar and templates, the runtime modules the checker reads, the schemas, and the
    versions of Python and of the libraries that load, parse and render."""
    h = hashlib.sha1(f"{FORMAT}\0{sys.version}".encode())
    found = _installed()
    for dist in ("Jinja2", "MarkupSafe", "lark", "PyYAML", "jsonschema"):  # parsing, loading, templates
        h.update(f"\0{dist}={found.get(_dist_key(dist)) or _version(dist)}".encode())
    for base in (os.path.dirname(os.path.abspath(__file__)), RUNTIME_DIR, SCHEMA_DIR):
        for path in _tree_files(base):
            with open(path, "rb") as fh:
                h.update(os.path.basename(base).encode() + os.path.relpath(path, base).encode() + b"\0" + fh.read() + b"\0")
    return h.hexdigest()


def _dist_key(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _installed() -> dict:
    """{name: version} of the distributions installed where this Python looks, by the names
    of their `.dist-info` folders (`jinja2-3.1.6.dist-info`): one listing of each folder,
    where importlib.metadata would read every distribution's metadata (tens of milliseconds).
    The first found of a name is the one imported, as for modules."""
    found = {}
    for d in sys.path:
        try:
            names = os.listdir(d or ".")
        except OSError:
            continue
        for n in names:
            stem = n[: -len(".dist-info")]
            if n.endswith(".dist-info") and stem.count("-") == 1:
                name, version = stem.split("-")
                found.setdefault(_dist_key(name), version)
    return found


def _version(dist: str) -> str:
    from importlib import metadata
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def inputs_key(folder: str) -> str | None:
    """The hash of everything the folder's build is made from; None when it cannot be told."""
    walk = Report()
    files = yaml_files(folder, walk)
    if walk.items:
        return None
    h = hashlib.sha1(build_version().encode())
    h.update(os.fsencode(os.path.realpath(folder)) + b"\0" + os.fsencode(shown_path(folder)) + b"\0")
    for f in files:
        digest = _hash(f, folder)  # (a file leading outside the folder is not even hashed)
        if digest is None:
            return None
        h.update(os.fsencode(f"{shown_path(f)}\0{digest}\0"))
    own = os.path.join(folder, "templates")
    if os.path.isdir(own):  # a game's own templates override the built-in ones
        for path in _tree_files(own, folder):
            digest = _hash(path, folder)
            if digest is None:
                return None
            h.update(os.fsencode(f"T{os.path.relpath(path, own)}\0{digest}\0"))
    scenarios = os.path.join(folder, "scenarios")
    if os.path.isdir(scenarios):  # the rulebooks print the scenarios marked as examples
        for path in _tree_files(scenarios):
            digest = _hash(path)
            if digest is None:
                return None
            h.update(os.fsencode(f"S{os.path.relpath(path, scenarios)}\0{digest}\0"))
    icons = os.path.join(folder, "art", "icons")
    if os.path.isdir(icons):  # the rulebooks show a game's icon images
        for path in _tree_files(icons, folder):
            digest = _hash(path, folder)
            if digest is None:
                return None
            h.update(os.fsencode(f"I{os.path.relpath(path, icons)}\0{digest}\0"))
    return h.hexdigest()


def _entry_root(folder: str) -> str:
    return os.path.join(_Store(folder).dir, "build")


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()  # (a big game's outputs are tens of megabytes: the quickest)


def lookup(folder: str, key: str | None) -> KeptBuild | None:
    """The kept build made from exactly these inputs, or None (none, or not of our making)."""
    if key is None or not enabled():
        return None
    entry = os.path.join(_entry_root(folder), key)
    try:
        with open(os.path.join(entry, "build.json"), encoding="utf-8", errors="surrogatepass") as fh:
            body = _unsealed(fh.read(), build_version())
        meta = json.loads(body) if body is not None else None
    except (OSError, ValueError, RecursionError):
        return None
    if not (isinstance(meta, dict) and meta.get("key") == key and isinstance(meta.get("game"), str)
            and GAME_ID.fullmatch(meta["game"]) and isinstance(meta.get("files"), dict)
            and "game.json" in meta["files"] and set(meta["files"]) <= set(OUTPUT_NAMES)):
        return None
    diags = diagnostics_of(meta.get("diags"))
    if diags is None:
        return None
    digests = meta["files"]
    if not all(isinstance(d, str) for d in digests.values()):
        return None
    # (the names are the build's own, never the entry's)
    files = {name: (os.path.join(entry, name), digests[name]) for name in OUTPUT_NAMES if name in digests}
    return KeptBuild(meta["game"], files, _report(diags))


def store(folder: str, key: str | None, gid: str, files: dict[str, str], report: Report) -> None:
    """Keep this build's outputs as the folder's latest: `files` maps each output's name to
    the path it was just written to."""
    if key is None or not enabled() or not GAME_ID.fullmatch(gid) or "game.json" not in files \
            or not set(files) <= set(OUTPUT_NAMES) or _key() is None:  # (unsealed, it would never be read)
        return
    root = _entry_root(folder)
    try:
        os.makedirs(root, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=root, prefix=".new-")
        try:
            digests = {}
            for name in (n for n in OUTPUT_NAMES if n in files):
                with open(files[name], "rb") as fh:
                    data = fh.read()
                with open(os.path.join(tmp, name), "wb") as fh:
                    fh.write(data)
                digests[name] = _digest(data)
            meta = {"key": key, "game": gid, "files": digests, "diags": [_plain(d) for d in report.items]}
            with open(os.path.join(tmp, "build.json"), "w", encoding="utf-8", errors="surrogatepass") as fh:
                fh.write(_sealed(json.dumps(meta, ensure_ascii=False), build_version()))
            final = os.path.join(root, key)
            if os.path.isdir(final):
                shutil.rmtree(final, ignore_errors=True)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        for name in os.listdir(root):  # only the latest build of a folder is kept
            if name != key:
                shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    except OSError:
        pass  # a cache that cannot be written only costs time


def put(kept: tuple[str, str], path: str) -> bool:
    """Put a kept output (its file and digest, from lookup) at `path`, leaving a file with the
    same bytes untouched; False, writing nothing, where the kept file is gone or is not what
    was kept (its digest differs). Only what is written needs the digest: a kept file equal
    to the output in place changes nothing, and hashing tens of megabytes costs a rebuild a
    third of its time."""
    source, digest = kept
    try:
        with open(source, "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    try:
        info = os.lstat(path)  # (a link is never read through: writing refuses it)
        if stat.S_ISREG(info.st_mode) and info.st_size == len(data):
            with open(path, "rb") as fh:
                if fh.read() == data:
                    return True
    except OSError:
        pass
    if _digest(data) != digest:
        return False
    writing.put(path, data)  # (never through nor over a link found at `path`)
    return True
