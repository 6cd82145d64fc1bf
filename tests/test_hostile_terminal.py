"""`rulepress play` and `rulepress test` with hostile content: what reaches the terminal.

Content's text (an action's, a card's, a counter's, a place's name, a prompt, a log line)
may hold control and bidi characters: an escape sequence that sets the terminal's title,
clears it or recolours it, a NUL, a right-to-left override, a line separator. Each is
printed as an escape (compiler/diagnostics.printable, as `validate` does for diagnostics) and the
name still reads. A fault of the content while playing ends in one line that says where
and what, never "internal error", never a traceback.
"""
from __future__ import annotations

import io
import os
import shutil

import pytest
from rich.console import Console

from rulepress.terminal import play
from rulepress.compiler.diagnostics import printable
from tests.conftest import ROOT, game_from, rulepress

HOSTILE = {
    "title": "\x1b]0;pwned\x07",
    "clear": "\x1b[2J\x1b[H",
    "colour": "\x1b[31mred",
    "8-bit CSI": "\x9b31m",
    "bell": "\x07",
    "NUL": "\x00",
    "backspace": "\x08\x08\x08",
    "carriage return": "\rPlayer 2 wins",
    "delete": "\x7f",
    "right-to-left override": "\u202eevil",
    "right-to-left isolate": "\u2067evil\u2069",
    "line separator": "\u2028fake line",
    "paragraph separator": "\u2029fake line",
    "line feed": "\nrulepress: fake line",
}


def race_with(tmp_path, edit) -> str:
    folder = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs", "tutorial", "race"), folder, ignore=shutil.ignore_patterns("scenarios"))
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(edit(text), encoding="utf-8")
    return str(folder)


def _yaml(s: str) -> str:
    """`s` as a double-quoted YAML text (every character written as an escape)."""
    return '"' + "".join(ch if ch.isalnum() or ch == " " else f"\\U{ord(ch):08x}" for ch in s) + '"'


def _named(bad):
    """The tutorial game with `bad` in the names the terminal prints, and a log line that
    names the boost played."""
    def edit(text):
        for plain in ("Roll", "Position", "Boosts", "Nitro", "Oil", "Hand"):
            text = text.replace(f"{{en: {plain},", f"{{en: {_yaml(plain + bad)},")
        return text.replace("        discard c", '        log "played {c}"\n        discard c')
    return edit


def _play(game, bots, answers, seed=1):
    out = io.StringIO()
    feed = iter(answers)
    play(game, 2, seed, bots, "en", None, input_fn=lambda _p: next(feed, "q"),
         con=Console(file=out, width=200, color_system=None))
    return out.getvalue()


def _plain(text) -> bool:
    return all(ch.isprintable() or ch == "\n" for ch in text)


@pytest.mark.parametrize("kind", HOSTILE)
def test_content_text_reaches_the_terminal_as_escapes_and_still_reads(tmp_path, kind):
    bad = HOSTILE[kind]
    game = game_from(race_with(tmp_path, _named(bad)))
    # draw a boost, play it (the log line names it), with a bot beside
    text = _play(game, "p2", ["2", "2", "1", "1", "1", "q"])
    assert _plain(text), repr(text)
    shown = printable(bad)
    for name in ("Roll", "Position", "Boosts", "Hand"):
        assert name + shown in text, (name, text)
    assert "played Nitro" + shown in text or "played Oil" + shown in text, text


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_seed_given_on_the_command_line_is_printed_as_escapes(kind):
    game = game_from("docs/tutorial/race")
    text = _play(game, "p1,p2", [], seed="s" + HOSTILE[kind])
    assert _plain(text) and f"seed s{printable(HOSTILE[kind])} " in text


@pytest.mark.parametrize("kind", ["title", "right-to-left override", "line separator", "line feed"])
def test_a_one_line_error_of_the_command_is_one_line_of_escapes(capsys, monkeypatch, tmp_path, kind):
    code, out, err = rulepress(capsys, monkeypatch, "play", str(tmp_path / f"no{HOSTILE[kind]}game"))
    assert code == 2 and err.count("\n") == 1 and _plain(err), repr(err)
    assert printable(HOSTILE[kind]) in err


FAULTS = {
    "division by zero": ("gain sum(dice) position", "gain sum(dice) / 0 position", "game.yaml:44:", "division by zero"),
    "a counter of nothing": ("gain sum(dice) position", 'gain sum(dice) position to "nobody"', "game.yaml:44:7", "`nobody` has no counters"),
    "a draw from nowhere": ("draw 1 from boosts", 'draw 1 from "nowhere"', "game.yaml:", "is not a place"),
}


