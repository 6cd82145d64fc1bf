"""What a rulebook claims about the game is what the tables the runtime reads say (issue 36):
passing, actions a turn, action limits, how the game ends, how many components there are and
whose a deck is; and nothing of the engine's bookkeeping reaches a player's book."""
import os
import re

import pytest

from rulepress.compiler.examples import examples
from rulepress.compiler.outputs import languages_of
from rulepress.compiler.pipeline import compile_game
from rulepress.compiler.rulebook import Book, books, environment, read
from rulepress.compiler.wording import catalogue
from tests.conftest import ROOT

GAMES = ([f"content/{g}" for g in sorted(os.listdir(os.path.join(ROOT, "content")))
          if os.path.isfile(os.path.join(ROOT, "content", g, "game.yaml"))]
         + [f"docs/examples/{g}" for g in sorted(os.listdir(os.path.join(ROOT, "docs", "examples")))
            if os.path.isfile(os.path.join(ROOT, "docs", "examples", g, "game.yaml"))]
         + ["docs/tutorial/race"])

# What readers found in the books before (issue 36): engine words, designer's references,
# safety caps, both languages at once, raw values, pseudo-code and garbled claims.
BANNED = [
    (r"\b(?:SIE|AH)-\d{3}", "a checklist id"),
    (r"Реакция: применяется в окне|Reaction: used in the window|\bв окне «|\bin the window “", "a reaction window"),
    (r"Предохранитель|[Ss]afety cap|страховка для случайных ботов", "a safety cap"),
    (r"Игра длится (?:80|100) раунд|The game lasts (?:80|100) rounds", "a safety cap as the game's length"),
    (r"\?\s*/\s*[А-ЯЁ]|[a-z][.?!]? / [А-ЯЁ][а-яё]", "a prompt in two languages"),
    (r"«(?:drone|netrunner|techie|solo|public|dig deeper|injury|eurodollars)»", "a raw value"),
    (r"Результат: результат процедуры|[Tt]he result is the result of", "a procedure's steps as pseudo-code"),
    (r"Заведите счётчик со значением", "a counter of the engine's"),
    (r"равным предмету|не равняется локации игрока", "pseudo-code"),
    (r"\bthe the\b|\bthe that\b", "a doubled article"),
    (r"A turn has just ended|Ход только что закончился", "an internal counter"),
    (r"Колода локации: \d+ карт[аы]? \(у каждого игрока своя\)|Location deck: \d+ cards \(each player has one\)",
     "a deck per location said to be each player's"),
    (r"Закрыть врата боем|Close the gate with Fight", "a choice's button as a component"),
    (r"Переместите верхняя|в Свободные ордеру|из вашего Возля", "a name left in the nominative"),
    (r"[Вв]ыполните процедуру «|\b[Rr]esolve “", "a procedure named where its words are due"),
    (r"[Оо]бъявите: «[A-Za-z]|[Оо]бъявите: «[^»]* / ", "a line of the table's log, in English, as a rule"),
    (r"[Нн]еверно, что показатель «|[Ii]t is not so that “", "a flag negated as pseudo-code"),
    (r"\b(?:starting_agents|first_edition_track_scoring)\b|\bдвижок\b|\bthe engine\b", "an option's id or the engine"),
    (r"показател[а-я]* ужаса|боев[а-я]+ показател|\bСтарц[а-я]*|\bСтарец\b", "a term that is not the seed's (рейтинг ужаса, старейшина)"),
    (r'id="card-([a-z0-9_]+)">\n<span class="copies">×\d+ · \1<', "a card's id beside its copies"),
]


_BUILT: dict = {}


def built(folder):
    """(tables, {file name: text}) of a game's books in every language it declares."""
    if folder not in _BUILT:
        text, _gid, report = compile_game(os.path.join(ROOT, folder))
        assert text is not None, "\n".join(d.text() for d in report.errors[:5])
        tables, marks = read(text)
        where = os.path.join(ROOT, folder)
        _BUILT[folder] = tables, books(tables, marks, environment(where), languages_of(tables), examples=examples(where))
    return _BUILT[folder]


def _md(folder, lang):
    return built(folder)[1][f"rulebook.{lang}.md"]


def _langs(folder):
    return languages_of(built(folder)[0])


@pytest.mark.parametrize("folder", GAMES)
def test_no_book_holds_a_banned_pattern(folder):
    found = []
    for name, text in built(folder)[1].items():
        for pattern, what in BANNED:
            for m in re.finditer(pattern, text):
                found.append(f"{name}: {what}: {text[max(0, m.start() - 40):m.end() + 40]!r}")
    assert not found, "\n".join(found[:20])


