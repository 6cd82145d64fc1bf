"""Effect IR as rules text, in English and Russian.

Reads the same IR the runtime runs (`[op, pos, *args]`) and says it in words, using the
content's own names (counters, zones, cards, locations) in the reader's language. Russian
needs cases: every rendered phrase carries its six case forms, and names are declined
when their ending makes the declension certain; otherwise a generic head noun carries
the case and the name stands in quotes («колода «Мифы»»), which is always grammatical.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..runtime import ir
from ..runtime.ir import EXPRESSIONS, FUNCTIONS, view
from . import inflection
from .wording import catalogue, languages


LANGS = languages()  # one a message catalogue (compiler/messages/<lang>.yaml)
_WORD_ID = re.compile(r"[a-z][a-z0-9_]*").fullmatch  # `"drone"`, `"one_use"`: a value that is an id, not words
_ID_LIKE = re.compile(r"[a-z][a-z0-9]*_[a-z0-9_]*").fullmatch  # `"one_use"`: an id, not words
CASES = {"n": 0, "g": 1, "d": 2, "a": 3, "i": 4, "p": 5}
INDENT = "  "
EXPR_OPS = tuple(EXPRESSIONS)  # every expression of the IR: each has its words (a _x_ method)


# ---- phrases with case forms ------------------------------------------------

class Ph:
    """A noun phrase: its forms in the six Russian cases (English uses the first)."""
    __slots__ = ("f", "gender")

    def __init__(self, n, forms=None, gender=None):
        self.f = tuple(forms) if forms else (str(n),) * 6
        self.gender = gender

    def __str__(self):
        return self.f[0]

    def c(self, case: str) -> str:
        return self.f[CASES[case]]

    def then(self, tail: str) -> "Ph":
        """The head declines, the tail stays: «число карт» -> «числа карт»."""
        return Ph(None, [f + tail for f in self.f], self.gender)

    def after(self, head: "Ph") -> "Ph":
        return Ph(None, [h + " " + f for h, f in zip(head.f, self.f)], self.gender)


_DETERMINED = re.compile(r"\bthe (?=(?:the|that|this|these|those|your|its|their) )")


def _fixed(s) -> Ph:
    # (an English noun that already has its determiner takes no article before it:
    # "the that card" is "that card", whatever phrase put the two together)
    return Ph(_DETERMINED.sub("", str(s)))


def ru_declined(name: str, given: dict | None = None):
    """A Russian name with its case forms (adjectives before the noun agree), or None: the
    forms a game gives by hand for it first (`name: {ru: {nom: …, gen: …}}`), else pymorphy3's."""
    if given and name in given:
        forms = inflection.given(given[name])
        return Ph(None, forms, given[name].get("gender") or (inflection.declined(name) or ((), "m"))[1])
    found = inflection.declined(name)
    return Ph(None, found[0], found[1]) if found else None


_RU_POSS = {
    "m": ("ваш", "вашего", "вашему", "ваш", "вашим", "вашем"),
    "f": ("ваша", "вашей", "вашей", "вашу", "вашей", "вашей"),
    "n": ("ваше", "вашего", "вашему", "ваше", "вашим", "вашем"),
    "pl": ("ваши", "ваших", "вашим", "ваши", "вашими", "ваших"),
}


def _ru(word: str) -> Ph:
    d = ru_declined(word)
    assert d is not None, word
    return d


def ru_count(n, one, few, many) -> str:
    """Russian numeral agreement: 1 карта, 2 карты, 5 карт (by the plural rules of ru.yaml;
    a count that is no whole number takes the form of many)."""
    return {"one": one, "few": few}.get(catalogue("ru").category(n) if type(n) is int else "many", many)


def humanize(ident: str) -> str:
    return str(ident).replace("_", " ")


def quoted(s: str, lang: str) -> str:
    opening, closing = catalogue(lang).language["quotes"]
    return f"{opening}{s}{closing}"


def _russian(lang) -> bool:
    """Whether a language's effects are said by the Russian sentence builders (with cases)."""
    return catalogue(lang).prose == "ru"


# ---- names from the tables ---------------------------------------------------

def text_of(t, lang, default=""):
    """A player-facing {en, ru} text in one language (the other as a fallback)."""
    if isinstance(t, dict):
        return t.get(lang) or t.get("en") or t.get("ru") or default
    if t is None:
        return default
    return str(t)


_KIND_WORDS = frozenset(("card", "token", "piece", "location"))  # built-in kinds: names.kind_<it>
_HEADS_RU = {  # generic head nouns that carry the case for a quoted name
    "counter": "показатель", "zone": "зона", "deck": "колода", "pool": "мешок", "location": "локация",
    "card": "карта", "token": "жетон", "piece": "фишка", "action": "действие", "phase": "фаза",
    "procedure": "процедура", "option": "параметр", "event": "событие", "mark": "отметка",
}


