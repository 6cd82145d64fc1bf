"""Rules that find dead or impossible content: names that hide the language's own, marks
set and never tested (or tested and never set), options and windows named by what names
nothing, comparisons no thing can pass, and statements the language accepts but would
ignore (`return` outside a procedure, `emit` that no trigger hears, a value thrown away).

Reads the model that model.build_model made; runs once its effects are parsed and checked.
Marks are the one finding that needs every file's effects: each file's marks are kept by
the validation cache beside the names its effects use (Model.marks_by_file), so a check of
changed files alone knows the others' (Model.pooled["m"]).
"""
from __future__ import annotations

from .content import RowBlock
from .diagnostics import Pos, Report, did_you_mean
from .names import BUILTIN_ATTRS, BUILTIN_NAMES, FUNCTIONS
from ..runtime import ir
from ..runtime.ir import view

_NAME = ir.at("name", "name")
_VALUE = ir.at("str", "value")

_BUILTIN_ATTR_NAMES = frozenset(BUILTIN_ATTRS)
_VALUES_ONLY = frozenset(f for f, d in ir.FUNCTIONS.items() if not d.writes)  # functions that change nothing
_SECTION_WORD = {"cards": "card", "pieces": "piece", "locations": "location", "tokens": "token", "actions": "action",
                 "procedures": "procedure", "triggers": "trigger", "pools": "pool", "decks": "deck", "zones": "zone"}
_THINGS = {"cards": "card", "pieces": "piece", "locations": "location", "tokens": "token"}
_GIVES_NAME = {op: ir.at(op, "name") for op in ("let", "for", "choose", "comp", "gen")}  # op -> where the name it gives is
_BINDERS = {op: (ir.at(op, "name"), ir.at(op, coll))  # op -> where the name it gives and what it runs over are
            for op, coll in (("for", "collection"), ("comp", "source"), ("gen", "source"), ("choose", "options"))}


def _may_matter(text: str, options=()) -> bool:
    """Whether the text holds a word some rule here reads (a comparison, a mark, `option`,
    `usable`, `return`, `emit`, a call, a loop's `in`, an option's name; `let` has its `=`):
    a rule added to the walker adds its word here."""
    return ("=" in text or "mark" in text or "has" in text or "option" in text or "return" in text
            or "usable" in text or "emit" in text or "(" in text or " in " in text
            or any(o in text for o in options))


_SET, _TESTED, _READ = "+", "?", "="  # a mark's two uses and an option read, as kept per file: "+name", "?name", "=name"


def lint(m, report: Report, only=None) -> None:
    _shadowed_declarations(m, report, only)
    walker = _Walker(m, report, _LazyValues(m), only)
    texts, clean = m.statements, {}
    # what no rule here reads is not walked: a text with none of these words has nothing to find
    options = tuple(walker.options)
    wanted = {(sec, iid, field) for sec, iid, field, text, _b, _e, _n in m.sites
              if not isinstance(text, str) or _may_matter(text, options)}
    for (sec, iid, field), ir in m.ir.items():
        if not ir or (sec, iid, field) not in wanted:
            continue  # (an empty one is known by its facts only: see build_model's `known`)
        walker.in_procedure = sec == "procedures"
        if field in _EXPR_FIELDS or field.endswith(".if"):
            walker.expr(ir, {})
            continue
        for s in ir:
            # effects repeat their statements: one found clean is not walked again (its
            # findings follow from its text, the model and whether it is in a procedure)
            text = texts.get(s[1]) if type(s[1]) is str else None
            if text is None or text[0] != s[0]:
                walker.stmt(s, {})
                continue
            key = (text[1], text[2], walker.in_procedure)
            marks = clean.get(key)
            if marks is not None:
                for mark in marks:
                    walker.marks.setdefault((mark, walker.pos(s).file), s)
                continue
            findings, walker.met = len(report.items), set()
            walker.stmt(s, {})
            if len(report.items) == findings:
                clean[key] = walker.met
            walker.met = None
    _marks(m, report, walker, only)


# ---- names that hide the language's own -------------------------------------------

