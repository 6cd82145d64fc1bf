"""Hostile game logs for `rulepress replay`: every one is refused with exit 1 and one line
naming what is wrong, never a traceback; a log is never taken for a match it did not prove,
and its game is never loaded from a path the log writes."""
from __future__ import annotations

import copy
import json
import os
import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rulepress.cli import run
from rulepress.runtime.agents import RandomAgent, play_out
from rulepress.runtime.flow import new_game
from rulepress.runtime.replay import MAX_LOG_BYTES, ReplayError, check_log, make_log, read_log

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")
RACE = os.path.join(ROOT, "docs", "tutorial", "race")


@pytest.fixture(scope="module")
def good_log(duel):
    s = new_game(duel, 2, 7)
    play_out(duel, s, {p: RandomAgent(f"7{p}") for p in s["players"]})
    return make_log(duel, s, 2, 7)


def replay(capsys, monkeypatch, path, *args):
    monkeypatch.setattr(sys, "argv", ["rulepress", "replay", str(path), *args])
    with pytest.raises(SystemExit) as ended:
        run()
    out = capsys.readouterr()
    return ended.value.code, out.out, out.err


def refused(capsys, monkeypatch, path, *args, code=1) -> str:
    got, out, err = replay(capsys, monkeypatch, path, *(args or ("--game", DUEL)))
    lines = [x for x in err.splitlines() if x.strip()]
    assert got == code, (got, out, err)
    assert len(lines) == 1 and lines[0].startswith("rulepress: "), err
    assert "Traceback" not in out + err and "matches" not in out + err
    return lines[0]


def write(tmp_path, log, name="log.json") -> str:
    path = tmp_path / name
    path.write_text(log if isinstance(log, str) else json.dumps(log))
    return str(path)


def test_a_good_log_replays_and_matches(capsys, monkeypatch, tmp_path, good_log):
    code, out, err = replay(capsys, monkeypatch, write(tmp_path, good_log), "--game", DUEL)
    assert code in (0, None), err
    assert re.fullmatch(r"replayed \d+ choices of duel: final state [0-9a-f]{16} matches\n", out)


def _with(log, **changes):
    log = copy.deepcopy(log)
    for k, v in changes.items():
        if v is _GONE:
            del log[k]
        else:
            log[k] = v
    return log


_GONE = object()

SHAPES = [
    # (what is changed in a good log, what the line says)
    ({"choices": "p1 arm"}, r"choices: .* is not of type 'array'"),
    ({"choices": [[1, 2]]}, r"choices\[0\]\[0\]: 1 is not of type 'string'"),
    ({"choices": [["p1", "arm", "extra"]]}, r"choices\[0\]: .* is too long"),
    ({"choices": [["p1"]]}, r"choices\[0\]: .* is too short"),
    ({"choices": [["player one", "arm"]]}, r"choices\[0\]\[0\]: .* does not match"),
    ({"choices": [["p1", ""]]}, r"choices\[0\]\[1\]"),
    ({"choices": [{"seat": "p1", "choice": "arm"}]}, r"choices\[0\]: .* is not of type 'array'"),
    ({"players": "two"}, r"players: 'two' is not of type 'integer'"),
    ({"players": 2.0}, r"players: 2.0 is not of type 'integer'"),
    ({"players": True}, r"players: True is not of type 'integer'"),
    ({"players": 10**6}, r"players: .* is greater than the maximum"),
    ({"seed": [1, 2]}, r"seed"),
    ({"format": 2}, r"format: 1 was expected"),
    ({"game": _GONE}, r"the log: 'game' is a required property"),
    ({"choices": _GONE}, r"'choices' is a required property"),
    ({"game": "../../etc/passwd"}, r"game: .* does not match"),
    ({"game": "/tmp/evil/game.json"}, r"game: .* does not match"),
    ({"game": DUEL}, r"game: .* does not match"),
    ({"options": {"x": {"y": 1}}}, r"options.x"),
    ({"first": "p1; rm -rf /"}, r"first"),
    ({"final_hash": "not-a-hash"}, r"final_hash: .* is not valid"),
    ({"extra": 1}, r"Additional properties are not allowed"),
    # a line break ends a text where a pattern's `$` would take it for the end
    ({"game": "duel\n"}, r"game: 'duel\\n' does not match"),
    ({"first": "p1\n"}, r"first: .* is not valid"),
    ({"choices": [["p1\n", "arm"]]}, r"choices\[0\]\[0\]: .* does not match"),
    ({"content_hash": "abc\n"}, r"content_hash: .* does not match"),
]