class Names:
    """Content names for ids, from game.json tables."""

    def __init__(self, tables: dict):
        t = tables or {}
        self.t = t
        self.counters = t.get("counters") or {}
        self.zones = t.get("zones") or {}
        self.decks = t.get("decks") or {}
        self.pools = t.get("pools") or {}
        self.protos = t.get("protos") or {}
        self.actions = t.get("actions") or {}
        self.procedures = t.get("procedures") or {}
        self.icons = t.get("icons") or {}
        self.options = ((t.get("game") or {}).get("options") or {})
        # words for what has no declaration of its own to carry a name: kinds, attributes,
        # marks, options, procedures, events (game.yaml `game: terms:`)
        self.terms = ((t.get("game") or {}).get("terms") or {})
        self.raw: set = set()  # ids printed as they are, for want of a name (see rulebook.unnamed_terms)
        self.named_procedures: set = set()  # procedures a text names (carried out, or their result read)
        self.phases = {p["id"]: p for p in ((t.get("flow") or {}).get("phases") or [])}
        self.discards = {d["discard"]: did for did, d in self.decks.items() if d.get("discard") not in self.zones}
        self.round_name = (t.get("flow") or {}).get("round_name") or {"en": "Round", "ru": "Раунд"}
        self.forms = t.get("forms") or {}  # language -> a name -> its case forms given by hand
        # The tables do not change while they are named: each answer is worked out once.
        self._kinds: dict = {}
        self._names: dict = {}
        self._attrs: dict = {}
        self._phrases: dict = {}

    def kind_of(self, ident):
        """What an id names: counter, zone, deck, discard, pool, location, card, token, piece, action, …"""
        try:
            return self._kinds[ident]
        except KeyError:
            k = self._kinds[ident] = self._kind_of(ident)
            return k

    def _kind_of(self, ident):
        if ident in self.counters:
            return "counter"
        if ident in self.zones:
            return "zone"
        if ident in self.decks:
            return "deck"
        if ident in self.discards:
            return "discard"
        if ident in self.pools:
            return "pool"
        if ident in self.protos:
            p = self.protos[ident]
            return {"locations": "location", "cards": "card", "tokens": "token", "pieces": "piece"}.get(p.get("section"), "card")
        if ident in self.actions:
            return "action"
        if ident in self.phases:
            return "phase"
        if ident in self.procedures:
            return "procedure"
        if ident in self.options:
            return "option"
        return None

    def name(self, ident, lang) -> str:
        """The display name of an id in a language; ids with no name read as words."""
        key = (ident, lang)
        try:
            return self._names[key]
        except KeyError:
            n = self._names[key] = self._name(ident, lang)
            return n

    def _name(self, ident, lang) -> str:
        for table in (self.counters, self.zones, self.decks, self.pools, self.protos, self.actions, self.phases, self.icons):
            if ident in table and table[ident].get("name"):
                return text_of(table[ident]["name"], lang, humanize(ident))
        if ident in self.discards:
            deck = self.name(self.discards[ident], lang)
            return f"Сброс колоды «{deck}»" if _russian(lang) else f"{deck} discard pile"
        return self.term(ident, lang)

    def term(self, ident, lang) -> str:
        """The word for an id from the game's terms, or the id in words (which the checker
        warns of where a rulebook prints it)."""
        t = self.terms.get(ident)
        if t:
            return text_of(t, lang, humanize(ident))
        if ident in _KIND_WORDS:  # the built-in kinds have words of their own
            return catalogue(lang).names["kind_" + ident]
        self.raw.add(ident)
        return humanize(ident)

    def has_term(self, ident) -> bool:
        return bool(self.terms.get(ident))

    def procedure_name(self, pid, lang) -> str:
        """A procedure's short name: its term, its text up to the first stop, or its id in words."""
        if ident_named := self.terms.get(pid):
            return text_of(ident_named, lang, humanize(pid))
        text = text_of((self.procedures.get(pid) or {}).get("text"), lang)
        short = re.split(r"[:;.(]| — ", text, maxsplit=1)[0].strip() if text else ""
        # «SIE-061/062» is a reference, not a name; «cell c» names its parameter
        if 3 <= len(short) <= 60 and not re.search(r"\d|(?<![\w'’-])[b-z](?![\w-])", short):
            return short
        return self.term(pid, lang)

    def attr_name(self, attr, lang) -> str:
        """A fixed attribute, named by an icon or counter of the same id when there is one."""
        key = (attr, lang)
        try:
            return self._attrs[key]
        except KeyError:
            n = self._attrs[key] = self._attr_name(attr, lang)
            return n

    def _attr_name(self, attr, lang) -> str:
        if self.terms.get(attr):
            return text_of(self.terms[attr], lang, humanize(attr))
        for table in (self.icons, self.counters, self.zones, self.decks):
            if attr in table and table[attr].get("name"):
                return text_of(table[attr]["name"], lang, humanize(attr))
        return self.term(attr, lang)

    def phrase(self, ident, lang, declinable=True) -> Ph:
        """An id as a noun phrase: the name itself when it declines safely, else head «name»."""
        key = (ident, lang, declinable)
        try:
            return self._phrases[key]  # phrases are never changed in place: `then` and `after` make new ones
        except KeyError:
            ph = self._phrases[key] = self._phrase(ident, lang, declinable)
            return ph

    def _phrase(self, ident, lang, declinable=True) -> Ph:
        kind = self.kind_of(ident)
        name = self.name(ident, lang)
        if not _russian(lang):
            return _fixed(name)
        head = _HEADS_RU.get(kind or "", None)
        if declinable and (kind in ("counter", "zone") or (head and head[:4] in name.lower())):
            d = ru_declined(name, self.forms.get(lang))  # «Тёмная колода» needs no «колода» in front
            if d is not None:
                return d
        if kind == "discard":
            return _ru("сброс").then(" колоды «" + self.name(self.discards[ident], lang) + "»")
        if head is None:
            return _fixed(name)
        return _ru(head).then(f" «{name}»")


# ---- the renderer -------------------------------------------------------------

_THIS = frozenset(("cards", "pieces", "locations", "tokens", "actions", "counters"))  # `this` by section: names.this_<it>
_BUILTIN = frozenset(("player", "players", "others", "first_player", "player_count", "supply", "removed", "here", "owner",
                      "old", "new", "phase", "origin"))  # names the rules know: their words are the catalogue's
_BUILTIN_ATTR = {
    "id": ("the id of {x}", "идентификатор {x}"), "type": ("the kind of card of {x}", "тип {x}"),
    "kind": ("the kind of {x}", "вид {x}"), "name": ("the name of {x}", "название {x}"),
    "zone": ("the place of {x}", "место {x}"), "location": ("the location of {x}", "локация {x}"),
    "owner": ("the owner of {x}", "владелец {x}"), "face_up": ("{x} is face up", "{x} лицом вверх"),
    "contents": ("what is on {x}", "содержимое {x}"), "seat": ("the seat of {x}", "место за столом {x}"),
}
_BUILTIN_ATTR_RU_HEAD = {"id": "идентификатор", "type": "тип", "kind": "вид", "name": "название",
                         "zone": "место", "location": "локация", "owner": "владелец", "contents": "содержимое",
                         "seat": "место"}
_BUILTIN_ATTR_RU_GENDER = {"название": "n", "место": "n", "локация": "f", "содержимое": "n"}  # others: m
_UNTIL = ("turn", "round", "game", "next_turn")  # how long a mark lasts: sentences until_<it>
_CMP_EN = {"==": "is", "!=": "is_not", "<": "less", "<=": "at_most", ">": "more", ">=": "at_least"}  # their sentences
_ARITH = {"+": "+", "-": "−", "*": "×", "/": "/", "%": "mod"}


class Noun(NamedTuple):
    """What a name given by a loop, a choice or `let` stands for, so the rules text says
    «that card» where the effect says `c`: English singular and plural, the six Russian
    case forms, the Russian gender (m, f, n; "ma" for animate masculine) and the Russian
    genitive plural («карт»)."""
    en: str
    en_pl: str
    ru: tuple
    gender: str
    ru_pl_g: str


def _noun(en, ru_forms, gender, ru_pl_g, en_pl=None) -> Noun:
    return Noun(en, en_pl or en + "s", tuple(ru_forms), gender, ru_pl_g)


_NOUNS = {
    "player": _noun("player", ("игрок", "игрока", "игроку", "игрока", "игроком", "игроке"), "ma", "игроков"),
    "card": _noun("card", ("карта", "карты", "карте", "карту", "картой", "карте"), "f", "карт"),
    "location": _noun("location", ("локация", "локации", "локации", "локацию", "локацией", "локации"), "f", "локаций"),
    "piece": _noun("piece", ("фишка", "фишки", "фишке", "фишку", "фишкой", "фишке"), "f", "фишек"),
    "token": _noun("token", ("жетон", "жетона", "жетону", "жетон", "жетоном", "жетоне"), "m", "жетонов"),
    "thing": _noun("thing", ("предмет", "предмета", "предмету", "предмет", "предметом", "предмете"), "m", "предметов"),
    "tally": _noun("tally", ("счётчик", "счётчика", "счётчику", "счётчик", "счётчиком", "счётчике"), "m", "счётчиков",
                   "tallies"),
    "result": _noun("result", ("результат", "результата", "результату", "результат", "результатом", "результате"), "m",
                    "результатов"),
}
_KIND_NOUNS = {"cards": "card", "locations": "location", "pieces": "piece", "tokens": "token"}
_RU_THAT = {  # «этот» by gender, six cases (the accusative of an animate masculine is its genitive)
    "m": ("этот", "этого", "этому", "этот", "этим", "этом"), "ma": ("этот", "этого", "этому", "этого", "этим", "этом"),
    "f": ("эта", "этой", "этой", "эту", "этой", "этой"), "n": ("это", "этого", "этому", "это", "этим", "этом"),
}
_RU_OTHER = {
    "m": ("другой", "другого", "другому", "другой", "другим", "другом"),
    "ma": ("другой", "другого", "другому", "другого", "другим", "другом"),
    "f": ("другая", "другой", "другой", "другую", "другой", "другой"), "n": ("другое", "другого", "другому", "другое", "другим", "другом"),
}
_RU_EACH_G = {"m": "каждого", "ma": "каждого", "f": "каждой", "n": "каждого"}
_RU_ONE_G = {"m": "одного", "ma": "одного", "f": "одной", "n": "одного"}
_RU_CHOSEN = ("выбранное", "выбранного", "выбранному", "выбранное", "выбранным", "выбранном")


