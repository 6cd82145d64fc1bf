"""Each content game's rulebook reads like a rulebook: no pseudo-code, no variable names,
no raw ids, no empty headings (issue #28, part 3)."""
import re

import pytest

from rulepress.compiler.render import LANGS, Renderer
from rulepress.compiler.rulebook import unnamed_terms
from tests.test_rulebook import _games, page_of, tables_of

CONTENT = [g for g in _games() if g.startswith("content/")]
# games whose every kind, attribute, mark, option and procedure has a name in words
NAMED = CONTENT

PSEUDO_CODE = [  # (pattern, what it is)
    (r"\(s\)|\(а\)|\bдейств\.", "a plural left to the reader"),
    (r"\b[Ll]et (?!the |that )\w+ be\b", "`let` with a variable name"),
    (r"\b[Pp]усть (?!счётчик|результат|эт|друг)[a-z]\w*", "`let` with a variable name"),
    (r"\b(?:for each|for every|for at least one|those) [b-z]\b", "a loop over a variable name"),
    (r"\b(?:of|to|from|in|is|be) [b-z](?=[ .,:;)])", "a variable name"),
    (r"(?<![\w`'-])[b-z](?=[ .,:;)])(?![\w-])", "a one-letter name"),
    (r"\b[a-z]+_[a-z0-9_]+\b", "a raw id"),
]


def _prose(text):
    """The rulebook without what is quoted from the content as the designer wrote it."""
    return re.sub(r"`[^`]*`", "", text)


def _empty_headings(md):
    lines = [ln for ln in md.splitlines() if ln.strip()]
    out = []
    for i, ln in enumerate(lines):
        m = re.match(r"(#+) ", ln)
        if not m:
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        n = re.match(r"(#+) ", nxt) if nxt else None
        if nxt is None or (n and len(n.group(1)) <= len(m.group(1))):
            out.append(ln)
    return out


def _offending(text):
    found = []
    text = _prose(text)
    lines = text.splitlines()
    for pattern, what in PSEUDO_CODE:
        for m in re.finditer(pattern, text):
            found.append(f"{what}: {m.group(0)!r} in {lines[text[:m.start()].count(chr(10))][:140]!r}")
    return found


_AUTHORED = frozenset(("text", "summary", "id", "key", "this", "anchor", "game_id", "lang", "event"))


