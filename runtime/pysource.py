"""A game's effects as one Python module, built from the IR as a Python AST and compiled
once, as Jinja2 compiles a template.

Procedures become functions, expressions inline Python expressions, loops Python loops.
What may stop for a decision (analysis.Deciding) is written as a generator: a statement that
may ask is `yield from it.y_<op>(...)` (the interpreter's generator handlers, which end in
`answer = yield decision`), a call of a procedure or block that may ask is `yield from`, and
the rest stays plain. Where a plain function meets a decision all the same (a deciding
procedure called inside a loop of an expression, or by a handler working an expression
out), `it.done` runs it and a decision not answered yet makes the flow replay the task.
Content never becomes code: the module is made of `ast` nodes, never of source text, so a
text or number of the content can only be an `ast.Constant` (or a value handed to the module),
and every name the code makes comes from one allocator (`_Names`) whose names are `_`, a kind,
a serial and at most the letters and digits of a content name: none can collide with another,
with a loop's variable or with the fixed names the code calls. The code calls only the
interpreter's primitives and runtime/reading.py. The module is built afresh from the IR each
time a game is loaded (never read back from a file), so nothing planted can run.

Positions cost nothing while nothing goes wrong: each statement of the module has a line of
its own, and a line table maps a line to the content's FILE:LINE:COL of the expression on it;
an error raised by Python inside the generated code is rewritten to that position (see
`fault`), as Jinja2 rewrites a traceback to the template's lines. Positions live only in the
table (and in the values of faults), never in code. Budgets are counted at loop back-edges,
procedure entries and before each loop of an expression (reading.spent): whatever runs
without end passes one of them.
"""
from __future__ import annotations

import ast
import math
import re
import sys
from typing import NamedTuple

from . import ir, reading
from .analysis import COUNTING, Deciding, changes_nothing
from .faults import DEPTH_LIMIT, STEP_BUDGET, GameFault, LoopStop
from .state import Zone
from .text import Said, Text

LITERAL_INT = 2**63  # larger whole numbers are handed in, not written (--emit-python stays short)
EXTRA_LIMIT = 20_000  # functions kept for IR made afresh by a caller (an interruption's), see Code
DEEP = f"effects nest more than {DEPTH_LIMIT} deep (a trigger that triggers itself?)"
LONG = f"this effect ran more than {STEP_BUDGET} steps; is there an endless loop?"
ENDLESS = f"this loop ran more than {STEP_BUDGET} steps; does its condition ever become false?"
_RETURNING = {op for op, d in ir.STATEMENTS.items() if d.decides and "block" in d.types}  # handlers that run a block, so may hand a `return` up
_YIELDING = {"choose", "may", "secret", "offer", "perform", "emit"} | COUNTING  # handlers with a generator (Interp.y_<op>)
_INLINE = {"let", "do", "return", "if", "for", "while", "repeat", "move"}
_DECIDED = {op: (ir.at(op, "name"), ir.at(op, "where")) for op in ("choose", "secret")}  # the options' name and `where`
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
        self.extra = 0  # functions made for IR outside the game's tables (up to EXTRA_LIMIT)
        self.filter_vars = {}  # id(a decision's `where`) -> the name its things have
        self.extra_made = []  # (kind, key, node) of those, and ("file", name, None) of their modules
        self.modules = 0  # modules compiled so far, each its own file name in `lines`
        self.deciding = None  # analysis.Deciding: what may stop for a decision, worked out once


def code(game) -> Code:
    """The game's code, written and compiled on first use."""
    c = game.cache.code
    if c is None:
        c = game.cache.code = Code()
        c.deciding = Deciding(game)
        prof = game.cache.profile
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
    tables = game.cache.code.lines if game.cache.code is not None else {}
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


def _load(game, c, roots, whole):
    w = _Writer(game, c, whole)
    for kind, node in roots:
        w.want(kind, node)
    w.drain()
    c.modules += 1
    filename = f"<rulepress game module {c.modules}>"  # (a game's faults are looked up in its own lines)
    module, lines = w.module()
    namespace = dict(w.consts, **_GLOBALS)
    exec(compile(module, filename, "exec"), namespace)  # noqa: S102 - an AST whose content is constants only
    if not whole and c.extra + len(w.made) > EXTRA_LIMIT:  # IR made afresh without end: start again
        _forget_extra(c)
    c.lines[filename] = lines
    prof = game.cache.profile
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


