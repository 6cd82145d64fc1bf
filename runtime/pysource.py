"""A game's effects as one Python module, written from the IR and compiled once, as Jinja2
compiles a template.

Procedures become functions, expressions inline Python expressions, loops Python loops.
Content never becomes code: each name is mangled to an identifier, each text or number of
the content is a quoted literal (repr) or a constant handed to the module, and the code
calls only the interpreter's primitives and runtime/reading.py. The module is written
afresh from the IR each time a game is loaded (never read back from a file), so nothing
planted can run.

Positions cost nothing while nothing goes wrong: a line table maps each line of the module
to the content's FILE:LINE:COL of the expression on it, and an error raised by Python
inside the generated code is rewritten to that position (see `fault`), as Jinja2 rewrites a
traceback to the template's lines. Budgets are counted at loop back-edges and procedure
entries: whatever runs without end passes one of them.
"""
from __future__ import annotations

import math
import re
from typing import NamedTuple

from . import ir, reading
from .analysis import changes_nothing
from .faults import DEPTH_LIMIT, STEP_BUDGET, GameFault, LoopStop
from .state import Zone
from .text import Said, Text

EXTRA_LIMIT = 20_000  # functions kept for IR made afresh by a caller (an interruption's), see Code
DEEP = f"effects nest more than {DEPTH_LIMIT} deep (a trigger that triggers itself?)"
LONG = f"this effect ran more than {STEP_BUDGET} steps; is there an endless loop?"
ENDLESS = f"this loop ran more than {STEP_BUDGET} steps; does its condition ever become false?"
_RETURNING = {"choose", "may", "secret"}  # handlers that run a block, so may hand a `return` up
_INLINE = {"let", "do", "return", "if", "for", "while", "repeat", "move"}
_COMPARE = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_ARITH = {"+": "plus", "-": "minus", "*": "times", "/": "divided"}


class Code:
    """A game's generated functions, by the identity of the IR each runs (the nodes are kept,
    so their identities stay theirs), with the line tables of the modules they are in."""

    def __init__(self):
        self.exprs = {}  # id(expression) -> f(it, env): its value
        self.blocks = {}  # id(block) -> f(it, env): None, or (value,) of a `return` in it
        self.procs = {}  # procedure id -> f(it, env): the procedure's value
        self.filters = {}  # id(a decision's `where`) -> f(it, env, things): the things that pass
        self.nodes = []  # the IR of the functions above
        self.lines = {}  # module file name -> {line: (position, op) of the expression there}
        self.source = ""  # the game's module, as written
        self.extra = 0  # functions made for IR outside the game's tables (up to EXTRA_LIMIT)
        self.filter_vars = {}  # id(a decision's `where`) -> the name its things have
        self.extra_made = []  # (kind, key, node) of those, and ("file", name, None) of their modules


def code(game) -> Code:
    """The game's code, written and compiled on first use."""
    c = game.code
    if c is None:
        c = game.code = Code()
        prof = game.profile
        if prof is None:
            _load(game, c, _roots(game), whole=True)
        else:  # its time is nobody's line (runtime/profile.py)
            prof.aside(_load, game, c, _roots(game), True)
    return c


def expression(game, e):
    c = code(game)
    f = c.exprs.get(id(e))
    if f is None:
        _load(game, c, [("e", e)], whole=False)
        f = c.exprs[id(e)]
    return f


def block(game, b):
    c = code(game)
    f = c.blocks.get(id(b))
    if f is None:
        _load(game, c, [("b", b)], whole=False)
        f = c.blocks[id(b)]
    return f


def options(game, where, var):
    """f(it, env, things): the things for which a decision's `where` holds, `var` naming each."""
    c = code(game)
    f = c.filters.get(id(where))
    if f is None:
        c.filter_vars[id(where)] = var
        _load(game, c, [("w", where)], whole=False)
        f = c.filters[id(where)]
    return f


def procedure(game, name):
    c = code(game)
    f = c.procs.get(name)
    if f is None:
        if name not in game.procedures:
            raise KeyError(name)
        _load(game, c, [("p", name)], whole=False)  # one added since the module was written
        f = c.procs[name]
    return f


