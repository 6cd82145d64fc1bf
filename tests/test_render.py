"""Every statement and expression of the effect language reads as rules text, in English and Russian."""
import re

import pytest

from rulepress.compiler.diagnostics import Pos
from rulepress.compiler.dsl import parse, parse_expr
from rulepress.compiler.names import BUILTIN_ATTRS, FUNCTIONS, VERBS
from rulepress.compiler.render import EXPR_OPS, LANGS, Renderer, effect_text, expr_text, ru_declined
from tests.conftest import game_from


def _where(line, col):
    return Pos("sample.yaml", line, col)


# One sample per statement verb (names from tests/games/duel).
STATEMENTS = {
    "let": "let n = 2\ngain n vp",
    "set": "set player.gold to 3",
    "gain": "gain 2 gold",
    "lose": "lose 1 vp from first_player",
    "pay": "pay 1 gold",
    "move": "move top(blades) to table face up",
    "draw": "draw 2 from blades to player.hand face down as drawn",
    "discard": "discard top(player.hand) under the deck",
    "shuffle": "shuffle blades_discard into blades",
    "reveal": "reveal top(table)",
    "show": "show top(table) to player",
    "hide": "hide top(table) from others",
    "conceal": "conceal top(table)",
    "remove": "remove top(table)",
    "putback": "put back top(table)",
    "mark": "mark player as blessed until end of round",
    "unmark": "unmark player as blessed",
    "fail": 'fail "no gold left"',
    "endgame": "end game",
    "endturn": "end turn",
    "stop": "for each p in players:\n  stop",
    "log": 'log "the duel begins" to player',
    "emit": "emit alarm with who = player, loud = true",
    "perform": "perform dig by next_player(player)",
    "return": "return player.vp + 1",
    "do": "helper(player, 2)",
    "swap": "swap top(table) with top(blades)",
    "offer": "offer parry to others with n = 2 as r",
    "if": "if tension >= 3:\n  gain 1 vp\nelif tension == 2:\n  lose 1 vp\nelse:\n  end turn",
    "for": "for each p in players where p.gold > 0:\n  gain 1 vp to p",
    "repeat": "repeat 3 times:\n  draw from bag to table",
    "while": "while count(player.hand) < 3:\n  draw 1 from blades",
    "choose": 'choose up to 2 c from player.hand where c.power > 1 by first_player or none "Pick":\n  discard c\notherwise:\n  gain 1 gold',
    "may": 'may by next_player(player) "Reveal?":\n  gain 1 vp\notherwise:\n  lose 1 vp',
    "secret": 'each p in players secretly chooses w from p.hand where w.power > 0 "Which blade?":\n  log w[p]',
}

# Expressions: every node shape, every function and every built-in attribute.
EXPRESSIONS = [
    "1 + 2 * 3 - 4 / 2 % 3", "-player.gold", "player.gold >= 2 and not tension < 1 or tension != 0",
    "top(blades) in player.hand", "top(blades) not in table", "player has blessed", "player has no blessed",
    "[1, 2, 3][0]", "player.vp if tension > 2 else 0", "none", '"text"', '"{player} has {player.gold} gold"', "true", "false", "every card",
    "[c for c in player.hand where c.power > 1]", "[c.power for c in player.hand]",
    "sum(c.power for c in player.hand where c.power > 0)", "count(c for c in player.hand)",
    "any(p.vp > 3 for p in players)", "all(p.vp > 3 for p in others)", "max(p.vp for p in players)",
    "min(p.vp for p in players)", "sorted(c.power for c in table)", "distinct(c.power for c in table)",
    "helper(player, 1)", "round", "player_count", "supply", "removed", "first_player",
    "top(blades).power", "gem", "bag", "dig",
]
FUNCTION_CALLS = {
    "count": "count(player.hand)", "sum": "sum([1, 2])", "max": "max(1, player.vp, 3)", "min": "min(1, 2)",
    "any": "any([true])", "all": "all([true])", "abs": "abs(-2)", "floor": "floor(5 / 2)", "ceil": "ceil(5 / 2)",
    "clamp": "clamp(player.gold, 0, 5)", "roll": "roll(2, 8)", "random": "random(player.hand)",
    "distance": "distance(supply, removed)", "adjacent": "adjacent(supply, removed)", "neighbours": "neighbours(supply)",
    "within": "within(supply, 2)", "top": "top(blades)", "first": "first(players)", "last": "last(players)",
    "next_player": "next_player(player)", "previous_player": "previous_player(player)",
    "usable": "usable(parry, player)", "sorted": "sorted(table)", "distinct": "distinct([1, 1])",
    "option": 'option("short")', "faces": "faces(roll(3))",
}


