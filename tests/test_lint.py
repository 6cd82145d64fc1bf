"""Dead or impossible content is reported (compiler/lint.py): names hidden by built-ins,
marks set and never tested or tested and never set, options named by what names nothing,
comparisons no thing can pass, `return` outside a procedure."""
from __future__ import annotations

import os
import re
import shutil

import pytest

from rulepress.compiler.validation import validate_game
from rulepress.compiler.pipeline import check_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
ARKHAM = os.path.join(ROOT, "content", "arkham-horror")


def findings(folder):
    _m, report = check_game(str(folder))
    return [d.text() for d in report.sorted()]


def race_with(tmp_path, extra):
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    (folder / "extra.yaml").write_text(extra, encoding="utf-8")
    return folder


def line_of(path, pattern):
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if re.search(pattern, line):
                return n
    raise AssertionError(pattern)


def test_arkhams_mythos_category_named_type_is_reported_at_its_lines(tmp_path):
    """The shipped mistake, made again in a copy: Mythos cards keep their category in an
    attribute named `type`, which `c.type` never reads (it is the card a thing is a copy of)."""
    game = tmp_path / "arkham"
    shutil.copytree(ARKHAM, game, ignore=shutil.ignore_patterns("scenarios"))
    mythos = game / "mythos.yaml"
    text = mythos.read_text(encoding="utf-8")
    key = re.search(r"attrs: \{(\w+): headline", text).group(1)  # whatever the category is called now
    mythos.write_text(re.sub(rf"attrs: \{{{key}:", "attrs: {type:", text), encoding="utf-8")
    for path in game.glob("*.yaml"):
        t = path.read_text(encoding="utf-8")
        path.write_text(re.sub(rf"\.{key} == \"(headline|environment|rumor)\"", r'.type == "\1"', t), encoding="utf-8")
    found = findings(game)
    attr_line = line_of(mythos, r"attrs: \{type: headline")
    assert any(f"/mythos.yaml:{attr_line}:13: warning: W010 attribute `type`" in f for f in found), found
    uses = [p for p in game.glob("*.yaml") if '.type == "headline"' in p.read_text(encoding="utf-8")]
    assert uses
    use_line = line_of(uses[0], r'\.type == "headline"')
    assert any(f"/{uses[0].name}:{use_line}:" in f and "W013" in f and "the attribute `type: headline` that things have "
               "is never read (W010)" in f for f in found), found
    assert not [f for f in found if ": error: " in f]


def test_an_option_named_without_quotes(tmp_path):
    folder = tmp_path / "g"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    game = folder / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "  players: {min: 2, max: 4}\n", "  players: {min: 2, max: 4}\n  options:\n    tokens_2p: {default: 5}\n"), encoding="utf-8")
    (folder / "extra.yaml").write_text("counters:\n  - id: goal\n    name: {en: Goal, ru: Цель}\n    of: game\n"
                                       "triggers:\n  - id: set_goal\n    on: game_start\n"
                                       "    effect: set goal to option(tokens_2p)\n", encoding="utf-8")
    found = findings(folder)
    assert any("D030 option `tokens_2p` is named without quotes" in f for f in found), found
    (folder / "extra.yaml").write_text((folder / "extra.yaml").read_text(encoding="utf-8").replace(
        "option(tokens_2p)", 'option("tokens_3p")'), encoding="utf-8")
    assert any('D030 option "tokens_3p" names no option of the game' in f and "did you mean `tokens_2p`" in f
               for f in findings(folder))


def test_a_where_filter_no_thing_of_its_kind_passes(tmp_path):
    folder = race_with(tmp_path, "cards:\n  - id: crash\n    name: {en: Crash, ru: Авария}\n    kind: hazard\n"
                                 "    deck: boosts\n    attrs: {colour: red}\n"
                                 "actions:\n  - id: look\n    name: {en: Look, ru: Смотреть}\n    effect: |\n"
                                 "      for each c in every card where c.colour == \"red\":\n        discard c\n"
                                 "      for each h in every hazard where h.colour == \"red\":\n        discard h\n")
    found = [f for f in findings(folder) if "W013" in f]
    assert len(found) == 1 and "`c.colour == \"red\"`: no card has `colour` \"red\"" in found[0], found


def test_return_inside_a_procedure_is_fine_and_outside_is_an_error(tmp_path):
    folder = race_with(tmp_path, "procedures:\n  - id: half\n    params: [x]\n    effect: return x / 2\n"
                                 "actions:\n  - id: rest\n    name: {en: Rest, ru: Отдых}\n    effect: |\n"
                                 "      gain half(4) position\n      return\n")
    found = findings(folder)
    got = [f for f in found if "D031" in f]
    assert len(got) == 1 and got[0].endswith("/extra.yaml:10:7: error: D031 `return` outside a procedure: only a procedure "
                                             "gives back a value; to end this effect early, put the rest under `if`"), got