def fault(game, exc):
    """The GameFault an evaluation error stands for: at the expression of the innermost line
    of generated code it passed through, as the designer wrote it. None if it passed through
    none (an error of the runtime itself)."""
    at = where(game, exc)
    if at is None:
        return None
    return GameFault(at[0], f"cannot evaluate `{at[1]}`: {exc}")


def where(game, exc):
    """(position, expression) of the innermost line of generated code `exc` passed
    through, as the designer wrote it; None if it passed through none."""
    tables = game.code.lines if game.code is not None else {}
    tb, at = exc.__traceback__, None
    while tb is not None:
        lines = tables.get(tb.tb_frame.f_code.co_filename)
        if lines is not None:
            at = lines.get(tb.tb_lineno, at)
        tb = tb.tb_next
    return at


def _roots(game):
    """Every block and expression of the tables the runtime may ask for, and the procedures."""
    out, todo = [("p", pid) for pid in game.procedures], [v for k, v in game.data.items() if k != "procedures"]
    while todo:  # bounded: each value of the (finite) JSON is taken once
        x = todo.pop()
        if type(x) is dict:
            todo.extend(x.values())
        elif type(x) is list:
            if _is_block(x) and x:
                out.append(("b", x))
            elif _is_node(x, ir.EXPRESSIONS):
                out.append(("e", x))
            else:
                todo.extend(y for y in x if type(y) in (list, dict))
    return out


def _is_node(x, ops):
    return type(x) is list and len(x) > 1 and type(x[0]) is str and x[0] in ops and type(x[1]) is str


def _is_block(x):
    return type(x) is list and all(_is_node(s, ir.STATEMENTS) for s in x)


_module_serial = [0]


def _load(game, c, roots, whole):
    w = _Writer(game, c, whole)
    for kind, node in roots:
        w.want(kind, node)
    w.drain()
    _module_serial[0] += 1
    filename = f"<rulepress game module {_module_serial[0]}>"
    text, lines = w.text()
    namespace = dict(w.consts, **_GLOBALS)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - written here from the IR, literals quoted
    if whole:
        c.source = text
    elif c.extra + len(w.made) > EXTRA_LIMIT:  # IR made afresh without end: start again
        _forget_extra(c)
    c.lines[filename] = lines
    prof = game.profile
    if prof is not None:
        for fname, (pos, what) in w.clocked.items():
            namespace[fname] = prof.clocked(namespace[fname], pos, what)
    for kind, key, node, fname in w.made:
        if kind == "p":
            c.procs[key] = namespace[fname]
        elif kind != "s":
            {"e": c.exprs, "w": c.filters}.get(kind, c.blocks)[id(node)] = namespace[fname]
            c.nodes.append(node)
        if not whole and kind != "s":
            c.extra += 1
            c.extra_made.append((kind, key, node))
    if not whole:
        c.extra_made.append(("file", filename, None))


def _forget_extra(c):
    for kind, key, node in c.extra_made:
        if kind == "p":
            c.procs.pop(key, None)
        elif kind == "file":
            c.lines.pop(key, None)
        else:
            {"e": c.exprs, "w": c.filters}.get(kind, c.blocks).pop(id(node), None)
            c.filter_vars.pop(id(node), None)
    c.nodes = [n for n in c.nodes if id(n) in c.exprs or id(n) in c.blocks or id(n) in c.filters]
    c.extra, c.extra_made = 0, []


_GLOBALS = {
    "GameFault": GameFault, "LoopStop": LoopStop, "Zone": Zone, "Text": Text, "Said": Said,
    "STEP_BUDGET": STEP_BUDGET, "DEPTH_LIMIT": DEPTH_LIMIT, "DEEP": DEEP, "LONG": LONG, "ENDLESS": ENDLESS,
    **{n: getattr(reading, n) for n in (
        "num", "lt", "le", "gt", "ge", "plus", "minus", "times", "divided", "modulo", "total", "no_operator",
        "fixed", "counter", "owned", "builtin", "location", "owner", "contents", "type_of", "has", "index", "game_counter", "arguments", "bound",
        "among", "among_settled")},
}