@pytest.mark.parametrize("change,says", SHAPES, ids=[",".join(c) + f"-{i}" for i, (c, _s) in enumerate(SHAPES)])
def test_a_log_of_the_wrong_shape_is_one_line_naming_the_place(capsys, monkeypatch, tmp_path, good_log, change, says):
    line = refused(capsys, monkeypatch, write(tmp_path, _with(good_log, **change)))
    assert "not a game log" in line and re.search(says, line), line


@pytest.mark.parametrize("text,says", [
    ("", r"not JSON"),
    ("{\"format\": 1,", r"log\.json:1:\d+: not a game log: not JSON"),
    ("\x00\x01garbage", r"not JSON"),
    ("[1, 2, 3]", r"the log: .* is not of type 'object'"),
    ("null", r"not of type 'object'"),
    ('{"players": NaN}', r"NaN is not a number a log holds"),
    ('{"seed": Infinity}', r"Infinity"),
    ('{"seed": 1' + "0" * 5000 + "}", r"not a game log"),
    ("[" * 100_000 + "]" * 100_000, r"not a game log"),
])
def test_a_log_that_is_not_json_or_not_an_object(capsys, monkeypatch, tmp_path, text, says):
    assert re.search(says, refused(capsys, monkeypatch, write(tmp_path, text)))


def test_a_log_not_in_utf8(capsys, monkeypatch, tmp_path):
    path = tmp_path / "log.json"
    path.write_bytes(b'{"game": "\xff"}')
    assert "byte 10 is not UTF-8" in refused(capsys, monkeypatch, path)


