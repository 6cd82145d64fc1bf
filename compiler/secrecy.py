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
            return True if e[2] in H else ("zone" if e[2] in self.zones else False)
        if op == "attr":
            if e[3] in self.zones:
                return "zone"
            return self.hid(e[2], H) is True  # a hidden thing's attribute; a zone's other zones are places
        if op == "call":
            args = [self.hid(a, H) for a in e[3]]
            if e[2] in _COUNTS and all(a in ("zone", False) for a in args):
                return False
            return any(args)
        if op in ("comp", "gen"):
            var, src, body, cond = (e[3], e[4], e[2], e[5]) if op == "comp" else (e[4], e[5], e[3], e[6])
            if not self.hid(src, H):
                return any(self.hid(x, H) is True for x in (body, cond) if x is not None)
            if cond is None and op == "gen" and e[2] in _COUNTS:
                return False  # how many: on show
            if cond is None and body[0] == "name" and body[2] == var:
                return "zone"  # the things themselves, unfiltered: as hidden as their place
            return True
        return any(self.hid(x, H) is True or (op in ("in", "index") and self.hid(x, H)) for x in e[2:] if isinstance(x, list))

    def block(self, stmts, H, under_secret=False):
        H = set(H)
        for s in stmts or []:
            self.stmt(s, H, under_secret)

    def stmt(self, s, H, under):
        op = s[0]
        if op in _DECIDE and under:
            self.warn(s, "W017", "whether this decision is asked depends on a hidden value: every seat sees "
                                 "who is deciding; ask every player alike (see docs/dsl.md)")
        if op == "let":
            if self.hid(s[3], H):
                H.add(s[2])
        elif op == "draw":
            dest_hidden = s[4] is None or self.hid(s[4], H) == "zone" or s[5] == "down"
            if s[6] and dest_hidden:
                H.add(s[6])
        elif op in ("move", "reveal"):  # a thing put face up where all see it is no longer a secret
            x = s[2]
            if x[0] == "index" and x[2][0] == "name":
                x = x[2]  # `move c[p] to p.table face up`: each secret pick laid open (one for each p)
            if x[0] == "name" and x[2] in H and (op == "reveal" or (s[4] == "up" and not self.hid(s[3], H))):
                H.discard(x[2])
        elif op == "log":
            if (len(s) <= 3 or s[3] is None) and self.hid(s[2], H):
                self.warn(s, "W016", "this public log line names or reads a hidden thing: others read it with the "
                                     "thing unnamed; say it to its owner alone with `log ... to P`")
        elif op == "if":
            for cond, body in s[2]:
                self.block(body, H, under or bool(self.hid(cond, H)))
            if s[3]:
                self.block(s[3], H, under or any(self.hid(c, H) for c, _b in s[2]))
        elif op == "for":
            inner = H | {s[2]} if self.hid(s[3], H) else H
            self.block(s[5], inner, under or (s[4] is not None and bool(self.hid(s[4], inner))))
        elif op in ("repeat", "while"):
            self.block(s[3], H, under or (op == "while" and bool(self.hid(s[2], H))))
        elif op == "choose":
            src = self.hid(s[4], H)
            inner = H | {s[3]} if src else H
            # a choice among hidden things filtered by `where` is asked however many fit (the
            # runtime asks it with one option, or with "none" alone), so its shape tells nothing
            self.block(s[9], inner, under)
            if s[10]:
                self.block(s[10], H, under or bool(src and s[5] is not None))
        elif op == "may":
            self.block(s[4], H, under)
            if s[5]:
                self.block(s[5], H, under)
        elif op == "secret":
            self.block(s[7], H | {s[4]} if self.hid(s[5], H | {s[2]}) else H, under)


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
            except (IndexError, TypeError):  # a statement of a shape this pass does not know: no finding
                continue
