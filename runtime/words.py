"""The runtime's own words: the few phrases it writes into a game's log and into the labels
of options, in both languages, in one table.

A state's log and its decisions are part of what a recorded game is (its hash), so these
words are data like the content's and never change with how a game is shown. How anything
is shown to a person (the terminal, the online table, the rulebook) is said above the
runtime, in `rulepress/`. Content's words reach a phrase only as its parameters.
"""
from __future__ import annotations

from .state import zone_name, zone_owner

WORDS = {
    "player": {"en": "Player {n}", "ru": "Игрок {n}"},
    "players_place": {"en": "Player {n}'s {place}", "ru": "{place} игрока {n}"},
    "handle": {"en": "{kind} {i} of {place}", "ru": "{kind} {i}: {place}"},  # a hidden thing offered
    "none": {"en": "none", "ru": "ничего"},
    "yes": {"en": "Yes", "ru": "Да"},
    "no": {"en": "No", "ru": "Нет"},
    "pass": {"en": "Pass", "ru": "Пас"},
    "and": {"en": " and ", "ru": " и "},  # the last of a list of values in a text
    "a": {"en": "a ", "ru": ""},  # before the kind of an unnamed thing: "a card"
    # log lines the flow writes: a line keeps its English `text` and, in a game written in
    # Russian too, its Russian beside it (`ru`), each made once, as it is written
    "passes": {"en": "{player} passes", "ru": "{player} пасует"},
    "takes": {"en": "{player}: {action}", "ru": "{player}: {action}"},
    "cannot": {"en": "{player}: {action} cannot be done", "ru": "{player}: нельзя выполнить «{action}»"},
    "game_over": {"en": "game over: {scores}", "ru": "конец игры: {scores}"},
    "cannot_now": {"en": "this cannot be done now", "ru": "сейчас это сделать нельзя"},  # a `fail` without a reason
}
KINDS = {"ru": {"card": "карта", "token": "жетон", "piece": "фигура"}}  # a thing's kind, said
# the seats' names, made once (a seat is said in most lines of a log and labels of options)
SEATS = {f"p{n}": {lang: text.format(n=n) for lang, text in WORDS["player"].items()} for n in range(1, 65)}


def both(key: str, **params) -> dict:
    """A phrase in each of its languages, {"en": ..., "ru": ...}."""
    return {lang: text.format(**params) for lang, text in WORDS[key].items()}


def say(key: str, **params) -> str:
    """A phrase in English."""
    return WORDS[key]["en"].format(**params)


def player_name(p: str, lang: str = "en") -> str:
    """A seat as the log says it: p2 is "Player 2" ("Игрок 2")."""
    return WORDS["player"][lang].format(n=p[1:])


def line(game, round_no, key: str, **params) -> dict:
    """A log line of the flow's: {"r", "text"} in English and, for a game written in Russian,
    `ru`. A parameter is a value (a seat, an action, ...: said by label_of in each language)
    or a function of the language giving its words."""
    said = {k: v if callable(v) else _named(game, v) for k, v in params.items()}
    entry = {"r": round_no, "text": WORDS[key]["en"].format(**{k: v("en") if callable(v) else v[0] for k, v in said.items()})}
    if game.russian:
        entry["ru"] = WORDS[key]["ru"].format(**{k: v("ru") if callable(v) else v[1] for k, v in said.items()})
    return entry


def _named(game, v) -> tuple:
    """A value's words, (English, Russian)."""
    lab = label_of(game, v)
    en = lab.get("en") or str(v)
    return en, lab.get("ru") or en


def bilingual(text: str) -> tuple:
    """A content text that carries both languages, "English / Русский", as (en, ru); ru is
    None where it has one language only."""
    en, sep, ru = text.partition(" / ")
    return (en.strip(), ru.strip()) if sep else (text, None)


def label_of(game, v) -> dict:
    """A value as an option's label, in both languages: a thing or kind by its name, a
    seat as a player, an action by its name, yes/no/none in words, an id-like value by the
    game's `terms:`."""
    if v is None:
        return both("none")
    if v is True or v is False:
        return both("yes" if v else "no")
    if isinstance(v, str) and v in game.proto_of:
        p = game.protos[game.proto_of[v]]
        return p.get("name") or {"en": v}
    if isinstance(v, str) and v in game.protos:  # a card of several copies named as its type: `baron`
        return game.protos[v].get("name") or {"en": v}
    if isinstance(v, str) and v.startswith("p") and v[1:].isdigit():
        return SEATS.get(v) or both("player", n=v[1:])
    if isinstance(v, str) and v in game.actions:
        return game.actions[v]["name"]
    if isinstance(v, str) and isinstance(game.terms.get(v), dict):  # an id-like value the game names
        return {lang: w if isinstance(w, str) else w.get("nom", "") for lang, w in game.terms[v].items()}
    return {"en": str(v), "ru": str(v)}


def place_label(game, key: str) -> dict:
    """Zone `key` as a label: "Player 2's Hand"."""
    name, owner = zone_name(key), zone_owner(key)
    table = game.zones.get(name) or game.decks.get(name) or game.pools.get(name) or {}
    lab = table.get("name") or {}
    en, ru = lab.get("en") or name, lab.get("ru") or lab.get("en") or name
    if owner and owner[1:].isdigit():
        return {"en": say("players_place", n=owner[1:], place=en),
                "ru": WORDS["players_place"]["ru"].format(n=owner[1:], place=ru)}
    return {"en": en, "ru": ru}


def handle_label(kind: str, i: int, place: dict, said=None) -> dict:
    """A hidden thing offered by where it lies: "card 2 of Player 2's Hand". `said`: the
    kind in the game's words, where its `terms:` name it ("Omen 2 of Player 2's Hand")."""
    said = said or {}
    return {lang: WORDS["handle"][lang].format(kind=said.get(lang) or KINDS.get(lang, {}).get(kind, kind), i=i, place=place[lang])
            for lang in ("en", "ru")}