def _shadowed_declarations(m, report, only) -> None:
    """An attribute, or a counter or zone things have, named like a built-in attribute: the
    built-in is read first (runtime interpreter.attr), so the content's value never is."""
    def warn(pos, what, name):
        if only is None or pos.file in only:
            report.warning(pos, "W010", f"{what} `{name}` has the name of a built-in: `x.{name}` is {BUILTIN_ATTRS[name]}, "
                                        f"so this {what.split()[-1]} can never be read; rename it")
    for sec in _THINGS:
        for d in (m.by_section.get(sec) or {}).values():
            attrs = d.get("attrs")
            if not attrs or _BUILTIN_ATTR_NAMES.isdisjoint(attrs) or not hasattr(attrs, "key_pos"):
                continue
            for k in attrs:
                if k in BUILTIN_ATTRS:
                    warn(attrs.key_pos.get(k, d.pos), "attribute", k)
    for sec, scopes in (("counters", m.counters_of), ("zones", m.zones_of), ("decks", m.zones_of)):
        for cid, d in m.by_section[sec].items():
            if cid in BUILTIN_ATTRS and scopes.get(cid) != "game":
                warn(d.val_pos.get("id", d.pos) if hasattr(d, "val_pos") else d.pos, sec[:-1], cid)
    for pid, d in m.by_section["procedures"].items():
        # a call reaches the procedure first (the checker's _call, the runtime's call)
        pos = d.val_pos.get("id", d.pos) if hasattr(d, "val_pos") else d.pos
        for name in d.get("params") or ():
            # (`player` as a parameter is the usual way to say whose turn a procedure is about)
            if name in BUILTIN_NAMES and name != "player" and (only is None or pos.file in only):
                report.warning(d.val_pos.get("params", pos) if hasattr(d, "val_pos") else pos, "W010",
                               f"parameter `{name}` of `{pid}` hides the built-in `{name}` ({BUILTIN_NAMES[name]}); choose another name")
        if pid in FUNCTIONS and (only is None or pos.file in only):
            report.warning(pos, "W010", f"procedure `{pid}` has the name of a built-in function: `{pid}(...)` is "
                                        f"{FUNCTIONS[pid][2]}, but every call reaches the procedure; rename it")
    options = m.game.get("options")
    if hasattr(options, "key_pos"):
        for name in options:
            pos = options.key_pos.get(name, options.pos)
            hidden = (f"`{name}` is {BUILTIN_NAMES[name]}" if name in BUILTIN_NAMES
                      else f"`{name}` is the {_SECTION_WORD.get(m.ids[name][0], 'thing')} of that id" if name in m.ids
                      else f"`{name}` is the counter of that name" if name in m.counters_of
                      else f"`{name}` is the zone of that name" if name in m.zones_of else None)
            if hidden and (only is None or pos.file in only):
                report.warning(pos, "W010", f"option `{name}` has the name of something read first: {hidden}, so "
                                            f"`{name}` alone never reads the option (only option(\"{name}\") does); rename it")


# ---- the values things have --------------------------------------------------------

class _Values:
    """The values an attribute has, by kind of thing; `any_value` names the attributes whose
    values are not all known here (those of entries given as rows, lists, `id` with its copies)."""

    def __init__(self):
        self.of = {}  # (kind, attribute) -> set of values
        self.any_value = set()  # attributes whose values are not all known
        self.hidden = {}  # built-in attribute -> values things give an attribute of that name (W010)

    def can_be(self, kinds, attr, value) -> bool:
        if attr in self.any_value:
            return True
        return any(value in self.of.get((k, attr), ()) for k in kinds)

    def known_kinds(self, attr):
        return [k for (k, a) in self.of if a == attr]


class _LazyValues:
    """_attr_values, made when a comparison first needs them: a check of one changed file
    with no comparison never reads every thing's attributes."""

    def __init__(self, m):
        self.m, self.made = m, None

    def __getattr__(self, name):
        if self.made is None:
            self.made = _attr_values(self.m)
        return getattr(self.made, name)


