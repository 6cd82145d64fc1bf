"""Print-and-play components beyond cards: tokens as punch sheets, the board's locations as
tiles, and player aids: the turn summary (each phase and the actions in it) beside what is a
player's own. A game whose `scoring: faction:` leads to things a player plays as (`factions`)
has an aid for each of them: its name, its text, its attributes and the things that are its
(the pieces, cards and tokens whose attributes name it), beside the turn summary; where a
faction is a side several players share (the game has more than one copy of it), each seat's
aid lists every side instead, so that a secret side is not told by the aid a player holds. A
game without factions has the same aid for each seat.

A token is every piece and pool token with a name in words, as many as the game has, a
20 mm disc with its name's initial big, its value where it has one (an evidence token's +4),
and its name small; the locations are tiles with their attributes, what activating one does,
and where one leads; an aid is a half page, cut apart."""
from __future__ import annotations

from .cards import PAPER, _hue, iconized
from .factions import factions
from .pictures import Pictures
from .render import Names, text_of
from .rulebook import Book, environment, rendered
from .wording import catalogue

TOKEN = 20.0              # mm: a token's diameter
TOKEN_GAP = 3.0           # mm between two tokens' cuts
TILE_W, TILE_H = 63.0, 44.0
MARGIN = 10.0


def _named(tables: dict, pid: str) -> bool:
    """A thing a player handles has a name in words; one named by its id only is the rules' own."""
    name = (tables.get("protos") or {}).get(pid, {}).get("name") or {}
    return bool(name) and name != {"en": pid}


def tokens(tables: dict, lang: str) -> list[dict]:
    """Every token and piece, once per copy, in their order of declaration."""
    names = Names(tables)
    out = []
    for pid, p in (tables.get("protos") or {}).items():
        if p.get("section") not in ("tokens", "pieces") or not _named(tables, pid):
            continue
        name = names.name(pid, lang)
        value = (p.get("attrs") or {}).get("value")
        value = f"{value:+g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
        group = p.get("pool") or p.get("kind") or "token"
        out += [{"id": pid, "name": name, "initial": (name.strip()[:1] or "?").upper(), "value": value,
                 "hue": _hue(group)}] * max(1, p.get("count", 1))
    return out


def tiles(tables: dict, lang: str, pictures: Pictures) -> list[dict]:
    """The board's locations, each a tile: its name, its attributes in words, what activating
    it does (its text) and the places next to it."""
    names = Names(tables)
    book = Book(tables, lang)
    out = []
    for lid, loc in (tables.get("locations") or {}).items():
        p = (tables.get("protos") or {}).get(lid) or {}
        attrs = {k: v for k, v in (p.get("attrs") or {}).items() if names.has_term(k) or k in (names.counters or {})}
        activation = text_of((p.get("activation") or {}).get("text"), lang)
        out.append({"id": lid, "name": names.name(lid, lang), "attrs": book.attrs(attrs) if attrs else [],
                    "text": iconized(text_of(p.get("text"), lang) or activation, tables, lang, pictures),
                    "next": [names.name(a, lang) for a in loc.get("adjacent") or []], "hue": _hue(lid)})
    return out


def aid(tables: dict, lang: str, pictures: Pictures) -> dict:
    """The turn summary: each phase (its name, how many actions), and each action's name and text."""
    names = Names(tables)
    actions = tables.get("actions") or {}
    phases = []
    for ph in (tables.get("flow") or {}).get("phases") or []:
        acts = [{"name": text_of(actions[a].get("name"), lang, names.name(a, lang)),
                 "text": iconized(text_of(actions[a].get("text"), lang), tables, lang, pictures)}
                for a in ph.get("actions") or [] if a in actions]
        most = ph.get("max_actions")
        phases.append({"name": text_of(ph.get("name"), lang, names.name(ph.get("id", ""), lang)),
                       "most": catalogue(lang).say("aid_actions", n=most) if isinstance(most, int) else "", "actions": acts})
    return {"phases": phases}


