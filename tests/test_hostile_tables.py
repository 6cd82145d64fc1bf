"""Hostile game.json files: the runtime plays only tables as a build wrote them."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys

import pytest

from rulepress.runtime.tables import Game, TablesError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT = os.path.join(ROOT, "build", "night-city", "game.json")


def _sealed(data: dict) -> dict:
    """`data` with the content hash a build would give it: a forger's game.json."""
    body = json.dumps({k: v for k, v in data.items() if k != "content_hash"}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    return dict(data, content_hash=hashlib.sha256(body.encode("utf-8")).hexdigest()[:16])


def _built() -> dict:
    with open(BUILT, encoding="utf-8") as fh:
        return json.load(fh)


def _first_effect(data: dict) -> list:
    for action in data["actions"].values() if isinstance(data["actions"], dict) else data["actions"]:
        if action.get("effect"):
            return action["effect"]
    raise AssertionError("no action with an effect")


def _write(tmp_path, data, text=None) -> str:
    path = tmp_path / "game.json"
    path.write_text(text if text is not None else json.dumps(data), encoding="utf-8")
    return str(path)


def _rulepress(*args):
    return subprocess.run([sys.executable, "-m", "rulepress", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_the_built_games_load():
    assert Game.load(BUILT).id == "night-city"


def test_a_game_json_changed_after_its_build_is_refused(tmp_path):
    data = _built()
    data["game"]["players"]["min"] = 1
    with pytest.raises(TablesError, match="changed since it was built"):
        Game.load(_write(tmp_path, data))


@pytest.mark.parametrize("forge", ["unknown operation", "missing field", "extra field"])
def test_an_effect_no_build_makes_is_refused_even_with_a_matching_hash(tmp_path, forge):
    data = _built()
    node = _first_effect(data)[0]
    if forge == "unknown operation":
        node[0] = "exec"
    elif forge == "missing field":
        del node[-1]
    else:
        node.append(None)
    with pytest.raises(TablesError, match="which no build makes"):
        Game.load(_write(tmp_path, _sealed(data)))


@pytest.mark.parametrize("text", ['{"format": 1, "x": NaN}', "[1, 2]", '"format"', '{"format": 99}'])
def test_tables_that_are_not_a_builds_are_refused(tmp_path, text):
    with pytest.raises(TablesError):
        Game.load(_write(tmp_path, None, text))


@pytest.mark.parametrize("command", [["simulate", "-n", "1"], ["secrets", "-n", "1"], ["play"]])
def test_each_command_says_so_in_one_line(tmp_path, command):
    data = _built()
    data["flow"] = {}
    path = _write(tmp_path, data)
    out = _rulepress(command[0], path, *command[1:])
    assert out.returncode in (1, 2) and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [f"rulepress: {path}: changed since it was built (its content hash "
                                               "does not match): rebuild with `rulepress build`"]


def test_a_fault_of_rulepress_itself_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    from rulepress import cli

    def broken(*_a, **_k):
        raise ZeroDivisionError("a fault inside")
    monkeypatch.setattr(cli, "main", broken)
    monkeypatch.delenv("RULEPRESS_DEBUG", raising=False)
    with pytest.raises(SystemExit) as ended:
        cli.run()
    err = capsys.readouterr().err
    assert ended.value.code == 1 and "Traceback" not in err
    assert err.strip() == "rulepress: internal error: ZeroDivisionError: a fault inside (RULEPRESS_DEBUG=1 shows where)"


# A text that ends a quoted Python literal and runs what follows, wherever it were written raw
PAYLOAD = "x'{b}\"); __import__('builtins').__dict__.__setitem__('rulepress_pwned', 1) #{loop}\n\\"


def test_a_forged_game_json_with_its_hash_recomputed_plays_its_texts_as_texts(tmp_path):
    """A hash anyone can recompute proves nothing: what runs is what the tables say, as values."""
    import builtins
    from rulepress.runtime.agents import make, play_out
    from rulepress.runtime.flow import new_game
    from rulepress.runtime.interpreter import Interp
    data = _built()
    effect = _first_effect(data)
    pos = f"{PAYLOAD}:1:1"
    effect.insert(0, ["let", pos, PAYLOAD, ["text", pos, [PAYLOAD, ["str", pos, PAYLOAD], ["num", pos, 10 ** 30]]]])
    effect.insert(1, ["do", pos, ["comp", pos, ["name", pos, PAYLOAD], PAYLOAD, ["list", pos, [["str", pos, PAYLOAD]]],
                                  ["op", pos, "!=", ["name", pos, PAYLOAD], ["str", pos, PAYLOAD + "{b}"]]]])
    game = Game.load(_write(tmp_path, _sealed(data)))
    st = new_game(game, 2, "forged")
    env = {}
    Interp(game, st).run(effect[:2], env)
    assert PAYLOAD in str(env[PAYLOAD]) and "rulepress_pwned" not in vars(builtins)
    with contextlib.suppress(RuntimeError):  # (a long game: a few hundred decisions tell enough)
        play_out(game, st, {p: make("random", p) for p in st["players"]}, max_decisions=300)
    assert "rulepress_pwned" not in vars(builtins)


@pytest.mark.parametrize("forge", [
    lambda d: d["game"].__setitem__("id", 7), lambda d: d["game"].pop("players"),
    lambda d: d.__setitem__("protos", []), lambda d: d["instances"].append(["x", "no such proto", "supply", True]),
    lambda d: d["instances"].append("x"), lambda d: next(iter(d["procedures"].values()))["params"].append(1),
    lambda d: d.__setitem__("flow", [1]), lambda d: next(iter(d["decks"].values())).pop("discard"),
    lambda d: next(iter(d["zones"].values())).__setitem__("of", None), lambda d: d.pop("triggers"),
    lambda d: d["game"].__setitem__("mark_facts", {"m": {"tells": "colour"}}),
    lambda d: d["game"].__setitem__("mark_facts", {"m": {"rules_out": {"colour": ["red"]}}}),
], ids=["game id", "players", "protos", "instance of nothing", "instance", "param", "flow", "deck", "zone", "triggers",
        "mark facts", "mark fact value"])
def test_sections_of_a_shape_no_build_writes_are_refused_even_with_a_matching_hash(tmp_path, forge):
    data = _built()
    forge(data)
    with pytest.raises(TablesError, match="of a shape no build writes"):
        Game.load(_write(tmp_path, _sealed(data)))