def test_marks_across_files_are_known_to_a_check_of_one_changed_file(tmp_path, monkeypatch):
    """The validation cache re-checks changed files alone: the marks the others set and test
    come from what it keeps of them, so the findings are those of a full check."""
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    folder = race_with(tmp_path, "actions:\n  - id: shield\n    name: {en: Shield, ru: Щит}\n    effect: mark player as shielded\n")
    more = folder / "more.yaml"
    more.write_text("procedures:\n  - id: push\n    effect: |\n      if player has shielded:\n"
                    "        gain 1 position\nactions:\n  - id: do_push\n    name: {en: Push, ru: Толчок}\n"
                    "    effect: push()\n", encoding="utf-8")

    def both():
        monkeypatch.delenv("RULEPRESS_NO_CACHE", raising=False)
        kept = sorted(d.text() for d in validate_game(str(folder)).items)
        monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
        full = sorted(d.text() for d in validate_game(str(folder)).items)
        assert kept == full
        return {t.split(": ")[2].split(" ")[0] for t in full}
    assert not both() & {"W011", "W012"}
    more.write_text(more.read_text(encoding="utf-8").replace("gain 1", "gain 2"), encoding="utf-8")
    assert not both() & {"W011", "W012"}  # the marks of the unchanged file are known
    extra = folder / "extra.yaml"
    extra.write_text(extra.read_text(encoding="utf-8").replace("as shielded", "as sheilded"), encoding="utf-8")
    assert {"W011", "W012"} <= both()
    # an option is declared in game.yaml and read in another file: the same holds for it
    game = folder / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "  players: {min: 2, max: 4}\n", "  players: {min: 2, max: 4}\n  options:\n    bonus: {default: 1}\n"), encoding="utf-8")
    more.write_text(more.read_text(encoding="utf-8").replace("gain 2 position", "gain bonus position"), encoding="utf-8")
    assert "W015" not in both()
    more.write_text(more.read_text(encoding="utf-8").replace("gain bonus position", "gain 3 position"), encoding="utf-8")
    assert "W015" in both()
    game.write_text(game.read_text(encoding="utf-8").replace("max: 4}", "max: 3}"), encoding="utf-8")
    assert "W015" in both()


@pytest.mark.parametrize("game", ["android", "arkham-horror", "night-city", "study-in-emerald"])
def test_the_games_have_no_errors_from_these_rules(game):
    _m, report = check_game(os.path.join(ROOT, "content", game))
    assert not [d.text() for d in report.errors if d.code in ("D030", "D031")]


def test_a_window_named_by_a_string_must_be_one_an_action_has(tmp_path):
    folder = race_with(tmp_path, "actions:\n  - id: brake\n    name: {en: Brake, ru: Тормоз}\n    window: before_roll\n"
                                 "    effect: lose 1 position\n"
                                 "  - id: react\n    name: {en: React, ru: Реакция}\n    effect: |\n"
                                 "      for each a in usable(\"before_rol\", player):\n        perform a by player\n"
                                 "      for each a in usable(\"before_roll\", player):\n        perform a by player\n")
    found = [f for f in findings(folder) if "D030" in f]
    assert len(found) == 1 and 'window "before_rol" names no window' in found[0] and "did you mean `before_roll`" in found[0], found


def test_names_that_hide_built_ins(tmp_path):
    folder = tmp_path / "g"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    game = folder / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "  players: {min: 2, max: 4}\n", "  players: {min: 2, max: 4}\n  options:\n    round: {default: 5}\n    boosts: {default: 1}\n"),
        encoding="utf-8")
    (folder / "extra.yaml").write_text(
        "procedures:\n  - id: max\n    params: [round, player]\n    effect: return round\n"
        "actions:\n  - id: rest\n    name: {en: Rest, ru: Отдых}\n    effect: |\n"
        "      let others = [p for p in players where p.position > 3]\n      gain max(1, player) position\n"
        "      gain count(player for player in players) position\n", encoding="utf-8")
    found = [f.split(": warning: ")[1] for f in findings(folder) if "W010" in f]
    assert any(f.startswith("W010 option `round` has the name of something read first: `round` is the number of the current round") for f in found), found
    assert any(f.startswith("W010 option `boosts` has the name of something read first: `boosts` is the deck of that id") for f in found), found
    assert any(f.startswith("W010 procedure `max` has the name of a built-in function") for f in found), found
    assert any(f.startswith("W010 parameter `round` of `max` hides the built-in `round`") for f in found), found
    assert not any("parameter `player`" in f for f in found), found
    assert any(f.startswith("W010 `others` is given a value here, which hides the built-in `others`") for f in found), found
    assert any(f.startswith("W010 `player` is given a value here") for f in found), found
