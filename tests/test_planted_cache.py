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
