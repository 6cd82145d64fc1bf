"""The effect IR: every operation once, with its fields, read by all that walk it.

A node is a JSON list `[op, position, field...]`: the operation's name, where it was written
("file:line:col") and its fields in the order given here. The compiler's parser makes the
nodes; its checker, lint and rulebook renderer walk them, the analysis works out what they
change, and the runtime runs them. Each looks its operations up here, so an operation added
to one is missing from none unseen (tests/test_ir.py). The compiler's passes and the analysis
read a node by its fields' names (`view(node).amount`, `node[at("choose", "body")]`), not by
a bare index.

The built-in functions and attributes of the effect language are defined here too, once:
the checker, the lint, the renderer, the editor's hints and the runtime take them from these
tables. docs/ir.md is made from this module: `python -m rulepress.runtime.ir > docs/ir.md`.
"""
from __future__ import annotations

import sys
from collections import namedtuple
from typing import NamedTuple

# What a field holds (the types of Op.types); a `?` after one: or null.
TYPES = {
    "expr": "an expression node",
    "exprs": "a list of expression nodes",
    "block": "a list of statement nodes",
    "branches": "`[[condition, block], …]`",
    "given": "`{name: expression}`: names given to what it runs",
    "parts": "a list of texts and expression nodes",
    "said": "a text, or a `text` node where it carries values",
    "name": "a name it gives (for the rest of the block, or to its own block)",
    "id": "an id the content declares (a counter, a mark, an event, a window, a kind, a function or procedure)",
    "word": "one word of a closed set (`up`/`down`; `turn`, `round`, `game`, `next_turn`; an operator)",
    "flag": "true or false",
    "number": "a number (or true / false)",
    "text": "a text",
}

# What an operation reads or writes of a game (Op.reads and Op.writes).
PARTS = {
    "names": "names given in the effect (`let`, loops, choices)",
    "counters": "the values of counters",
    "places": "where things are and the order of piles",
    "faces": "which things are face up",
    "sight": "who may see which things",
    "marks": "the marks things bear",
    "log": "the game's log",
    "turn": "the players' order, the turn and the end of the game",
    "random": "the game's random generator",
    "answers": "the players' decisions",
    "rules": "the game's tables: attributes, the map, options",
    "effects": "other effects it runs (procedures, triggers, actions, a counter's thresholds and `on_change`): "
               "what they read and write",
}


class Op(NamedTuple):
    """One operation of the IR."""
    name: str
    kind: str  # "statement" or "expression"
    fields: tuple  # the node's fields after its op and position, in order
    types: tuple  # what each field holds (a key of TYPES, `?` when it may be null)
    does: str  # what it does, in a line
    reads: tuple  # what of a game it reads itself (keys of PARTS), besides what its fields read
    writes: tuple  # what of a game it changes itself
    decides: bool  # whether it asks players a decision itself
    runs: bool  # whether it may run other effects (which may decide and change anything): a procedure, an
    # event's triggers, an action; a counter's thresholds and `on_change` where it changes a counter; the
    # `enter` triggers where it puts a thing at a location
    sentence: str | None  # its sentence in the message catalogues (compiler/messages), if it has one
    node: type  # reads a node by its fields' names: see view()


def _op(kind, name, spec, does, reads=(), writes=(), decides=False, runs=False, sentence=None) -> Op:
    pairs = [f.split(":") for f in spec.split()]
    fields = tuple(p[0] for p in pairs)
    types = tuple(p[1] for p in pairs)
    assert all(t.rstrip("?") in TYPES for t in types), (name, types)
    assert all(p in PARTS for p in reads + writes), name
    cls = namedtuple(name.capitalize() + "Node", ("op", "pos") + fields)
    return Op(name, kind, fields, types, does, reads, writes, decides, runs, sentence, cls)


def _statement(*a, **k) -> Op:
    return _op("statement", *a, **k)


def _expression(*a, **k) -> Op:
    return _op("expression", *a, **k)