_OWN_LABEL = {"pieces": "aid_own_pieces", "cards": "aid_own_cards", "tokens": "aid_own_tokens"}


def faction_aids(tables: dict, lang: str, pictures: Pictures) -> tuple[list[dict], bool]:
    """Each faction as its aid shows it (by name), and whether they are sides several players
    share (then every seat's aid shows them all)."""
    names = Names(tables)
    book = Book(tables, lang)
    L = catalogue(lang).labels
    protos = tables.get("protos") or {}
    out, shared = [], False
    for fid in factions(tables):
        p = protos[fid]
        shared = shared or p.get("count", 1) > 1
        name = names.name(fid, lang)
        attrs = {k: v for k, v in (p.get("attrs") or {}).items() if names.has_term(k) or k in (names.counters or {})}
        # (an attribute that only says the faction's name again says nothing)
        said = [(k[:1].upper() + k[1:], v) for k, v in book.attrs(attrs) if v != name] if attrs else []
        own: dict[str, list[str]] = {}
        for oid, o in protos.items():
            if oid != fid and o.get("section") in _OWN_LABEL and _named(tables, oid) and any(
                    v == fid or (isinstance(v, list) and fid in v) for v in (o.get("attrs") or {}).values()):
                n = max(1, o.get("count", 1))
                own.setdefault(L[_OWN_LABEL[o["section"]]], []).append(
                    f"{n} × {names.name(oid, lang)}" if n > 1 else names.name(oid, lang))
        kind = names.term(p.get("kind", ""), lang)
        out.append({"id": fid, "name": name, "kind": kind[:1].upper() + kind[1:], "hue": _hue(fid),
                    "text": iconized(text_of(p.get("text"), lang), tables, lang, pictures),
                    "attrs": said, "own": sorted(own.items())})
    return sorted(out, key=lambda f: f["name"].strip("\"'«»“”„ ").casefold()), shared


def render_components(tables: dict, lang: str, paper: str = "a4", game_folder: str | None = None) -> str | None:
    """The tokens, the board's tiles and the player aids as one HTML document; None when the
    game has none of them."""
    pictures = Pictures(game_folder)
    toks, board, summary = tokens(tables, lang), tiles(tables, lang, pictures), aid(tables, lang, pictures)
    sides, shared = faction_aids(tables, lang, pictures)
    if not toks and not board and not sides and not any(ph["actions"] for ph in summary["phases"]):
        return None
    pw, ph = PAPER[paper]
    per_row = int((pw - 2 * MARGIN + TOKEN_GAP) // (TOKEN + TOKEN_GAP))
    rows = int((ph - 2 * MARGIN - 10 + TOKEN_GAP) // (TOKEN + TOKEN_GAP))
    tile_cols, tile_rows = int((pw - 2 * MARGIN) // TILE_W), int((ph - 2 * MARGIN - 10) // TILE_H)
    seats = max(1, ((tables.get("game") or {}).get("players") or {}).get("max", 1))
    # (an aid for each faction; or, for shared sides or none, the same aid for each seat)
    aids = [[f] for f in sides] if sides and not shared else [sides] * seats
    game = tables.get("game") or {}
    env = environment(game_folder)
    return rendered(env, "components.html.j2", dict(
        lang=lang, paper_w=pw, paper_h=ph, margin=MARGIN, token=TOKEN, gap=TOKEN_GAP, tile_w=TILE_W, tile_h=TILE_H,
        token_pages=[toks[i:i + per_row * rows] for i in range(0, len(toks), per_row * rows)],
        tile_pages=[board[i:i + tile_cols * tile_rows] for i in range(0, len(board), tile_cols * tile_rows)],
        aid=summary, shared=shared, aid_pages=[aids[i:i + 2] for i in range(0, len(aids), 2)]
        if any(p["actions"] for p in summary["phases"]) or sides else [],
        title=text_of(game.get("name"), lang, ""), L=catalogue(lang).labels))
