"""Whatever a designer types into an effect, the parser answers with IR or a positioned DslError.

Also: every statement verb declares exactly the parameters its IR carries (compiler/names.py
VERBS), and nothing undeclared gets through.
"""
from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.compiler.diagnostics import Pos
from rulepress.compiler.dsl import MAX_NEST, DslError, parse, parse_expr
from rulepress.compiler.names import VERBS
from rulepress.compiler.pipeline import check_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")


def where(line, col):
    return Pos("effect", line, col)


def outcome(text, expr=False):
    """IR, or the DslError; any other exception fails the test."""
    try:
        return (parse_expr if expr else parse)(text, where)
    except DslError as exc:
        assert isinstance(exc.pos, Pos) and exc.pos.file == "effect"
        assert 1 <= exc.pos.line <= text.count("\n") + 2, (exc.pos, text)
        assert exc.pos.col >= 1, (exc.pos, text)
        assert exc.code.startswith("D") and exc.message
        return exc


# One sample per statement form; together they use every slot of every verb.
SAMPLES = {
    "let": ["let x = 1 + 2"],
    "set": ["set player.position to 3", "set first_player to player"],
    "gain": ["gain 2 position", "gain 2 position to player"],
    "lose": ["lose 1 position", "lose 1 position from player"],
    "pay": ["pay 1 position", "pay 1 position from player"],
    "move": ["move c to here", "move c to here face up"],
    "draw": ["draw from boosts", "draw 2 from boosts to player.hand face down as got"],
    "discard": ["discard c", "discard c under the deck"],
    "shuffle": ["shuffle boosts", "shuffle boosts_discard into boosts"],
    "reveal": ["reveal c"], "show": ["show c to player", "show player.hand to others"],
    "hide": ["hide c from player", "hide player.hand from others"], "conceal": ["conceal c"], "remove": ["remove c"], "putback": ["put back c"],
    "mark": ["mark c as blessed", "mark c as blessed until end of round"],
    "unmark": ["unmark c as blessed"],
    "fail": ["fail", 'fail "not now"'],
    "endgame": ["end game"], "endturn": ["end turn"],
    "stop": ["repeat 2 times:\n  stop"],
    "log": ['log "hello"', 'log ["you see", top(pile)] to player'],
    "emit": ["emit boosted", "emit boosted with a = 1, b = 2"],
    "perform": ["perform roll", "perform roll by player"],
    "return": ["return 3"],
    "do": ["push(1, 2)"],
    "swap": ["swap a with b"],
    "offer": ["offer challenge", "offer block to t with role = contessa, n = 2 as blocker"],
    "if": ["if x:\n  stop", "if x:\n  stop\nelif y:\n  stop\nelse:\n  stop"],
    "for": ["for each c in player.hand:\n  reveal c", "for each c in player.hand where c.speed > 1:\n  reveal c"],
    "repeat": ["repeat 3 times:\n  gain 1 position"],
    "while": ["while x < 3:\n  gain 1 position"],
    "choose": ['choose c from player.hand:\n  reveal c',
               'choose up to 2 c from player.hand where c.speed > 1 by player or none "Which?":\n  reveal c\notherwise:\n  stop'],
    "may": ['may:\n  stop', 'may by player "Boost?":\n  stop\notherwise:\n  stop'],
    "secret": ["each p in players secretly chooses w from p.hand:\n  reveal w",
               "each p in players secretly chooses w from p.hand where w.speed > 0:\n  reveal w",
               "each p in players secretly chooses w from p.hand where w.speed > 0 or none:\n  reveal w",
               'each p in players secretly chooses w from p.hand or none "Which?":\n  reveal w'],
}


def statement(text):
    """The IR statement of this sample's verb: the first statement, or the first inside a block."""
    ir = parse(text, where)
    return ir[0] if ir[0][0] != "repeat" or "stop" not in text else ir[0][3][0]


def test_every_verb_has_samples():
    assert set(SAMPLES) == set(VERBS)


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_each_verb_declares_exactly_the_parameters_its_ir_carries(verb):
    for text in SAMPLES[verb]:
        node = statement(text)
        assert node[0] == verb, (text, node)
        assert isinstance(node[1], str) and node[1].startswith("effect:"), node
        assert len(node) - 2 == len(VERBS[verb]), (verb, VERBS[verb], node)


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_parameter_of_a_verb_is_filled_by_some_sample(verb):
    """A declared parameter no statement can fill is a parameter the language does not have."""
    filled = [False] * len(VERBS[verb])
    for text in SAMPLES[verb]:
        node = statement(text)
        for i, value in enumerate(node[2:]):
            filled[i] = filled[i] or value not in (None, False, [], {})
    assert all(filled), [p for p, f in zip(VERBS[verb], filled) if not f]