@pytest.mark.parametrize("kind", FAULTS)
def test_a_fault_of_the_content_in_play_is_one_line_with_its_position(capsys, monkeypatch, tmp_path, kind):
    old, new, where, what = FAULTS[kind]
    folder = race_with(tmp_path, lambda t: t.replace(old, new))
    code, out, err = rulepress(capsys, monkeypatch, "play", folder, "--seed", "1", "--bots", "p1,p2")
    assert code == 1, (out, err)
    assert err.startswith("rulepress: the game cannot go on: ") and where in err and what in err, err
    assert err.count("\n") == 1 and "internal error" not in err + out and "Traceback" not in err + out
    assert "Fault" not in err and " ?" not in err


def test_a_fault_while_the_game_is_set_up_is_one_line_too(capsys, monkeypatch, tmp_path):
    folder = race_with(tmp_path, lambda t: t.replace("\nflow:\n", '\nflow:\n  setup: |\n    gain 1 / 0 position to "p1"\n', 1))
    code, out, err = rulepress(capsys, monkeypatch, "play", folder, "--seed", "1", "--bots", "p1,p2")
    assert code == 1 and err.startswith("rulepress: the game cannot go on: game.yaml:"), err
    assert "internal error" not in err and "Traceback" not in err + out


def test_a_scenario_that_faults_says_where_not_at_question_mark(capsys, monkeypatch, tmp_path):
    folder = race_with(tmp_path, lambda t: t.replace("gain sum(dice) position", 'gain sum(dice) position to "nobody"'))
    os.makedirs(os.path.join(folder, "scenarios"))
    shutil.copy(os.path.join(ROOT, "docs", "tutorial", "race", "scenarios", "roll.yaml"), os.path.join(folder, "scenarios"))
    code, out, err = rulepress(capsys, monkeypatch, "test", folder)
    assert code == 1
    assert "runtime error at " in out + err and "game.yaml:44:7" in out + err, out + err
    assert "at ?" not in out + err and "internal error" not in out + err


@pytest.mark.parametrize("command", [["test", "-v"], ["coverage", "-n", "0"]], ids=["test", "coverage"])
@pytest.mark.parametrize("kind", ["title", "colour", "right-to-left override", "line separator"])
def test_a_scenario_named_with_control_characters_is_reported_as_escapes(capsys, monkeypatch, tmp_path, kind, command):
    folder = race_with(tmp_path, lambda t: t)
    os.makedirs(os.path.join(folder, "scenarios"))
    text = open(os.path.join(ROOT, "docs", "tutorial", "race", "scenarios", "roll.yaml"), encoding="utf-8").read()
    name = "Rolling moves the racer by the sum of two dice"
    with open(os.path.join(folder, "scenarios", "roll.yaml"), "w", encoding="utf-8") as fh:
        fh.write(text.replace(name, _yaml("Rolls" + HOSTILE[kind])).replace("p1.position == 7", "p1.position == 8"))
    code, out, err = rulepress(capsys, monkeypatch, command[0], folder, *command[1:])
    assert "FAILED" in out and "Rolls" + printable(HOSTILE[kind]) in out, out
    assert _plain(out + err), repr(out)


def test_a_fault_that_names_a_hidden_card_names_it_to_nobody_at_the_terminal(capsys, monkeypatch, tmp_path):
    """A statement handed a card where it counts (a card of the deck, hidden from everyone)
    faults at that statement; the card is said as a hidden thing."""
    folder = race_with(tmp_path, lambda t: t.replace("      gain sum(dice) position", "      for each c in boosts:\n        gain c position"))
    code, out, err = rulepress(capsys, monkeypatch, "play", folder, "--seed", "1", "--bots", "p1,p2")
    assert code == 1 and err == "rulepress: the game cannot go on: game.yaml:45:9: `a hidden thing` is not a number\n", err
    assert "internal error" not in err and "oil" not in err + out and "nitro" not in err + out


@pytest.mark.parametrize("options", [[], ["--profile"]], ids=["simulate", "simulate --profile"])
def test_simulate_prints_a_fault_quoting_content_as_written_and_without_bidi(capsys, monkeypatch, tmp_path, options):
    folder = race_with(tmp_path, lambda t: t.replace("gain sum(dice) position", 'gain sum(dice) position to "[bold]no\u202ebody"'))
    code, out, err = rulepress(capsys, monkeypatch, "simulate", folder, "-n", "2", *options)
    assert "\u202e" not in out + err and "[bold]no\\u202ebody" in out, out


def test_balance_says_a_games_name_without_its_control_or_bidi_characters(capsys, monkeypatch, tmp_path):
    folder = race_with(tmp_path, lambda t: t.replace("{en: Dice Race,", '{en: "Dice \\u202eRace\\e[2J",'))
    code, out, err = rulepress(capsys, monkeypatch, "balance", folder, "-n", "4", "--no-coverage")
    assert _plain(out + err) and "Dice \\u202eRace\\u001b[2J, 2 players" in out, out