def _attr_values(m) -> _Values:
    v = _Values()
    for block in m.src.items.get("cards", ()) + m.src.items.get("pieces", ()) + m.src.items.get("locations", ()):
        if type(block.data) is RowBlock:
            v.any_value.update(block.data.types[0::2])
    def add(kind, iid, attrs):
        v.of.setdefault((kind, "type"), set()).add(iid)
        v.of.setdefault((kind, "kind"), set()).add(kind)
        for k, val in (attrs or {}).items():
            if k in BUILTIN_ATTRS:  # never read: the built-in is (W010)
                v.hidden.setdefault(k, set()).add(str(val) if isinstance(val, str) else val)
                continue
            if isinstance(val, list):
                v.any_value.add(k)  # (lists compare as lists: not judged here)
            else:
                v.of.setdefault((kind, k), set()).add(str(val) if isinstance(val, str) else val)
    for sec, default in _THINGS.items():
        if sec == "tokens":
            continue
        for iid, d in (m.by_section.get(sec) or {}).items():
            add(d.get("kind") or default, iid, d.get("attrs"))
    for pool in m.by_section["pools"].values():  # a pool's tokens are of its kind
        for tok in pool.get("tokens") or ():
            if hasattr(tok, "get") and isinstance(tok.get("id"), str):
                add(pool.get("kind") or "token", tok["id"], tok.get("attrs"))
    # copies are `id#n`; players are p1, p2, ... and have kind `player`
    v.any_value.add("id")
    return v


# ---- effects -----------------------------------------------------------------------