def statements(block):
    """Every statement of a block, inner blocks included, found through the declared slots."""
    for node in block:
        yield node
        for name, value in zip(VERBS.get(node[0], ()), node[2:]):
            if name in ("body", "otherwise", "else") and value:
                yield from statements(value)
            elif name == "branches":
                for _cond, inner in value:
                    yield from statements(inner)


def test_every_statement_the_parser_makes_is_a_declared_verb():
    made = set()
    for texts in SAMPLES.values():
        for text in texts:
            for node in statements(parse(text, where)):
                assert node[0] in VERBS, node
                assert len(node) - 2 == len(VERBS[node[0]]), node
                made.add(node[0])
    assert made == set(VERBS)


UNDECLARED = [
    "gain 2 position quickly",             # a word no verb takes
    "move c to here face sideways",
    "draw 2 from boosts as a as b",
    "discard c under the table",
    "mark c as blessed until tomorrow",
    "emit boosted with 3",
    "perform roll by player with luck",
    "shuffle boosts into",
    "fail because",
    "end round",
    "put c back",
    "choose c from player.hand by:\n  stop",
    "repeat times:\n  stop",
    "swap a b",
    "let = 3",
]


@pytest.mark.parametrize("text", UNDECLARED)
def test_a_parameter_no_verb_declares_is_refused(text):
    result = outcome(text)
    assert isinstance(result, DslError) and result.code == "D001", result


def test_an_unknown_verb_is_named_with_its_position():
    exc = outcome("gain 1 position\n  \nif x:\n  jump 3 spaces")
    assert isinstance(exc, DslError)
    assert (exc.pos.line, exc.pos.col) == (4, 3)
    assert "unknown statement `jump`" in exc.message


def test_a_misspelled_verb_gets_a_suggestion():
    exc = outcome("gian 2 position")
    assert "did you mean `gain`?" in exc.message


def test_deep_brackets_are_refused_before_parsing():
    exc = outcome("gain " + "(" * (MAX_NEST + 5) + "1" + ")" * (MAX_NEST + 5) + " position")
    assert exc.code == "D006"
    exc = outcome("let x = " + "[" * 5000 + "]" * 5000)
    assert exc.code == "D006"


def test_deep_blocks_are_refused():
    text = "".join("  " * i + "if x:\n" for i in range(200)) + "  " * 200 + "stop\n"
    exc = outcome(text)
    assert isinstance(exc, DslError) and exc.code in ("D004", "D006")


def test_nesting_just_within_the_limit_parses():
    ir = outcome("gain " + "(" * (MAX_NEST - 1) + "1" + ")" * (MAX_NEST - 1) + " position")
    assert isinstance(ir, list) and ir[0][0] == "gain"


@pytest.mark.parametrize("digits", [13, 30, 5000])
def test_huge_numbers_are_refused_where_they_stand(digits):
    exc = outcome("gain 1 position\ngain " + "9" * digits + " position")
    assert exc.code in ("D008", "D004") and exc.pos.line == 2 - (exc.code == "D004")


def test_a_large_but_allowed_number():
    assert outcome("gain 1000000000000 position")[0][2] == ["num", "effect:1:6", 10 ** 12]


@pytest.mark.parametrize("text", ['log "unterminated', 'log "one\nline"', 'if x:\n  log "open:\n  stop', 'fail "'])
def test_unterminated_text(text):
    exc = outcome(text)
    assert isinstance(exc, DslError) and exc.code == "D001"
    assert "unterminated text" in exc.message


def test_a_procedure_that_calls_itself_is_refused(tmp_path):
    game = tmp_path / "race"
    shutil.copytree(RACE, game, ignore=shutil.ignore_patterns("scenarios"))
    (game / "loop.yaml").write_text(
        "procedures:\n"
        "  - id: ping\n    effect: |\n      gain 1 position\n      pong()\n"
        "  - id: pong\n    effect: |\n      if player.position < 5:\n        ping()\n"
        "  - id: solo\n    effect: solo()\n"
        "actions:\n  - id: go\n    name: {en: Go, ru: Вперёд}\n    effect: ping()\n", encoding="utf-8")
    _m, report = check_game(str(game))
    loops = sorted((d.pos.line, d.message) for d in report.items if d.code == "D020")
    assert [line for line, _ in loops] == [2, 10]
    assert "ping -> pong -> ping" in loops[0][1] and "solo -> solo" in loops[1][1]