def _article(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


_NAME = ir.at("name", "name")
_FUNCTION = ir.at("call", "function")


def _name_of(node):
    """The name a `name` node reads, or None for any other value."""
    return node[_NAME] if type(node) is list and node and node[0] == "name" else None


def _sets(block, found: set) -> set:
    """Every name a `set` statement gives a new value anywhere in an effect (statements
    hold statements only in their blocks: nothing else is walked)."""
    for s in block or ():
        if s[0] == "set":
            name = _name_of(view(s).target)
            if name is not None:
                found.add(name)
        else:
            for body in ir.blocks(s):
                _sets(body, found)
    return found


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


class Renderer:
    """Renders IR in one language with one game's names. `this` is the section of the effect."""

    def __init__(self, tables: dict, lang: str = "en", this: str | None = None, said=None):
        prose = catalogue(lang).prose  # (CatalogueError where the language has none)
        self.names = tables if isinstance(tables, Names) else Names(tables)
        self.lang = lang
        self.ru = prose == "ru"
        self.W = catalogue(lang)  # the language's sentences (compiler/messages/<lang>.yaml)
        self.this = this
        self.locals: set[str] = set()
        self.nouns: dict[str, Ph] = {}  # a given name -> the words that say it («that card», or the value itself)
        self._live: list[Noun] = []   # the nouns of the names given so far, to tell two cards apart
        self.reassigned: set[str] = set()  # names that `set` changes in the effect being said
        self.numbers: dict[str, list] = {}  # names given a plain number: counted as that number
        self.problems: list[str] = []   # anything said clumsily because the IR was not understood
        self.said = said  # a said.Said shared by the renderers of one game and language, or None

    # -- public -----------------------------------------------------------------
    def lines(self, block) -> list[tuple[int, str]]:
        """Statements as (depth, sentence) lines: a line ending in `:` opens the deeper lines after it."""
        out: list[tuple[int, str]] = []
        try:
            self.reassigned = _sets(block or [], set())
        except (IndexError, KeyError, TypeError, ValueError):  # IR not understood: said clumsily below, not here
            self.reassigned = set()
        if self.said is None:
            self._block(block or [], 0, out)
        else:
            for s in block or []:
                self.said.lines(self, s, out)
        return out

    def scope(self):
        """What the words of a statement depend on besides the statement: the names given
        before it and what they stand for, and which names the effect changes."""
        return (tuple(sorted((k, v.f) for k, v in self.nouns.items())), tuple(n.en for n in self._live),
                tuple(sorted((k, repr(v)) for k, v in self.numbers.items())),
                frozenset(self.reassigned) if self.reassigned else None)

    def statement(self, s, out) -> None:
        """One top-level statement's lines, added to `out`."""
        self._block((s,), 0, out)

    def text(self, block) -> str:
        return "\n".join(INDENT * d + s for d, s in self.lines(block))

    def expr(self, e) -> str:
        return str(self._e(e))

    def condition(self, e) -> str:
        return _cap(str(self._cond(e)))

    # -- statements ---------------------------------------------------------------
    def _block(self, stmts, depth, out):
        for s in stmts:
            try:
                self._stmt(s, depth, out)
            except (IndexError, KeyError, TypeError, ValueError, AttributeError) as exc:
                self.problems.append(f"`{s[0]}` at {s[1] if len(s) > 1 else '?'}: {exc!r}")
                self._line(out, depth, humanize(s[0]))

    def _line(self, out, depth, text, opens=False):
        text = _cap(text.strip())
        if opens:
            text += ":"
        elif not text.endswith((".", "!", "?")):
            text += "."
        out.append((depth, text))

    def _who(self, e):
        """None for the acting player (imperative), else the phrase of another player."""
        if e is None or _name_of(e) == "player":
            return None
        return self._e(e)

    def _stmt(self, s, depth, out):
        op = s[0]
        n = view(s) if op in ir.STATEMENTS else None
        ru, E, S = self.ru, self._e, self.W.sentence
        L = lambda text, opens=False: self._line(out, depth, text, opens)
        if op == "let":
            v = E(n.value)
            found = self._found_noun(n.value)
            if n.name not in self.reassigned and found is None and not self._draws(n.value):
                self.locals.add(n.name)
                self.nouns[n.name] = v  # a value that never changes is said where it is used
                if n.value[:1] == ["num"]:
                    self.numbers[n.name] = n.value
                return
            if found is None or n.name in self.reassigned and found is not _NOUNS["player"]:
                found = _NOUNS["tally" if n.name in self.reassigned else "result"]
            ref = self._bind(n.name, found, the=found in (_NOUNS["tally"], _NOUNS["result"]))
            # (a value without its cases cannot follow «равен»: «результат — 3»)
            L(S("let_tally" if found is _NOUNS["tally"] else "let_uncased" if len(set(v.f)) == 1 else "let",
                ref=ref, value=v))
        elif op == "set":
            t = n.target
            target = self._counter_ref(_name_of(t), None) if _name_of(t) in self.names.counters else E(t)
            v = E(n.value)
            uncased = len(set(v.f)) == 1 and len(set(target.f)) > 1  # a value without its cases: «теперь X — Y»
            L(S("set_uncased" if uncased else "set", target=target, value=v))
        elif op in ("gain", "lose", "pay"):
            L(self._gain(op, n.amount, n.counter, n.target))
        elif op == "move":
            face = self._face(n.face)
            if self._is_you(n.thing):  # the acting player moves: «move to the Bank», «переместитесь в Банк»
                L(S("move_self", to=E(n.destination), face=face))
            else:
                L(S("move", x=E(n.thing), to=E(n.destination), face=face))
        elif op == "draw":
            L(self._draw(s))
        elif op == "discard":
            L(S("discard_bottom" if n.under else "discard", x=E(n.thing)))
        elif op == "shuffle":
            if n.into is not None:
                L(S("shuffle_into", x=E(n.pile), into=E(n.into)))
            else:
                L(S("shuffle", x=E(n.pile)))
        elif op in ("reveal", "conceal", "remove", "putback"):
            L(S(ir.STATEMENTS[op].sentence, x=E(n.thing)))
        elif op == "show":
            L(S("show", x=E(n.thing), whom=E(n.players)))
        elif op == "hide":
            L(S("hide", x=E(n.thing), whom=E(n.players)))
        elif op == "mark":
            until = S("until_" + n.until) if n.until in _UNTIL else ""
            L(S("mark", x=E(n.thing), mark=self._mark(n.mark), until=until))
        elif op == "unmark":
            L(S("unmark", x=E(n.thing), mark=self._mark(n.mark)))
        elif op == "fail":
            why = f": {self._said(n.reason)}" if n.reason else ""
            L(S("fail", why=why))
        elif op in ("endgame", "endturn", "stop"):
            L(S(ir.STATEMENTS[op].sentence))
        elif op == "log":
            # a line for the table's log tells what the rules around it do: no rule of its own.
            # A line only one player reads (`log X to P`) tells them something: that is said.
            if n.to is not None:
                L(S("log", x=E(n.message)))
        elif op == "emit":
            ev = quoted(self.names.term(n.event, self.lang), self.lang)
            args = "; ".join(S("emit_value", name=k, value=E(v)) for k, v in (n.given or {}).items())
            args = f" ({args})" if args else ""
            L(S("emit", event=ev, args=args))
        elif op == "perform":
            L(self._perform(n.thing, n.by))
        elif op == "offer":
            who = E(n.players) if n.players is not None else None
            actions = self.names.t.get("actions") or {}
            acts = [a for a, d in actions.items() if d.get("window") == n.window]
            w = S("either").join(quoted(text_of(actions[a].get("name"), self.lang, a), self.lang)
                                 for a in acts) or quoted(humanize(n.window), self.lang)
            whom = S("offer_to", who=who) if who else S("offer_to_others")
            L(S("offer", whom=whom, actions=w))
        elif op == "return":
            L(S("return", x=E(n.value)))
        elif op == "do":
            L(self._do(n.call))
        elif op == "swap":
            L(S("swap", x=E(n.first), y=E(n.second)))
        elif op == "if":
            for i, (cond, body) in enumerate(n.branches):
                L(S("if" if i == 0 else "else_if", c=self._cond(cond)), True)
                self._block(body, depth + 1, out)
            if n.otherwise:
                L(S("else"), True)
                self._block(n.otherwise, depth + 1, out)
        elif op == "for":
            src = self._source(n.collection)
            noun = self._noun_of(n.collection)
            mark = len(self._live)
            self._bind(n.name, noun)
            where = self._where(n.where)
            if ru:
                L(f"для {_RU_EACH_G[noun.gender]} {noun.ru[1]}{src[1]}{where}", True)
            else:
                L(f"for each {noun.en}{src[0]}{where}", True)
            self._block(n.body, depth + 1, out)
            del self._live[mark:]
        elif op == "repeat":
            count = view(n.times).value if n.times[0] == "num" else None
            if type(count) is float and count.is_integer():
                count = int(count)
            L(S("repeat", n=E(n.times), times=self.W.counted("repeat_time", count)), True)
            self._block(n.body, depth + 1, out)
        elif op == "while":
            L(S("while", c=E(n.condition)), True)
            self._block(n.body, depth + 1, out)
        elif op == "choose":
            mark = len(self._live)
            L(self._choose(s), True)
            self._block(n.body, depth + 1, out)
            del self._live[mark:]
            if n.otherwise:
                L(S("if_none_chosen"), True)
                self._block(n.otherwise, depth + 1, out)
        elif op == "may":
            who = self._who(n.by)
            prompt = f" ({quoted(self._said(n.prompt), self.lang)})" if n.prompt else ""
            if ru:
                L((f"{who.c('n')} может по желанию" if who else "по желанию") + prompt, True)
            else:
                L((f"{who} may" if who else "you may") + prompt, True)
            self._block(n.body, depth + 1, out)
            if n.otherwise:
                L(S("if_not"), True)
                self._block(n.otherwise, depth + 1, out)
        elif op == "secret":
            who_src, what_src = self._source(n.choosers), self._source(n.options)
            who_n, what_n = self._noun_of(n.choosers), self._noun_of(n.options)
            self._bind(n.chooser, who_n)
            self._bind(n.name, what_n)
            where = self._where(n.where)
            if ru:
                L(f"каждый {who_n.ru[0]}{who_src[1]} тайно выбирает {what_n.ru[3]}{what_src[1]}{where}; "
                  f"выбор открывается одновременно", True)
            else:
                L(f"each {who_n.en}{who_src[0]} secretly chooses {_article(what_n.en)}{what_src[0]}{where}; "
                  f"the choices are revealed together", True)
            self._block(n.body, depth + 1, out)
        else:
            self.problems.append(f"no words for statement `{op}`")
            L(humanize(op))

    def _face(self, face):
        if face is None:
            return ""
        return self.W.sentence("face_up" if face == "up" else "face_down")

    def _where(self, cond):
        if cond is None:
            return ""
        return self.W.sentence("where", c=self._e(cond))

    def _mark(self, mark):
        return quoted(self.names.attr_name(mark, self.lang), self.lang)

    def _counter_ref(self, counter, owner) -> Ph:
        """A counter of an owner (None: the game's, or the acting player's)."""
        c = self.names.phrase(counter, self.lang)
        if owner is None or _name_of(owner) == "player":
            if self.names.counters.get(counter, {}).get("of", "player") == "game" and owner is None:
                return c
            if self.ru:
                if c.gender in _RU_POSS:
                    return c.after(Ph(None, _RU_POSS[c.gender]))
                return c.then(" игрока")
            return _fixed(f"your {c}")
        o = self._e(owner)
        return c.then(" " + o.c("g")) if self.ru else _fixed(f"the {c} of {o}")

    def _gain(self, op, amount, counter, target):
        who = self._who(target)
        c = self.names.phrase(counter, self.lang)
        amount = self._number(amount)
        literal = amount[0] == "num" and not isinstance(view(amount).value, bool)
        key = op + ("" if literal else "_value") + ("_by" if who else "")
        return self.W.sentence(key, who=who or "", counter=c, n=view(amount).value if literal else "",
                               value="" if literal else self._e(amount))

    def _number(self, node):
        """A name given a plain number, as that number (`let n = 2` ... `gain n`: «gain 2»)."""
        name = _name_of(node)
        if name in self.numbers and name in self.locals:
            return self.numbers[name]
        return node

    def _draw(self, s):
        ru, E = self.ru, self._e
        d = view(s)
        amount, source, dest, face, as_ = d.amount, d.source, d.destination, d.face, d.name
        amount = self._number(amount) if amount is not None else None
        pool = (name := _name_of(source)) is not None and self.names.kind_of(name) == "pool"
        n = view(amount).value if amount is not None and amount[0] == "num" else (1 if amount is None else None)
        if ru:
            unit = ru_count(n, "жетон", "жетона", "жетонов") if pool else ru_count(n, "карту", "карты", "карт")
            count = f"{n} {unit}" if n is not None else f"{unit} — {E(amount).c('n')},"
            how = " наугад" if pool else ""
            text = f"возьмите{how} {count} из {E(source).c('g')}"
            if dest is not None:
                text += f" в {E(dest).c('a')}"
            text += self._face(face)
            if as_:
                self._bind(as_, _noun("drawn " + ("token" if pool else "card"),
                                      ("взятый жетон", "взятого жетона", "взятому жетону", "взятый жетон", "взятым жетоном", "взятом жетоне")
                                      if pool else ("взятая карта", "взятой карты", "взятой карте", "взятую карту", "взятой картой", "взятой карте"),
                                      "m" if pool else "f", "взятых"))
            return text
        unit = ("token" if pool else "card") + ("" if n == 1 else "s")
        count = f"{n} {unit}" if n is not None else f"{unit} equal to {E(amount)}"
        how = " at random" if pool else ""
        text = f"draw {count}{how} from {E(source)}"
        if dest is not None:
            text += f" into {E(dest)}"
        text += self._face(face)
        if as_:
            self._bind(as_, _noun("drawn " + ("token" if pool else "card"), _NOUNS["thing"].ru, "m", "взятых"))
        return text

    def _perform(self, thing, by):
        ru = self.ru
        who = self._who(by)
        name = _name_of(thing)
        if name is not None and name not in self.locals and self.names.kind_of(name) == "action":
            what = self.names.phrase(name, self.lang)
            obj = what.c("a") if ru else f"the action {quoted(str(what), 'en')}"
        else:
            x = self._e(thing)
            obj = f"действие или свойство {x.c('g')}" if ru else f"the effect of {x}"
        if ru:
            return f"{who.c('n')} выполняет {obj}" if who else f"выполните {obj}"
        return f"{who} carries out {obj}" if who else f"carry out {obj}"

    def _proc_name(self, name):
        self.names.named_procedures.add(name)
        return quoted(self.names.procedure_name(name, self.lang), self.lang)

    def _args(self, args):
        if not args:
            return ""
        inner = ", ".join(self._e(a).c("n") for a in args)
        return f" ({inner})"

    def _do(self, call):
        if call[0] == "call" and (c := view(call)).function in self.names.procedures:
            # a procedure the designer put into words reads as those words where it is done
            # («Закрыта до конца партии…», not «выполните процедуру «…»»), with what it is done to
            # before them unless that is the acting player
            told = text_of(self.names.procedures[c.function].get("text"), self.lang)
            args = c.args or []
            if told and not any(a[:1] == ["num"] for a in args):  # (a number it is given is said in the call below)
                # what it is done to is named before its words: a thing of the game, a word; the
                # acting player, a name given before (the words speak of it) and a value worked
                # out (the words say what it is) are not
                whom = [a for a in args if a[:1] == ["str"] or (a[:1] == ["name"] and view(a).name not in self.locals
                                                                and view(a).name != "player" and self.names.kind_of(view(a).name))]
                if not whom:
                    return told
                said = ", ".join(str(self._e(a).c("n")) for a in whom)
                head = self.names.procedure_name(c.function, self.lang)
                if all(a[:1] == ["str"] for a in whom) and told.startswith(head + ":"):
                    return f"{head} {said}{told[len(head):]}"  # «Знак «щит»: если …»
                return said + ": " + told[:1].lower() + told[1:]
            return self.W.sentence(ir.STATEMENTS["do"].sentence, procedure=self._proc_name(c.function), args=self._args(c.args))
        return self.W.sentence("work_out", x=self._e(call))

    def _choose(self, s):
        ru, E = self.ru, self._e
        c = view(s)
        up_to, var, options, where, by, or_none, prompt = c.up_to, c.name, c.options, c.where, c.by, c.or_none, c.prompt
        who = self._who(by)
        prompt_t = f" ({quoted(self._said(prompt), self.lang)})" if prompt else ""
        noun = self._noun_of(options)
        src = self._source(options)
        many = E(up_to) if up_to is not None else None
        if many is not None:  # the name stands for all that are chosen
            self.locals.add(var)
            self.nouns[var] = (Ph(None, [f"{w} {noun.ru_pl_g}" if noun.ru_pl_g else w for w in _RU_CHOSEN]) if ru
                               else _fixed(f"the chosen {noun.en_pl}"))
            self._live.append(noun)
        else:
            self._bind(var, noun)
        where = self._where(where)
        if ru:
            verb = f"{who.c('n')} выбирает" if who else "выберите"
            what = f" до {many.c('g')} ({noun.ru_pl_g})" if many is not None else f" {noun.ru[3]}"
            none = "; можно ничего не выбирать" if or_none else ""
            return f"{verb}{what}{src[1]}{where}{prompt_t}{none}"
        verb = f"{who} chooses" if who else "choose"
        what = f" up to {many} {noun.en_pl}" if many is not None else f" {_article(noun.en)}"
        none = "; you may choose none" if or_none else ""
        if who and or_none:
            none = "; they may choose none"
        return f"{verb}{what}{src[0]}{where}{prompt_t}{none}"

    # -- names given by loops, choices and `let` -------------------------------------
    def _noun_of(self, coll) -> Noun:
        """What the things of a collection are: players, cards of a zone, things of a kind."""
        if not isinstance(coll, list) or not coll:
            return _NOUNS["thing"]
        op = coll[0]
        c = view(coll) if op in EXPRESSIONS else None
        if op == "name":
            n = c.name
            if n in ("players", "others") and n not in self.locals:
                return _NOUNS["player"]
            kind = self.names.kind_of(n)
            if kind in ("zone", "deck", "discard"):
                return _NOUNS["card"]
            if kind == "pool":
                return _NOUNS["token"]
            return _NOUNS["thing"]
        if op == "every":
            return self._kind_noun(c.kind)
        if op == "attr":
            a = c.attribute
            if a in self.names.zones or a in self.names.decks or a in self.names.discards:
                return _NOUNS["card"]
            if a in self.names.pools:
                return _NOUNS["token"]
            return _NOUNS["thing"]
        if op == "comp" and _name_of(c.body) == c.name:
            return self._noun_of(c.source)
        if op == "call" and c.function in ("sorted", "distinct", "neighbours", "within") and c.args:
            return _NOUNS["location"] if c.function in ("neighbours", "within") else self._noun_of(c.args[0])
        return _NOUNS["thing"]

    def each_of(self, kind) -> str:
        """«each location», «каждой локации» (the genitive, as «у» and «для» want it)."""
        noun = self._kind_noun(kind)
        return f"{_RU_EACH_G[noun.gender]} {noun.ru[1]}" if self.ru else f"each {noun.en}"

    def _kind_noun(self, kind) -> Noun:
        if kind in _NOUNS:
            return _NOUNS[kind]
        if kind in _KIND_NOUNS:
            return _NOUNS[_KIND_NOUNS[kind]]
        en = self.names.term(kind, "en").lower() if self.names.has_term(kind) else humanize(kind)
        ru_name = self.names.term(kind, "ru")
        d = ru_declined(ru_name.lower()) if self.names.has_term(kind) else None
        if d is not None and d.gender in ("m", "f", "n"):
            return _noun(en, d.f, d.gender, f"объектов вида «{ru_name.lower()}»")
        thing = _NOUNS["thing"]
        return _noun(en, [f + f" «{ru_name}»" for f in thing.ru], "m", f"предметов «{ru_name}»")

    def _draws(self, node) -> bool:
        """Whether a value is drawn by chance or worked out by a procedure: said once, not repeated."""
        if isinstance(node, list):
            if node[:1] == ["call"] and len(node) > 2 and (node[_FUNCTION] in ir.DRAWING or node[_FUNCTION] in self.names.procedures):
                return True
            return any(self._draws(x) for x in node if isinstance(x, list))
        return False

    def _found_noun(self, value):
        """The noun of a value that is one thing found among others (`first(...)`, the next player)."""
        if isinstance(value, list) and value[:1] == ["call"] and len(value) > 3:
            c = view(value)
            if c.function in ("next_player", "previous_player"):
                return _NOUNS["player"]
            if c.function in ("first", "last", "random", "top") and c.args:
                return self._noun_of(c.args[0]) if c.function != "top" else _NOUNS["card"]
        if _name_of(value) == "first_player":
            return _NOUNS["player"]
        return None

    _PARAM_NOUNS = {"player": ("p", "q", "pl", "player", "who", "whom", "target", "victim", "investigator", "other"),
                    "card": ("c", "card", "cd"), "location": ("l", "loc", "location", "city", "place", "site", "where", "area"),
                    "piece": ("piece", "pawn", "unit", "agent", "monster")}

    def given(self, params) -> None:
        """A procedure's parameters, named by what they likely are: «the player», «the card»,
        or their own words («the amount»)."""
        for p in params or []:
            if not isinstance(p, str):
                continue
            noun = next((_NOUNS[k] for k, words in self._PARAM_NOUNS.items() if p in words), None)
            if noun is None:
                if self.names.has_term(p) or len(p) > 2:
                    en = self.names.term(p, "en").lower()
                    ru = self.names.term(p, "ru") if self.names.has_term(p) else "значение"
                    d = ru_declined(ru.lower())
                    noun = (_noun(en, d.f, d.gender if d.gender in _RU_THAT else "m", "") if d is not None
                            else _noun(en, [f + f" «{ru}»" for f in _NOUNS["thing"].ru], "m", ""))
                else:
                    noun = _NOUNS["thing"]
            self._bind(p, noun, the=True)

    def _bind(self, var, noun: Noun, the=False) -> Ph:
        """Give a name its words: «that card», or «the other card» when a card is named already."""
        other = any(n.en == noun.en for n in self._live)
        self._live.append(noun)
        self.locals.add(var)
        if self.ru:
            head = _RU_OTHER[noun.gender] if other else (("",) * 6 if the else _RU_THAT[noun.gender])
            ph = Ph(None, [f"{h} {f}".strip() for h, f in zip(head, noun.ru)], "m" if noun.gender == "ma" else noun.gender)
        else:
            ph = _fixed(f"the other {noun.en}" if other else f"{'the' if the else 'that'} {noun.en}")
        self.nouns[var] = ph
        self.numbers.pop(var, None)
        return ph

    def _source(self, coll) -> tuple[str, str]:
        """Where a loop or a choice takes its things from, as a tail (en, ru): nothing for
        all players or every thing of a kind, else « in your Hand» / « из вашей руки»."""
        if _name_of(coll) == "players" and "players" not in self.locals:
            return "", ""
        if isinstance(coll, list) and coll[:1] == ["every"]:
            return " in play", " в игре"
        src = self._e(coll)
        return (f" in {src}", f" из {src.c('g')}") if not self.ru else (f" in {src}", f" из {src.c('g')}")

    # -- expressions -----------------------------------------------------------------
    def _e(self, e) -> Ph:
        if e is None:
            return self._word("nothing")
        if not isinstance(e, list) or not e:
            return _fixed(e)
        op = e[0]
        m = getattr(self, "_x_" + op, None)
        if m is None:
            self.problems.append(f"no words for expression `{op}`")
            return _fixed(humanize(op))
        try:
            return m(e)
        except (IndexError, KeyError, TypeError, ValueError, AttributeError) as exc:
            # a rulebook with one clumsy phrase beats a build that stops; tests watch `problems`
            self.problems.append(f"`{op}` at {e[1] if len(e) > 1 else '?'}: {exc!r}")
            return _fixed(humanize(op))

    def _x_num(self, e):
        v = view(e).value
        if isinstance(v, bool):
            return _fixed(self.W.labels["yes" if v else "no"])
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        return _fixed(str(v).replace(".", self.W.language["decimal"]))

    def _x_str(self, e):
        v = view(e).value
        if isinstance(v, str) and _WORD_ID(v):  # a value that names something: its name in words
            v = self.names.term(v, self.lang) if self.names.has_term(v) else self.names.name(v, self.lang)
        return _fixed(quoted(v, self.lang))

    def _x_text(self, e):
        return _fixed(quoted(self._said(e), self.lang))

    def _said(self, text):
        """A prompt or a reason as written; a value in it as the rulebook words it, in brackets.
        A text in both languages ("en / ru") gives this language's side."""
        if type(text) is str:
            words = text
        else:
            words = "".join(p if type(p) is str else f"[{self._e(p)}]" for p in view(text).parts)
        en, sep, ru = words.partition(" / ")
        return (ru if self.ru else en).strip() if sep else words

    def _x_none(self, e):
        return self._word("nothing")

    def _word(self, key) -> Ph:
        """A word of the catalogue's `names:`, in its six cases where it has them."""
        w = self.W.names[key]
        return Ph(None, w) if type(w) is list else _fixed(w)

    def _x_name(self, e):
        n = view(e).name
        if n in self.locals:
            return self.nouns.get(n) or _fixed(humanize(n))
        if n == "this":
            return self._word("this_" + self.this if self.this in _THIS else "this")
        if n in ("card", "piece") and self.names.kind_of(n) is None:
            if self.this in ("cards", "pieces", "tokens"):  # the thing whose effect this is
                return self._word("this_cards" if n == "card" else "this_pieces")
            return _ru("карта" if n == "card" else "фишка") if self.ru else _fixed(f"the {n}")  # an event's thing
        if n == "round":
            rn = text_of(self.names.round_name, self.lang, "round")
            return _ru("номер").then(" раунда") if self.ru else _fixed(f"the number of the {rn.lower()}")
        if n in _BUILTIN and self.names.kind_of(n) is None:
            return self._word(n)
        if n in ("location", "action") and self.names.kind_of(n) is None:
            en, ru = {"location": ("the location", "локация"), "action": ("the action", "действие")}[n]
            return _ru(ru) if self.ru else _fixed(en)
        kind = self.names.kind_of(n)
        if kind == "option":
            return _ru("параметр").then(f" «{self.names.term(n, 'ru')}»") if self.ru else _fixed(f"the option {quoted(self.names.term(n, 'en'), 'en')}")
        if kind is not None:
            if kind == "counter":
                return self._counter_ref(n, None)
            return self.names.phrase(n, self.lang)
        return _fixed(n)

    def _x_attr(self, e):
        n = view(e)
        x, a = n.of, n.attribute
        ru = self.ru
        is_player = _name_of(x) == "player" and "player" not in self.locals
        if a in self.names.counters:
            return self._counter_ref(a, x)
        if a in self.names.zones or a in self.names.decks or a in self.names.discards or a in self.names.pools:
            z = self.names.phrase(a, self.lang)
            if is_player:
                if ru:
                    return z.after(Ph(None, _RU_POSS[z.gender])) if z.gender in _RU_POSS else z.then(" игрока")
                return _fixed(f"your {z}")
            o = self._e(x)
            return z.then(" " + o.c("g")) if ru else _fixed(f"the {z} of {o}")
        o = self._e(x)
        if a in _BUILTIN_ATTR:
            en, rt = _BUILTIN_ATTR[a]
            if ru:
                if a == "face_up":
                    return _fixed(rt.format(x=o.c("n")))
                head = _BUILTIN_ATTR_RU_HEAD[a]
                d = ru_declined(head).f
                if is_player:  # «ваша локация», not «локация вас»
                    own = Ph(None, d).after(Ph(None, _RU_POSS[_BUILTIN_ATTR_RU_GENDER.get(head, "m")]))
                    return own.then(" за столом") if a == "seat" else own
                return Ph(None, d).then((" за столом " if a == "seat" else " ") + o.c("g"))
            if is_player and en.startswith("the ") and en.endswith(" of {x}"):  # «your location», not «the location of you»
                return _fixed("your " + en[4:-7])
            return _fixed(en.format(x="you" if is_player else o))
        name = self.names.attr_name(a, self.lang)
        if ru:
            d = ru_declined(name.lower()) if name != humanize(a) else None
            if d is not None:
                return d.then(" " + o.c("g"))
            return _ru("значение").then(f" «{name}» у {o.c('g')}")
        return _fixed(f"your {name}" if is_player else f"the {name} of {o}")

    def _x_every(self, e):
        k = self.names.term(view(e).kind, self.lang)
        if self.ru:
            return Ph(None, [f"{w} «{k}» в игре" for w in ("все объекты вида", "всех объектов вида", "всем объектам вида",
                                                          "все объекты вида", "всеми объектами вида", "всех объектах вида")])
        return _fixed(f"every {k} in play")

    def _x_list(self, e):
        items = [self._e(x) for x in view(e).items]
        if not items:
            return self._word("nothing")
        if self.ru:
            return Ph(None, ["(" + ", ".join(i.c(k) for i in items) + ")" for k in CASES])
        return _fixed("(" + ", ".join(str(i) for i in items) + ")")

    def _x_op(self, e):
        _, _, sym, left, right = view(e)
        a, b = self._e(left), self._e(right)
        if sym in ("==", "!=") and "none" in (left[0], right[0]):
            x = b if left[0] == "none" else a
            if self.ru:
                return _fixed(f"{x.c('n')} {'отсутствует' if sym == '==' else 'имеется'}")
            xs = str(x)[4:] if str(x).startswith("the ") else str(x)
            return _fixed(f"there is no {xs}" if sym == "==" else f"there is {'a ' if xs != str(x) else ''}{xs}")
        if sym in ("==", "!=") and self._is_you(left):
            return _fixed(self.W.sentence("you_are_not" if sym == "!=" else "you_are", x=b))
        if sym in _CMP_EN:
            return _fixed(self.W.sentence(_CMP_EN[sym], a=a, b=b))
        word = _ARITH.get(sym, sym)
        if self.ru and sym == "%":
            word = "mod"
        # the first term carries the case, as the head of a phrase does: «из 0 и счётчика − 1»
        said_right = self._paren(right, b)
        return Ph(None, [f"{self._paren(left, a, k)} {word} {said_right}" for k in CASES])

    def _paren(self, node, ph, case="n"):
        s = ph.c(case)
        wrap = node[0] in ("cond", "and", "or") or (node[0] == "op" and view(node).operator not in _CMP_EN)
        return f"({s})" if wrap else s

    def _x_and(self, e):
        n = view(e)
        return _fixed(self.W.sentence(ir.EXPRESSIONS["and"].sentence, a=self._cond(n.left), b=self._cond(n.right)))

    def _x_or(self, e):
        n = view(e)
        return _fixed(self.W.sentence(ir.EXPRESSIONS["or"].sentence, a=self._cond(n.left), b=self._cond(n.right)))

    _EN_NEGATE = re.compile(r"\b(is|are|was|were|has|have|can|does)\b")

    def _flag(self, e, negated=False):
        """A flag of the game's whose name is a clause reads as that clause, or as its
        negation: «Дверь не открыта», "the door is not open"; else None."""
        if not (isinstance(e, list) and e[:1] == ["name"] and view(e).name not in self.locals):
            return None
        c = self.names.counters.get(view(e).name) or {}
        if c.get("type") != "flag" or c.get("of", "player") != "game":
            return None
        name = self.names.name(view(e).name, self.lang)
        if self.ru:
            neg = inflection.negated_clause(name)
        elif self.lang == "en" and self._EN_NEGATE.search(name):
            name = re.sub(r"^(The|A|An) ", lambda m: m.group(1).lower() + " ", name)
            neg = self._EN_NEGATE.sub(lambda m: m.group(1) + " not", name, count=1)
        else:
            neg = None
        if neg is None:
            return None
        return _fixed(neg if negated else name)

    def _cond(self, e):
        """A condition's words: a flag that is a clause as that clause."""
        return self._flag(e) or self._e(e)

    def _x_not(self, e):
        inner = view(e).operand
        said = self._flag(inner, negated=True)
        if said is not None:
            return said
        if inner[0] == "in":
            return self._membership(inner, negated=True)
        if inner[0] == "has":
            return self._has(inner, negated=True)
        return _fixed(self.W.sentence(ir.EXPRESSIONS["not"].sentence, x=self._e(inner)))

    def _x_neg(self, e):
        x = view(e).operand
        return _fixed(f"−{self._paren(x, self._e(x))}")

    def _x_in(self, e):
        return self._membership(e)

    def _x_has(self, e):
        return self._has(e)

    def _is_you(self, node):
        return _name_of(node) == "player" and "player" not in self.locals

    def _membership(self, e, negated=False):
        """`x in ZONE` is where it lies; `x in LIST` is being one of them."""
        n = view(e)
        key = ("not_" if negated else "") + ("in_place" if self._count_of(n.collection) else "among")
        if self._is_you(n.item):  # «you are in», «вы находитесь в»
            return _fixed(self.W.sentence("you_" + key, place=self._e(n.collection)))
        return _fixed(self.W.sentence(key, x=self._e(n.item), place=self._e(n.collection)))

    def _has(self, e, negated=False):
        key = "has_no_mark" if negated else "has_mark"
        n = view(e)
        if self._is_you(n.thing):
            return _fixed(self.W.sentence("you_" + key.replace("has", "have"), mark=self._mark(n.mark)))
        return _fixed(self.W.sentence(key, x=self._e(n.thing), mark=self._mark(n.mark)))

    def _x_index(self, e):
        n = view(e)
        x, i = self._e(n.of), self._e(n.index)
        if n.index[0] == "num" and isinstance(at := view(n.index).value, int):
            return _fixed(self.W.sentence("item", n=at + 1, x=x))
        return x.then(" " + ("для " + i.c("g"))) if self.ru else _fixed(f"the {x} of {i}")

    def _x_cond(self, e):
        n = view(e)
        c, a, b = self._e(n.test), self._e(n.then), self._e(n.otherwise)
        return Ph(None, [self.W.sentence("choice", a=a.c(k), c=c, b=b.c(k)) for k in CASES])

    def _x_comp(self, e):
        _, _, body, var, coll, where = view(e)
        noun, src = self._noun_of(coll), self._source(coll)
        mark = len(self._live)
        self._bind(var, noun)
        w = self._where(where)
        b = self._e(body)
        del self._live[mark:]
        if _name_of(body) == var:
            if self.ru:
                return Ph(None, [f"{t} {noun.ru_pl_g}{src[1]}{w}" for t in ("те из", "тех из", "тем из", "те из", "теми из", "тех из")])
            return _fixed(f"the {noun.en_pl}{src[0]}{w}")
        if self.ru:
            return Ph(None, [f"{b.c(k)} для {_RU_EACH_G[noun.gender]} {noun.ru[1]}{src[1]}{w}" for k in CASES])
        return _fixed(f"{b} for each {noun.en}{src[0]}{w}")

    _FUNCTIONS = frozenset(FUNCTIONS)  # built-in: their words are in the catalogue
    _RU_FN_HEADS = {
        "число": ("число", "числа", "числу", "число", "числом", "числе"),
        "сумма": ("сумма", "суммы", "сумме", "сумму", "суммой", "сумме"),
        "наибольшее": ("наибольшее", "наибольшего", "наибольшему", "наибольшее", "наибольшим", "наибольшем"),
        "наименьшее": ("наименьшее", "наименьшего", "наименьшему", "наименьшее", "наименьшим", "наименьшем"),
    }
    def _count_of(self, arg):
        """`count(zone)` reads as the number of things in it."""
        if arg[0] == "attr" and ((a := view(arg).attribute) in self.names.zones or a in self.names.decks
                                 or a in self.names.pools or a in self.names.discards or a == "contents"):
            return True
        return arg[0] == "name" and self.names.kind_of(view(arg).name) in ("zone", "deck", "pool", "discard")

    def _x_call(self, e):
        _, _, name, args = view(e)
        if name in self.names.procedures and name not in self._FUNCTIONS:
            p = self._proc_name(name)
            return (_ru("результат").then(f" процедуры {p}{self._args(args)}") if self.ru
                    else _fixed(f"the result of {p}{self._args(args)}"))
        # a sum or a difference given to a function keeps its brackets: «модуль (A − B) − модуль (A − C)»
        ph = [Ph(None, [f"({f})" for f in p.f], p.gender) if a[0] == "op" and view(a).operator in _ARITH else p
              for a, p in zip(args, map(self._e, args))]
        if name == "count" and args and self._count_of(args[0]):
            x = ph[0]
            return (Ph(None, self._RU_FN_HEADS["число"]).then(f" предметов в {x.c('p')}") if self.ru
                    else _fixed(f"the number of things in {x}"))
        if name == "roll":
            n = view(args[0]).value if args and args[0][0] == "num" else None
            sides = ph[1].c("n") if len(ph) > 1 else None
            if self.ru:
                dice = ru_count(n, "кубика", "кубиков", "кубиков")
                extra = f" с {sides} гранями" if sides else ""
                return _ru("бросок").then(f" {ph[0].c('g')} {dice}{extra}")
            dice = "die" if n == 1 else "dice"
            extra = f" with {sides} sides" if sides else ""
            return _fixed(f"a roll of {ph[0]} {dice}{extra}")
        if name in ("max", "min") and len(ph) > 1:
            joined_g = ", ".join(p.c("g") for p in ph[:-1]) + (" и " if self.ru else " and ") + ph[-1].c("g")
            if self.ru:
                return Ph(None, self._RU_FN_HEADS["наибольшее" if name == "max" else "наименьшее"]).then(f" из {joined_g}")
            joined = ", ".join(str(p) for p in ph[:-1]) + " and " + str(ph[-1])
            return _fixed(f"the {'larger' if name == 'max' else 'smaller'} of {joined}")
        if name == "option" and args and args[0][0] == "str":
            ph[0] = _fixed(quoted(self.names.term(view(args[0]).value, self.lang), self.lang))
        if name == "sorted" and len(ph) > 1:
            return _fixed(self.W.sentence("sorted_by", x=ph[0], by=ph[1]))
        return self._fn(name, ph)

    def _fn(self, name, ph):
        """A function's words from the catalogue: a phrase, or one in each of the six cases."""
        words = self.W.functions.get(name) or self.W.functions["unknown"]
        values = {"name": humanize(name), "0": "", "1": "", "2": "", "3": ""}
        values.update((str(i), p) for i, p in enumerate(ph[:4]))
        if type(words) is list:
            return Ph(None, [self.W.put(w, values) for w in words])
        return _fixed(self.W.put(words, values))

    def _x_gen(self, e):
        _, _, name, body, var, coll, where = view(e)
        noun, src = self._noun_of(coll), self._source(coll)
        mark = len(self._live)
        self._bind(var, noun)
        b, w = self._e(body), self._where(where)
        del self._live[mark:]
        itself = _name_of(body) == var
        if self.ru:
            each = f"{_RU_EACH_G[noun.gender]} {noun.ru[1]}{src[1]}{w}"
            if name == "any":
                return _fixed(f"хотя бы для {_RU_ONE_G[noun.gender]} {noun.ru[1]}{src[1]}{w} {b.c('n')}")
            if name == "all":
                return _fixed(f"для {each} {b.c('n')}")
            if name == "count":
                return Ph(None, self._RU_FN_HEADS["число"]).then(f" {noun.ru_pl_g}{src[1]}{w}" if itself
                                                              else f" {noun.ru_pl_g}{src[1]}{w}, для которых {b.c('n')}")
            if name in ("sum", "max", "min"):
                head = {"sum": "сумма", "max": "наибольшее", "min": "наименьшее"}[name]
                return Ph(None, self._RU_FN_HEADS[head]).then(f" {b.c('g')} среди {noun.ru_pl_g}{src[1]}{w}")
            if name == "sorted":
                return _fixed(f"{noun.ru_pl_g}{src[1]}{w}, по порядку {b.c('g')}")
            return _fixed(f"{b.c('n')} без повторов, для {each}")
        each = f"{noun.en}{src[0]}{w}"
        if name == "any":
            return _fixed(f"for at least one {each}, {b}")
        if name == "all":
            return _fixed(f"for every {each}, {b}")
        if name == "count":
            if itself:
                return _fixed(f"the number of {noun.en_pl}{src[0]}{w}")
            return _fixed(f"the number of {noun.en_pl}{src[0]}{w} for which {b}")
        if name in ("sum", "max", "min"):
            word = {"sum": "the total of", "max": "the largest", "min": "the smallest"}[name]
            return _fixed(f"{word} {b} over every {each}")
        if name == "sorted":
            return _fixed(f"the {noun.en_pl}{src[0]}{w}, ordered by {b}")
        return _fixed(f"{b} without repeats, over every {each}")


def effect_lines(ir, tables, lang, this=None):
    return Renderer(tables, lang, this).lines(ir)


def effect_text(ir, tables, lang, this=None) -> str:
    return Renderer(tables, lang, this).text(ir)


def expr_text(ir, tables, lang, this=None) -> str:
    return Renderer(tables, lang, this).condition(ir)
