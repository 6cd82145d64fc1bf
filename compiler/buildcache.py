"""Rebuilding a game that did not change: its outputs, kept by the hash of all they are made from.

A build's outputs (game.json, the rulebooks) and its findings follow from the game's files,
the game's own templates and the compiler itself. When none of those changed since the last
build of the folder, the kept outputs are the outputs: the build copies them instead of
loading, checking and rendering again.

The entry lives beside the validation cache of the same folder (`cache.cache_dir()`, with
`RULEPRESS_CACHE_DIR` and `RULEPRESS_NO_CACHE=1` honoured the same way); only the latest
build of a folder is kept. An entry is a folder made under a temporary name and renamed
into place when complete, so a half-written entry is never read.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile

from .cache import _Store, _hash, _plain, _report, cache_dir, enabled
from .content import SCHEMA_DIR, shown_path, yaml_files
from .diagnostics import Report
from .writing import put

FORMAT = 1
_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)


def _tree_files(folder: str, skip=()) -> list[str]:
    """Every file below the folder, in a fixed order, following links to folders once each
    (a template can include one through a link); folders named in `skip` are left out."""
    out, seen = [], set()
    for d, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(d)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not (d == folder and x in skip))
        out += [os.path.join(d, f) for f in sorted(files) if not f.endswith((".pyc", ".pyo"))]
    return out


@functools.lru_cache(maxsize=None)
def build_version() -> str:
    """Everything of the toolchain that a build's outputs can depend on: the compiler with its
    grammar and templates, the runtime modules the checker reads, the schemas, and the
    versions of Python and of the libraries that load, parse and render."""
    h = hashlib.sha1(f"{FORMAT}\0{sys.version}".encode())
    found = _installed()
    for dist in ("Jinja2", "MarkupSafe", "lark", "PyYAML", "jsonschema"):  # parsing, loading, templates
        h.update(f"\0{dist}={found.get(_dist_key(dist)) or _version(dist)}".encode())
    for base in (_HERE, os.path.join(_ROOT, "runtime"), SCHEMA_DIR):
        for path in _tree_files(base, skip=(MADE,)):  # (what is made from the rest is not hashed)
            with open(path, "rb") as fh:
                h.update(os.path.relpath(path, _ROOT).encode() + b"\0" + fh.read() + b"\0")
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
    h.update(os.path.realpath(folder).encode() + b"\0" + shown_path(folder).encode() + b"\0")
    for f in files:
        digest = _hash(f)
        if digest is None:
            return None
        h.update(f"{shown_path(f)}\0{digest}\0".encode())
    own = os.path.join(folder, "templates")
    if os.path.isdir(own):  # a game's own templates override the built-in ones
        for path in _tree_files(own):
            digest = _hash(path)
            if digest is None:
                return None
            h.update(f"T{os.path.relpath(path, own)}\0{digest}\0".encode())
    return h.hexdigest()


def _entry_root(folder: str) -> str:
    return os.path.join(_Store(folder).dir, "build")


def lookup(folder: str, key: str | None):
    """(game id, {file name: path of the kept text}, report) of the kept build, or None."""
    if key is None or not enabled():
        return None
    entry = os.path.join(_entry_root(folder), key)
    try:
        with open(os.path.join(entry, "build.json"), encoding="utf-8") as fh:
            meta = json.load(fh)
        if meta.get("format") != FORMAT or not isinstance(meta.get("game"), str):
            return None
        names = meta["files"]
        paths = {n: os.path.join(entry, "out", n) for n in names}
        if not all(isinstance(n, str) and os.path.isfile(p) for n, p in paths.items()):
            return None
        report = _report(tuple(d) for d in meta["diags"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return meta["game"], paths, report


def store(folder: str, key: str | None, gid: str, files: dict[str, str], report: Report) -> None:
    """Keep this build's outputs as the folder's latest: `files` maps each output's name to
    the path it was just written to, whose bytes are copied (by the kernel, much faster
    than writing the texts a second time)."""
    if key is None or not enabled():
        return
    root = _entry_root(folder)
    try:
        os.makedirs(root, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=root, prefix=".new-")
        try:
            os.makedirs(os.path.join(tmp, "out"))
            for name, path in files.items():
                shutil.copyfile(path, os.path.join(tmp, "out", name))
            meta = {"format": FORMAT, "game": gid, "files": list(files), "diags": [_plain(d) for d in report.items]}
            with open(os.path.join(tmp, "build.json"), "w", encoding="utf-8") as fh:
                fh.write(json.dumps(meta, ensure_ascii=False))
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


def copy_if_changed(src: str, path: str) -> None:
    """Put a kept output in place, leaving a file with the same bytes untouched (and never
    writing through a link found at `path`: see writing)."""
    with open(src, "rb") as fh:
        put(path, fh.read())


def compiled_templates():
    """Where Jinja keeps the templates it compiled, which saves compiling them (a tenth of a
    second or more) on every build. The built-in ones come compiled with the toolchain
    (`make setup` runs `made_templates`); others are kept in the cache folder, one folder
    per toolchain: the compiled code follows from Jinja and from the options the rulebook
    sets as well as from the template's text, and Jinja checks only the text. With the
    cache off, only those made with the toolchain are read; None if there are none."""
    made = _made_dir()
    made = made if os.path.isdir(made) else None
    toolchains = _compiled_class()(None, made) if made is not None else None
    if not enabled():
        return toolchains
    root = os.path.join(cache_dir(), "templates")
    own = os.path.join(root, build_version()[:16])
    try:
        if not os.path.isdir(own):
            os.makedirs(own, exist_ok=True)
            for name in os.listdir(root):  # those of an older toolchain
                if os.path.join(root, name) != own:
                    shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    except OSError:
        return toolchains
    return _compiled_class()(own, made)


MADE = "_templates"  # below compiler/: the built-in templates compiled by `make setup`


def _made_dir() -> str:
    return os.path.join(_HERE, MADE, build_version()[:16])


def made_templates() -> str:
    """Compile the built-in templates into the toolchain's own folder; gives the folder."""
    from .rulebook import environment
    made = _made_dir()
    os.makedirs(made, exist_ok=True)
    root = os.path.dirname(made)
    for name in os.listdir(root) if os.path.basename(root) == MADE else ():  # an older toolchain's
        if name != os.path.basename(made):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    env = environment(None, compiled=_compiled_class()(made, None))
    for name in env.list_templates():  # the rulebooks' and the card sheets', with what they include
        env.get_template(name)
    return made


@functools.lru_cache(maxsize=None)
def _compiled_class():
    import jinja2  # (only a build needs it)

    class Compiled(jinja2.FileSystemBytecodeCache):
        """Read from the toolchain's folder first, then from (and into) the cache folder."""

        def __init__(self, directory, made):
            self.directory, self.made, self.pattern = directory, made, "__jinja2_%s.cache"

        def load_bytecode(self, bucket):
            for folder in (self.made, self.directory):
                if folder is None:
                    continue
                try:
                    with open(os.path.join(folder, self.pattern % bucket.key), "rb") as fh:
                        bucket.load_bytecode(fh)  # (left empty if made from another text)
                except Exception:  # noqa: BLE001 - none, or cut short: Jinja's reading raises what it meets
                    bucket.reset()
                if bucket.code is not None:
                    return

        def dump_bytecode(self, bucket):
            if self.directory is None:
                return
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass  # a cache that cannot be written only costs time
    return Compiled


if __name__ == "__main__":
    print(f"compiled templates in {made_templates()}")