_STATEMENTS = (
    _statement("let", "name:name value:expr", "binds a name for the rest of the block",
               writes=("names",), sentence="let"),
    _statement("set", "target:expr value:expr", "sets a counter (or a name bound by `let`)",
               writes=("names", "counters", "turn"), runs=True, sentence="set"),
    _statement("gain", "amount:expr counter:id target:expr?", "adds to a counter",
               reads=("counters",), writes=("counters",), runs=True, sentence="gain"),
    _statement("lose", "amount:expr counter:id target:expr?", "takes from a counter",
               reads=("counters",), writes=("counters",), runs=True, sentence="lose"),
    _statement("pay", "amount:expr counter:id target:expr?", "takes from a counter, or fails where it has too little",
               reads=("counters",), writes=("counters",), runs=True, sentence="pay"),
    _statement("move", "thing:expr destination:expr face:word?", "puts things in a zone or place",
               reads=("places",), writes=("places", "faces"), runs=True, sentence="move"),
    _statement("draw", "amount:expr? source:expr destination:expr? face:word? name:name?",
               "moves the top things of a pile (a pool's at random)",
               reads=("places",), writes=("places", "faces", "random", "names"), runs=True),
    _statement("discard", "thing:expr under:flag", "puts things on their deck's discard pile (or under the deck)",
               reads=("places", "rules"), writes=("places", "faces"), sentence="discard"),
    _statement("shuffle", "pile:expr into:expr?", "shuffles a pile, after moving another into it",
               reads=("places",), writes=("places", "random"), runs=True, sentence="shuffle"),
    _statement("reveal", "thing:expr", "turns things face up", writes=("faces",), sentence="reveal"),
    _statement("show", "thing:expr players:expr", "lets some players see things until they move",
               writes=("sight",), sentence="show"),
    _statement("hide", "thing:expr players:expr", "keeps things from some players, wherever they lie, until they move",
               writes=("sight",), sentence="hide"),
    _statement("conceal", "thing:expr", "turns things face down", writes=("faces",), sentence="conceal"),
    _statement("remove", "thing:expr", "takes things out of the game", writes=("places",), sentence="remove"),
    _statement("putback", "thing:expr", "returns things to their pool, deck or starting zone",
               reads=("rules",), writes=("places", "faces"), runs=True, sentence="putback"),
    _statement("mark", "thing:expr mark:id until:word?",
               "marks things, for ever, until the turn, round or game ends or until the marking player's next turn",
               reads=("turn",), writes=("marks",), sentence="mark"),
    _statement("unmark", "thing:expr mark:id", "takes a mark off things", writes=("marks",), sentence="unmark"),
    _statement("fail", "reason:said?", "undoes the whole effect (its reason a text, or a `text` node with values)",
               sentence="fail"),
    _statement("endgame", "", "ends the game at once", writes=("turn",), sentence="endgame"),
    _statement("endturn", "", "ends the turn once the effect is done", writes=("turn",), sentence="endturn"),
    _statement("stop", "", "leaves the innermost loop", sentence="stop"),
    _statement("log", "message:expr to:expr?",
               "writes a line in the game's log (`to`: the line of those players alone)", writes=("log",), sentence="log"),
    _statement("emit", "event:id given:given", "fires an event's triggers", runs=True, sentence="emit"),
    _statement("perform", "thing:expr by:expr?", "carries out an action or a card's activation",
               reads=("rules",), runs=True),
    _statement("return", "value:expr", "ends a procedure with a value", sentence="return"),
    _statement("do", "call:expr", "works an expression out for what its calls do", sentence="resolve"),
    _statement("swap", "first:expr second:expr", "exchanges the places of two things",
               reads=("places",), writes=("places",), runs=True, sentence="swap"),
    _statement("offer", "window:id players:expr? given:given name:name?",
               "asks players one after another (by default the others, from the next seat) to react "
               "with an action of a window; the first who does, does it, and no one after is asked",
               reads=("turn", "rules"), writes=("answers", "names"), decides=True, runs=True, sentence="offer"),
    _statement("if", "branches:branches otherwise:block?", "runs the block of the first condition that holds",
               sentence="if"),
    _statement("for", "name:name collection:expr where:expr? body:block", "runs a block for each thing",
               writes=("names",)),
    _statement("repeat", "times:expr body:block", "runs a block a number of times", sentence="repeat"),
    _statement("while", "condition:expr body:block", "runs a block while a condition holds", sentence="while"),
    _statement("choose", "up_to:expr? name:name options:expr where:expr? by:expr? or_none:flag prompt:said? "
               "body:block otherwise:block?", "asks a player to pick among options",
               writes=("answers", "names"), decides=True, sentence="choice"),
    _statement("may", "by:expr? prompt:said? body:block otherwise:block?", "asks a player yes or no",
               writes=("answers",), decides=True),
    _statement("secret", "chooser:name choosers:expr name:name options:expr where:expr? body:block "
               "or_none:flag prompt:said?", "asks several players to pick at once, each unseen by the others",
               writes=("answers", "names"), decides=True),
)

