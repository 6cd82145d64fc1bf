"""Builds are reproducible, and the committed build/ matches the content."""
import os

import pytest

from compiler.pipeline import build, compile_game
from tests.conftest import ROOT

GAMES = sorted(d for d in os.listdir(os.path.join(ROOT, "content"))
               if os.path.isfile(os.path.join(ROOT, "content", d, "game.yaml")))


def test_the_same_content_gives_the_same_build_byte_for_byte(tmp_path):
    a, _ = build([os.path.join(ROOT, "docs/tutorial/race")], str(tmp_path / "a"))
    b, _ = build([os.path.join(ROOT, "docs/tutorial/race")], str(tmp_path / "b"))
    assert open(a[0], "rb").read() == open(b[0], "rb").read()


@pytest.mark.parametrize("name", GAMES)
def test_committed_build_is_fresh(name):
    cwd = os.getcwd()
    os.chdir(ROOT)  # positions in the tables are relative to the repository
    try:
        text, gid, report = compile_game(os.path.join("content", name))
    finally:
        os.chdir(cwd)
    if text is None:
        pytest.fail(f"content/{name} does not compile:\n" + "\n".join(d.text() for d in report.errors[:20]))
    path = os.path.join(ROOT, "build", gid, "game.json")
    assert os.path.exists(path), f"build/{gid}/game.json is missing: run `rulepress build`"
    with open(path, encoding="utf-8") as fh:
        assert fh.read() == text, f"build/{gid}/game.json is stale: run `rulepress build`"


@pytest.mark.parametrize("name", ["android", "study-in-emerald", "arkham-horror", "night-city"])
def test_a_model_built_without_the_reporting_checks_gives_the_same_tables(name):
    """A build whose findings are known leaves out the checks that only report."""
    from compiler.codegen import tables, to_json
    from compiler.content import load_game
    from compiler.diagnostics import Report
    from compiler.model import build_model
    folder = os.path.join(ROOT, "content", name)
    checked = build_model(load_game(folder, Report()), Report())
    known = build_model(load_game(folder, Report(), check=False), Report(), check=False)
    assert to_json(tables(known)) == to_json(tables(checked))


def test_game_json_is_the_sorted_dump_of_the_tables_with_their_hash():
    import hashlib
    import json

    from compiler.codegen import _dump, to_json
    t = {"protos": {"b": {"effect": [["gain", "a.yaml:1:2", ["num", "a.yaml:1:7", 2.5], "gold", None]], "name": {"ru": "Ёж\n«»"}},
                    "a": {"attrs": {"z": True, "y": [1, -0.0, 1e100, "\u0001"]}}},
         "format": 1, "empty": {}, "list": [{"b": 1, "a": {}}], "content_hash": "an old one"}
    body = json.dumps(t, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
    assert to_json(t) == _dump(dict(t, content_hash=digest), 0) + "\n"