# ---- properties ------------------------------------------------------------------

VALID = [t for texts in SAMPLES.values() for t in texts] + [
    "let dice = roll(2)\ngain sum(dice) position",
    'choose c from player.hand "Which boost?":\n  gain c.speed position\n  discard c',
    "for each p in players where p.position >= 20:\n  log [p, p.position]\n  end game",
    "let best = max(p.position for p in players)\nif best > 3 and not (best in [1, 2]):\n  gain -best % 3 position",
]
ALPHABET = st.sampled_from(list("abcdefghijklmnopqrstuvwxyz_ 0123456789()[]{}.,:=<>!+-*/%\"'#\n\t") +
                           ["if ", "else:", "for each ", "let ", "gain ", " in ", " from ", "\n  ", "\n    ",
                            "choose ", " where ", "not ", " and ", "repeat ", " times:", "é", "\u0000", "\r\n"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_text_gives_ir_or_a_positioned_error(text):
    outcome(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_any_unicode_gives_ir_or_a_positioned_error(text):
    outcome(text)
    outcome(text, expr=True)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 6)))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(ALPHABET) + text[i:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + text[j:] + text[i:j]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_effects_give_ir_or_a_positioned_error(text):
    outcome(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VALID), st.integers(1, 30))
def test_valid_effects_nested_in_blocks_still_parse(text, depth):
    body = "\n".join("  " * depth + ln for ln in text.split("\n"))
    nested = "".join("  " * i + "if x:\n" for i in range(depth)) + body
    ir = outcome(nested)
    assert isinstance(ir, list), ir


# ---- positions and limits of the grammar ---------------------------------------------

from rulepress.compiler import dsl  # noqa: E402


def test_a_node_that_begins_with_a_parenthesis_stands_there():
    ir = parse("let x = (a + b) * c", where)
    product = ir[0][3]
    assert product[:3] == ["op", "effect:1:9", "*"]
    assert product[3][:3] == ["op", "effect:1:10", "+"]


def test_a_number_too_large_is_refused_where_it_stands():
    err = outcome("gain 99999999999999 position")
    assert err.code == "D008" and tuple(err.pos)[1:] == (1, 6)


# ---- statements parsed once, placed where they stand ---------------------------------
# A text is parsed as pieces, one per top-level statement, each parsed once per process and
# copied with its positions. Put together, the pieces must give the IR (or the error) of the
# whole text parsed at once.

def at_line(first, col):
    """A block of text that stands from line `first` and column `col` of a file."""
    return lambda line, c: Pos("cards.yaml", first + line - 1, col + c - 1)


def whole_way(text, where_, expr=False):
    pieces, dsl._by_statements = dsl._by_statements, lambda *a: None
    try:
        return (parse_expr if expr else dsl._parse)(text, where_)
    except DslError as exc:
        return (tuple(exc.pos), exc.code, exc.message)
    finally:
        dsl._by_statements = pieces


def pieces_way(text, where_, expr=False):
    try:
        return (parse_expr if expr else dsl._parse)(text, where_)
    except DslError as exc:
        return (tuple(exc.pos), exc.code, exc.message)


@pytest.mark.parametrize("text", VALID + [
    "gain 1 position\ngain 1 position\nif x:\n  stop\nelif y:\n  stop\nelse:\n  gain 1 position",
    "may:\n  stop\notherwise:\n  stop\nmay:\n  stop",
    "# a note\n\ngain 1 position\n# between\n\nlose 1 position  # after\n",
    "log [1,\n2]\ngain 1 position",          # a bracket open across a line of the first column
    "elsewhere(1)\ngain 1 position",          # a call whose name begins like `else`
    'log "\x001:1"\ngain 1 position',          # a NUL inside a quoted text
])
def test_pieces_give_the_ir_of_the_whole_text(text):
    for first, col in ((1, 1), (7, 7), (120, 3)):
        w = at_line(first, col)
        assert pieces_way(text, w) == whole_way(text, w), text