_EXPRESSIONS = (
    _expression("num", "value:number", "a number"),
    _expression("str", "value:text", "a text"),
    _expression("text", "parts:parts", "a text with values, `\"{p} is out\"`: its parts, texts and expressions"),
    _expression("none", "", "nothing"),
    _expression("name", "name:id", "a name's value: bound, of the flow, a game counter or zone, an id",
                reads=("names", "counters", "places", "turn", "rules")),
    _expression("attr", "of:expr attribute:id", "`x.a`: a counter, zone, printed or built-in attribute",
                reads=("counters", "places", "faces", "rules")),
    _expression("index", "of:expr index:expr", "`x[i]`: an item of a list or a table"),
    _expression("call", "function:id args:exprs", "a built-in function or a procedure of the content", runs=True),
    _expression("gen", "function:id body:expr name:name source:expr where:expr?",
                "`f(x.a for x in ...)`: an aggregate over a loop"),
    _expression("list", "items:exprs", "`[a, b]`"),
    _expression("comp", "body:expr name:name source:expr where:expr?", "`[x.a for x in ... where ...]`"),
    _expression("every", "kind:id", "the things of a kind in play (or the players)", reads=("places", "rules")),
    _expression("op", "operator:word left:expr right:expr", "a comparison or arithmetic"),
    _expression("and", "left:expr right:expr", "both", sentence="and"),
    _expression("or", "left:expr right:expr", "either", sentence="or"),
    _expression("not", "operand:expr", "the opposite", sentence="not"),
    _expression("neg", "operand:expr", "minus a number"),
    _expression("in", "item:expr collection:expr", "whether an item is in a list, zone or text",
                reads=("places",), sentence="among"),
    _expression("has", "thing:expr mark:id", "whether a thing bears a mark", reads=("marks",), sentence="has_mark"),
    _expression("cond", "test:expr then:expr otherwise:expr", "`a if test else b`"),
)

STATEMENTS = {op.name: op for op in _STATEMENTS}
EXPRESSIONS = {op.name: op for op in _EXPRESSIONS}
OPERATIONS = {**STATEMENTS, **EXPRESSIONS}


def view(node):
    """A node read by its fields' names: `view(node).amount`, `op, pos, amount, *_ = view(node)`.
    (A named tuple of the node's items: cheap, but not for the runtime's inner loops.)"""
    return OPERATIONS[node[0]].node._make(node)


_FIELD_SETS = {name: frozenset(op.fields) for name, op in OPERATIONS.items()}


def make(op: str, pos: str, **given) -> list:
    """A node of an operation from its fields by name, laid out as the table says (the parser
    makes every node so: a field missing or unknown is an error, not a node of another shape)."""
    if given.keys() != _FIELD_SETS[op]:
        raise TypeError(f"`{op}` has the fields {', '.join(OPERATIONS[op].fields) or 'none'}, given {', '.join(given)}")
    return [op, pos, *[given[f] for f in OPERATIONS[op].fields]]


def fields(node) -> dict:
    """A node's fields by name (for reading a node where speed does not matter)."""
    return dict(zip(OPERATIONS[node[0]].fields, node[2:]))


def at(op: str, field: str) -> int:
    """Where a field of an operation stands in its node (`node[at("choose", "body")]`)."""
    return 2 + OPERATIONS[op].fields.index(field)


def _holds(op: Op) -> tuple:
    """(index, type) of the fields of an operation that hold nodes, for the walks below."""
    return tuple((2 + i, t.rstrip("?")) for i, t in enumerate(op.types)
                 if t.rstrip("?") in ("expr", "exprs", "block", "branches", "given", "parts", "said"))


_HOLDS = {name: _holds(op) for name, op in OPERATIONS.items()}


def blocks(node) -> list:
    """The blocks of statements a statement holds (an `if`'s branches' too), in order; absent ones left out."""
    out = []
    for i, t in _HOLDS[node[0]]:
        v = node[i]
        if v is None:
            continue
        if t == "branches":
            out.extend(body for _cond, body in v)
        elif t == "block":
            out.append(v)
    return out


