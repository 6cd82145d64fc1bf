"""What a new designer reaches for (issue #24): each feature as the designer writes it."""
import json
import os
import shutil

import pytest

from conftest import ROOT, game_from
from rulepress.compiler.diagnostics import Pos
from rulepress.compiler.dsl import parse
from rulepress.runtime.flow import apply, interrupt, new_game


def _duel_variant(tmp_path, old, new):
    dst = tmp_path / "v"
    shutil.copytree(os.path.join(ROOT, "tests", "games", "duel"), dst)
    text = (dst / "game.yaml").read_text()
    assert old in text
    (dst / "game.yaml").write_text(text.replace(old, new))
    return game_from(str(dst))


def _ir(text):
    return parse(text, lambda l, c: Pos("run", l, c))


def test_a_mark_until_your_next_turn_lasts_through_the_others_turns_and_goes_as_yours_starts(duel):
    st = new_game(duel, 2, 1, first="p1")
    interrupt(duel, st, _ir("mark player as guarded until your next turn"), {"player": "p1"})
    apply(duel, st, "arm")  # p1's turn ends: the mark stays
    assert "guarded" in st["things"]["p1"]["marks"] and st["active"] == "p2"
    apply(duel, st, "arm")  # p2's turn ends, p1's next starts: it goes
    assert st["active"] == "p1" and "guarded" not in st["things"]["p1"]["marks"]
    assert "timed" not in st["flow"]


def test_the_rulebook_says_until_your_next_turn(duel):
    from rulepress.compiler.render import Renderer
    ir = _ir("mark player as guarded until your next turn")
    assert "until the start of your next turn" in Renderer(duel.data, "en").lines(ir)[0][1]
    assert "до начала вашего следующего хода" in Renderer(duel.data, "ru").lines(ir)[0][1]


def test_one_copy_is_named_as_it_is_and_a_comment_after_a_space_is_still_a_comment(duel):
    ir = _ir("move sabre#2 to player.hand  # the second sabre\nmove dagger#1 to player.hand #1 more")
    st = new_game(duel, 2, 1, first="p1")
    interrupt(duel, st, ir, {"player": "p1"})
    assert {"sabre#2", "dagger#1"} <= set(st["zones"]["p1.hand"])


