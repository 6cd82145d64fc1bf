"""Files planted in the cache folders are never run: nothing rulepress reads back from a cache
is code (no pickle, no compiled templates, no generated modules), with the cache on or off."""
from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import subprocess
import sys
from importlib import resources

import lark
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")


class _Touch:
    """Unpickling this creates the file `path`: proof that a planted pickle ran."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _plant(folder, name, marker):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as fh:
        fh.write(b"0" * 64 + b"\n" + pickle.dumps(_Touch(marker)))


@pytest.mark.parametrize("no_cache", [True, False], ids=["no-cache", "cache"])
def test_a_planted_pickle_is_never_loaded(tmp_path, no_cache):
    game = tmp_path / "race"
    shutil.copytree(RACE, game)
    marker = str(tmp_path / "ran")
    home, cache = tmp_path / "home", tmp_path / "cache"
    grammar = resources.files("rulepress.compiler").joinpath("dsl.lark").read_text(encoding="utf-8")
    digest = hashlib.sha256((grammar + lark.__version__).encode()).hexdigest()[:16]
    # where the parser's tables were once kept (read by Lark with pickle, whatever the flags)
    for lexer in ("contextual", "basic"):
        _plant(home / ".cache" / "rulepress", f"dsl-grammar-{digest}-{lexer}.cache", marker)
    for name in ("index.json", "statements.json", "loaded.bin", "summaries.jsonl", "templates.cache"):
        _plant(cache, name, marker)
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "RULEPRESS_CACHE_DIR": str(cache)}
    rulepress = os.path.join(os.path.dirname(sys.executable), "rulepress")
    flags = ["--no-cache"] if no_cache else []
    for cmd in (["validate", str(game)], ["build", str(game), "-o", str(tmp_path / "out")]):
        got = subprocess.run([rulepress, *cmd, *flags], env=env, capture_output=True, text=True, timeout=120)
        assert got.returncode == 0, got.stderr
    assert not os.path.exists(marker)


# ---- seals: a key of the user's own ----------------------------------------------------------

import json  # noqa: E402
import stat  # noqa: E402

from rulepress.compiler import buildcache, cache as vcache  # noqa: E402
from rulepress.compiler.pipeline import build  # noqa: E402


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEPRESS_NO_CACHE", raising=False)
    vcache._key_in.cache_clear()
    yield tmp_path / "cache"
    vcache._key_in.cache_clear()


def _race(tmp_path):
    game = tmp_path / "race"
    shutil.copytree(RACE, game, ignore=shutil.ignore_patterns("scenarios"))
    return str(game)


def _poison(game, seal):
    """The folder's kept build with a game.json of a forger's, its entry sealed by `seal`."""
    (entry,) = os.listdir(buildcache._entry_root(game))
    entry = os.path.join(buildcache._entry_root(game), entry)
    with open(os.path.join(entry, "game.json"), encoding="utf-8") as fh:
        forged = fh.read().replace('"min": 2', '"min": 1')
    with open(os.path.join(entry, "game.json"), "w", encoding="utf-8") as fh:
        fh.write(forged)
    with open(os.path.join(entry, "build.json"), encoding="utf-8") as fh:
        head, _, body = fh.read().partition("\n")
    meta = json.loads(body)
    meta["files"]["game.json"] = buildcache._digest(forged.encode("utf-8"))
    body = json.dumps(meta)
    with open(os.path.join(entry, "build.json"), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(seal(json.loads(head)["version"], body)) + "\n" + body)


@pytest.mark.parametrize("seal", [
    lambda v, body: {"version": v, "digest": hashlib.sha256(body.encode()).hexdigest()},  # the seal as it was
    lambda v, body: {"version": v, "mac": vcache._mac(b"k" * vcache.KEY_BYTES, v, body)},  # a key not the user's
    lambda v, body: {"version": v, "mac": ""},
], ids=["digest", "other key", "empty"])
def test_a_kept_build_a_forger_sealed_is_rebuilt_never_used(tmp_path, own_cache, seal):
    game = _race(tmp_path)
    first, _ = build([game], str(tmp_path / "a"))
    want = {os.path.basename(p): open(p, "rb").read() for p in first}
    _poison(game, seal)
    assert buildcache.lookup(game, buildcache.inputs_key(game)) is None
    again, _ = build([game], str(tmp_path / "b"))
    assert {os.path.basename(p): open(p, "rb").read() for p in again} == want


def test_the_key_is_made_for_the_user_alone(tmp_path, own_cache):
    build([_race(tmp_path)], str(tmp_path / "a"))
    info = os.lstat(own_cache / vcache.KEY_NAME)
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600 and info.st_size == vcache.KEY_BYTES


@pytest.mark.parametrize("spoil", ["readable by others", "a link", "short"])
def test_a_key_that_is_not_the_users_alone_seals_and_trusts_nothing(tmp_path, own_cache, spoil):
    game = _race(tmp_path)
    build([game], str(tmp_path / "a"))
    key = own_cache / vcache.KEY_NAME
    if spoil == "readable by others":
        os.chmod(key, 0o644)
    elif spoil == "a link":
        os.rename(key, tmp_path / "elsewhere.key")
        os.symlink(tmp_path / "elsewhere.key", key)
    else:
        key.write_bytes(b"0" * 8)
    vcache._key_in.cache_clear()
    assert vcache._key() is None
    assert buildcache.lookup(game, buildcache.inputs_key(game)) is None
    assert vcache._sealed("{}") is None and vcache._unsealed(vcache._compact({"version": "v", "mac": ""}) + "\n{}") is None
    written, report = build([game], str(tmp_path / "b"))  # built in full, as with no cache
    assert written and not report.errors