def children(node) -> list:
    """The nodes a node holds directly, expressions and statements, in the order of its fields."""
    out = []
    for i, t in _HOLDS[node[0]]:
        v = node[i]
        if v is None:
            continue
        if t == "expr":
            out.append(v)
        elif t == "exprs" or t == "block":
            out.extend(v)
        elif t == "said":
            if type(v) is list:
                out.append(v)
        elif t == "parts":
            out.extend(x for x in v if type(x) is list)
        elif t == "given":
            out.extend(v.values())
        else:  # branches
            for cond, body in v:
                out.append(cond)
                out.extend(body)
    return out


def _is_node(v, table) -> bool:
    return type(v) is list and len(v) >= 2 and v[0] in table and type(v[1]) is str


_FITS = {
    "expr": lambda v: _is_node(v, EXPRESSIONS),
    "exprs": lambda v: type(v) is list and all(_is_node(x, EXPRESSIONS) for x in v),
    "block": lambda v: type(v) is list and all(_is_node(x, STATEMENTS) for x in v),
    "branches": lambda v: type(v) is list and all(type(b) is list and len(b) == 2 and _is_node(b[0], EXPRESSIONS)
                                                  and _FITS["block"](b[1]) for b in v),
    "given": lambda v: type(v) is dict and all(type(k) is str and _is_node(x, EXPRESSIONS) for k, x in v.items()),
    "parts": lambda v: type(v) is list and all(type(x) is str or _is_node(x, EXPRESSIONS) for x in v),
    "said": lambda v: type(v) is str or _is_node(v, {"text": None}),
    "name": lambda v: type(v) is str,
    "id": lambda v: type(v) is str,
    "word": lambda v: type(v) is str,
    "flag": lambda v: type(v) is bool,
    "number": lambda v: type(v) in (int, float, bool),
    "text": lambda v: type(v) is str,
}


def misfits(node) -> list:
    """The fields of a node whose values are not of their declared types (for tests and tools)."""
    op = OPERATIONS.get(node[0]) if type(node) is list and node else None
    if op is None or len(node) - 2 != len(op.fields):
        return ["(the node itself)"]
    return [f for f, t, v in zip(op.fields, op.types, node[2:])
            if not (v is None and t.endswith("?")) and not _FITS[t.rstrip("?")](v)]


# ---- the built-in vocabulary --------------------------------------------------

class Function(NamedTuple):
    """A built-in function of the effect language."""
    least: int  # arguments at least
    most: int  # arguments at most
    gives: str  # the kind of value it gives ("number", "bool", "list"; "unknown" where it depends)
    takes: str  # its arguments, in the words of the editor's hints
    aggregate: bool  # takes `x.a for x in xs where ...` as its one argument
    collection: bool  # its first argument is a collection it reads the items of
    reads: tuple  # what of a game it reads (keys of PARTS) besides its arguments
    writes: tuple  # what of a game it changes
    does: str  # what it gives, in the words of the editor's hints


def _fn(least, most, gives, does, takes, aggregate=False, collection=False, reads=(), writes=()) -> Function:
    return Function(least, most, gives, takes, aggregate, collection, reads, writes, does)