def test_a_copy_that_does_not_exist_is_an_error_with_its_code(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    dst = tmp_path / "v"
    shutil.copytree(os.path.join(ROOT, "tests", "games", "duel"), dst)
    text = (dst / "game.yaml").read_text().replace("      draw 1 from blades\n", "      move sabre#7 to player.hand\n", 1)
    (dst / "game.yaml").write_text(text)
    _text, _gid, report = compile_game(str(dst))
    found = [d.text() for d in report.sorted()]
    assert any("D032" in f and "no copy `sabre#7`" in f and "`sabre#1` to `sabre#6`" in f for f in found), found


def test_simulate_sets_game_options_and_refuses_unknown_ones_or_values_of_the_wrong_kind(tmp_path):
    from click.testing import CliRunner
    from rulepress.cli import main
    _duel_variant(tmp_path, "  heuristic: player.vp\n",
                  "  heuristic: player.vp\n  options:\n    head_start: {default: 0, text: {en: Head start, ru: Фора}}\n"
                  "    sudden: {default: false}\n")
    game = tmp_path / "v"
    text = (game / "game.yaml").read_text().replace("  score: player.vp\n", "  score: player.vp + head_start\n")
    (game / "game.yaml").write_text(text)
    run = CliRunner().invoke
    plain = json.loads(run(main, ["simulate", str(game), "-n", "2", "--json"]).output)
    given = json.loads(run(main, ["simulate", str(game), "-n", "2", "--json", "--option", "head_start=100",
                                  "--option", "sudden=true"]).output)
    assert "options" not in plain and given["options"] == {"head_start": 100, "sudden": True}
    assert given["seats"]["p1"]["score_min"] == plain["seats"]["p1"]["score_min"] + 100
    for bad, said in [("nope=1", "no option `nope`; its options: head_start, sudden"), ("head_start", "write name=value"),
                      ("head_start=lots", "a number, not `lots`"), ("sudden=maybe", "true or false, not `maybe`"),
                      ("head_start=1e999", "a number")]:
        r = run(main, ["simulate", str(game), "-n", "1", "--option", bad])
        assert r.exit_code == 2 and said in r.output and "Traceback" not in r.output, (bad, r.output)


def test_the_documented_defaults_hold_draw_face_up_move_to_the_bottom_onto_as_to(duel):
    st = new_game(duel, 2, 1, first="p1")
    interrupt(duel, st, _ir("draw 1 from blades to table as d\nmove sabre#1 onto table\nmove dagger#1 to table"),
                 {"player": "p1"})
    table = st["zones"]["table"]
    assert st["things"][table[0]]["up"] is True  # drawn face up
    assert table[-2:] == ["sabre#1", "dagger#1"]  # moved to the bottom, `onto` as `to`


def test_a_turn_with_no_legal_action_ends_by_itself_without_offering_a_pass(tmp_path):
    game = _duel_variant(tmp_path, "    if: count(player.hand) < 3\n", "    if: count(player.hand) < 0\n")
    text = (tmp_path / "v" / "game.yaml").read_text()
    text = text.replace("  - id: duel\n    name: {en: Duel, ru: Дуэль}\n", "  - id: duel\n    name: {en: Duel, ru: Дуэль}\n    if: round > 8\n")
    text = text.replace("    initial: 2\n", "    initial: 0\n")  # nobody can pay to dig
    (tmp_path / "v" / "game.yaml").write_text(text)
    game = game_from(str(tmp_path / "v"))
    st = new_game(game, 2, 1, first="p1")
    assert st["scores"] is not None and st["round"] == 8  # every turn ended by itself: nobody was asked
    assert not any("passes" in line["text"] for line in st["log"])


def test_a_text_with_values_names_them_in_the_log_and_hides_what_a_seat_may_not_see(duel):
    from rulepress.runtime.visibility import log_for
    st = new_game(duel, 2, 1, first="p1")
    interrupt(duel, st, _ir('log "{player} is out of the round with {count(player.hand)} cards, {{braces}}"\n'
                            'log "{top(blades)} lies on top"'), {"player": "p1"})
    out, top = st["log"][-2], st["log"][-1]
    assert out["text"] == "Player 1 is out of the round with 2 cards, {braces}"
    assert top["text"].endswith(" lies on top") and top["text"] != "a card lies on top"
    assert log_for(st, "p2")[-1]["text"] == "a card lies on top"  # the top of a deck is hidden


def test_a_prompt_with_values_says_them_and_unnames_a_thing_hidden_from_any_seat(duel):
    from rulepress.runtime.flow import decision
    st = new_game(duel, 2, 1, first="p1")
    interrupt(duel, st, _ir('may by p2 "Challenge {player}\'s claim of {2 + 1} with {first(player.hand)}? / '
                            'Оспорить заявку {player}?":\n  gain 1 vp to p2'), {"player": "p1"})
    d = decision(duel, st)
    assert d["prompt"] == {"en": "Challenge Player 1's claim of 3 with a card?", "ru": "Оспорить заявку Игрок 1?"}


@pytest.mark.parametrize("text, said", [
    ('log "a" + player', "D018 `+` works on numbers, but this is text: put values in a text with braces"),
    ('log "{nobody} left"', "D013 unknown name `nobody`"),
    ('log "{player.hand"', "D001 a `{` in a text opens a value: close it with `}`"),
    ('log "a } b"', "D001 a `}` closes no `{`"),
    ('fail "no {what}"', "D013 unknown name `what`"),
    ('may "go {count(}?":\n        stop', "D001 in `{count(}`"),
])
def test_a_text_with_values_is_checked_like_any_expression(tmp_path, text, said):
    from rulepress.compiler.pipeline import compile_game
    dst = tmp_path / "v"
    shutil.copytree(os.path.join(ROOT, "tests", "games", "duel"), dst)
    game = (dst / "game.yaml").read_text().replace("      draw 1 from blades\n", f"      {text}\n", 1)
    (dst / "game.yaml").write_text(game)
    _t, _g, report = compile_game(str(dst))
    found = [d.text() for d in report.sorted()]
    assert any(said in f for f in found), found


def test_the_rulebook_words_a_text_with_values(duel):
    from rulepress.compiler.render import Renderer
    ir = _ir('may "Challenge {player}? / Оспорить {player}?":\n  stop')
    assert "“Challenge [you]?”" in Renderer(duel.data, "en").lines(ir)[0][1]
    assert "«Оспорить [" in Renderer(duel.data, "ru").lines(ir)[0][1]


def test_a_card_of_several_copies_named_as_its_type_shows_its_name_in_choices_and_logs(duel):
    from rulepress.runtime.flow import decision
    st = new_game(duel, 2, 1, first="p1")
    interrupt(duel, st, _ir('log sabre\nlog "guessed {dagger}"\nchoose t from [sabre, dagger] "Guess a card":\n  log t'),
              {"player": "p1"})
    assert [line["text"] for line in st["log"][-2:]] == ["Sabre", "guessed Dagger"]
    assert [o["label"]["en"] for o in decision(duel, st)["options"]] == ["Sabre", "Dagger"]


def _rounds_variant(tmp_path):
    """The duel dealt again each round, a round lasting until one player stands, each player
    who cannot arm being out of the round (and the game at 2 vp)."""
    return _duel_variant(tmp_path, "  rounds: 8\n", "  round_until: count([p for p in players where p has no out]) <= 1\n"
                         "  end: round > 5\n")


def test_a_round_ends_when_its_condition_holds_and_the_next_starts_with_the_out_players_back(tmp_path):
    game = _rounds_variant(tmp_path)
    st = new_game(game, 3, 1, first="p1")
    assert st["round"] == 1 and st["active"] == "p1"
    interrupt(game, st, _ir("mark p2 as out until end of round"), {"player": "p1"})
    apply(game, st, "arm")  # p1's turn; p2 is out: p3 plays next
    assert st["active"] == "p3"
    interrupt(game, st, _ir("mark p1 as out until end of round"), {"player": "p3"})
    apply(game, st, "arm")  # p3 alone stands: the round ends, the next one starts with everyone
    assert st["round"] == 2 and st["active"] == "p1"
    assert not any("out" in st["things"][p]["marks"] for p in ("p1", "p2", "p3"))


def test_a_player_out_of_the_game_takes_no_more_turns_and_one_marked_out_in_their_turn_stops_at_once(tmp_path):
    game = _rounds_variant(tmp_path)
    st = new_game(game, 3, 1, first="p1")
    interrupt(game, st, _ir("mark p2 as out"), {"player": "p1"})
    for _ in range(4):
        apply(game, st, "pass")
        assert st["active"] != "p2"
    assert st["round"] == 1 and st["active"] == "p1"  # the round's turns go round until one stands


def test_a_player_marked_out_in_their_own_turn_takes_no_more_of_it(tmp_path):
    _rounds_variant(tmp_path)
    text = (tmp_path / "v" / "game.yaml").read_text().replace(
        "      draw 1 from blades\n", "      draw 1 from blades\n      mark player as out until end of round\n      draw 1 from blades\n", 1)
    text = text.replace("      max_actions: 1\n", "      max_actions: 3\n")
    (tmp_path / "v" / "game.yaml").write_text(text)
    game = game_from(str(tmp_path / "v"))
    st = new_game(game, 3, 1, first="p1")
    hand = len(st["zones"]["p1.hand"])
    apply(game, st, "arm")  # the effect goes on to its end, then the turn ends though 2 actions are left
    assert st["active"] == "p2" and len(st["zones"]["p1.hand"]) == hand + 2
    apply(game, st, "arm")  # p2 is out too: p3 alone stands, the round ends and all are back
    assert st["round"] == 2 and st["active"] == "p1"


def test_the_rulebook_says_when_a_round_ends(tmp_path):
    from rulepress.compiler.rulebook import Book
    game = _rounds_variant(tmp_path)
    en, ru = Book(game.data, "en").turn()["intro"], Book(game.data, "ru").turn()["intro"]
    assert "A round ends at once when:" in en and "the next one then starts" in en, en
    assert "сразу заканчивается, когда:" in ru, ru


_REACTION = ("  - id: arm\n", "  - id: challenge\n    name: {en: Challenge, ru: Вызов}\n    window: claim\n    if: player.gold > 0\n"
             "    effect: |\n      gain 1 vp\n      log \"{player} challenges {actor}'s claim of {what}\"\n"
             "  - id: claim\n    name: {en: Claim, ru: Заявка}\n    effect: |\n      offer claim with what = sabre\n  - id: arm\n")


def test_an_offer_asks_the_others_in_seat_order_and_the_first_to_react_does_it(tmp_path):
    from rulepress.runtime.flow import decision
    game = _duel_variant(tmp_path, *_REACTION)
    st = new_game(game, 3, 1, first="p1")
    interrupt(game, st, _ir("offer claim with what = sabre as by\nlog \"answered by {by}\""), {"player": "p1"})
    d = decision(game, st)
    assert d["who"] == "p2" and [o["label"]["en"] for o in d["options"]] == ["Challenge", "none"]
    apply(game, st, d["options"][1]["id"], seat="p2")  # p2 lets it pass: p3 is asked next
    d = decision(game, st)
    assert d["who"] == "p3"
    apply(game, st, "challenge", seat="p3")
    assert st["things"]["p3"]["counters"]["vp"] == 1 and st["things"]["p2"]["counters"]["vp"] == 0
    assert [line["text"] for line in st["log"][-2:]] == ["Player 3 challenges Player 1's claim of Sabre", "answered by Player 3"]


def test_after_the_first_reaction_no_one_else_is_asked_and_who_cannot_react_is_not_asked(tmp_path):
    from rulepress.runtime.flow import decision
    game = _duel_variant(tmp_path, *_REACTION)
    st = new_game(game, 3, 1, first="p1")
    st["things"]["p2"]["counters"]["gold"] = 0  # p2 may not challenge: p3 is asked first
    interrupt(game, st, _ir("offer claim with what = sabre as by"), {"player": "p1"})
    assert decision(game, st)["who"] == "p3"
    apply(game, st, "challenge", seat="p3")
    assert decision(game, st)["who"] == "p1" and decision(game, st)["kind"] == "action"  # the turn goes on


def test_an_offer_of_an_unknown_window_is_an_error_and_a_reactions_names_are_known(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    game = _duel_variant(tmp_path, *_REACTION)
    assert game.data["actions"]["challenge"]["window"] == "claim"
    text = (tmp_path / "v" / "game.yaml").read_text().replace("      draw 1 from blades\n", "      offer claims with what = 1\n      offer claim with what = 2\n", 1)
    (tmp_path / "v" / "game.yaml").write_text(text)
    _t, _g, report = compile_game(str(tmp_path / "v"))
    found = [d.text() for d in report.sorted()]
    assert any("D035 no action has `window: claims`" in f and "claim" in f for f in found), found
    assert not any("D013" in f for f in found), found  # `actor` and `what` are bound in the reaction


@pytest.mark.parametrize("declared, warned", [("", True), ("  languages: [en]\n", False), ("  languages: [en, ru]\n", True)])
def test_a_missing_translation_is_warned_only_for_a_declared_language(tmp_path, declared, warned):
    from rulepress.compiler.pipeline import compile_game
    game = _duel_variant(tmp_path, "  heuristic: player.vp\n", "  heuristic: player.vp\n" + declared)
    assert game is not None
    text = (tmp_path / "v" / "game.yaml").read_text().replace("name: {en: Gold, ru: Золото}", "name: {en: Gold}")
    (tmp_path / "v" / "game.yaml").write_text(text)
    _t, _g, report = compile_game(str(tmp_path / "v"))
    assert any("S101 text has no `ru` translation" in d.text() for d in report.sorted()) == warned


def test_declaring_the_languages_in_the_manifest_is_seen_by_a_cached_validate_of_the_other_files(tmp_path):
    from click.testing import CliRunner
    from rulepress.cli import main
    _duel_variant(tmp_path, "  heuristic: player.vp\n", "  heuristic: player.vp\n")
    (tmp_path / "v" / "more.yaml").write_text("counters:\n  - id: fame\n    name: {en: Fame}\n    of: player\n")
    run = lambda: CliRunner().invoke(main, ["validate", str(tmp_path / "v")]).output  # noqa: E731
    assert "S101" in run() and "S101" in run()  # the second from the cache
    text = (tmp_path / "v" / "game.yaml").read_text().replace("  heuristic: player.vp\n", "  heuristic: player.vp\n  languages: [en]\n")
    (tmp_path / "v" / "game.yaml").write_text(text)
    assert "S101" not in run()
    (tmp_path / "v" / "more.yaml").write_text("counters:\n  - id: fame\n    name: {en: Renown}\n    of: player\n")
    assert "S101" not in run()  # the changed file alone checked again, in the declared languages


@pytest.mark.parametrize("name, rounds, said", [
    ("Round of turns", "  rounds: 12\n", "The game lasts 12 rounds of turns."),
    ("Day", "  rounds: 1\n", "The game lasts 1 day."),
    ("Hand", "", "The game is played in hands until it ends."),
])
def test_the_rulebook_counts_rounds_in_good_english(tmp_path, name, rounds, said):
    from rulepress.compiler.rulebook import Book
    game = _duel_variant(tmp_path, "  rounds: 8\n", f"{rounds}  round_name: {{en: {name}, ru: Раунд}}\n")
    assert Book(game.data, "en").turn()["intro"].startswith(said)


def test_a_game_of_one_language_writes_its_texts_as_plain_text(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    _duel_variant(tmp_path, "  heuristic: player.vp\n", "  heuristic: player.vp\n")
    path = tmp_path / "v" / "game.yaml"
    plain = path.read_text().replace("  name: {en: Duel, ru: Дуэль}\n", "  name: Duel\n  languages: [en]\n", 1)
    plain = plain.replace("name: {en: Gold, ru: Золото}", "name: Gold")
    path.write_text(plain)
    text, _g, report = compile_game(str(tmp_path / "v"))
    assert text is not None, [d.text() for d in report.sorted()]
    tables = json.loads(text)
    assert tables["game"]["name"] == {"en": "Duel"} and tables["counters"]["gold"]["name"] == {"en": "Gold"}
    assert not any(d.code == "S101" for d in report.sorted())
    path.write_text(plain.replace("  languages: [en]\n", ""))  # a plain name: English alone, as declared
    text, _g, report = compile_game(str(tmp_path / "v"))
    assert text is not None and json.loads(text)["game"]["languages"] == ["en"]
    path.write_text(plain.replace("  languages: [en]\n", "  languages: [en, ru]\n"))  # two: a text says which
    text, _g, report = compile_game(str(tmp_path / "v"))
    assert text is None and any("Gold" in d.text() for d in report.sorted())


def test_rulebooks_are_made_only_in_the_declared_languages_and_kept_builds_say_the_same(tmp_path):
    from click.testing import CliRunner
    from rulepress.cli import main
    _duel_variant(tmp_path, "  heuristic: player.vp\n", "  heuristic: player.vp\n  languages: [en]\n")
    for out in ("a", "b"):  # the second build comes from the kept one
        r = CliRunner().invoke(main, ["build", str(tmp_path / "v"), "-o", str(tmp_path / out)])
        assert r.exit_code == 0, r.output
        assert sorted(os.listdir(tmp_path / out / "duel")) == ["game.json", "rulebook.en.html", "rulebook.en.md"]


def test_the_small_game_of_every_section_in_the_content_docs_builds(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    with open(os.path.join(ROOT, "docs", "content.md"), encoding="utf-8") as fh:
        doc = fh.read()
    part = doc.split("## Every section, in one small game", 1)[1]
    game = part.split("```yaml\n", 1)[1].split("```", 1)[0]
    sections = {line.split(":")[0] for line in game.splitlines() if line and not line[0].isspace()}
    assert sections == {"game", "counters", "zones", "decks", "cards", "pools", "pieces", "locations", "procedures",
                        "actions", "triggers", "flow", "scoring", "icons", "bot"}
    (tmp_path / "harbor").mkdir()
    (tmp_path / "harbor" / "game.yaml").write_text(game, encoding="utf-8")
    text, _g, report = compile_game(str(tmp_path / "harbor"))
    assert text is not None and not report.items, [d.text() for d in report.sorted()]


def test_marking_a_player_out_is_never_said_to_change_nothing(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    _duel_variant(tmp_path, "      draw 1 from blades\n", "      draw 1 from blades\n      mark player as out until end of round\n"
                  "      mark player as dazed\n")
    _t, _g, report = compile_game(str(tmp_path / "v"))
    found = [d.text() for d in report.sorted() if d.code == "W012"]
    assert len(found) == 1 and "`dazed`" in found[0], found  # the flow reads `out`; nothing reads `dazed`


def test_a_game_that_declares_no_languages_is_written_in_those_of_its_name(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    _duel_variant(tmp_path, "  heuristic: player.vp\n", "  heuristic: player.vp\n")
    path = tmp_path / "v" / "game.yaml"
    text = path.read_text().replace("  name: {en: Duel, ru: Дуэль}\n", "  name: {en: Duel}\n", 1)
    path.write_text(text.replace("name: {en: Gold, ru: Золото}", "name: Gold"))
    out, _g, report = compile_game(str(tmp_path / "v"))
    assert out is not None and not any(d.code == "S101" for d in report.sorted())
    assert json.loads(out)["game"]["languages"] == ["en"]


def test_an_offers_names_never_replace_who_reacts(tmp_path):
    game = _duel_variant(tmp_path, *_REACTION)
    st = new_game(game, 2, 1, first="p1")
    interrupt(game, st, _ir("offer claim with what = sabre, player = p1, this = dig"), {"player": "p1"})
    apply(game, st, "challenge", seat="p2")
    assert st["things"]["p2"]["counters"]["vp"] == 1 and st["things"]["p1"]["counters"]["vp"] == 0


@pytest.mark.parametrize("text, code", [
    ('log "{' + "(" * 3000 + "1" + ")" * 3000 + '}"', "D006"),
    ('log "' + "{1}" * 7000 + '"', "D004"),
    ('log "{"', "D001"),
    ('log "{}"', "D001"),
    ('log "{player.}"', "D001"),
    ('log "{log 1}"', "D001"),
])
def test_a_hostile_text_with_values_is_one_positioned_error(text, code):
    from rulepress.compiler.dsl import DslError
    with pytest.raises(DslError) as err:
        _ir(text + "\n")
    assert err.value.code == code and err.value.pos.line >= 1