def _ops(node, found):
    if isinstance(node, list):
        if node and isinstance(node[0], str) and len(node) > 1 and isinstance(node[1], str) and node[1].startswith("sample.yaml:"):
            found.add(node[0])
        for x in node:
            _ops(x, found)
    elif isinstance(node, dict):
        for x in node.values():
            _ops(x, found)
    return found


def _plain_words(text):
    """Rules text, not IR: no lists, no positions, no Python values."""
    assert text.strip()
    assert "sample.yaml" not in text
    assert not re.search(r"\[['\"]|None|True|False|\{'", text), text


def test_the_samples_cover_every_verb_and_every_expression_shape():
    stmt_ops = set()
    for text in STATEMENTS.values():
        _ops(parse(text, _where), stmt_ops)
    assert stmt_ops >= set(VERBS)
    expr_ops = set()
    for text in EXPRESSIONS + list(FUNCTION_CALLS.values()):
        _ops(parse_expr(text, _where), expr_ops)
    assert expr_ops == set(EXPR_OPS)
    assert set(FUNCTION_CALLS) == set(FUNCTIONS)
    for op in EXPR_OPS:
        assert hasattr(Renderer, "_x_" + op), f"no words for expression `{op}`"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_statement_reads_as_words(tables, verb, lang):
    ir = parse(STATEMENTS[verb], _where)
    r = Renderer(tables, lang)
    text = r.text(ir)
    _plain_words(text)
    assert not r.problems
    assert text != STATEMENTS[verb]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("text", EXPRESSIONS + sorted(FUNCTION_CALLS.values()))
def test_every_expression_reads_as_words(tables, text, lang):
    r = Renderer(tables, lang)
    out = r.condition(parse_expr(text, _where))
    _plain_words(out)
    assert not r.problems


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("attr", sorted(BUILTIN_ATTRS))
def test_every_built_in_attribute_reads_as_words(tables, attr, lang):
    r = Renderer(tables, lang)
    _plain_words(r.condition(parse_expr(f"top(table).{attr}", _where)))
    assert not r.problems


def test_gain_says_the_amount_and_the_counter_by_its_name(tables):
    ir = parse("gain 2 gold", _where)
    assert effect_text(ir, tables, "en") == "Gain 2 Gold."
    assert effect_text(ir, tables, "ru") == "Получите 2 ед. Золота."


def test_a_counter_of_the_player_is_theirs(tables):
    ir = parse_expr("player.gold >= 2", _where)
    assert expr_text(ir, tables, "en") == "Your Gold is at least 2"
    assert expr_text(ir, tables, "ru") == "Ваше Золото не меньше 2"


def test_blocks_nest_under_the_line_that_opens_them(tables):
    ir = parse(STATEMENTS["if"], _where)
    assert Renderer(tables, "en").lines(ir) == [
        (0, "If Tension is at least 3:"), (1, "Gain 1 Victory points."),
        (0, "Otherwise, if Tension is 2:"), (1, "Lose 1 Victory points."),
        (0, "Otherwise:"), (1, "Your turn ends."),
    ]


def test_draw_names_the_deck_and_counts_cards_in_russian(tables):
    ir = parse("draw 2 from blades", _where)
    assert effect_text(ir, tables, "en") == "Draw 2 cards from Blades."
    assert effect_text(ir, tables, "ru") == "Возьмите 2 карты из колоды «Клинки»."


def test_a_procedure_is_called_by_its_short_name(tables):
    assert effect_text(parse("helper(player, 2)", _where), tables, "en") == "Resolve “Helper” (you, 2)."


def test_a_procedure_done_to_you_or_to_named_things_reads_as_its_text(tables):
    """«Закрыта до конца игры…», not «Выполните процедуру «Закрыта до конца игры» (…)»."""
    t = dict(tables, procedures=dict(tables["procedures"], shut={"params": ["p"], "effect": [],
                                                                  "text": {"en": "Closed for good.", "ru": "Закрыто навсегда."}}))
    assert effect_text(parse("shut(player)", _where), t, "en") == "Closed for good."
    assert effect_text(parse("shut(player)", _where), t, "ru") == "Закрыто навсегда."