FUNCTIONS = {
    "count": _fn(1, 1, "number", "how many", "a list or zone", aggregate=True, collection=True),
    "sum": _fn(1, 1, "number", "the total of", "a list of numbers", aggregate=True, collection=True),
    "max": _fn(1, 9, "number", "the largest of", "a list, or numbers", aggregate=True, collection=True),
    "min": _fn(1, 9, "number", "the smallest of", "a list, or numbers", aggregate=True, collection=True),
    "any": _fn(1, 1, "bool", "whether any of", "a list", aggregate=True, collection=True),
    "all": _fn(1, 1, "bool", "whether all of", "a list", aggregate=True, collection=True),
    "abs": _fn(1, 1, "number", "the absolute value of", "a number"),
    "floor": _fn(1, 1, "number", "rounded down", "a number"),
    "ceil": _fn(1, 1, "number", "rounded up", "a number"),
    "clamp": _fn(3, 3, "number", "limited to a range", "a number, the least, the most"),
    "roll": _fn(1, 2, "list", "dice rolled: the faces", "how many dice, their sides (6 unless said)", reads=("random",), writes=("random",)),
    "random": _fn(1, 1, "unknown", "one picked at random from", "a list or zone", collection=True, reads=("random",), writes=("random",)),
    "distance": _fn(2, 2, "number", "the map distance between", "two places", reads=("rules", "places")),
    "adjacent": _fn(2, 2, "bool", "whether two places are adjacent", "two places", reads=("rules", "places")),
    "neighbours": _fn(1, 1, "list", "the places adjacent to", "a place", reads=("rules", "places")),
    "within": _fn(2, 2, "list", "the places within a distance of", "a place, a distance", reads=("rules", "places")),
    "top": _fn(1, 1, "unknown", "the top card of", "a pile", reads=("places",)),
    "first": _fn(1, 1, "unknown", "the first of", "a list or zone", collection=True),
    "last": _fn(1, 1, "unknown", "the last of", "a list or zone", collection=True),
    "next_player": _fn(1, 1, "unknown", "the player to the left of", "a player", reads=("turn",)),
    "previous_player": _fn(1, 1, "unknown", "the player to the right of", "a player", reads=("turn",)),
    "usable": _fn(2, 2, "list", "the reactions of a window a player can use", "a window's name, a player", reads=("effects",)),
    "sorted": _fn(1, 2, "list", "sorted", "a list, the attribute to order by", aggregate=True, collection=True),
    "distinct": _fn(1, 1, "list", "without repeats", "a list", aggregate=True, collection=True),
    "option": _fn(1, 1, "unknown", "the value of a game option", "an option's name", reads=("rules",)),
    "faces": _fn(1, 1, "list", "the dice faces of a roll", "a roll"),
}
AGGREGATES = frozenset(f for f, d in FUNCTIONS.items() if d.aggregate)
OVER_COLLECTIONS = frozenset(f for f, d in FUNCTIONS.items() if d.collection)
DRAWING = frozenset(f for f, d in FUNCTIONS.items() if "random" in d.writes)  # they draw from the game's generator


class Attribute(NamedTuple):
    """A built-in attribute, `x.a` (a counter or zone of the same name is read first)."""
    of: str  # "thing": every thing in play and every player has it; "zone": zones alone
    gives: str  # the kind of value it gives ("text", "zone", "thing", "bool", "number")
    does: str  # what it is, in the words of the editor's hints


ATTRIBUTES = {
    "id": Attribute("thing", "text", "its id"),
    "type": Attribute("thing", "text", "the card or piece it is a copy of"),
    "kind": Attribute("thing", "text", "its kind"),
    "name": Attribute("thing", "text", "its name"),
    "zone": Attribute("thing", "zone", "where it is"),
    "location": Attribute("thing", "thing", "the location it is at"),
    "owner": Attribute("thing", "thing", "the player it belongs to"),
    "face_up": Attribute("thing", "bool", "whether it is face up"),
    "contents": Attribute("thing", "zone", "what is on it"),
    "seat": Attribute("thing", "number", "a player's seat number"),
    "count": Attribute("zone", "number", "how many things a zone holds"),
}
THING_ATTRIBUTES = {a: d for a, d in ATTRIBUTES.items() if d.of == "thing"}


# ---- docs/ir.md ------------------------------------------------------------------

_GAME_KEYS = (
    ("format", "the format version (1). A runtime refuses another format and asks for a rebuild"),
    ("content_hash", "the first 16 hex digits of the SHA-256 of everything else; game logs record it, and a log of "
                     "other content is refused on replay"),
    ("game", "id, name, version, players {min, max}, summary, notes, options {name: default}, languages (only where "
             "the game declares fewer than all: its rulebooks are made in these)"),
    ("counters", "id → {of, initial, type, hidden, min?, max?, thresholds?: [[at, IR]], on_change?: IR, name}"),
    ("zones", "id → {of, visibility, name}"),
    ("decks", "id → {of, discard, reshuffle, shuffle, name}"),
    ("pools", "id → {of, visibility, total, name}"),
    ("locations", "id → {adjacent: [ids], links: {id: distance}} (both made symmetric)"),
    ("protos", "id → {kind, section, name, attrs, count, text?, deck?, pool?, effect?: IR, if?: IR, activation?: "
               "{if?, cost?, effect?}} for every location, card, token and piece"),
    ("instances", "[[instance id, proto id, starting zone, face up]] in content order; copies are `proto#n`"),
    ("actions", "id → {name, phase?, limit?, window?, if?, cost?, effect?, text?}"),
    ("procedures", "id → {params, effect}"),
    ("triggers", "event → [{id, when?, effect}] in priority order (higher first, then id)"),
    ("flow", "{rounds, first_player, round_name, max_steps, setup?, end?, phases: [{id, mode, name, actions, "
             "max_actions?, rotate?, effect?, until?, if?}]}"),
    ("scoring", "{tie, effect?, score?, tiebreak?}"),
    ("heuristic", "IR of the greedy bot's heuristic, or null"),
    ("bot", "{cooperative, terms: [{value: IR, weight}]}: the search bot's extra evaluation terms; only where the "
            "content has a `bot:` section"),
    ("icons", "id → {glyph, name}"),
)
GAME_KEYS = dict(_GAME_KEYS)  # the top-level keys of game.json a build may write


