"""What a seat reads at the online table comes in the page's language: on a Russian page of a
content game written in Russian, the log's lines (the flow's, through the runtime's phrases,
and the content's, through its own "English / Русский" texts) and every prompt and option of
its decisions are Russian, whatever game was played.

The scan plays random games and reads each deciding seat's part of its `table` message (as
the server sends it: rulepress/table/messages) on a Russian page. An English word is a run of
three or more Latin letters that no Russian text of the game itself uses (the game's proper
names in Latin, "XBD" or "NetWatch", are its own Russian words); a raw id has an underscore."""
from __future__ import annotations

import re

import pytest
from conftest import game_from

from rulepress.runtime import agents
from rulepress.runtime.decision import Decision
from rulepress.runtime.flow import apply, choices, new_game
from rulepress.runtime.interpreter import Interp
from rulepress.runtime.text import Said, Text
from rulepress.runtime import words
from rulepress.table import messages
from rulepress.table.engine import _Snapshot

GAMES = ["content/android", "content/arkham-horror", "content/night-city", "content/study-in-emerald",
         # the examples written in both languages (banquet and lanterns are English alone)
         "docs/examples/coup", "docs/examples/love-letter"]
LATIN = re.compile(r"(?<![^\W\d_])[A-Za-z]{3,}(?![^\W\d_])|\b[a-z]+(?:_[a-z0-9]+)+\b")


def _russian_words(game) -> set:
    """The Latin words the game's own Russian texts use (its proper names)."""
    out, todo = set(), [game.data]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if isinstance(x.get("ru"), str):
                out.update(re.findall(r"[A-Za-z]{3,}", x["ru"]))
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return out


def _read_in_russian(part) -> list:
    """(where, text) for what the page shows of a part in Russian (i18n.js `say`, table.js `logText`)."""
    out = [("log", ln.get("ru") or ln["text"]) for ln in part["log"]]
    if part.get("prompt"):
        out.append(("prompt", part["prompt"].get("ru") or part["prompt"]["en"]))
    out += [("option", o["label"].get("ru") or o["label"].get("en")) for o in part["options"]]
    return out


def _english(folder, seeds, decisions) -> dict:
    game = game_from(folder)
    names = _russian_words(game)
    found: dict = {}
    for seed in range(seeds):
        players = game.players_min + seed % (game.players_max - game.players_min + 1)
        st = new_game(game, players, f"words:{seed}")
        bots = {p: agents.RandomAgent(f"words:{seed}:{p}") for p in st["players"]}
        meta = {"version": 1, "status": "playing", "players": players, "hosts": {p: p == "p1" for p in st["players"]}}
        for _ in range(decisions):
            d = Decision.of(game, st)
            if d is None:
                break
            seat = d.waiting[0]
            part = messages._seat_part(_Snapshot("WORDS", game, st, meta), seat)
            for where, text in _read_in_russian(part):
                words = [w for w in LATIN.findall(text) if w not in names]
                if words:
                    found.setdefault(f"{where}: {re.sub(r'[0-9]+', 'N', text)}", sorted(set(words)))
            apply(game, st, agents.ask(game, st, bots[seat], seat, choices(game, st, seat)), seat)
    return found


@pytest.mark.parametrize("name", GAMES)
def test_a_russian_page_reads_the_log_and_the_decisions_in_russian(name):
    found = _english(name, seeds=3, decisions=250)
    assert not found, "\n".join(f"{k}  {v}" for k, v in sorted(found.items())[:40])


def test_the_flows_own_lines_are_said_in_each_language(duel):
    """The flow's phrases (a turn taken, a pass, the end) come from the runtime's table in
    both languages; a game written in English only keeps its lines English."""
    aid = next(iter(duel.actions))
    took = words.line(duel, 1, "takes", player="p2", action=aid)
    assert took["text"] == f"Player 2: {words.label_of(duel, aid)['en']}"
    assert took["ru"] == f"Игрок 2: {words.label_of(duel, aid)['ru']}"
    assert words.line(duel, 1, "passes", player="p1")["ru"] == "Игрок 1 пасует"
    duel.russian = False
    try:
        assert "ru" not in words.line(duel, 1, "passes", player="p1")
    finally:
        duel.russian = True


def test_an_id_like_value_in_a_log_line_reads_as_the_games_term():
    """Study in Emerald logs a revealed side (`side_of(p)`, "loyal"): it reads as the game's
    word for it, in each language, never as the id."""
    game = game_from("content/study-in-emerald")
    it = Interp(game, new_game(game, 2, "words"))
    line = Text((Said("p2"), Said(" is revealed: "), "loyal", Said(" / "), Said("p2"), Said(" раскрыт: "), "loyal"))
    assert it.spoken(line, []) == ("p2 is revealed: Loyalist", "p2 раскрыт: Лоялисты")


def test_a_thing_a_seat_may_not_see_is_unnamed_in_its_language():
    """A line naming a card kept from some seat reads "a card" to it, "карта" in Russian."""
    game = game_from("content/study-in-emerald")
    st = new_game(game, 2, "words")
    it = Interp(game, st)
    card = next(x for x in st["things"] if game.kind_of.get(x) == "card")
    line = Text((Said("drawn: "), card, Said(" / "), Said("взята: "), card))
    assert it.spoken(line, [], True) == ("drawn: a card", "взята: карта")