@pytest.mark.parametrize("folder", GAMES)
def test_what_a_turn_allows_is_what_the_phase_says(folder):
    tables, _ = built(folder)
    for lang in _langs(folder):
        L, md = catalogue(lang).labels, _md(folder, lang)
        book = Book(tables, lang)
        for ph in tables["flow"]["phases"]:
            if ph.get("mode") != "turns":
                continue
            said = book._turn_of_actions(ph)
            for line in said:
                assert line in md, (lang, ph["id"], line)
            cp = ph.get("can_pass")
            passing = L["pass_never"] if cp is not None and cp[:1] == ["num"] and cp[2] is False else None
            if cp is None:
                passing = L["pass_free"]
            if passing:
                assert passing in said
            if cp is not None and cp[:1] == ["num"] and cp[2] is False:
                assert L["pass_free"] not in md, f"{lang}: passing is off in {ph['id']} but the book offers it"
            if ph.get("max_actions") and not ph.get("rotate"):
                assert L["max_actions"].format(n=catalogue(lang).counted("action", ph["max_actions"])) in md


@pytest.mark.parametrize("folder", GAMES)
def test_the_end_of_the_game_is_said_as_the_flow_has_it(folder):
    tables, _ = built(folder)
    flow = tables["flow"]
    for lang in _langs(folder):
        book = Book(tables, lang)
        turn = book.turn()
        rounds = flow.get("rounds")
        lasts = book._say("rounds", n=rounds) if rounds else None
        if rounds and not flow.get("rounds_cap"):
            assert turn["intro"].startswith(lasts)
            assert book._say("end_rounds" if flow.get("end") else "end_rounds_only") in turn["end"]
        else:
            assert lasts is None or lasts not in _md(folder, lang), f"{lang}: a safety cap printed as the game's length"
            assert not any(e in (book._say("end_rounds"), book._say("end_rounds_only")) for e in turn["end"])
        if flow.get("end_text"):  # (the designer's words; not "at once", which they may contradict)
            assert turn["end"][0] == catalogue(lang).labels["end_said"].format(c=book.tx(flow["end_text"]).rstrip("."))
        elif flow.get("end"):
            start = catalogue(lang).labels["end"].split("{c}")[0]
            assert turn["end"][0].startswith(start)


@pytest.mark.parametrize("folder", GAMES)
def test_action_limits_are_the_tables_limits(folder):
    tables, _ = built(folder)
    for lang in _langs(folder):
        book = Book(tables, lang)
        by_id = {a["id"]: a for a in book.actions()}
        limit = catalogue(lang).labels["limit"]
        for aid, a in tables["actions"].items():
            said = [i for i in by_id[aid]["info"] if i.startswith(limit.split("{n}")[0])]
            if a.get("limit"):
                assert said == [limit.format(n=book._times(a["limit"], "time"))], (lang, aid)
            else:
                assert not said, (lang, aid)


@pytest.mark.parametrize("folder", GAMES)
def test_component_counts_and_owners_are_the_tables(folder):
    tables, _ = built(folder)
    protos = tables["protos"]
    for lang in _langs(folder):
        book = Book(tables, lang)
        W, L = catalogue(lang), catalogue(lang).labels
        labels = [c["label"] for c in book.components()]
        for did, d in tables["decks"].items():
            n = sum(p["count"] for p in protos.values() if p.get("deck") == did)
            label = next(lb for lb in labels if lb.startswith(book.name(did)))
            if n:
                assert label.startswith(W.say("deck_of", name=book.name(did), n=n)), (lang, label)
            owner = d.get("of", "game")
            assert (L["per_player"] in label) == (owner == "player"), (lang, label)
            if owner not in ("game", "player"):
                assert L["per_kind"].format(each=book._renderer().each_of(owner)) in label
        for pid, pool in tables["pools"].items():
            assert any(lb.startswith(W.say("pool_of", name=book.name(pid), n=pool["total"])) for lb in labels), lang


@pytest.mark.parametrize("folder", GAMES)
def test_every_scenario_marked_as_an_example_is_in_every_book_as_an_example_box(folder):
    marked = examples(os.path.join(ROOT, folder))
    for lang in _langs(folder):
        md, page = _md(folder, lang), built(folder)[1][f"rulebook.{lang}.html"]
        for ex in marked:
            assert f"> **{ex['title'][lang]}**" in md, (lang, ex["file"])
            assert f'<div class="example" id="example-{ex["file"][:-5]}">' in page, (lang, ex["file"])


@pytest.mark.parametrize("folder, seed_examples", [("content/night-city", 7), ("content/study-in-emerald", 3)])
def test_the_seeds_worked_examples_are_in_the_books(folder, seed_examples):
    assert len(examples(os.path.join(ROOT, folder))) >= seed_examples


@pytest.mark.parametrize("folder, seed_examples", [("content/arkham-horror", 26), ("content/android", 11)])
def test_every_numbered_worked_example_of_the_seed_is_an_example_box(folder, seed_examples):
    """Games whose seed numbers its worked examples keep them in scenarios named exNN_…: each
    number is marked as an example at least once (a variant, exNNb, may stand for it)."""
    marked = {re.match(r"ex(\d+)", ex["file"]).group(1) for ex in examples(os.path.join(ROOT, folder))
              if re.match(r"ex\d+", ex["file"])}
    assert sorted(int(n) for n in marked) == list(range(1, seed_examples + 1))
