import functools
import json
import os
import shutil
import sys
import tempfile

import pytest
from hypothesis import settings

# The property tests try the same inputs on every run, so a test run's verdict is the code's
# alone (HYPOTHESIS_PROFILE=explore looks for new failing inputs instead).
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# Every cache the tests make goes to a folder of their own, never the user's: set before
# anything is compiled (content_games compiles while tests are collected).
CACHE_DIR = tempfile.mkdtemp(prefix="rulepress-test-cache-")
os.environ["RULEPRESS_CACHE_DIR"] = CACHE_DIR
os.environ.pop("RULEPRESS_NO_CACHE", None)

from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime.tables import Game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.cache
def compiled(folder: str) -> str:
    """A game's tables as JSON text, compiled once a session (the repository's games do not
    change while the tests run); each caller gets tables of its own to load."""
    text, _gid, report = compile_game(os.path.join(ROOT, folder))
    assert text is not None, "\n".join(d.text() for d in report.sorted())
    return text


def game_from(folder: str) -> Game:
    """A game's tables: the repository's compiled once a session; a folder a test writes
    (under its tmp_path, perhaps rewritten between two calls) compiled each time."""
    path = os.path.abspath(os.path.join(ROOT, folder))
    if not path.startswith(os.path.join(ROOT, "")):
        text, _gid, report = compile_game(path)
        assert text is not None, "\n".join(d.text() for d in report.sorted())
        return Game(json.loads(text))
    return Game(json.loads(compiled(folder)))


@pytest.fixture(scope="session")
def duel():
    return game_from("tests/games/duel")


@pytest.fixture(scope="session")
def race():
    return game_from("docs/tutorial/race")


@functools.cache
def _content_games() -> tuple:
    base = os.path.join(ROOT, "content")
    out = []
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        folder = os.path.join(base, name)
        if os.path.isfile(os.path.join(folder, "game.yaml")):
            try:
                text = compiled(f"content/{name}")
            except AssertionError as exc:  # a content game that does not compile is a failure, never a skip
                raise pytest.UsageError(f"content/{name} does not compile:\n{exc}") from None
            if json.loads(text)["flow"].get("phases"):
                out.append(name)
    return tuple(out)


def content_games() -> list:
    """The content games that can be played, each compiled once a session (collection asks
    for them in every module that plays them all)."""
    return list(_content_games())


@pytest.fixture(scope="module")
def tables(duel):
    """The duel's tables with one more procedure, of two parameters and no effect."""
    t = dict(duel.data)
    t["procedures"] = dict(t["procedures"], helper={"params": ["p", "n"], "effect": [],
                                                      "text": {"en": "Helper: does a thing", "ru": "Помощник: делает дело"}})
    return t


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(CACHE_DIR, ignore_errors=True)


def rulepress(capsys, monkeypatch, *args):
    """The console script's entry point in this process: (exit code, stdout, stderr)."""
    from rulepress.cli import run
    monkeypatch.setattr(sys, "argv", ["rulepress", *map(str, args)])
    with pytest.raises(SystemExit) as ended:
        run()
    out = capsys.readouterr()
    return ended.value.code, out.out, out.err


def one_line(err: str) -> str:
    """A refusal: exactly one line, `rulepress: ...`, no traceback."""
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("rulepress: "), err
    assert "Traceback" not in err
    return lines[0]