class _Walker:
    """Walks an effect's IR knowing, for each name a loop or choice gives, the kind of thing
    it stands for where the loop runs over `every KIND`."""

    def __init__(self, m, report, values, only):
        self.m, self.report, self.values, self.only = m, report, values, only
        self.options = set((m.game.get("options") or {}).keys())
        self.in_procedure = False
        self.listened = {t.get("on") for t in m.by_section["triggers"].values() if isinstance(t.get("on"), str)}
        self.met = None  # the marks the statement being walked uses, where wanted (see lint)
        self.marks = {}  # "+name"/"?name" -> first position (shown path), in these files

    def pos(self, node) -> Pos:
        f, l, c = node[1].rsplit(":", 2)
        return Pos(self.m.shown_of.get(f, f), int(l), int(c))

    def say(self, node, severity, code, msg):
        p = self.pos(node)
        if self.only is None or p.file in self.only:
            (self.report.error if severity == "error" else self.report.warning)(p, code, msg)

    def block(self, stmts, kinds):
        for s in stmts or ():
            self.stmt(s, kinds)

    def stmt(self, s, kinds):
        op = s[0]
        if op == "return" and not self.in_procedure:
            self.say(s, "error", "D031", "`return` outside a procedure: only a procedure gives back a value; "
                                         "to end this effect early, put the rest under `if`")
        elif op == "mark":
            self._mark(s, _SET, view(s).mark)
        elif op == "emit" and (event := view(s).event) not in self.listened:
            self.say(s, "warning", "W014", f"no trigger has `on: {event}`, so `emit {event}` does nothing"
                                           f"{did_you_mean(event, self.listened)}")
        elif op == "do" and (call := view(s).call)[0] == "call" and (f := view(call).function) in _VALUES_ONLY \
                and f not in self.m.by_section["procedures"]:
            self.say(s, "error", "D034", f"`{f}(...)` gives a value and does nothing else, so as a statement it is "
                                         f"thrown away: use it (`let x = {f}(...)`, `if ...`) or remove it")
        if op in _GIVES_NAME:
            self._local(s, s[_GIVES_NAME[op]])
        if op in _BINDERS:
            kinds = self._bind(s, kinds)
        for x in ir.children(s):
            self._any(x, kinds)

    def _local(self, node, name):
        """A name an effect gives (`let`, a loop's, a choice's) that hides a built-in one."""
        if name in BUILTIN_NAMES:
            self.say(node, "warning", "W010", f"`{name}` is given a value here, which hides the built-in `{name}` "
                                              f"({BUILTIN_NAMES[name]}) from here on; choose another name")

    def _any(self, x, kinds):
        if type(x) is list and x:
            if type(x[0]) is str:
                if x[0] in _STATEMENTS:
                    self.stmt(x, kinds)
                else:
                    self.expr(x, kinds)
            else:
                for y in x:
                    self._any(y, kinds)
        elif type(x) is dict:
            for y in x.values():
                self._any(y, kinds)
        elif type(x) is tuple:
            for y in x:
                self._any(y, kinds)

    def _bind(self, node, kinds):
        name_at, coll_at = _BINDERS[node[0]]
        coll = node[coll_at]
        if type(coll) is list and coll and coll[0] == "every" and (kind := view(coll).kind) != "player":
            return {**kinds, node[name_at]: kind}
        if node[name_at] in kinds:
            return {k: v for k, v in kinds.items() if k != node[name_at]}
        return kinds

    def expr(self, e, kinds):
        op = e[0]
        if op == "has":
            self._mark(e, _TESTED, view(e).mark)
        elif op == "name" and e[_NAME] in self.options:
            self._mark(e, _READ, e[_NAME])
        elif op == "op" and view(e).operator in ("==", "!="):
            self._comparison(e, kinds)
        elif op == "call" and (call := view(e)).function == "option":
            self._option(call.args)
        elif op == "call" and call.function == "usable" and call.args and call.args[0][0] == "str":
            self._window(call.args[0])
        if op in _GIVES_NAME:
            self._local(e, e[_GIVES_NAME[op]])
        if op in _BINDERS:
            kinds = self._bind(e, kinds)
        for x in ir.children(e):
            self._any(x, kinds)

    def _mark(self, node, use, name):
        self.marks.setdefault((use + name, self.pos(node).file), node)  # the first in each file
        if self.met is not None:
            self.met.add(use + name)

    def _option(self, args):
        if len(args) != 1:
            return
        arg = args[0]
        if arg[0] == "name" and (name := view(arg).name) in self.options:
            self.say(arg, "error", "D030", f"option `{name}` is named without quotes: `{name}` alone is the option's "
                                           f"value, and option(...) of that value names no option; write "
                                           f"option(\"{name}\") or just `{name}`")
        elif arg[0] == "str" and (text := view(arg).value) in self.options:
            self._mark(arg, _READ, text)
        elif arg[0] == "str":
            known = ", ".join(sorted(self.options)) or "none"
            self.say(arg, "error", "D030", f"option \"{text}\" names no option of the game (game: options: {known})"
                                           f"{did_you_mean(text, self.options)}")

    def _window(self, arg):
        """`usable("window", p)`: the window must be one some action is taken in."""
        windows = {a.get("window") for a in self.m.by_section["actions"].values() if isinstance(a.get("window"), str)}
        window = view(arg).value
        if window not in windows:
            self.say(arg, "error", "D030", f"window \"{window}\" names no window: no action has `window: {window}`"
                                           f"{did_you_mean(window, windows)}")

    def _comparison(self, e, kinds):
        n = view(e)
        a, b = n.left, n.right
        if a[0] == "str":
            a, b = b, a
        if a[0] != "attr" or b[0] != "str" or (a := view(a)).of[0] != "name":
            return
        attr, value, var = a.attribute, view(b).value, view(a.of).name
        m, values = self.m, self.values
        if attr in m.counters_of or attr in m.zones_of or attr in values.any_value or attr in _UNJUDGED:
            return  # values only play gives them
        kind = kinds.get(var)
        having = values.known_kinds(attr)
        if not having:
            return  # no thing has it: a player's, or unknown (the checker's own D014)
        among = [kind] if kind else having
        if values.can_be(among, attr, value):
            return
        if not kind and attr == "type" and value[:1] == "p" and value[1:].isdigit():
            return  # a player's type is its seat id
        whose = f"no {kind}" if kind else "no thing"
        what = "the comparison never holds" if n.operator == "==" else "the comparison always holds"
        hint = f" (`x.{attr}` is the built-in: {BUILTIN_ATTRS[attr]})" if attr in BUILTIN_ATTRS else ""
        if value in values.hidden.get(attr, ()):  # the Mythos mistake: say what was meant
            after = f"; the attribute `{attr}: {value}` that things have is never read (W010): rename it and compare that"
        else:
            after = did_you_mean(value, sorted(str(v) for k in among for v in values.of.get((k, attr), ())))
        self.say(e, "warning", "W013", f"`{var}.{attr} {n.operator} \"{value}\"`: {whose} has `{attr}` \"{value}\"{hint}, so "
                                       f"{what}{after}")


_UNJUDGED = {"name", "zone", "location", "owner", "face_up", "contents", "seat"}  # built-ins play decides
_STATEMENTS = ir.STATEMENTS


_FLOW_MARKS = {"out"}  # marks the flow itself reads: a player marked `out` takes no turn