class _Scope(NamedTuple):
    env: str  # the Python name of the names' dict
    local: dict  # content name -> Python name, for the names a loop of an expression binds
    depth: int  # loops of expressions around


class _Writer:
    """Writes the functions of one module: those asked for, and those they need."""

    def __init__(self, game, c, whole):
        self.g, self.c, self.whole = game, c, whole
        self.funcs = []  # each function: a list of (indent, text, (position, op) or None)
        self.made = []  # (kind, key, node, function name) of the functions that the module makes
        self.names = {}  # (kind, id or procedure) -> function name
        self.todo = []
        self.consts = {}  # name -> value handed to the module
        self.const_names = {}  # id(value) -> its name
        self.live = {}  # kind -> the name of its in_play
        self.tables = {}  # attribute -> the name of its fixed_table
        self.clocked = {}  # function name -> (position, what) to clock, while a profile runs
        self.prof = game.profile
        self.roots = getattr(game.profile, "roots", {}) if game.profile is not None else {}
        self.at_root, self.nesting = None, 0  # the expression being written, and how deep in it

    # ---- names and constants ----
    def want(self, kind, node) -> str:
        """The name of the function for this node, written if it is not yet."""
        key = (kind, node if kind == "p" else id(node))
        name = self.names.get(key)
        if name is None:
            known = {"p": self.c.procs, "e": self.c.exprs, "w": self.c.filters}.get(kind, self.c.blocks)
            if (node if kind == "p" else id(node)) in known and kind != "p":
                return None  # made by an earlier module: looked up through the interpreter
            name = self.names[key] = f"{kind}{len(self.names)}" if kind != "p" else f"p_{_ident(node)}_{len(self.names)}"
            self.todo.append((kind, node, name))
        return name

    def const(self, value, hint="K") -> str:
        name = self.const_names.get(id(value))
        if name is None:
            name = self.const_names[id(value)] = f"{hint}{len(self.consts)}"
            self.consts[name] = value
        return name

    def lit(self, v) -> str:
        """A value of the content as Python: a quoted literal, or a constant handed in."""
        t = type(v)
        if t is str or t is int or t is bool or v is None or (t is float and math.isfinite(v)):
            return repr(v)
        return self.const(v)

    def drain(self):
        while self.todo:
            kind, node, name = self.todo.pop()
            lines = []
            try:
                if kind == "e":
                    self.expr_function(lines, node, name)
                elif kind == "b":
                    lines.append((0, f"def {name}(it, env):", None))
                    self.statements(lines, node, 1, "tuple", 0)
                elif kind == "s":  # a statement clocked on its own, while a profile runs
                    lines.append((0, f"def {name}(it, env):", None))
                    self.statement(lines, node, 1, "tuple", 0)
                elif kind == "w":
                    self.filter_function(lines, node, name)
                else:
                    self.procedure(lines, node, name)
            except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
                # IR no build makes: the function fails where it runs, as evaluating it would
                pos = node[1] if kind != "p" and type(node[1]) is str else "?"
                lines = [(0, f"def {name}(it, env):", None),
                         (1, f"raise GameFault({self.lit(pos)}, {self.lit(f'cannot run this: {exc}')})", None)]
            self.funcs.append([(0, "# " + _what(kind, node), None)] + lines)
            self.made.append((kind, node if kind == "p" else None, node if kind != "p" else None, name))

    def text(self):
        out, table = HEADER.split("\n") + [""], {}
        for f in self.funcs:
            for indent, line, at in f:
                out.append("    " * indent + line)
                if at is not None:
                    table[len(out)] = at
            out.append("")
        return "\n".join(out) + "\n", table

    # ---- functions ----
    def expr_function(self, lines, e, name):
        lines.append((0, f"def {name}(it, env):", None))
        lines.append((1, f"return {self.root(e, own=True)}", _at(e)))
        if self.prof is not None and id(e) in self.roots:
            self.clocked[name] = self.roots[id(e)]

    def filter_function(self, lines, where, name):
        var = self.c.filter_vars[id(where)]
        x = f"v0_{_ident(var)}" if type(var) is str else "v0"
        self.at_root, self.nesting = _at(where), 0
        if type(var) is str and var not in ("player", "this"):
            inner, binding = _Scope("env", {var: x}, 1), ""
        else:  # as in a loop of an expression: see loop
            inner, binding = _Scope("env1", {}, 1), f" for env1 in (bound(env, {self.lit(var)}, {x}),)"
        lines.append((0, f"def {name}(it, env, things):", None))
        lines.append((1, f"return [{x} for {x} in things{binding} if {self.expr(where, inner, truth=True)}]", _at(where)))

    def procedure(self, lines, pid, name):
        proc = self.g.procedures[pid]
        body = proc["effect"]
        pos = self.lit(body[0][1] if body else "?")
        lines += [(0, f"def {name}(it, env):", None),
                  (1, f"if it.depth >= DEPTH_LIMIT: raise GameFault({pos}, DEEP)", None),
                  (1, "it.steps += 1", None),
                  (1, f"if it.steps > STEP_BUDGET: raise GameFault({pos}, LONG)", None),
                  (1, "it.depth += 1", None),
                  (1, "try:", None)]
        self.statements(lines, body, 2, "value", 0)
        lines += [(1, "finally:", None), (2, "it.depth -= 1", None)]

    # ---- statements ----
    def statements(self, lines, block, ind, mode, loops):
        """Lines running a block; `mode` says how a `return` hands its value: "tuple" (a
        block's (value,)) or "value" (a procedure's)."""
        if not block:
            lines.append((ind, "pass", None))
            return
        for s in block:
            if self.prof is not None:  # each statement a function of its own, clocked
                name = self.want("s", s)
                self.clocked.setdefault(name, (s[1], s[0]))
                lines.append((ind, f"r = {name}(it, env)", None))
                lines.append((ind, "if r is not None: return " + ("r" if mode == "tuple" else "r[0]"), None))
            else:
                self.statement(lines, s, ind, mode, loops)

    def body(self, lines, block, ind, mode, loops):
        """A block inside a statement: inline, or where Python would find the lines nested too
        deeply (it allows 20 loops and `try`s in one function), a call of a function of its own."""
        if ind < 10 or not block:
            return self.statements(lines, block, ind, mode, loops)
        name = self.want("b", block)
        call = f"{name}(it, env)" if name is not None else f"it.run({self.const(block, 'N')}, env)"
        lines.append((ind, f"r = {call}", None))
        lines.append((ind, "if r is not None: return " + ("r" if mode == "tuple" else "r[0]"), None))

    def root(self, e, own=False, truth=False) -> str:
        """Python for an expression a statement or the flow works out: its lines (and those of
        the functions it is split into) are its position's in the line table. `truth`: only
        whether the value is true counts (a condition), so `and` and `or` need not make bools."""
        self.at_root, self.nesting = _at(e), 0
        return self.expr(e, _Scope("env", {}, 0), own, truth)

    def statement(self, lines, s, ind, mode, loops):
        op = s[0]
        if op == "let":
            lines.append((ind, f"env[{self.lit(s[2])}] = {self.root(s[3])}", _at(s[3])))
        elif op == "do":
            lines.append((ind, self.root(s[2]), _at(s[2])))
        elif op == "return":
            v = "None" if s[2] is None else self.root(s[2])
            lines.append((ind, f"return ({v},)" if mode == "tuple" else f"return {v}", _at(s[2]) if s[2] is not None else None))
        elif op == "if":
            for i, (cond, body) in enumerate(s[2]):
                lines.append((ind, f"{'if' if i == 0 else 'elif'} {self.root(cond, truth=True)}:", _at(cond)))
                self.body(lines, body, ind + 1, mode, loops)
            if s[3]:
                lines.append((ind, "else:", None))
                self.body(lines, s[3], ind + 1, mode, loops)
        elif op in ("for", "while", "repeat"):
            x = f"x{loops}"
            lines.append((ind, "try:", None))
            if op == "for":
                lines.append((ind + 1, f"for {x} in list(it.items({self.root(s[3])})):", _at(s[3])))
            elif op == "while":
                lines.append((ind + 1, f"while {self.root(s[2], truth=True)}:", _at(s[2])))
            else:
                lines.append((ind + 1, f"for {x} in range(max(0, min(int(num({self.root(s[2])})), STEP_BUDGET))):", _at(s[2])))
            lines.append((ind + 2, "it.steps += 1", None))
            lines.append((ind + 2, f"if it.steps > STEP_BUDGET: raise GameFault({self.lit(s[1])}, {'ENDLESS' if op == 'while' else 'LONG'})", None))
            if op == "for":
                lines.append((ind + 2, f"env[{self.lit(s[2])}] = {x}", None))
                if s[4] is not None:
                    lines.append((ind + 2, f"if not {self.root(s[4], truth=True)}: continue", _at(s[4])))
            self.body(lines, s[-1], ind + 2, mode, loops + 1)
            lines += [(ind, "except LoopStop:", None), (ind + 1, "pass", None)]
        elif op == "move":  # the commonest statement: its values worked out here, each on its line
            lines.append((ind, f"a0 = it.dest_key({self.root(s[3])}, {self.lit(s[1])})", _at(s[3])))
            lines.append((ind, f"for a1 in it.things({self.root(s[2])}):", _at(s[2])))
            lines.append((ind + 1, f"it.move(a1, a0, {self.lit(s[4])})", None))
        elif op in ir.STATEMENTS:
            self.fields(s)
            call = f"it.s_{op}({self.const(s, 'N')}, env)"
            if op in _RETURNING:
                lines.append((ind, f"r = {call}", None))
                lines.append((ind, "if r is not None: return " + ("r" if mode == "tuple" else "r[0]"), None))
            else:
                lines.append((ind, call, None))
        else:
            lines.append((ind, f"raise KeyError({self.lit(op)})", None))

    def fields(self, s):
        """The expressions and blocks a handler works out from a statement: written too."""
        todo = list(s[2:])
        decided = {"choose": (3, 5), "secret": (4, 6)}.get(s[0])
        if decided is not None and _is_node(s[decided[1]], ir.EXPRESSIONS):  # the options' `where`
            self.c.filter_vars[id(s[decided[1]])] = s[decided[0]]
            self.want("w", s[decided[1]])
        if s[0] == "set" and _is_node(s[2], ir.EXPRESSIONS) and s[2][0] == "attr":
            todo.append(s[2][2])  # the thing whose counter is set
        while todo:
            x = todo.pop()
            if type(x) is dict:
                todo.extend(x.values())
            elif type(x) is list:
                if _is_node(x, ir.EXPRESSIONS):
                    self.want("e", x)
                elif x and _is_block(x):
                    self.want("b", x)
                else:
                    todo.extend(y for y in x if type(y) in (list, dict))

    # ---- expressions ----
    def expr(self, e, sc, own=False, truth=False) -> str:
        """Python for expression e; `own`: the whole of a function of its own; `truth`: see root."""
        if self.prof is not None and not own and id(e) in self.roots and not sc.local and sc.env == "env":
            name = self.want("e", e)  # a condition clocked on its own
            if name is not None:
                return f"{name}(it, env)"
        if self.nesting > 20 and not own:  # deep: a function of its own, as Python nests only so far
            return self.split(e, sc, truth)
        self.nesting += 1
        try:
            return self.expression(e, sc, truth)
        finally:
            self.nesting -= 1

    def split(self, e, sc, truth):
        names = sorted(sc.local.values())
        name = f"x{len(self.names)}"
        self.names[("x", name)] = name
        outer, self.nesting = self.nesting, 0
        try:
            value = self.expr(e, sc, True, truth)
        finally:
            self.nesting = outer
        self.funcs.append([(0, f"def {name}({', '.join(['it', sc.env] + names)}):", None),
                           (1, f"return {value}", self.at_root)])
        return f"{name}({', '.join(['it', sc.env] + names)})"

    def expression(self, e, sc, truth) -> str:
        op = e[0]
        E = lambda x: self.expr(x, sc)  # noqa: E731
        T = lambda x: self.expr(x, sc, truth=True)  # noqa: E731  (a value only tested)
        if op in ("num", "str"):
            return self.lit(e[2])
        if op == "none":
            return "None"
        if op == "text":
            parts = [self.const(Said(p)) if type(p) is str else E(p) if type(p) is list else self.lit(p) for p in e[2]]
            return f"Text(({', '.join(parts)},))" if parts else "Text(())"
        if op == "name":
            return self.name(e, sc)
        if op == "attr":
            return self.attr(e, sc)
        if op == "op":
            o, a, b = e[2], E(e[3]), E(e[4])
            if o in ("==", "!="):
                return f"({a} {o} {b})"
            if o in _COMPARE:
                return f"{_COMPARE[o]}({a}, {b})"
            if o in _ARITH:
                return f"{_ARITH[o]}({a}, {b}, {self.lit(e[1])})"
            if o == "%":
                return f"modulo({a}, {b})"
            return f"no_operator({self.lit(o)})"
        if op in ("and", "or"):
            return f"({T(e[2])} {op} {T(e[3])})" if truth else f"(bool({E(e[2])}) {op} bool({E(e[3])}))"
        if op == "not":
            return f"(not {T(e[2])})"
        if op == "neg":
            return f"(-num({E(e[2])}))"
        if op == "cond":
            B = T if truth else E
            return f"({B(e[3])} if {T(e[2])} else {B(e[4])})"
        if op == "list":
            return f"[{', '.join(E(x) for x in e[2])}]"
        if op == "every":
            return "it.order()" if e[2] == "player" else f"list({self.in_play(e[2])}(it))"
        if op == "in":
            return f"it.member({E(e[2])}, {E(e[3])})"
        if op == "has":
            return f"has(it, {E(e[2])}, {self.lit(e[3])})"
        if op == "index":
            return f"index(it, {E(e[2])}, {E(e[3])})"
        if op == "comp":
            return self.loop(e, sc, "[{b} {loop}]", e[2], e[3], e[4], e[5])
        if op == "gen":
            return self.aggregate(e, sc)
        if op == "call":
            return self.call(e, sc)
        raise ValueError(f"unknown expression `{op}`")

    def name(self, e, sc):
        n = e[2]
        if type(n) is not str:
            return f"it.e_name({self.const(e, 'N')}, {sc.env})"
        if n in sc.local:
            return sc.local[n]
        g, q = self.g, repr(n)
        if n == "players":
            slow = "it.order()"
        elif n in ("others", "round", "first_player", "player_count"):
            slow = f"it.e_name({self.const(e, 'N')}, {sc.env})"
        elif n in g.global_counters:
            slow = f"game_counter(it, {q})"
        elif n in g.game_zones:
            slow = self.const(Zone(n), "Z")
        elif n in g.proto_of or n in g.protos or n in g.actions:
            slow = q
        else:
            slow = f"it.e_name({self.const(e, 'N')}, {sc.env})"
        return f"({sc.env}[{q}] if {q} in {sc.env} else {slow})"

    def attr(self, e, sc):
        x, n, pos, g = self.expr(e[2], sc), e[3], self.lit(e[1]), self.g
        if type(n) is not str:
            return f"it.attr({x}, {self.lit(n)}, {pos})"
        q = repr(n)
        if x in sc.local.values() and n not in g.counters and n not in g.owned_zones:
            table = self.fixed_table(n)
            if table is not None:  # a loop's thing: its type, kind or printed value from a table
                return f"({table}[{x}] if type({x}) is str and {x} in {table} else {self.read_attr(x, n, q, pos)})"
        return self.read_attr(x, n, q, pos)

    def fixed_table(self, n):
        """The name of a table thing -> its attribute n, where no change of the state can change
        it (its type, its kind, a value printed on it); None for other attributes."""
        g = self.g
        if n in reading.BUILTIN_ATTRS and n not in ("type", "kind"):
            return None
        name = self.tables.get(n)
        if name is None:
            table = g.proto_of if n == "type" else g.kind_of if n == "kind" else \
                g.__dict__.setdefault("printed", {}).get(n)
            if table is None:
                table = g.printed[n] = {x: a.get(n) for x, a in g.attrs_of.items()}
            name = self.tables[n] = self.const(table, "by_")
        return name

    def read_attr(self, x, n, q, pos):
        g = self.g
        if n not in g.counters and n not in g.owned_zones and n not in reading.BUILTIN_ATTRS:
            return f"fixed(it, {x}, {q}, {pos})"
        if n in g.counters and n not in g.owned_zones and n not in reading.BUILTIN_ATTRS:
            return f"counter(it, {x}, {q}, {pos})"
        if n in g.owned_zones and n not in g.counters and n not in reading.BUILTIN_ATTRS:
            return f"owned(it, {x}, {q}, {pos}, {self.lit(g.owned_zones[n])})"
        if n in reading.FAST_BUILTINS and n not in g.counters and n not in g.owned_zones:
            special = reading.SPECIAL_BUILTINS.get(n)
            return f"{special.__name__}(it, {x}, {pos})" if special else f"builtin(it, {x}, {q}, {pos})"
        return f"it.attr({x}, {q}, {pos})"

    def in_play(self, kind):
        name = self.live.get(kind)
        if name is None:
            name = self.live[kind] = self.const(reading.in_play(self.g, kind), "every_")
        return name

    def call(self, e, sc):
        name, args = e[2], [self.expr(a, sc) for a in e[3]]
        if type(name) is not str:
            return f"it.function({self.lit(name)}, [{', '.join(args)}], {self.lit(e[1])})"
        if name in self.g.procedures:
            params = self.const(self.g.procedures[name]["params"], "params")
            inner = f"arguments({sc.env}, {params}, [{', '.join(args)}])"
            if self.whole:
                return f"{self.want('p', name)}(it, {inner})"
            return f"it.call_procedure({repr(name)}, [{', '.join(args)}], {sc.env})"
        if name == "count" and len(args) == 1:
            return f"it.size({args[0]})"
        if name == "usable" and len(args) == 2:
            return f"it.usable({args[0]}, {args[1]})"
        a0 = e[3][0] if e[3] else None
        if name == "first" and len(args) == 1 and a0[0] == "comp" and _steady(a0[2], None) and _steady(a0[5], None):
            # stops at the first value the list would begin with; the rest would change nothing
            return self.loop(a0, sc, "next(({b} {loop}), None)", a0[2], a0[3], a0[4], a0[5])
        return f"it.function({repr(name)}, [{', '.join(args)}], {self.lit(e[1])})"

    def aggregate(self, e, sc):
        name, body, var, src, where, pos = e[2], e[3], e[4], e[5], e[6], self.lit(e[1])
        if name in ("any", "count") and where is None and _index_test(self.g, body, var, src) is not None:
            # `any(x.a == v and ... for x in every K)`: the things that pass are those counted
            return self.loop(e, sc, "any(True {loop})" if name == "any" else "sum(1 {loop})", None, var, src, body)
        if name == "count":
            return self.loop(e, sc, "sum(1 {loop} if {b})", body, var, src, where, tested=True)
        if name in ("any", "all"):
            return self.loop(e, sc, name + "({b} {loop})", body, var, src, where, tested=True)
        if name == "sum":
            return self.loop(e, sc, "total(({b} {loop}), " + pos + ")", body, var, src, where)
        return self.loop(e, sc, f"it.function({self.lit(name)}, [[{{b}} {{loop}}]], {pos}, True)", body, var, src, where)

    def loop(self, e, sc, shape, body, var, src, where, tested=False):
        """A loop of an expression, as `shape` with {loop} (its `for ... if ...`) and {b} (its
        body; `tested`: only whether each value is true counts)."""
        d = sc.depth
        x = f"v{d}_{_ident(var)}" if type(var) is str else f"v{d}"
        if type(var) is str and var not in ("player", "this"):
            inner = _Scope(sc.env, dict(sc.local, **{var: x}), d + 1)
            binding = ""
        else:  # a loop's `player` or `this` goes on to the procedures it calls: bound in a dict
            env = f"env{d + 1}"
            inner = _Scope(env, {k: v for k, v in sc.local.items() if k != var}, d + 1)
            binding = f" for {env} in (bound({sc.env}, {self.lit(var)}, {x}),)"
        b = self.expr(body, inner, truth=tested) if body is not None else "True"
        if src[0] == "every" and src[2] != "player":
            source = f"{self.in_play(src[2])}(it)"
        else:
            source = f"it.items({self.expr(src, sc)})"
        plain = shape.format(b=b, loop=f"for {x} in {source}{binding}" + (f" if {self.expr(where, inner, truth=True)}" if where is not None else ""))
        test = _index_test(self.g, where, var, src) if where is not None else None
        if test is None:
            return plain
        # `every K where x.a == v and ...`: only the things whose `a` is v, from the grouping
        first, rest, kind = test
        ix = self.const(reading.index_of(self.g, src[2], first[3][3], first[3][1]), "index_")
        cond = " and ".join(f"({self.expr(c, inner, truth=True)})" for c in rest)
        rhs = first[4]
        if kind == "literal":
            things = f"among(it, {ix}, {self.lit(None if rhs[0] == 'none' else rhs[2])})"
        elif kind == "name" and rhs[2] in sc.local:
            things = f"among(it, {ix}, {sc.local[rhs[2]]})"
        elif kind == "name":
            q = repr(rhs[2])
            grouped = shape.format(b=b, loop=f"for {x} in among(it, {ix}, {sc.env}[{q}]){binding}" + (f" if {cond}" if cond else ""))
            return f"({grouped} if {q} in {sc.env} else {plain})"
        elif kind == "settled" and changes_nothing(self.g, e):
            things = f"among_settled(it, {ix}, lambda: {self.expr(rhs, sc)})"
        else:
            return plain
        return shape.format(b=b, loop=f"for {x} in {things}{binding}" + (f" if {cond}" if cond else ""))