def _cell(s: str) -> str:
    return s.replace("|", "\\|")


def _op_rows(table: dict) -> list:
    rows = ["| op | fields | what it does | reads | writes | decides |", "|---|---|---|---|---|---|"]
    for op in table.values():
        fields = ", ".join(f"`{f}` {t}" for f, t in zip(op.fields, op.types)) or "—"
        decides = "yes" if op.decides else "through what it runs" if op.runs else ""
        rows.append(f"| `{op.name}` | {fields} | {_cell(op.does)} | {', '.join(op.reads)} | {', '.join(op.writes)} "
                    f"| {decides} |")
    return rows


def document() -> str:
    """docs/ir.md: game.json's top level and the effect IR, from the tables of this module."""
    out = [
        "# build/<game>/game.json", "",
        "<!-- made by `python -m rulepress.runtime.ir > docs/ir.md` from runtime/ir.py: edit that, not this -->", "",
        "`rulepress build` writes one JSON file per game: every table the runtime needs, with",
        "effects compiled to a small IR. The runtime reads only this file; it never loads Lark or",
        "the YAML. The same content always gives the same bytes (keys sorted, no timestamps), so",
        "the committed file shows in a diff exactly how a content change changes the rules.", "",
        "## Top level", "", "| key | what it holds |", "|---|---|",
    ]
    out += [f"| `{k}` | {_cell(v)} |" for k, v in _GAME_KEYS]
    out += [
        "", "## Effect IR", "",
        "Every node is a JSON list `[op, pos, ...fields]`, where `pos` is `\"file:line:col\"` of the",
        "source token, so a run-time error names the card and line. The file is named by its path",
        "inside the game's folder (`cards/market.yaml`), with `/` between folders: the same",
        "content gives the same game.json, and the same content hash, whatever folder it is built",
        "from and whatever path names it. A block is a list of statement nodes. Missing optional",
        "fields are `null`.", "",
        "Each operation is declared once in `runtime/ir.py`: its fields with their types, what it",
        "reads and writes of a game itself (besides what its fields read), whether it asks players",
        "a decision itself or may through other effects it runs (a procedure, an event's triggers,",
        "an action, a counter's thresholds and `on_change`, the `enter` triggers of a location). The",
        "checker, lint, rulebook renderer, analysis and runtime read that table.", "",
        "Field types (`?`: or `null`):", "",
    ]
    out += [f"- `{t}`: {v}" for t, v in TYPES.items()]
    out += ["", "What an operation reads and writes:", ""]
    out += [f"- `{p}`: {v}" for p, v in PARTS.items()]
    out += ["", "### Statements", ""] + _op_rows(STATEMENTS)
    out += ["", "### Expressions", ""] + _op_rows(EXPRESSIONS)
    out += ["", "## Built-in functions", "", "`call` and `gen` name one of these or a procedure of the content.", "",
            "| function | arguments | takes | gives | what it gives | `x for x in` | reads | writes |",
            "|---|---|---|---|---|---|---|---|"]
    for name, f in FUNCTIONS.items():
        args = str(f.least) if f.least == f.most else f"{f.least}–{f.most}"
        out.append(f"| `{name}` | {args} | {_cell(f.takes)} | {f.gives} | {_cell(f.does)} | {'yes' if f.aggregate else ''} "
                   f"| {', '.join(f.reads)} | {', '.join(f.writes)} |")
    out += ["", "## Built-in attributes", "", "`x.a` reads a counter or zone of `x` named `a` first, then these.", "",
            "| attribute | of | gives | what it is |", "|---|---|---|---|"]
    out += [f"| `{name}` | {'every thing and player' if a.of == 'thing' else 'a zone'} | {a.gives} | {_cell(a.does)} |"
            for name, a in ATTRIBUTES.items()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(document())