def source(game) -> str:
    """The game's module as Python text, for reading (`build --emit-python`): written afresh
    as the runtime writes it, each function under a comment saying what it runs."""
    w = _Writer(game, Code(), True)
    for kind, node in _roots(game):
        w.want(kind, node)
    w.drain()
    out = [HEADER, ""]
    for what, f in w.funcs:
        if what is not None:
            out.append("# " + what)
        out += [ast.unparse(f), ""]
    return "\n".join(out) + "\n"


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
        "among", "among_settled", "spent")},
}
# Names the generated code uses as they are: its functions' parameters, the globals above and
# a few builtins. Every other name is made by _Names, so none can be one of these.
_FIXED = {"it", "env", "things", "r"} | set(_GLOBALS) | {"bool", "list", "int", "max", "min", "range", "next", "sum",
                                                         "any", "all", "type", "str"}
_MADE = re.compile(r"_[a-z]+[0-9]+(_[0-9A-Za-z_]{1,40})?")
# what each made name is: functions (e, b, s, w, p, x), values handed in (k, n, z, by, every,
# index, params), loop variables (v, x), the dicts a loop binds (env), a move's (d, t)
_KINDS = {"e", "b", "s", "w", "p", "x", "k", "n", "z", "by", "every", "index", "params", "v", "env", "d", "t"}


class _Names:
    """The one source of the names generated code makes (functions, constants, loop variables,
    the dicts a loop binds): `_`, a kind, a serial, and for a content name its letters and
    digits. The serial makes each name unique, and the leading `_` keeps it apart from the
    fixed names; no content name is ever an identifier as it is."""

    def __init__(self):
        self.n = 0

    def __call__(self, kind, hint=None) -> str:
        if kind not in _KINDS:  # a kind of ours that is not one: a bug, not content
            raise ValueError(f"not a kind of name generated code makes: {kind!r}")
        self.n += 1
        name = f"_{kind}{self.n}"
        return name if hint is None else name + "_" + _ident(hint)


class _Scope(NamedTuple):
    env: str  # the Python name of the names' dict
    local: dict  # content name -> Python name, for the names a loop of an expression binds
    depth: int  # loops of expressions around


# ---- the AST, built from nodes: content only ever enters as an ast.Constant ----

def _n(name) -> ast.Name:
    return ast.Name(name, _LOAD)


def _to(name) -> ast.Name:
    return ast.Name(name, _STORE)


def _call(f, *args) -> ast.Call:
    return ast.Call(_n(f) if type(f) is str else f, list(args), [])


def _it(method, *args) -> ast.Call:
    """A call of one of the interpreter's primitives (a name of ours, never content's)."""
    return ast.Call(ast.Attribute(_n("it"), method, _LOAD), list(args), [])


def _steps(ctx=None) -> ast.Attribute:
    return ast.Attribute(_n("it"), "steps", ctx or _LOAD)


def _is(a, b, op) -> ast.Compare:
    return ast.Compare(a, [op], [b])


def _and(values) -> ast.expr:
    return values[0] if len(values) == 1 else ast.BoolOp(ast.And(), values)


def _args(*names) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _def(name, params, body) -> ast.FunctionDef:
    return ast.FunctionDef(name, _args(*params), body, [], None, None, **_TYPE_PARAMS)


_TYPE_PARAMS = {"type_params": []} if sys.version_info >= (3, 12) else {}


def _fault(pos, message) -> ast.Raise:
    return ast.Raise(_call("GameFault", pos, message), None)


def _count_step(pos, message) -> list:
    """it.steps += 1; past the budget, a fault at pos."""
    return [ast.AugAssign(_steps(_STORE), ast.Add(), ast.Constant(1)),
            ast.If(_is(_steps(), _n("STEP_BUDGET"), ast.Gt()), [_fault(pos, _n(message))], [])]


def _hand_up(mode) -> ast.If:
    """After `r = ...` ran a block: a `return` in it returns here too."""
    value = _n("r") if mode == "tuple" else ast.Subscript(_n("r"), ast.Constant(0), _LOAD)
    return ast.If(_is(_n("r"), ast.Constant(None), ast.IsNot()), [ast.Return(value)], [])


def _place(node, line):
    """Gives node, and all in it that has no line yet, this line of the module (statements
    nested in it were placed when they were made)."""
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        n.lineno = n.end_lineno = line
        n.col_offset = n.end_col_offset = 0
        for f in n._fields:
            v = getattr(n, f, None)
            if type(v) is list:
                for x in v:
                    if type(x) not in _BARE and isinstance(x, ast.AST) and "lineno" not in x.__dict__:
                        push(x)
            elif type(v) not in _BARE and isinstance(v, ast.AST) and "lineno" not in v.__dict__:
                push(v)
    return node


