"""Builds are reproducible, and the committed build/ matches the content."""
import os

import pytest

from rulepress.compiler.pipeline import build, compile_game
from tests.conftest import ROOT

GAMES = sorted(d for d in os.listdir(os.path.join(ROOT, "content"))
               if os.path.isfile(os.path.join(ROOT, "content", d, "game.yaml")))


def test_the_same_content_gives_the_same_build_byte_for_byte(tmp_path):
    a, _ = build([os.path.join(ROOT, "docs/tutorial/race")], str(tmp_path / "a"))
    b, _ = build([os.path.join(ROOT, "docs/tutorial/race")], str(tmp_path / "b"))
    assert open(a[0], "rb").read() == open(b[0], "rb").read()


def test_where_a_game_is_built_from_changes_nothing_in_game_json(tmp_path, monkeypatch):
    """Positions name files inside the game folder: the same content gives the same
    game.json and content hash from any working folder and any path to the game."""
    import shutil
    race = os.path.join(ROOT, "docs/tutorial/race")
    near, far = tmp_path / "near" / "race", tmp_path / "far" / "away" / "race"
    shutil.copytree(race, near)
    shutil.copytree(race, far)
    monkeypatch.chdir(tmp_path / "near")
    texts = [compile_game("race")[0], compile_game(str(far))[0], compile_game(os.path.join("..", "far", "away", "race"))[0]]
    monkeypatch.chdir(ROOT)
    texts.append(compile_game("docs/tutorial/race")[0])
    assert texts[0] is not None and '"game.yaml:' in texts[0]
    assert texts.count(texts[0]) == len(texts)


def test_an_effect_error_is_shown_at_the_path_the_game_was_named_by(tmp_path, monkeypatch):
    import shutil
    game = tmp_path / "games" / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game)
    manifest = game / "game.yaml"
    text = manifest.read_text(encoding="utf-8")
    assert "gain c.speed position" in text
    manifest.write_text(text.replace("gain c.speed position", "gain c.speed positio", 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _text, _gid, report = compile_game(os.path.join("games", "race"))
    found = [d.text() for d in report.errors if d.code == "D011"]
    assert found and found[0].startswith(os.path.join("games", "race", "game.yaml") + ":50:"), found


@pytest.mark.parametrize("name", GAMES)
def test_committed_build_is_fresh(name):
    text, gid, report = compile_game(os.path.join(ROOT, "content", name))
    if text is None:
        pytest.fail(f"content/{name} does not compile:\n" + "\n".join(d.text() for d in report.errors[:20]))
    path = os.path.join(ROOT, "build", gid, "game.json")
    assert os.path.exists(path), f"build/{gid}/game.json is missing: run `rulepress build`"
    with open(path, encoding="utf-8") as fh:
        assert fh.read() == text, f"build/{gid}/game.json is stale: run `rulepress build`"


@pytest.mark.parametrize("name", ["android", "study-in-emerald", "arkham-horror", "night-city"])
def test_a_model_built_without_the_reporting_checks_gives_the_same_tables(name):
    """A build whose findings are known leaves out the checks that only report."""
    from rulepress.compiler.codegen import tables, to_json
    from rulepress.compiler.content import load_game
    from rulepress.compiler.diagnostics import Report
    from rulepress.compiler.model import build_model
    folder = os.path.join(ROOT, "content", name)
    checked = build_model(load_game(folder, Report()), Report())
    known = build_model(load_game(folder, Report(), check=False), Report(), check=False)
    assert to_json(tables(known)) == to_json(tables(checked))


def test_game_json_is_the_sorted_dump_of_the_tables_with_their_hash():
    import hashlib
    import json

    from rulepress.compiler.codegen import _dump, to_json
    t = {"protos": {"b": {"effect": [["gain", "a.yaml:1:2", ["num", "a.yaml:1:7", 2.5], "gold", None]], "name": {"ru": "Ёж\n«»"}},
                    "a": {"attrs": {"z": True, "y": [1, -0.0, 1e100, "\u0001"]}}},
         "format": 1, "empty": {}, "list": [{"b": 1, "a": {}}], "content_hash": "an old one"}
    body = json.dumps(t, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
    assert to_json(t) == _dump(dict(t, content_hash=digest), 0) + "\n"