def test_a_huge_log_is_refused_without_reading_it_all(capsys, monkeypatch, tmp_path):
    path = tmp_path / "log.json"
    with open(path, "wb") as fh:
        fh.truncate(MAX_LOG_BYTES * 4)  # sparse: no disk used
    assert "larger than 32 MiB" in refused(capsys, monkeypatch, path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_pipe_is_not_read_forever(capsys, monkeypatch, tmp_path):
    path = tmp_path / "log.json"
    os.mkfifo(path)
    assert "not a file" in refused(capsys, monkeypatch, path)


def test_a_link_to_a_device_is_not_read(capsys, monkeypatch, tmp_path):
    path = tmp_path / "log.json"
    os.symlink("/dev/zero", path)
    assert "not a file" in refused(capsys, monkeypatch, path)


def test_a_log_without_a_final_hash_says_there_is_nothing_to_compare(capsys, monkeypatch, tmp_path, good_log):
    for change in (_GONE, None):
        line = refused(capsys, monkeypatch, write(tmp_path, _with(good_log, final_hash=change)))
        assert "the log has no final hash: nothing to compare" in line


def test_a_tampered_final_hash(capsys, monkeypatch, tmp_path, good_log):
    line = refused(capsys, monkeypatch, write(tmp_path, _with(good_log, final_hash="0123456789abcdef")))
    assert re.search(r"replay ended in state [0-9a-f]{16}, but the log recorded 0123456789abcdef", line)


def test_a_tampered_choice(capsys, monkeypatch, tmp_path, good_log):
    log = copy.deepcopy(good_log)
    log["choices"][0][1] = "win-the-game"
    line = refused(capsys, monkeypatch, write(tmp_path, log))
    assert "choice 1 (p1: win-the-game) is not legal on replay" in line or "is not legal on replay" in line


@pytest.mark.parametrize("change,says", [
    ({"players": 9}, r"cannot start as the log says: duel is for 2 to 3 players, not 9"),
    ({"first": "p9"}, r"cannot start as the log says: no seat `p9`"),
    ({"options": {"nope": 1}}, r"duel has no option `nope`"),
    ({"content_hash": "0000000000000000"}, r"recorded with another version of duel"),
    ({"choices": [["p1", "arm"]] * 5000}, r"choice \d+ .* is not legal on replay"),
])
def test_a_log_that_does_not_fit_its_game(capsys, monkeypatch, tmp_path, good_log, change, says):
    assert re.search(says, refused(capsys, monkeypatch, write(tmp_path, _with(good_log, **change))))


def test_a_log_of_another_game(capsys, monkeypatch, tmp_path, good_log):
    line = refused(capsys, monkeypatch, write(tmp_path, _with(good_log, game="race")))
    assert "this log is of `race`, not `duel`" in line
    line = refused(capsys, monkeypatch, write(tmp_path, good_log), "--game", RACE, "--game", os.path.join(ROOT, "content", "android"))
    assert "this log is of `duel`, and none of the games given is" in line


def test_a_game_option_that_names_no_game_is_a_usage_error(capsys, monkeypatch, tmp_path, good_log):
    line = refused(capsys, monkeypatch, write(tmp_path, good_log), "--game", str(tmp_path / "nowhere"), code=2)
    assert "no game" in line


def test_the_game_is_found_by_id_in_content_or_build_never_at_a_path(capsys, monkeypatch, tmp_path, good_log):
    monkeypatch.chdir(tmp_path)  # no content/ and no build/ here
    line = refused(capsys, monkeypatch, write(tmp_path, good_log), "--")
    assert "this log is of `duel`, which is neither this folder's game nor in ./duel, content/ or build/: name it with --game" in line
    (tmp_path / "build" / "duel").mkdir(parents=True)
    from rulepress.compiler.pipeline import compile_game
    text, _gid, _rep = compile_game(DUEL)
    (tmp_path / "build" / "duel" / "game.json").write_text(text)
    code, out, err = replay(capsys, monkeypatch, write(tmp_path, good_log))
    assert code in (0, None) and out.endswith("matches\n"), err


# ---- structured junk ---------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
KEYS = ["format", "game", "version", "content_hash", "players", "seed", "options", "first", "choices", "final_hash"]
PAIR = st.lists(st.sampled_from(["p1", "p2", "p3", "p0", "pass", "arm", "dig", "duel", ""]) | JSON, min_size=0, max_size=3)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.dictionaries(st.sampled_from(KEYS), JSON | st.lists(PAIR, max_size=6), max_size=3),
       drop=st.lists(st.sampled_from(KEYS), max_size=2))
def test_junk_logs_are_refused_in_one_line_or_replayed(duel, good_log, tmp_path_factory, changes, drop):
    """Any JSON put in a good log's fields: a ReplayError of one line, or an honest replay."""
    log = copy.deepcopy(good_log)
    log.update(changes)
    for k in drop:
        log.pop(k, None)
    path = tmp_path_factory.mktemp("junk") / "log.json"
    path.write_text(json.dumps(log))
    try:
        msg = check_log(duel, read_log(str(path)))
    except ReplayError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 1000
    else:
        assert msg.endswith("matches") and log["final_hash"] == good_log["final_hash"]


@settings(max_examples=100, deadline=None)
@given(junk=JSON)
def test_any_json_at_all_is_a_one_line_refusal(duel, tmp_path_factory, junk):
    path = tmp_path_factory.mktemp("junk") / "log.json"
    path.write_text(json.dumps(junk))
    with pytest.raises(ReplayError) as exc:
        check_log(duel, read_log(str(path)))
    assert "\n" not in str(exc.value)