# Nodes with nothing in them and no line to give: contexts and operators (shared, as ast.parse shares them)
_BARE = {type(None), str, int, ast.Load, ast.Store, *[c for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
                                                      for c in base.__subclasses__()]}
_LOAD, _STORE = ast.Load(), ast.Store()


class _Writer:
    """Writes the functions of one module: those asked for, and those they need, as Jinja2's
    CodeGenerator does: one method per kind of node, each returning AST, and a line table
    that maps each statement's line to the content position it runs."""

    def __init__(self, game, c, whole):
        self.g, self.c, self.whole = game, c, whole
        self.funcs = []  # (comment or None, ast.FunctionDef) of each function, in order
        self.made = []  # (kind, key, node, function name) of the functions that the module makes
        self.names = {}  # (kind, id or procedure) -> function name
        self.new = _Names()
        self.todo = []
        self.consts = {}  # name -> value handed to the module
        self.const_names = {}  # id(value) -> its name
        self.live = {}  # kind -> the name of its in_play
        self.tables = {}  # attribute -> the name of its fixed_table
        self.clocked = {}  # function name -> (position, what) to clock, while a profile runs
        self.line, self.table = 0, {}  # the last line given, and line -> (position, op)
        self.prof = game.cache.profile
        self.roots = getattr(self.prof, "roots", {}) if self.prof is not None else {}
        self.at_root, self.nesting = None, 0  # the expression being written, and how deep in it
        self.dec = c.deciding if c.deciding is not None else Deciding(game)
        self.yielding = False  # whether the expression being written may `yield from` (a generator's own line)

    # ---- names, constants, lines ----
    def want(self, kind, node) -> str:
        """The name of the function for this node, written if it is not yet."""
        key = (kind, node if kind == "p" else id(node))
        name = self.names.get(key)
        if name is None:
            known = {"p": self.c.procs, "e": self.c.exprs, "w": self.c.filters}.get(kind, self.c.blocks)
            if (node if kind == "p" else id(node)) in known and kind != "p":
                return None  # made by an earlier module: looked up through the interpreter
            name = self.names[key] = self.new(kind, node if kind == "p" else None)
            self.todo.append((kind, node, name))
        return name

    def const(self, value, hint="k") -> ast.Name:
        name = self.const_names.get(id(value))
        if name is None:
            name = self.const_names[id(value)] = self.new(hint)
            self.consts[name] = value
        return _n(name)

    def lit(self, v) -> ast.expr:
        """A value of the content: a constant in the AST, or a value handed to the module."""
        t = type(v)
        if t is str or t is bool or v is None or (t is int and -LITERAL_INT <= v <= LITERAL_INT) or \
                (t is float and math.isfinite(v)):
            return ast.Constant(v)
        return self.const(v)

    def at(self, stmt, at=None):
        """The statement on a line of its own; `at`, the (position, op) it stands for there."""
        self.line += 1
        if at is not None:
            self.table[self.line] = at
        return _place(stmt, self.line)

    def drain(self):
        while self.todo:
            kind, node, name = self.todo.pop()
            self.yielding = False
            try:
                if kind == "e":
                    f = self.expr_function(node, name)
                elif kind == "b":
                    gen = self.dec.block(node)
                    f = _def(name, ("it", "env"), self.generator(gen) + self.statements(node, 1, "tuple", 0, gen))
                elif kind == "s":  # a statement clocked on its own, while a profile runs
                    gen = self.dec.statement(node)
                    f = _def(name, ("it", "env"), self.generator(gen) + self.statement(node, 1, "tuple", 0, gen))
                elif kind == "w":
                    f = self.filter_function(node, name)
                else:
                    f = self.procedure(node, name)
            except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
                # IR no build makes: the function fails where it runs, as evaluating it would
                f = _def(name, ("it", "env"), [self.at(_fault(self.lit(_position(kind, node, self.g)),
                                                              self.lit(f"cannot run this: {exc}")))])
            self.funcs.append((_what(kind, node), self.at(f)))
            self.made.append((kind, node if kind == "p" else None, node if kind != "p" else None, name))

    def generator(self, gen) -> list:
        """The first line of a function that may stop for a decision: `if False: yield`, which
        makes it a generator even where the decisions it may reach are all in calls."""
        return [self.at(ast.If(ast.Constant(False), [ast.Expr(ast.Yield(None))], []))] if gen else []

    def module(self):
        """The module (ast.Module) and its line table."""
        return ast.Module([f for _, f in self.funcs], []), self.table

    # ---- functions ----
    def expr_function(self, e, name):
        if self.prof is not None and id(e) in self.roots:
            self.clocked[name] = self.roots[id(e)]
        return _def(name, ("it", "env"), [self.at(ast.Return(self.root(e, own=True)), _at(e))])

    def filter_function(self, where, name):
        var = self.c.filter_vars[id(where)]
        x = self.new("v", var if type(var) is str else None)
        self.at_root, self.nesting = _at(where), 0
        if type(var) is str and var not in ("player", "this"):
            inner, env = _Scope("env", {var: x}, 1), None
        else:  # as in a loop of an expression: see loop
            env = self.new("env")
            inner = _Scope(env, {}, 1)
        gens = self.walk(x, _call("spent", _n("it"), _n("things"), self.lit(where[1])), "env", var, env)
        gens[-1].ifs = [self.expr(where, inner, truth=True)]
        return _def(name, ("it", "env", "things"), [self.at(ast.Return(ast.ListComp(_n(x), gens)), _at(where))])

    def procedure(self, pid, name):
        proc = self.g.procedures[pid]
        body = proc["effect"]
        pos = self.lit(body[0][1] if body else "?")
        depth = ast.Attribute(_n("it"), "depth", _STORE)
        gen = pid in self.dec.procs
        return _def(name, ("it", "env"), [
            *self.generator(gen),
            self.at(ast.If(_is(ast.Attribute(_n("it"), "depth", _LOAD), _n("DEPTH_LIMIT"), ast.GtE()),
                           [_fault(pos, _n("DEEP"))], [])),
            *[self.at(s) for s in _count_step(pos, "LONG")],
            self.at(ast.AugAssign(depth, ast.Add(), ast.Constant(1))),
            self.at(ast.Try(self.statements(body, 2, "value", 0, gen), [], [],
                            [self.at(ast.AugAssign(ast.Attribute(_n("it"), "depth", _STORE), ast.Sub(),
                                                   ast.Constant(1)))]))])

    # ---- statements ----
    def statements(self, block, ind, mode, loops, gen=False) -> list:
        """The statements running a block; `mode` says how a `return` hands its value: "tuple"
        (a block's (value,)) or "value" (a procedure's). `ind`: how deeply they nest. `gen`:
        they are lines of a generator, so what may decide is `yield from`."""
        if not block:
            return [self.at(ast.Pass())]
        out = []
        for s in block:
            if self.prof is not None:  # each statement a function of its own, clocked
                name = self.want("s", s)
                self.clocked.setdefault(name, (s[1], s[0]))
                call = _call(name, _n("it"), _n("env"))
                if gen and self.dec.statement(s):
                    call = ast.YieldFrom(call)
                out.append(self.at(ast.Assign([_to("r")], call)))
                out.append(self.at(_hand_up(mode)))
            else:
                out += self.statement(s, ind, mode, loops, gen)
        return out

    def body(self, block, ind, mode, loops, gen=False) -> list:
        """A block inside a statement: inline, or where Python would find the lines nested too
        deeply (it allows 20 loops and `try`s in one function), a call of a function of its own."""
        if ind < 10 or not block:
            return self.statements(block, ind, mode, loops, gen)
        name = self.want("b", block)
        if gen and self.dec.block(block):
            call = ast.YieldFrom(_call(name, _n("it"), _n("env")) if name is not None else
                                 _it("yrun", self.const(block, "n"), _n("env")))
        else:
            call = _call(name, _n("it"), _n("env")) if name is not None else _it("run", self.const(block, "n"), _n("env"))
            if name is not None and self.dec.block(block):  # a generator called where nothing pauses
                call = _it("done", call)
        return [self.at(ast.Assign([_to("r")], call)), self.at(_hand_up(mode))]

    def root(self, e, own=False, truth=False) -> ast.expr:
        """The expression a statement or the flow works out (and the functions it is split
        into) stand for its position in the line table. `truth`: only whether the value is
        true counts (a condition), so `and` and `or` need not make bools."""
        self.at_root, self.nesting = _at(e), 0
        return self.expr(e, _Scope("env", {}, 0), own, truth)

    def statement(self, s, ind, mode, loops, gen=False) -> list:
        op, at = s[0], self.at
        self.yielding = gen
        if op == "let":
            target = ast.Subscript(_n("env"), self.lit(s[2]), _STORE)
            return [at(ast.Assign([target], self.root(s[3])), _at(s[3]))]
        if op == "do":
            return [at(ast.Expr(self.root(s[2])), _at(s[2]))]
        if op == "return":
            v = ast.Constant(None) if s[2] is None else self.root(s[2])
            return [at(ast.Return(ast.Tuple([v], _LOAD) if mode == "tuple" else v),
                       _at(s[2]) if s[2] is not None else None)]
        if op == "if":
            # made from the last branch up, so each `elif` is an `if` in the `else` before it
            branches = [(self.root(cond, truth=True), _at(cond), self.body(body, ind + 1, mode, loops, gen))
                        for cond, body in s[2]]
            orelse = self.body(s[3], ind + 1, mode, loops, gen) if s[3] else []
            for test, where, body in reversed(branches):
                orelse = [at(ast.If(test, body, orelse), where)]
            return orelse
        if op in ("for", "while", "repeat"):
            x = self.new("x")
            step = [at(c) for c in _count_step(self.lit(s[1]), "ENDLESS" if op == "while" else "LONG")]
            if op == "for":
                step.append(at(ast.Assign([ast.Subscript(_n("env"), self.lit(s[2]), _STORE)], _n(x))))
                if s[4] is not None:
                    step.append(at(ast.If(ast.UnaryOp(ast.Not(), self.root(s[4], truth=True)), [ast.Continue()], []),
                                   _at(s[4])))
            if op == "for":
                head, where = _call("list", _it("items", self.root(s[3]))), _at(s[3])
            elif op == "repeat":
                times = _call("min", _call("int", _call("num", self.root(s[2]))), _n("STEP_BUDGET"))
                head, where = _call("range", _call("max", ast.Constant(0), times)), _at(s[2])
            else:
                test, where = self.root(s[2], truth=True), _at(s[2])
            body = step + self.body(s[-1], ind + 2, mode, loops + 1, gen)
            loop = ast.While(test, body, []) if op == "while" else ast.For(_to(x), head, body, [], None)
            stop = ast.ExceptHandler(_n("LoopStop"), None, [at(ast.Pass())])
            return [at(ast.Try([at(loop, where)], [at(stop)], [], []))]
        if op == "move":  # the commonest statement: its values worked out here, each on its line
            dest, thing = self.new("d"), self.new("t")
            return [at(ast.Assign([_to(dest)], _it("dest_key", self.root(s[3]), self.lit(s[1]))), _at(s[3])),
                    at(ast.For(_to(thing), _it("things", self.root(s[2])),
                               [at(ast.Expr(self.moved(_n(thing), _n(dest), self.lit(s[4]), gen)))], [], None), _at(s[2]))]
        if op in ir.STATEMENTS and op.isidentifier():
            self.fields(s)
            if gen and op in _YIELDING and self.dec.statement(s):
                call = ast.YieldFrom(_it("y_" + op, self.const(s, "n"), _n("env")))
            else:
                call = _it("s_" + op, self.const(s, "n"), _n("env"))
            if op in _RETURNING:
                return [at(ast.Assign([_to("r")], call)), at(_hand_up(mode))]
            return [at(ast.Expr(call))]
        return [at(ast.Raise(_call("KeyError", self.lit(op)), None))]

    def moved(self, thing, dest, face, gen):
        if gen and self.dec.enter:  # an `enter` trigger may decide
            return ast.YieldFrom(_it("ymove", thing, dest, face))
        return _it("move", thing, dest, face)

    def fields(self, s):
        """The expressions and blocks a handler works out from a statement: written too."""
        todo = list(s[2:])
        decided = _DECIDED.get(s[0])
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
    def expr(self, e, sc, own=False, truth=False) -> ast.expr:
        """Expression e; `own`: the whole of a function of its own; `truth`: see root."""
        if self.prof is not None and not own and id(e) in self.roots and not sc.local and sc.env == "env":
            name = self.want("e", e)  # a condition clocked on its own
            if name is not None:
                return _call(name, _n("it"), _n("env"))
        if self.nesting > 20 and not own:  # deep: a function of its own, as Python nests only so far
            return self.split(e, sc, truth)
        self.nesting += 1
        try:
            return self.expression(e, sc, truth)
        finally:
            self.nesting -= 1

    def split(self, e, sc, truth):
        params = ["it", sc.env] + sorted(sc.local.values())
        name = self.new("x")
        outer, self.nesting = self.nesting, 0
        yielding, self.yielding = self.yielding, False  # a function of its own, and a plain one
        try:
            value = self.expr(e, sc, True, truth)
        finally:
            self.nesting, self.yielding = outer, yielding
        self.funcs.append((None, self.at(_def(name, params, [self.at(ast.Return(value), self.at_root)]))))
        return _call(name, *map(_n, params))

    def expression(self, e, sc, truth) -> ast.expr:
        op = e[0]
        E = lambda x: self.expr(x, sc)  # noqa: E731
        T = lambda x: self.expr(x, sc, truth=True)  # noqa: E731  (a value only tested)
        if op in ("num", "str"):
            return self.lit(e[2])
        if op == "none":
            return ast.Constant(None)
        if op == "text":
            parts = [self.const(Said(p)) if type(p) is str else E(p) if type(p) is list else self.lit(p) for p in e[2]]
            return _call("Text", ast.Tuple(parts, _LOAD))
        if op == "name":
            return self.name(e, sc)
        if op == "attr":
            return self.attr(e, sc)
        if op == "op":
            o, a, b = e[2], E(e[3]), E(e[4])
            if o in ("==", "!="):
                return _is(a, b, ast.Eq() if o == "==" else ast.NotEq())
            if o in _COMPARE:
                return _call(_COMPARE[o], a, b)
            if o in _ARITH:
                return _call(_ARITH[o], a, b, self.lit(e[1]))
            if o == "%":
                return _call("modulo", a, b)
            return _call("no_operator", self.lit(o))
        if op in ("and", "or"):
            both = [T(e[2]), T(e[3])] if truth else [_call("bool", E(e[2])), _call("bool", E(e[3]))]
            return ast.BoolOp(ast.And() if op == "and" else ast.Or(), both)
        if op == "not":
            return ast.UnaryOp(ast.Not(), T(e[2]))
        if op == "neg":
            return ast.UnaryOp(ast.USub(), _call("num", E(e[2])))
        if op == "cond":
            B = T if truth else E
            return ast.IfExp(T(e[2]), B(e[3]), B(e[4]))
        if op == "list":
            return ast.List([E(x) for x in e[2]], _LOAD)
        if op == "every":
            return _it("order") if e[2] == "player" else _call("list", _call(self.in_play(e[2]), _n("it")))
        if op == "in":
            return _it("member", E(e[2]), E(e[3]))
        if op == "has":
            return _call("has", _n("it"), E(e[2]), self.lit(e[3]))
        if op == "index":
            return _call("index", _n("it"), E(e[2]), E(e[3]))
        if op == "comp":
            return self.loop(e, sc, _list_of, e[2], e[3], e[4], e[5])
        if op == "gen":
            return self.aggregate(e, sc)
        if op == "call":
            return self.call(e, sc)
        raise ValueError(f"unknown expression `{op}`")

    def name(self, e, sc):
        n = e[2]
        if type(n) is not str:
            return _it("e_name", self.const(e, "n"), _n(sc.env))
        if n in sc.local:
            return _n(sc.local[n])
        g = self.g
        if n == "players":
            slow = _it("order")
        elif n in ("others", "round", "first_player", "player_count"):
            slow = _it("e_name", self.const(e, "n"), _n(sc.env))
        elif n in g.global_counters:
            slow = _call("game_counter", _n("it"), ast.Constant(n))
        elif n in g.game_zones:
            slow = self.const(Zone(n), "z")
        elif n in g.proto_of or n in g.protos or n in g.actions:
            slow = ast.Constant(n)
        else:
            slow = _it("e_name", self.const(e, "n"), _n(sc.env))
        return ast.IfExp(_is(ast.Constant(n), _n(sc.env), ast.In()),
                         ast.Subscript(_n(sc.env), ast.Constant(n), _LOAD), slow)

    def attr(self, e, sc):
        x, n, pos, g = self.expr(e[2], sc), e[3], self.lit(e[1]), self.g
        if type(n) is not str:
            return _it("attr", x, self.lit(n), pos)
        if type(x) is ast.Name and x.id in sc.local.values() and n not in g.counters and n not in g.owned_zones:
            table = self.fixed_table(n)
            if table is not None:  # a loop's thing: its type, kind or printed value from a table
                v = x.id
                known = _and([_is(_call("type", _n(v)), _n("str"), ast.Is()), _is(_n(v), _n(table), ast.In())])
                return ast.IfExp(known, ast.Subscript(_n(table), _n(v), _LOAD), self.read_attr(x, n, pos))
        return self.read_attr(x, n, pos)

    def fixed_table(self, n):
        """The name of a table thing -> its attribute n, where no change of the state can change
        it (its type, its kind, a value printed on it); None for other attributes."""
        g = self.g
        if n in reading.BUILTIN_ATTRS and n not in ("type", "kind"):
            return None
        name = self.tables.get(n)
        if name is None:
            table = g.proto_of if n == "type" else g.kind_of if n == "kind" else \
                g.cache.printed.get(n)
            if table is None:
                table = g.cache.printed[n] = {x: a.get(n) for x, a in g.attrs_of.items()}
            name = self.tables[n] = self.const(table, "by").id
        return name

    def read_attr(self, x, n, pos):
        g, q = self.g, ast.Constant(n)
        if n not in g.counters and n not in g.owned_zones and n not in reading.BUILTIN_ATTRS:
            return _call("fixed", _n("it"), x, q, pos)
        if n in g.counters and n not in g.owned_zones and n not in reading.BUILTIN_ATTRS:
            return _call("counter", _n("it"), x, q, pos)
        if n in g.owned_zones and n not in g.counters and n not in reading.BUILTIN_ATTRS:
            return _call("owned", _n("it"), x, q, pos, self.lit(g.owned_zones[n]))
        if n in reading.FAST_BUILTINS and n not in g.counters and n not in g.owned_zones:
            special = reading.SPECIAL_BUILTINS.get(n)
            return _call(special.__name__, _n("it"), x, pos) if special else _call("builtin", _n("it"), x, q, pos)
        return _it("attr", x, q, pos)

    def in_play(self, kind):
        name = self.live.get(kind)
        if name is None:
            name = self.live[kind] = self.const(reading.in_play(self.g, kind), "every").id
        return name

    def call(self, e, sc):
        name, args = e[2], [self.expr(a, sc) for a in e[3]]
        if type(name) is not str:
            return _it("function", self.lit(name), ast.List(args, _LOAD), self.lit(e[1]))
        if name in self.g.procedures:
            if self.whole:
                params = self.const(self.g.procedures[name]["params"], "params")
                inner = _call("arguments", _n(sc.env), params, ast.List(args, _LOAD))
                call = _call(self.want("p", name), _n("it"), inner)
                if name in self.dec.procs:  # a generator: paused through where this is one, else run out
                    return ast.YieldFrom(call) if self.yielding else _it("done", call)
                return call
            return _it("call_procedure", ast.Constant(name), ast.List(args, _LOAD), _n(sc.env))
        if name == "count" and len(args) == 1:
            return _it("size", args[0])
        if name == "usable" and len(args) == 2:
            return _it("usable", args[0], args[1])
        a0 = e[3][0] if e[3] else None
        if name == "first" and len(args) == 1 and a0[0] == "comp" and _steady(a0[2], None) and _steady(a0[5], None):
            # stops at the first value the list would begin with; the rest would change nothing
            return self.loop(a0, sc, _first_of, a0[2], a0[3], a0[4], a0[5])
        return _it("function", ast.Constant(name), ast.List(args, _LOAD), self.lit(e[1]))

    def aggregate(self, e, sc):
        name, body, var, src, where, pos = e[2], e[3], e[4], e[5], e[6], self.lit(e[1])
        if name in ("any", "count") and where is None and _index_test(self.g, body, var, src) is not None:
            # `any(x.a == v and ... for x in every K)`: the things that pass are those counted
            return self.loop(e, sc, _any_at_all if name == "any" else _how_many, None, var, src, body)
        if name == "count":
            return self.loop(e, sc, _how_many_true, body, var, src, where, tested=True)
        if name in ("any", "all"):
            return self.loop(e, sc, _any if name == "any" else _all, body, var, src, where, tested=True)
        if name == "sum":
            return self.loop(e, sc, lambda b, gens: _call("total", ast.GeneratorExp(b, gens), pos), body, var, src, where)
        return self.loop(e, sc, lambda b, gens: _it("function", self.lit(name), ast.List([ast.ListComp(b, gens)], _LOAD),
                                                    pos, ast.Constant(True)), body, var, src, where)

    def walk(self, x, source, outer, var, env):
        """The `for`s of a loop of an expression: x over source, and where the loop's name is
        `player` or `this` (they go on to the procedures it calls), a dict env binding it."""
        gens = [ast.comprehension(_to(x), source, [], 0)]
        if env is not None:
            bound = _call("bound", _n(outer), self.lit(var), _n(x))
            gens.append(ast.comprehension(_to(env), ast.Tuple([bound], _LOAD), [], 0))
        return gens

    def loop(self, e, sc, shape, body, var, src, where, tested=False):
        """A loop of an expression, as `shape(body, its fors)` makes it (`tested`: only
        whether each value of the body is true counts). Whatever it walks counts as steps."""
        yielding, self.yielding = self.yielding, False  # (a comprehension's lines cannot pause its function)
        try:
            return self.loop_of(e, sc, shape, body, var, src, where, tested)
        finally:
            self.yielding = yielding

    def loop_of(self, e, sc, shape, body, var, src, where, tested):
        d, pos = sc.depth, self.lit(e[1])
        x = self.new("v", var if type(var) is str else None)
        if type(var) is str and var not in ("player", "this"):
            inner, env = _Scope(sc.env, dict(sc.local, **{var: x}), d + 1), None
        else:  # a loop's `player` or `this` goes on to the procedures it calls: bound in a dict
            env = self.new("env")
            inner = _Scope(env, {k: v for k, v in sc.local.items() if k != var}, d + 1)

        def made(things, conds):
            gens = self.walk(x, _call("spent", _n("it"), things, pos), sc.env, var, env)
            gens[-1].ifs = list(conds)
            return shape(b, gens)

        b = self.expr(body, inner, truth=tested) if body is not None else ast.Constant(True)
        if src[0] == "every" and src[2] != "player":
            source = lambda: _call(self.in_play(src[2]), _n("it"))  # noqa: E731
        else:
            whole = self.expr(src, sc)
            source = lambda: _it("items", whole)  # noqa: E731
        plain = made(source(), [self.expr(where, inner, truth=True)] if where is not None else [])
        test = _index_test(self.g, where, var, src) if where is not None else None
        if test is None:
            return plain
        # `every K where x.a == v and ...`: only the things whose `a` is v, from the grouping
        first, rest, kind = test
        ix = self.const(reading.index_of(self.g, src[2], first[3][3], first[3][1]), "index")
        cond = [_and([self.expr(c, inner, truth=True) for c in rest])] if rest else []
        rhs = first[4]
        if kind == "literal":
            things = _call("among", _n("it"), ix, self.lit(None if rhs[0] == "none" else rhs[2]))
        elif kind == "name" and rhs[2] in sc.local:
            things = _call("among", _n("it"), ix, _n(sc.local[rhs[2]]))
        elif kind == "name":
            q = ast.Constant(rhs[2])
            grouped = made(_call("among", _n("it"), ix, ast.Subscript(_n(sc.env), q, _LOAD)), cond)
            return ast.IfExp(_is(q, _n(sc.env), ast.In()), grouped, plain)
        elif kind == "settled" and changes_nothing(self.g, e):
            things = _call("among_settled", _n("it"), ix, ast.Lambda(_args(), self.expr(rhs, sc)))
        else:
            return plain
        return made(things, cond)


