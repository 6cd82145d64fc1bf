"""A build's files: game.json reads back as its tables, and the rulebooks are those of game.json."""
from __future__ import annotations

import json
import os
import sys

import pytest

from rulepress.compiler import codegen, rulebook
from rulepress.compiler.pipeline import build, compile_tables

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from gen_synthetic import generate  # noqa: E402

GAMES = ["docs/tutorial/race", "tests/games/duel"] + sorted(
    f"content/{d}" for d in os.listdir(os.path.join(ROOT, "content"))
    if os.path.isfile(os.path.join(ROOT, "content", d, "game.yaml")))


@pytest.fixture
def game(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
    return generate(str(tmp_path / "synthetic"), cards=300, files=3, seed=3)


def files(folder, out):
    written, report = build([folder], out)
    assert not report.errors
    return {os.path.basename(p): open(p, "rb").read() for p in written}


@pytest.mark.parametrize("folder", GAMES)
def test_game_json_put_together_from_shares_reads_back_as_the_tables_it_holds(folder):
    t, _gid, _report = compile_tables(os.path.join(ROOT, folder))
    assert t is not None, f"{folder} does not build"
    layout, values = codegen.pieces(t)
    half = len(values) // 3
    encoded = codegen.encode(values[:half]) + codegen.encode(values[half:])
    body = codegen.body_of(layout, encoded)
    text = codegen.text_of(layout, encoded, codegen.content_hash(body))
    assert text == codegen.to_json(t)
    read, want = codegen.read_body(body, codegen.content_hash(body)), json.loads(text)
    assert read == want
    assert json.dumps(read, ensure_ascii=False) == json.dumps(want, ensure_ascii=False)  # keys in the same order
    assert rulebook.marks_in(body, read) == rulebook.read(text)[1]


def test_rulebooks_of_game_json_are_those_of_the_build(game, tmp_path):
    built = files(game, str(tmp_path / "out"))
    text = built["game.json"].decode("utf-8")
    assert {k: v.encode("utf-8") for k, v in rulebook.rulebooks(text, game).items()} == {
        k: v for k, v in built.items() if k != "game.json"}


def _nodes(v):
    if isinstance(v, dict):
        for x in v.values():
            yield from _nodes(x)
    elif isinstance(v, list):
        if len(v) > 1 and isinstance(v[0], str) and isinstance(v[1], str):
            yield v
        for x in v:
            yield from _nodes(x)


@pytest.mark.parametrize("folder", GAMES + ["synthetic"])
def test_statements_parsed_from_one_text_are_alike_but_for_positions(folder, game):
    """The rulebook puts a statement into words once per text it was parsed from (see said):
    every node of game.json found by a statement's position and op is that statement's like."""
    from rulepress.compiler.pipeline import _compiled
    from rulepress.compiler.said import shape
    t, _gid, _report, texts = _compiled(game if folder == "synthetic" else os.path.join(ROOT, folder))
    assert t is not None, f"{folder} does not build"
    alike = {}
    for node in _nodes(json.loads(codegen.to_json(t))):
        found = texts.get(node[1])
        if found is not None and found[0] == node[0]:
            alike.setdefault(found, set()).add(shape(node))
    assert alike and all(len(shapes) == 1 for shapes in alike.values())
    if folder == "synthetic":
        assert len(alike) * 10 < len(texts)  # a few texts make most statements


@pytest.mark.parametrize("folder", GAMES)
def test_rulebooks_are_the_same_with_the_statements_texts_or_without(folder):
    from rulepress.compiler.pipeline import _compiled
    t, _gid, _report, texts = _compiled(os.path.join(ROOT, folder))
    assert t is not None, f"{folder} does not build"
    tables, marks = rulebook.read(codegen.to_json(t))
    env = rulebook.environment(os.path.join(ROOT, folder))
    assert texts
    assert rulebook.books(tables, marks, env, ["en", "ru"], texts) == rulebook.books(tables, marks, env, ["en", "ru"])