def _generated(value, out, top=True):
    """Every string of a rulebook's content that the toolchain wrote (not the designer's
    own `text:`, summary and notes, which are quoted as written)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in _AUTHORED or (top and k in ("notes", "L", "book", "tables", "title", "pictures", "examples")):
                continue
            _generated(v, out, False)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _generated(v, out, False)
    elif isinstance(value, str):
        out.append(value)
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("folder", CONTENT)
def test_the_generated_rules_text_has_no_pseudo_code(folder, lang):
    """Every phrase the rulebook writes itself (authored text wins where there is some)
    reads as prose: effects, conditions, notes, components, attributes, options."""
    from rulepress.compiler.rulebook import Book
    ctx = Book(tables_of(folder), lang).context()
    ctx["options"] = [name for name, _value, _text in ctx["options"]]  # (the texts are authored)
    procedures = tables_of(folder).get("procedures") or {}
    for p in ctx["glossary"]["procedures"]:  # a procedure without a term is named by its authored text
        if procedures.get(p["id"], {}).get("text"):
            p["name"] = ""
    bad = _offending("\n".join(_generated(ctx, [])))
    assert not bad, f"{folder} ({lang}): {len(bad)} pseudo-code phrases, e.g.\n" + "\n".join(bad[:15])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("folder", CONTENT)
def test_no_rulebook_has_an_empty_heading(folder, lang):
    md = page_of(folder, lang, "md")
    assert _empty_headings(md) == []


@pytest.mark.parametrize("folder", NAMED)
def test_every_id_a_rulebook_prints_has_a_name_in_each_language(folder):
    assert unnamed_terms(tables_of(folder)) == []


def _say(stmt, lang="en", tables=None):
    return Renderer(tables or {"counters": {"vp": {"name": {"en": "VP", "ru": "ПО"}, "of": "player"}}}, lang).lines([stmt])


P = "f:1:1"


def test_a_loop_over_the_players_reads_as_each_player_not_a_letter():
    stmt = ["for", P, "p", ["name", P, "players"], None, [["gain", P, ["num", P, 1], "vp", ["name", P, "p"]]]]
    assert _say(stmt) == [(0, "For each player:"), (1, "That player gains 1 VP.")]
    assert _say(stmt, "ru") == [(0, "Для каждого игрока:"), (1, "Этот игрок получает 1 ед. показателя «ПО».")]


def test_a_name_given_once_is_said_where_it_is_used():
    stmts = [["let", P, "n", ["num", P, 2]], ["gain", P, ["name", P, "n"], "vp", None]]
    r = Renderer({"counters": {"vp": {"name": {"en": "VP"}, "of": "player"}}}, "en")
    assert r.lines(stmts) == [(0, "Gain 2 VP.")]


def test_a_name_changed_later_is_a_tally():
    stmts = [["let", P, "lap", ["num", P, 0]], ["set", P, ["name", P, "lap"], ["op", P, "+", ["name", P, "lap"], ["num", P, 1]]]]
    assert Renderer({}, "en").lines(stmts) == [(0, "Let the tally be 0."), (0, "Set the tally to the tally + 1.")]


def test_two_cards_in_one_sentence_are_that_card_and_the_other_card():
    inner = ["gen", P, "count", ["name", P, "d"], "d", ["name", P, "hand"],
             ["op", P, "==", ["attr", P, ["name", P, "d"], "type"], ["attr", P, ["name", P, "c"], "type"]]]
    stmt = ["for", P, "c", ["name", P, "hand"], None, [["log", P, inner, None]]]
    lines = Renderer({"zones": {"hand": {"name": {"en": "Hand"}}}}, "en").lines([stmt])
    assert lines[0] == (0, "For each card in Hand:")
    assert "the other card" in lines[1][1] and "that card" in lines[1][1]


@pytest.mark.parametrize("n, en, ru", [(1, "take one action", "выполните одно действие"),
                                       (2, "take two actions", "выполните два действия"),
                                       (5, "take five actions", "выполните пять действий")])
def test_the_actions_of_a_turn_are_counted_in_words(n, en, ru):
    from rulepress.compiler.rulebook import Book
    tables = {"flow": {"phases": [{"id": "t", "mode": "turns", "max_actions": n, "name": {"en": "Turns"}}]}}
    assert en in " ".join(Book(tables, "en").turn()["phases"][0]["notes"])
    assert ru in " ".join(Book(tables, "ru").turn()["phases"][0]["notes"])


# ---- Russian case and number: each class of error found in the four games' rulebooks ----

def test_the_acting_player_moving_is_said_reflexively_not_move_you():
    stmt = ["move", P, ["name", P, "player"], ["name", P, "l"], None]
    r = Renderer({}, "ru")
    r.locals.add("l")
    r.nouns["l"] = Renderer({}, "ru")._e(["name", P, "here"])
    assert r.lines([stmt]) == [(0, "Переместитесь в эту локацию.")]
    assert Renderer({}, "en").lines([stmt])[0][1].startswith("Move to ")


def test_a_players_own_location_is_yours_and_places_next_to_it_decline():
    loc = ["attr", P, ["name", P, "player"], "location"]
    assert Renderer({}, "ru").expr(loc) == "ваша локация"
    assert Renderer({}, "ru")._e(loc).c("i") == "вашей локацией"
    nxt = Renderer({}, "ru")._e(["call", P, "neighbours", [loc]])
    assert nxt.c("n") == "места, соседние с вашей локацией"
    assert nxt.c("g") == "мест, соседних с вашей локацией"


@pytest.mark.parametrize("word, genitive", [("убежище", "убежища"), ("жилище", "жилища"), ("поле", "поля"),
                                            ("врата", "врат"), ("сутки", "суток")])
def test_russian_nouns_after_a_hushing_consonant_and_plural_only_nouns_decline(word, genitive):
    from rulepress.compiler.render import ru_declined
    assert ru_declined(word).c("g") == genitive


def test_a_sum_in_a_russian_case_declines_its_first_term():
    tables = {"counters": {"vp": {"name": {"en": "Score", "ru": "Счёт"}, "of": "game"}}}
    minus = ["op", P, "-", ["name", P, "vp"], ["num", P, 1]]
    stmt = ["set", P, ["name", P, "vp"], ["call", P, "max", [["num", P, 0], minus]]]
    assert _say(stmt, "ru", tables) == [(0, "Установите Счёт равным наибольшему из 0 и (Счёта − 1).")]
    assert _say(stmt, "en", tables) == [(0, "Set Score to the larger of 0 and (Score − 1).")]


def test_a_difference_given_to_a_function_keeps_its_brackets():
    """«модуль (A − B) − 1», never «модуль A − B − 1», which says another number."""
    tables = {"counters": {"a": {"name": {"en": "Red", "ru": "Красный"}, "of": "game"},
                           "b": {"name": {"en": "Blue", "ru": "Синий"}, "of": "game"}}}
    diff = ["op", P, "-", ["call", P, "abs", [["op", P, "-", ["name", P, "a"], ["name", P, "b"]]]], ["num", P, 1]]
    assert Renderer(tables, "en").expr(diff) == "the absolute value of (Red − Blue) − 1"
    assert Renderer(tables, "ru").expr(diff).startswith("модуль (Красного − ")


def test_you_are_in_a_place_agrees_in_russian():
    r = Renderer({"zones": {"hand": {"name": {"en": "Hand", "ru": "Рука"}}}}, "ru")
    loc = ["attr", P, ["name", P, "player"], "location"]
    assert r.expr(["in", P, ["name", P, "player"], ["list", P, [["name", P, "first_player"]]]]) == \
        "вы входите в число (первого игрока)"
    assert Renderer({}, "ru").expr(["not", P, ["in", P, ["name", P, "player"], ["list", P, [loc]]]]).startswith("вы не входите")
    assert Renderer({}, "en").expr(["in", P, ["name", P, "player"], ["list", P, [loc]]]) == "you are among (your location)"


@pytest.mark.parametrize("n, en, ru", [(1, "Repeat 1 time:", "Повторите 1 раз:"), (3, "Repeat 3 times:", "Повторите 3 раза:"),
                                       (5, "Repeat 5 times:", "Повторите 5 раз:"), (21, "Repeat 21 times:", "Повторите 21 раз:")])
def test_a_repeat_counts_its_times_in_each_language(n, en, ru):
    stmt = ["repeat", P, ["num", P, n], [["endturn", P]]]
    assert _say(stmt)[0] == (0, en) and _say(stmt, "ru")[0] == (0, ru)