# The shapes of a loop of an expression: (its body, its fors) -> the expression.
def _list_of(b, gens):
    return ast.ListComp(b, gens)


def _first_of(b, gens):
    return _call("next", ast.GeneratorExp(b, gens), ast.Constant(None))


def _any_at_all(b, gens):
    return _call("any", ast.GeneratorExp(ast.Constant(True), gens))


def _how_many(b, gens):
    return _call("sum", ast.GeneratorExp(ast.Constant(1), gens))


def _how_many_true(b, gens):
    gens[-1].ifs.append(b)
    return _call("sum", ast.GeneratorExp(ast.Constant(1), gens))


def _any(b, gens):
    return _call("any", ast.GeneratorExp(b, gens))


def _all(b, gens):
    return _call("all", ast.GeneratorExp(b, gens))


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


HEADER = ("# A game's effects as the runtime runs them, built from its game.json (runtime/pysource.py).\n"
          "# For reading only: the runtime builds this afresh from the tables and never runs a file.")


def _what(kind, node) -> str:
    """A function's comment: what it runs and where that was written (as quoted literals)."""
    if kind == "p":
        return f"procedure {node!r}"
    pos = (node[0][1] if node else None) if kind == "b" else node[1]
    return {"e": "expression", "b": "block", "s": "statement", "w": "options where"}[kind] + (f" at {pos!r}" if type(pos) is str else "")


def _position(kind, node, game):
    """Where a function that cannot be written was asked for: its first statement's position
    (a procedure's, its body's first)."""
    try:
        if kind == "p":
            kind, node = "b", game.procedures[node]["effect"]
        pos = node[0][1] if kind == "b" else node[1]
    except (TypeError, KeyError, IndexError):
        return "?"
    return pos if type(pos) is str else "?"


def _at(e):
    return (e[1], e[0]) if type(e) is list and len(e) > 1 else None


def _ident(name) -> str:
    """A content name as part of a Python identifier: letters, digits and `_` only."""
    return re.sub(r"[^0-9A-Za-z_]", "_", str(name))[:40]