def _marks(m, report, walker, only) -> None:
    """A mark tested and never set is never there; one set and never tested changes nothing;
    an option no effect reads changes nothing."""
    m.marks_by_file = by_file = {}
    for key, file in walker.marks:
        by_file.setdefault(file, set()).add(key)
    everywhere = {key for key, _f in walker.marks} | set((m.pooled or {}).get("m", ()))
    options = m.game.get("options")
    if hasattr(options, "key_pos"):
        for name in options:
            pos = options.key_pos.get(name, options.pos)
            if _READ + name not in everywhere and (only is None or pos.file in only):
                report.warning(pos, "W015", f"option `{name}` is never read: no effect names it (`{name}` or "
                                            f"option(\"{name}\")), so choosing it changes nothing")
    shown = set(mark_names(m.game.get("public_marks")) if hasattr(m.game, "get") else [])  # read by every view
    for (key, _f), node in walker.marks.items():
        use, name = key[0], key[1:]
        if use == _TESTED and _SET + name not in everywhere:
            set_ones = [k[1:] for k in everywhere if k[0] == _SET]
            walker.say(node, "warning", "W011", f"mark `{name}` is tested but no effect sets it (`mark ... as {name}`), "
                                                f"so the test never passes{did_you_mean(name, set_ones)}")
        elif use == _SET and _TESTED + name not in everywhere and name not in _FLOW_MARKS and name not in shown:
            tested = [k[1:] for k in everywhere if k[0] == _TESTED]
            walker.say(node, "warning", "W012", f"mark `{name}` is set but no effect tests it (`x has {name}`), "
                                                f"so setting it changes nothing{did_you_mean(name, tested)}")
    listed = m.game.get("public_marks") if hasattr(m.game, "get") else None
    if hasattr(listed, "item_pos") and (only is None or listed.pos.file in only):
        set_ones = [k[1:] for k in everywhere if k[0] == _SET]
        for i, name in enumerate(mark_names(listed)):
            if isinstance(name, str) and _SET + name not in everywhere:
                report.warning(listed.item_pos[i], "W011", f"mark `{name}` is in `public_marks` but no effect sets it "
                                                           f"(`mark ... as {name}`), so nobody ever sees it{did_you_mean(name, set_ones)}")


def mark_names(listed) -> list:
    """The marks of `public_marks`, written as names or as `{id, tells, rules_out}`."""
    return [x.get("id") if isinstance(x, dict) else x for x in listed or ()]


# ---- scenarios (see scenarios.py) --------------------------------------------------

def marks_set(m) -> set:
    """The marks the game's effects set (worked out once for a model)."""
    made = m.__dict__.get("_marks_set")
    if made is not None:
        return set(made)
    walker = _Walker(m, Report(), _Values(), None)
    for (sec, iid, field), ir in m.ir.items():
        if ir and field not in _EXPR_FIELDS and not field.endswith(".if"):
            walker.block(ir, {})
    m._marks_set = frozenset(key[1:] for key, _f in walker.marks if key[0] == _SET)
    return set(m._marks_set)


_EXPR_FIELDS = {"if", "when", "until", "round_until", "end", "score", "tiebreak", "heuristic", "faction", "wins", "can_pass"}


def lint_scenario_text(m, report, ir, statements, marks: set, copies: set) -> None:
    """A scenario's text: the same rules as an effect's, and a mark it tests must be one the
    game or the scenario sets; a copy named in quotes (`"zombie#2"`) must exist. `marks`
    gains what the text sets."""
    values = m.__dict__.get("_lint_values")
    if values is None:
        values = m._lint_values = _LazyValues(m)  # (one for all the scenarios of a game)
    walker = _Walker(m, report, values, None)
    if statements:
        walker.block(ir, {})
    else:
        walker.expr(ir, {})
    for (key, _f), node in walker.marks.items():
        if key[0] == _SET:
            marks.add(key[1:])
    for (key, _f), node in walker.marks.items():
        if key[0] == _TESTED and key[1:] not in marks:
            walker.say(node, "error", "D033", f"mark `{key[1:]}` is tested but neither the game nor the scenario sets it"
                                              f"{did_you_mean(key[1:], marks)}")
    for node in _strings(ir):
        text = view(node).value
        if "#" in text and text not in copies and text.split("#")[0] in m.ids:
            base = text.split("#")[0]
            walker.say(node, "error", "D032", f"no copy `{text}`: the copies of `{base}` are "
                                              f"{', '.join(sorted((c for c in copies if c.startswith(base + '#')), key=lambda c: (len(c), c))[:5]) or 'just ' + base}")


def _strings(node):
    stack = [node]
    while stack:
        x = stack.pop()
        if type(x) is list and x:
            if x[0] == "str" and len(x) == 3 and isinstance(x[_VALUE], str):
                yield x
            else:
                stack.extend(y for y in x if type(y) in (list, dict))
        elif type(x) is dict:
            stack.extend(x.values())