def test_a_piece_is_parsed_once_and_placed_where_it_stands():
    text = "gain 3 position\nlose 2 position\n"
    a = parse(text, at_line(10, 7))
    b = parse(text, at_line(40, 3))
    assert text.split("\n")[0] + "\n" in dsl._PIECES
    assert a[1][1] == "cards.yaml:11:7" and b[1][1] == "cards.yaml:41:3"
    assert a[0] is not b[0]  # each place its own copy: nothing shared between two effects


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated(), st.lists(ALPHABET, max_size=60).map("".join)), st.integers(1, 50), st.integers(1, 20))
def test_pieces_and_the_whole_text_agree_on_any_text(text, first, col):
    w = at_line(first, col)
    assert pieces_way(text, w) == whole_way(text, w), text
    assert pieces_way(text, w, expr=True) == whole_way(text, w, expr=True), text


@pytest.mark.parametrize("text", ["count(player.hand) > 0", "x if y else (z + 1) * 2", "[a, b][0].n",
                                  "not (a and b)", "99999999999999", "x +", ""])
def test_an_expression_from_pieces_is_the_expression_parsed_whole(text):
    for first, col in ((1, 1), (7, 30)):
        w = at_line(first, col)
        assert pieces_way(text, w, expr=True) == whole_way(text, w, expr=True), text


def content_sites():
    """Every DSL text of every content game and of the tutorial (see model._effect_sites)."""
    from rulepress.compiler import model
    from rulepress.compiler.content import load_game
    from rulepress.compiler.diagnostics import Report
    games = [os.path.join(ROOT, "content", g) for g in sorted(os.listdir(os.path.join(ROOT, "content")))]
    for folder in games + [RACE]:
        if os.path.isfile(os.path.join(folder, "game.yaml")):
            m = model.Model(load_game(folder, Report()))
            model._collect_ids(m, Report())
            yield from model._effect_sites(m)


def test_facts_from_statements_are_the_facts_of_the_whole_effect():
    from rulepress.compiler import model
    checked = 0
    for site in content_sites():
        result = model._parse_one(site)
        if result[0] == "ok":
            assert result[2] == model.facts(result[1], site[5]), site[:3]
            checked += 1
    assert checked > 500


# ---- a statement that differs from a known one only in its numbers -----------------------
# `gain 2 fame` edited to `gain 3 fame` is the known statement's IR with the value changed,
# without the parser; it must be exactly what the parser gives, and anything else (digits of
# a name, of a decimal, of a quoted text) must go to the parser.

def _renumbered(text):
    return "".join(str((int(ch) + 7) % 10) if ch.isdigit() and ch.isascii() else ch for ch in text)


def _parsed_alone(src):
    try:
        return dsl._whole(src, dsl._rel)
    except DslError:
        return None


def test_a_statement_that_differs_only_in_numbers_gets_the_ir_the_parser_gives():
    shaped = 0
    for site in content_sites():
        text = site[3] if not site[5] else "return " + str(site[3])
        if not isinstance(text, str) or "\0" in text:
            continue
        src = text if text.endswith("\n") else text + "\n"
        for piece, _first in dsl._split(src):
            if not any(ch.isdigit() for ch in piece) or _parsed_alone(piece) is None:
                continue
            dsl._keep(piece, _parsed_alone(piece))
            variant = _renumbered(piece)
            got = dsl._by_shape(variant)
            if got is not None:
                shaped += 1
                assert got == _parsed_alone(variant), variant
    assert shaped > 100


@pytest.mark.parametrize("known, edited", [
    ("gain 2 fame\n", "gain 3 fame\n"),
    ("let x = [1, 22, 3]\n", "let x = [4, 55, 6]\n"),
    ("if x > 1:\n  gain 12 fame\n", "if x > 9:\n  gain 34 fame\n"),
])
def test_a_number_edit_is_the_parser_s_ir_with_the_new_values(known, edited):
    dsl._keep(known, _parsed_alone(known))
    assert dsl._by_shape(edited) == _parsed_alone(edited)


@pytest.mark.parametrize("known, edited", [
    ('log "room 2"\n', 'log "room 3"\n'),       # digits of a quoted text
    ("gain x2 fame\n", "gain x3 fame\n"),        # digits of a name
    ("gain 1.5 fame\n", "gain 1.7 fame\n"),      # a decimal
    ("gain 2 fame # or 3\n", "gain 2 fame # or 4\n"),  # a comment
    ("gain 2 fame\n", "gain 23 fame\n"),          # a number of another length moves what follows
])
def test_digits_that_are_not_a_whole_number_go_to_the_parser(known, edited):
    dsl._keep(known, _parsed_alone(known))
    assert dsl._by_shape(edited) is None