@pytest.mark.parametrize("name, genitive", [
    ("Время", "Времени"), ("Рассудок", "Рассудка"), ("Улика", "Улики"), ("Позиция", "Позиции"),
    ("Здоровье", "Здоровья"), ("Влияние", "Влияния"), ("Золото", "Золота"), ("Победные очки", "Победных очков"),
    ("Известность", "Известности"), ("Ужас", "Ужаса"), ("Тёмная колода", "Тёмной колоды"),
])
def test_russian_names_decline(name, genitive):
    assert ru_declined(name).c("g") == genitive


@pytest.mark.parametrize("name, genitive", [("Церковь", "Церкви"), ("Вызовы шаттла", "Вызовов шаттла"),
                                            ("Часики", "Часиков"), ("Свободные ордера", "Свободных ордеров"),
                                            ("Общественные Связи", "Общественных Связей")])
def test_russian_names_an_ending_rule_would_get_wrong_decline_by_the_dictionary(name, genitive):
    assert ru_declined(name).c("g") == genitive


def test_a_name_keeps_its_own_spelling_of_e_and_yo_in_every_case():
    assert ru_declined("Маркер Реставраторов").c("g") == "Маркера Реставраторов"
    assert ru_declined("Тёмная колода").c("i") == "Тёмной колодой"


@pytest.mark.parametrize("name", ["Nitro", "3 шага", "Ход только что закончился", "Возле"])
def test_what_is_no_noun_phrase_is_not_guessed(name):
    assert ru_declined(name) is None


def test_forms_given_by_hand_win_over_the_dictionary():
    given = {"Рука": {"nom": "Рука", "gen": "Руки игрока", "acc": "Руку"}}
    hand = ru_declined("Рука", given)
    assert hand.c("g") == "Руки игрока" and hand.c("a") == "Руку" and hand.c("d") == "Рука"
    assert ru_declined("Рука").c("d") == "Руке"


def test_a_name_that_does_not_decline_stands_in_quotes_after_a_head_noun(tables):
    t = dict(tables, counters=dict(tables["counters"], gold=dict(tables["counters"]["gold"], name={"en": "Coins", "ru": "Нитро X"})))
    assert effect_text(parse("gain 2 gold", _where), t, "ru") == "Получите 2 ед. показателя «Нитро X»."


def test_effects_of_the_tutorial_read_well():
    race = game_from("docs/tutorial/race").data
    roll = race["actions"]["roll"]["effect"]
    # a value drawn by chance is named once, as «the result», never by its variable name
    assert Renderer(race, "en").lines(roll) == [(0, "Let the result be a roll of 2 dice."),
                                                (0, "Gain Position equal to the total of the result.")]
    assert Renderer(race, "ru").lines(roll) == [(0, "Пусть результат равен броску 2 кубиков."),
                                                (0, "Получите ед. Позиции — сумма результата.")]


@pytest.mark.parametrize("lang", LANGS)
def test_a_line_for_the_log_is_no_rule_but_a_line_for_one_player_is(tables, lang):
    """`log "…"` writes the table's log, which the rules around it already say; said in a book
    it was an untranslated sentence of the engine's («Объявите: «Arkham is overrun…»»)."""
    r = Renderer(tables, lang)
    assert r.text(parse('log "the duel begins"', _where)) == ""
    assert "the duel begins" in r.text(parse('log "the duel begins" to player', _where))


@pytest.mark.parametrize("name, negated", [("Дверь открыта", "Дверь не открыта"),
                                           ("Последняя проверка пройдена", "Последняя проверка не пройдена"),
                                           ("Закрыто", None), ("Обойдён или побеждён", None), ("Подготовка", None)])
def test_a_russian_clause_is_negated_before_its_predicate(name, negated):
    from rulepress.compiler.inflection import negated_clause
    assert negated_clause(name) == negated


def test_a_flag_of_the_game_named_by_a_clause_reads_as_it_and_its_negation():
    t = {"counters": {"open": {"of": "game", "type": "flag", "initial": False,
                               "name": {"en": "The door is open", "ru": "Дверь открыта"}}}}
    assert Renderer(t, "en").condition(parse_expr("not open", _where)) == "The door is not open"
    assert Renderer(t, "ru").condition(parse_expr("not open", _where)) == "Дверь не открыта"
    assert Renderer(t, "ru").condition(parse_expr("open", _where)) == "Дверь открыта"
    lines = Renderer(t, "ru").lines(parse("if not open:\n  end game", _where))
    assert lines[0] == (0, "Если Дверь не открыта:")