def _index_test(game, where, var, src):
    """(`x.a == v`, the other conditions, what v is) where a loop over `every K` (not players)
    can walk the things grouped by `a`: v a literal, a name, or an expression that reads
    nothing the loop could change (steady); else None."""
    if where is None or src[0] != "every" or src[2] == "player" or type(var) is not str:
        return None
    conj = _conjuncts(where)
    first = conj[0]
    if not (first[0] == "op" and first[2] == "==" and first[3][0] == "attr" and first[3][2][0] == "name"
            and first[3][2][2] == var and type(first[3][3]) is str and not _names(first[4], var)):
        return None
    rhs = first[4]
    if rhs[0] in ("num", "str", "none"):
        kind = "literal"
    elif rhs[0] == "name" and type(rhs[2]) is str:
        kind = "name"
    elif _steady(rhs, var):
        kind = "settled"
    else:
        return None
    return first, conj[1:], kind


def _conjuncts(e):
    return _conjuncts(e[2]) + _conjuncts(e[3]) if e[0] == "and" else [e]


def _names(e, var) -> bool:
    """Whether the name `var` occurs anywhere in expression `e`."""
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            if len(n) > 2 and n[0] == "name" and n[2] == var:
                return True
            stack.extend(x for x in n if isinstance(x, list))
    return False


def _steady(e, var) -> bool:
    """Whether an expression can be worked out once for a loop over `var`: it does not name
    `var` and calls nothing (a call counts steps and may nest)."""
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            if len(n) > 2 and n[0] in ("call", "gen", "comp"):
                return False
            if len(n) > 2 and n[0] == "name" and n[2] == var:
                return False
            stack.extend(x for x in n if isinstance(x, list))
    return True


HEADER = ("# A game's effects as the runtime runs them, written from its game.json (runtime/pysource.py).\n"
          "# For reading only: the runtime writes this afresh from the tables and never runs a file.")


def _what(kind, node) -> str:
    """A function's comment: what it runs and where that was written (as quoted literals)."""
    if kind == "p":
        return f"procedure {node!r}"
    pos = (node[0][1] if node else None) if kind == "b" else node[1]
    return {"e": "expression", "b": "block", "s": "statement", "w": "options where"}[kind] + (f" at {pos!r}" if type(pos) is str else "")


def _at(e):
    return (e[1], e[0]) if type(e) is list and len(e) > 1 else None


def _ident(name) -> str:
    """A content name as part of a Python identifier: letters, digits and `_` only."""
    return re.sub(r"[^0-9A-Za-z_]", "_", str(name))[:40]
