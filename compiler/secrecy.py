"""Warnings about secrets an effect gives away by its shape, whatever the views hide.

- W016: a public `log` line that names or reads a hidden thing (a card drawn into a hand,
  a thing chosen from a deck): the runtime writes it unnamed for the seats it is hidden
  from, but the line's own words (its other parts, a number read off the card) still say
  something. `log ... to P` is P's alone and is not warned about.
- W017: whether a decision is asked depends on a hidden value: a `choose`/`may` under an
  `if` that reads a hidden thing: every seat sees who is deciding, so presence itself tells.
  Ask every player alike (docs/dsl.md, "Decisions that do not reveal"). A `choose` among
  hidden things filtered by `where` is not warned about: the runtime asks it however many
  fit (with one option, or with `none` alone), so its shape tells nothing.

Hidden here: what lies in decks, hidden pools and zones, other players' `owner` zones, and
names bound to such things (`draw ... as x`, `choose x from`, `for each x in`, `let`).
Counting a hidden zone is public (views show how many), so `count(player.hand)` is not.
"""
from __future__ import annotations

from .diagnostics import Pos
from ..runtime.ir import view

_COUNTS = {"count", "size"}  # a hidden zone's size is on show
_DECIDE = {"choose", "may"}


class _Secrecy:
    def __init__(self, m, report, hidden_zones: set):
        self.m, self.report, self.zones = m, report, hidden_zones
        self.warned = set()

    def warn(self, node, code, msg):
        f, l, c = node[1].rsplit(":", 2)
        pos = Pos(self.m.shown_of.get(f, f), int(l), int(c))
        if (pos, code) not in self.warned:
            self.warned.add((pos, code))
            self.report.warning(pos, code, msg)

    # an expression's secrecy: "zone" (a hidden place), True (a hidden value) or False
    def hid(self, e, H):
        if not isinstance(e, list) or not e:
            return False
        op = e[0]
        if op == "name":
            name = view(e).name
            return True if name in H else ("zone" if name in self.zones else False)
        if op == "attr":
            n = view(e)
            if n.attribute in self.zones:
                return "zone"
            return self.hid(n.of, H) is True  # a hidden thing's attribute; a zone's other zones are places
        if op == "call":
            n = view(e)
            args = [self.hid(a, H) for a in n.args]
            if n.function in _COUNTS and all(a in ("zone", False) for a in args):
                return False
            return any(args)
        if op in ("comp", "gen"):
            n = view(e)
            var, src, body, cond = n.name, n.source, n.body, n.where
            if not self.hid(src, H):
                return any(self.hid(x, H) is True for x in (body, cond) if x is not None)
            if cond is None and op == "gen" and n.function in _COUNTS:
                return False  # how many: on show
            if cond is None and body[0] == "name" and view(body).name == var:
                return "zone"  # the things themselves, unfiltered: as hidden as their place
            return True
        # (every field, as it stands in the node)
        return any(self.hid(x, H) is True or (op in ("in", "index") and self.hid(x, H)) for x in e[2:] if isinstance(x, list))

    def block(self, stmts, H, under_secret=False):
        H = set(H)
        for s in stmts or []:
            self.stmt(s, H, under_secret)

    def stmt(self, s, H, under):
        op = s[0]
        n = view(s)
        if op in _DECIDE and under:
            self.warn(s, "W017", "whether this decision is asked depends on a hidden value: every seat sees "
                                 "who is deciding; ask every player alike (see docs/dsl.md)")
        if op == "let":
            if self.hid(n.value, H):
                H.add(n.name)
        elif op == "draw":
            dest_hidden = n.destination is None or self.hid(n.destination, H) == "zone" or n.face == "down"
            if n.name and dest_hidden:
                H.add(n.name)
        elif op in ("move", "reveal"):  # a thing put face up where all see it is no longer a secret
            x = n.thing
            if x[0] == "index" and view(x).of[0] == "name":
                x = view(x).of  # `move c[p] to p.table face up`: each secret pick laid open (one for each p)
            if x[0] == "name" and (name := view(x).name) in H and (op == "reveal" or (n.face == "up" and not self.hid(n.destination, H))):
                H.discard(name)
        elif op == "log":
            if n.to is None and self.hid(n.message, H):
                self.warn(s, "W016", "this public log line names or reads a hidden thing: others read it with the "
                                     "thing unnamed; say it to its owner alone with `log ... to P`")
        elif op == "if":
            for cond, body in n.branches:
                self.block(body, H, under or bool(self.hid(cond, H)))
            if n.otherwise:
                self.block(n.otherwise, H, under or any(self.hid(c, H) for c, _b in n.branches))
        elif op == "for":
            inner = H | {n.name} if self.hid(n.collection, H) else H
            self.block(n.body, inner, under or (n.where is not None and bool(self.hid(n.where, inner))))
        elif op in ("repeat", "while"):
            self.block(n.body, H, under or (op == "while" and bool(self.hid(n.condition, H))))
        elif op == "choose":
            src = self.hid(n.options, H)
            inner = H | {n.name} if src else H
            # a choice among hidden things filtered by `where` is asked however many fit (the
            # runtime asks it with one option, or with "none" alone), so its shape tells nothing
            self.block(n.body, inner, under)
            if n.otherwise:
                self.block(n.otherwise, H, under or bool(src and n.where is not None))
        elif op == "may":
            self.block(n.body, H, under)
            if n.otherwise:
                self.block(n.otherwise, H, under)
        elif op == "secret":
            self.block(n.body, H | {n.name} if self.hid(n.options, H | {n.chooser}) else H, under)


def check(m, report, parsed) -> None:
    """Warn, for every effect, about secrets given away by its shape (W016, W017)."""
    zones = set()
    for zid, d in m.by_section.get("zones", {}).items():
        if d.get("visibility") in ("owner", "others", "hidden") or isinstance(d.get("visibility"), list):
            zones.add(zid)
    zones |= set(m.by_section.get("decks", {}))
    for pid, d in m.by_section.get("pools", {}).items():
        if d.get("visibility", "hidden") == "hidden":
            zones.add(pid)
    if not zones:
        return
    sec = _Secrecy(m, report, zones)
    for _sec, _iid, _field, ir, _bound, is_expr in parsed:
        if not is_expr and isinstance(ir, list):
            try:
                sec.block(ir, set())
            except (IndexError, KeyError, TypeError):  # a statement of a shape this pass does not know: no finding
                continue
