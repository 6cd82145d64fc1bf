"""Runs effect IR against a state. Never runs Python from content; every loop is budgeted.

An effect that may need a decision runs as a generator (the `y`-methods here, and the
generated functions runtime/analysis.Deciding marks): a decision is `answer = yield
decision`, and whatever may decide below is `yield from`. The flow drives the generator and
keeps it with the waiting task, so an answer goes on where the effect stopped. A state
that has no live generator (a copy, a saved and loaded state, a bot's world) replays the
effect from the snapshot taken when it began, with the answers so far (`answers`):
randomness lives in the state, so the replay is exact, and a waiting state is plain data.
A decision reached where no generator runs (a plain function the analysis did not mark)
raises `Suspend`, and the flow takes that same replay path.
"""
from __future__ import annotations

import marshal
import math
import re

from types import GeneratorType

from . import pysource, rng, visibility
from .numbers import LIMIT, beyond
from .ir import OVER_COLLECTIONS
from .reading import ABSENT, Grouping, arguments, group_by, num, holder as _holder, removed_of_kind
from .faults import DEPTH_LIMIT, EVALUATION_ERRORS, PLAYOUT_STEPS, STEP_BUDGET, Fail, GameFault, GameOver, LoopStop, Suspend
from .state import FLAT, Zone, contents, place, zone_name, zone_owner
from .tables import KNOWN_LIMIT
from .text import Said, Text
from .words import KINDS, WORDS, label_of

# An absent cost or effect. Blocks are compiled once per list (by id): a fresh `[]` at every
# call would be compiled, and kept, again each time.
NO_EFFECT: list = []
BLOCK_ERRORS = EVALUATION_ERRORS + (GameFault,)  # what a running block's error may be (Interp.block_fault)


_LETTERS = re.compile("[^\\W\\d_]")  # a word's letter, in any script


def _written(words) -> str | None:
    """How a text's own words are written: "both" ("English / Русский"), "en" (English
    alone), or None (no words: values and signs alone, said in each language)."""
    if any(" / " in x for x in words):
        return "both"
    return "en" if any(_LETTERS.search(x) for x in words) else None


def prompt_text(prompt):
    """A prompt in both languages: "Where to? / Куда?" gives each side to its language."""
    if prompt is None:
        return None
    en, sep, ru = prompt.partition(" / ")
    return {"en": en.strip(), "ru": ru.strip()} if sep else {"en": prompt, "ru": prompt}


def offered(game, v) -> dict:
    """Value v as an option of a decision, {"id", "label"}: made once per game and value
    (with its type: True and 1 are other options) and shared by every decision that offers it."""
    key = (type(v), v)
    try:
        o = game.cache.offered.get(key)
    except TypeError:  # a list or a table offered as one option: made afresh
        return {"id": option_id(v), "label": label_of(game, v)}
    if o is None:
        if len(game.cache.offered) >= KNOWN_LIMIT:
            game.cache.offered.clear()
        o = game.cache.offered[key] = {"id": option_id(v), "label": label_of(game, v)}
    return o


def option_id(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


class Interp:
    # Where an interpreter starts; many are made (one per condition the flow checks), so the
    # plain starting values are the class's and each sets only what is its own.
    ai = 0  # answers used so far
    steps = 0
    depth = 0
    track = None  # while a grouping is made: what it read -> the value read (see grouped)
    shared_things = shared_zones = None  # the running task's snapshot, sharing things and zones
    rejoin = None  # replaying: the dice's generator as the state had it at the decision replayed to
    picked = {}  # thing -> the seat that picked it at a decision of this effect (visibility.moving)

    def __init__(self, game, st, answers=None):
        self.g = game
        self.st = st
        self.answers = answers if answers is not None else []
        self.index = {}  # (kind, attribute) -> things in play by its value, until the state changes
        if "playout" in st:  # a search's world: its tasks start with most of the budget spent
            self.steps = STEP_BUDGET - PLAYOUT_STEPS

    def share(self, snap):
        """This interpreter runs the task of this snapshot: it copies before it changes."""
        if isinstance(snap, dict):
            self.shared_things, self.shared_zones = snap.get("things"), snap.get("zones")

    def own(self, eid):
        """Thing `eid`, ready to be changed: a copy of it if the task's snapshot shares it."""
        ents = self.st["things"]
        ent = ents[eid]
        if self.shared_things is not None and self.shared_things.get(eid) is ent:
            ent = ents[eid] = _copy_thing(ent)
        return ent

    def own_zone(self, key):
        """The list of zone `key`, ready to be changed (None if the zone is empty)."""
        zones = self.st["zones"]
        lst = zones.get(key)
        if lst is not None and self.shared_zones is not None and self.shared_zones.get(key) is lst:
            lst = zones[key] = list(lst)
        return lst

    # ---- running ----
    def run(self, block, env):
        """Run a block; a `return` in it comes back as a 1-tuple of its value, else None."""
        c = self.g.cache.code
        f = c.blocks.get(id(block)) if c is not None else None
        try:
            r = (f or pysource.block(self.g, block))(self, env)
            return self.done(r) if type(r) is GeneratorType else r
        except BLOCK_ERRORS as exc:
            raise self.block_fault(exc) from None

    def yrun(self, block, env):
        """`run`, as a generator: the block may stop for a decision."""
        c = self.g.cache.code
        f = c.blocks.get(id(block)) if c is not None else None
        try:
            r = (f or pysource.block(self.g, block))(self, env)
            if type(r) is GeneratorType:
                r = yield from r
            return r
        except BLOCK_ERRORS as exc:
            raise self.block_fault(exc) from None

    def block_fault(self, exc):
        """The fault a running block's error stands for, at the content's position (the
        error itself where it is no fault of the content)."""
        if isinstance(exc, GameFault):
            return self.placed(exc)
        fault = self.in_statement(exc) or pysource.fault(self.g, exc)
        if fault is None:
            raise exc
        return fault

    def done(self, gen):
        """A generator of an effect, run where nothing can pause (a plain function called it):
        to its end, or, at a decision not answered yet, `Suspend` (the flow replays the task)."""
        try:
            d = gen.send(None)
        except StopIteration as end:
            return end.value
        gen.close()
        raise Suspend(d)

    def in_statement(self, exc):
        """The GameFault an error raised by a statement's own handler (`s_gain` handed a card
        to count) stands for: at that statement, the innermost one it passed through. None
        where it passed through none."""
        tb, at = exc.__traceback__, None
        while tb is not None:
            f = tb.tb_frame
            if f.f_code.co_name.startswith(("s_", "y_")) and f.f_locals.get("self") is self:
                s = f.f_locals.get("s")
                if type(s) is list and len(s) > 1 and type(s[1]) is str:
                    at = s[1]
            tb = tb.tb_next
        return GameFault(at, str(exc)) if at is not None else None

    def enter(self, block):
        """A procedure body begins: one level deeper, one step more, each within its budget."""
        if self.depth >= DEPTH_LIMIT:
            raise GameFault(block[0][1] if block else "?", pysource.DEEP)
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise GameFault(block[0][1] if block else "?", pysource.LONG)
        self.depth += 1

    def call_block(self, block, env):
        """Run a block as a procedure body: `return` ends it with a value."""
        self.enter(block)
        try:
            r = self.run(block, env)
        finally:
            self.depth -= 1
        return r[0] if r is not None else None

    def ycall_block(self, block, env):
        """`call_block`, as a generator."""
        self.enter(block)
        try:
            r = yield from self.yrun(block, env)
        finally:
            self.depth -= 1
        return r[0] if r is not None else None

    def ev(self, e, env):
        c = self.g.cache.code
        f = c.exprs.get(id(e)) if c is not None else None
        try:
            return (f or pysource.expression(self.g, e))(self, env)
        except EVALUATION_ERRORS as exc:
            raise (pysource.fault(self.g, exc) or GameFault(e[1], f"cannot evaluate `{e[0]}`: {exc}")) from None
        except GameFault as exc:
            raise self.placed(exc, e[1]) from None

    def placed(self, exc, pos="?"):
        """A fault raised where no position was at hand (a helper handed a thing that is
        none): at the line of content it was raised from, else at `pos`."""
        if exc.pos != "?":
            return exc
        at = pysource.where(self.g, exc)
        return GameFault(at[0] if at is not None else pos, exc.message)

    # ---- names and attributes ----
    def e_name(self, e, env):
        n = e[2]
        if n in env:
            return env[n]
        st, g = self.st, self.g
        if n == "players":
            return self.order()
        if n == "others":
            p = env.get("player")
            order = self.order_from(p) if p else self.order()
            return [x for x in order if x != p]
        if n == "round":
            if self.track is not None:
                self.track[_ROUND] = st["round"]
            return st["round"]
        if n == "first_player":
            if self.track is not None:
                self.track[_FIRST] = st["first"]
            return st["first"]
        if n == "player_count":
            return len(st["players"])
        if n in g.global_counters:
            v = st["game_counters"].get(n)
            if self.track is not None:
                self.track[("game_counter", n)] = v
            return v
        if n in g.game_zones:
            return Zone(n)
        if n in g.proto_of or n in g.protos or n in g.actions or n in st["things"]:
            return n
        if n in st["options"]:
            return st["options"][n]
        if n == "player":
            return None
        raise GameFault(e[1], f"`{n}` has no value here")

    def order(self):
        if self.track is not None:
            self.track[_FIRST] = self.st["first"]
        return self.order_from(self.st["first"])

    def order_from(self, p):
        ps = self.st["players"]
        i = ps.index(p) if p in ps else 0
        return ps[i:] + ps[:i]

    def attr(self, x, n, pos):
        g, st = self.g, self.st
        if isinstance(x, dict):
            return x.get(n)
        if x is None:
            raise GameFault(pos, f"`.{n}` of nothing")
        if isinstance(x, Zone):
            if n == "count":
                if self.track is not None:
                    self.track[("zone", str(x))] = list(st["zones"].get(x, ()))
                return len(st["zones"].get(x, ()))
            x = str(x)
        ent = st["things"].get(x)
        if ent is None:
            # a prototype named directly: its fixed attributes
            p = g.protos.get(x)
            if p is not None:
                return p["attrs"].get(n, p.get(n) if n in ("kind", "name") else None)
            raise GameFault(pos, f"`{x}` is not a thing in play, so it has no `{n}`")
        c = ent["counters"]
        if self.track is not None:
            self.track[("counter", x, n)] = c.get(n, ABSENT)
        if n in c:
            return c[n]
        if n in g.owned_zones and self.owns_zone(x, g.owned_zones[n]):
            return Zone(f"{x}.{n}")
        if n in ("id",):
            return x
        if n == "type":
            return g.proto_of.get(x, x)
        if n == "kind":
            return g.kind_of.get(x, "player")
        if n == "name":
            return g.name(x)
        if n == "zone":
            if self.track is not None:
                self.track[("field", x, "zone")] = ent["zone"]
            return Zone(ent["zone"])
        if n == "location":
            return self.location_of(x)
        if n == "owner":
            return self.owner_of(x)
        if n == "face_up":
            if self.track is not None:
                self.track[("field", x, "up")] = ent["up"]
            return ent["up"]
        if n == "contents":
            return Zone(x)
        if n == "seat":
            return st["players"].index(x) + 1 if x in st["players"] else None
        p = g.protos.get(g.proto_of.get(x, ""))
        if p is not None:
            return p["attrs"].get(n)
        return None

    def owns_zone(self, x, scope):
        """Whether thing x has zones of this scope: a player's hand is not a piece's."""
        if scope == "player":
            return x in self.st["players"]
        return self.g.kind_of.get(x) == scope

    holder = _holder  # (x, among): the first holder of x in `among`, see reading.holder

    def location_of(self, x):
        return self.holder(x, self.g.locations)

    def owner_of(self, x):
        return self.holder(x, self.st["players"])

    def items(self, v):
        """The things a value stands for. Callers only read the list; a zone's is a copy, so a
        loop may move what it walks, and the same copy is what a grouping read."""
        if v is None:
            return []
        if type(v) is list:
            return v
        if isinstance(v, Zone):
            c = contents(self.st, v)
            if self.track is not None:
                self.track[("zone", str(v))] = c
            return c
        if isinstance(v, list):
            return v
        if isinstance(v, dict):
            return list(v.values())
        if isinstance(v, str) and v in self.st["things"]:
            c = contents(self.st, v)
            if self.track is not None:
                self.track[("zone", v)] = c
            return c
        return [v]

    def size(self, v):
        """len(self.items(v)), without copying a zone's list where nothing is being noted."""
        if type(v) is Zone and self.track is None:
            return len(self.st["zones"].get(v, ()))
        return len(self.items(v))

    def member(self, a, b):
        if isinstance(b, Zone) or (isinstance(b, str) and b in self.st["things"]):
            if not (isinstance(a, str) and a in self.st["things"]):
                return False
            z = self.st["things"][a]["zone"]
            if self.track is not None:
                self.track[("field", a, "zone")] = z
            return z == str(b)
        if isinstance(b, (list, dict)):
            return a in b
        if isinstance(b, str) and isinstance(a, str):
            return a in b
        return False

    def call_procedure(self, name, args, env):
        """A procedure of the content, called from IR outside the game's own module."""
        r = pysource.procedure(self.g, name)(self, arguments(env, self.g.procedures[name]["params"], args))
        return self.done(r) if type(r) is GeneratorType else r

    def changed(self, *touched):
        """The state changed: groupings made from before may no longer hold.

        `touched` names what changed as the reads it would upset (("counter", thing, counter), ...);
        groupings that read none of it stay. Without it, everything is forgotten.
        """
        if self.index:
            if touched:
                self.index = {k: h for k, h in self.index.items() if h.reads.keys().isdisjoint(touched)}
            else:
                self.index = {}

    def grouped(self, key, read, live, value, bulk=None):
        """The things of kind K in play whose attribute `a` equals `value`, in table order.

        key is (K, a); `read(self, x)` reads `x.a`, `live(self)` lists the things in play. A loop
        `[x for x in every K where x.a == value ...]` walks only these. The grouping is kept
        until this interpreter changes something it read, so loops over the same kind and
        attribute share it; the game keeps the last one made, and a new interpreter checks
        what it read rather than making it again. None when a value cannot be grouped (a
        list, a table). `bulk(self, things, reads)`, where given, groups them with the same
        reads as `read`.
        """
        hit = self.index.get(key)
        if hit is None:
            hit = self.g.cache.groupings.get(key)
            if hit is not None and _still(self, hit.reads):
                self.index[key] = hit
            else:
                hit = None
        if hit is None:
            outer = self.track
            self.track = reads = {}
            try:
                groups = bulk(self, live(self), reads) if bulk is not None else group_by(self, live(self), read)
            except TypeError:  # a value that cannot be a key
                groups = None
            finally:
                self.track = outer
            hit = self.index[key] = self.g.cache.groupings[key] = Grouping(groups, reads)
        if hit.groups is None:
            return None
        try:
            return hit.groups.get(value, ())
        except TypeError:
            return None

    def function(self, name, args, pos, aggregate=False):
        st = self.st
        if name in OVER_COLLECTIONS and not aggregate:
            if name in ("max", "min") and len(args) > 1:
                vals = [num(a) for a in args]
            else:
                vals = self.items(args[0])
        elif aggregate:
            vals = args[0]
        if name == "count":
            return len(vals)
        if name == "sum":
            total = sum(num(v) for v in vals)
            if not -LIMIT <= total <= LIMIT:
                raise GameFault(pos, beyond(total))
            return total
        if name == "max":
            return max((num(v) for v in vals), default=0)
        if name == "min":
            return min((num(v) for v in vals), default=0)
        if name == "any":
            return any(vals)
        if name == "all":
            return all(vals)
        if name == "sorted":
            key = args[1] if len(args) > 1 else None

            def order(v):  # numbers before text; text in its own order
                k = self.attr(v, key, pos) if key else v
                return (0, num(k), "") if k is None or isinstance(k, (int, float)) else (1, 0, str(k))
            return sorted(vals, key=order)
        if name == "distinct":
            out = []
            for v in vals:
                if v not in out:
                    out.append(v)
            return out
        if name == "first":
            return vals[0] if vals else None
        if name == "last":
            return vals[-1] if vals else None
        if name == "random":
            return vals[rng.below(st, len(vals))] if vals else None
        if name == "abs":
            return abs(num(args[0]))
        if name == "floor":
            return math.floor(num(args[0]))
        if name == "ceil":
            return math.ceil(num(args[0]))
        if name == "clamp":
            return max(num(args[1]), min(num(args[2]), num(args[0])))
        if name == "roll":
            n = int(num(args[0]))
            sides = int(num(args[1])) if len(args) > 1 else 6
            if n > 1000:
                raise GameFault(pos, f"cannot roll {n} dice")
            rolled = [self.die(sides) for _ in range(max(0, n))]
            st["rolled"] = [st.get("rolled", [0])[0] + 1] + rolled  # the last roll, numbered, for the table to show
            return rolled
        if name == "faces":
            return list(self.items(args[0]))
        if name == "distance":
            return self.distance(args[0], args[1], pos)
        if name == "adjacent":
            a, b = self.place_of(args[0]), self.place_of(args[1])
            return a in self.g.locations and b in self.g.locations[a]["adjacent"]
        if name == "neighbours":
            a = self.place_of(args[0])
            return list(self.g.locations.get(a, {}).get("adjacent", []))
        if name == "within":
            return list(self.g.within(self.place_of(args[0]), num(args[1])))
        if name == "top":
            xs = self.items(args[0])
            return xs[0] if xs else None
        if name == "next_player":
            ps = st["players"]
            return ps[(ps.index(args[0]) + 1) % len(ps)]
        if name == "previous_player":
            ps = st["players"]
            return ps[(ps.index(args[0]) - 1) % len(ps)]
        if name == "usable":
            return self.usable(args[0], args[1])
        if name == "option":
            return st["options"].get(args[0])
        raise GameFault(pos, f"unknown function `{name}`")

    def die(self, sides):
        if self.st["dice"]:
            return self.st["dice"].pop(0)
        return rng.below(self.st, sides) + 1

    def place_of(self, x):
        if x in self.g.locations:
            return x
        if isinstance(x, str) and x in self.st["things"]:
            return self.location_of(x)
        return x

    def distance(self, a, b, pos):
        """Shortest path over links (their distances) or adjacency (1 each)."""
        a, b = self.place_of(a), self.place_of(b)
        if a == b:
            return 0
        return self.g.distances_from(a).get(b, math.inf)

    def usable(self, window, p, given=None):
        out = []
        for a in self.g.windows.get(window, []):
            if self.action_allowed(a, p, given):
                out.append(a)
        return out

    def action_allowed(self, aid, p, given=None):
        act = self.g.actions[aid]
        env = dict(given, player=p, this=aid) if given else {"player": p, "this": aid}
        if "if" in act and not self.ev(act["if"], env):
            return False
        return self.can_pay(act.get("cost"), env)

    def can_pay(self, cost, env):
        """A cost's `pay` lines at its top level decide whether it can be paid at all."""
        for s in cost or ():
            if s[0] == "pay":
                amount = num(self.ev(s[2], env))
                owner = self.ev(s[4], env) if s[4] is not None else self.default_owner(s[3], env, s[1])
                have = self.get_counter(owner, s[3], s[1])
                if num(have) < amount:
                    return False
        return True

    # ---- counters ----
    def default_owner(self, c, env, pos):
        scope = self.g.counters[c]["of"]
        if scope == "game":
            return None
        if scope == "player":
            return env.get("player")
        raise GameFault(pos, f"say whose `{c}`")

    def get_counter(self, owner, c, pos="?"):
        if owner is None:
            v = self.st["game_counters"].get(c)
            if self.track is not None:
                self.track[("game_counter", c)] = v
            return v
        ent = self.st["things"].get(owner)
        if ent is None:
            raise GameFault(pos, f"`{owner}` has no counters")
        if self.track is not None:
            self.track[("counter", owner, c)] = ent["counters"].get(c, ABSENT)
        return ent["counters"].get(c, self.g.counters[c]["initial"])

    def set_counter(self, owner, c, value, pos):
        for eff, env in self.write_counter(owner, c, value, pos):
            self.call_block(eff, env)

    def yset_counter(self, owner, c, value, pos):
        """`set_counter`, as a generator: its thresholds and on_change may decide."""
        for eff, env in self.write_counter(owner, c, value, pos):
            yield from self.ycall_block(eff, env)

    def write_counter(self, owner, c, value, pos):
        """Writes a counter; the effects this runs ((block, names) of its thresholds passed and
        its on_change), made one at a time, each after those before it ran."""
        d = self.g.counters.get(c)
        if d is None:
            raise GameFault(pos, f"unknown counter `{c}`")
        if isinstance(value, Zone):
            value = str(value)  # state holds plain strings only
        if d["type"] == "number":
            value = num(value)
            if not -LIMIT <= value <= LIMIT:  # `gain`, `lose` and `set` add and write here
                raise GameFault(pos, beyond(value))
            if "min" in d and value < d["min"]:
                value = d["min"]
            if "max" in d and value > d["max"]:
                value = d["max"]
            if isinstance(value, float) and value == int(value):
                value = int(value)
        old = self.get_counter(owner, c, pos)
        if owner is None:
            self.st["game_counters"][c] = value
            self.changed(("game_counter", c))
        else:
            self.own(owner)["counters"][c] = value
            self.changed(("counter", owner, c))
        if old == value or ("thresholds" not in d and "on_change" not in d):
            return ()
        return self._hooks(d, c, owner, old, value)

    def _hooks(self, d, c, owner, old, value):
        env = {"this": c, "owner": owner, "old": old, "new": value}
        if owner in self.st["players"]:
            env["player"] = owner
        if d["type"] == "number":
            for at, eff in d.get("thresholds", ()):
                if num(old) < at <= value:
                    yield eff, dict(env)
        if "on_change" in d:
            yield d["on_change"], dict(env)

    def counter_target(self, s, env):
        if s[4] is not None:
            return self.ev(s[4], env)
        return self.default_owner(s[3], env, s[1])

    # ---- statements ----
    def s_set(self, s, env):
        w = self.set_target(s, env)
        if w is not None:
            self.set_counter(*w, s[1])

    def y_set(self, s, env):
        w = self.set_target(s, env)
        if w is not None:
            yield from self.yset_counter(*w, s[1])

    def set_target(self, s, env):
        """(owner, counter, value) a `set` writes; None where it set a name or the first player."""
        t, v = s[2], self.ev(s[3], env)
        if t[0] == "name":
            n = t[2]
            if n in env or n not in self.g.counters and n != "first_player":
                env[n] = v
            elif n == "first_player":
                self.st["first"] = v
                self.changed(_FIRST)
            elif self.g.counters[n]["of"] == "game":
                return None, n, v
            else:
                return env.get("player"), n, v
            return None
        owner = self.ev(t[2], env)
        if t[3] not in self.g.counters:
            raise GameFault(s[1], f"`{t[3]}` is not a counter, so it cannot be set")
        return owner, t[3], v

    def s_gain(self, s, env):
        self.set_counter(*self.added(s, env, 1), s[1])

    def s_lose(self, s, env):
        self.set_counter(*self.added(s, env, -1), s[1])

    def s_pay(self, s, env):
        self.set_counter(*self.paid(s, env), s[1])

    def y_gain(self, s, env):
        yield from self.yset_counter(*self.added(s, env, 1), s[1])

    def y_lose(self, s, env):
        yield from self.yset_counter(*self.added(s, env, -1), s[1])

    def y_pay(self, s, env):
        yield from self.yset_counter(*self.paid(s, env), s[1])

    def added(self, s, env, sign):
        """(owner, counter, value) a `gain` (sign 1) or `lose` (-1) writes."""
        owner = self.counter_target(s, env)
        have = num(self.get_counter(owner, s[3], s[1]))
        n = num(self.ev(s[2], env))
        return owner, s[3], have + n if sign > 0 else have - n

    def paid(self, s, env):
        owner = self.counter_target(s, env)
        amount = num(self.ev(s[2], env))
        have = num(self.get_counter(owner, s[3], s[1]))
        if have < amount:
            raise Fail(f"not enough {s[3]}: {have} of {amount}")
        return owner, s[3], have - amount

    def dest_key(self, d, pos):
        if isinstance(d, Zone):
            return str(d)
        if isinstance(d, str) and (d in self.st["things"] or d in self.g.game_zones):
            return d
        raise GameFault(pos, f"`{d}` is not a place things can be put")

    def move(self, eid, key, face=None, top=False, by_place=False):
        old = self.place(eid, key, face, top, by_place)
        if key in self.g.locations and old != key and "enter" in self.g.triggers:
            self.fire("enter", {"piece": eid, "location": key, "origin": old})

    def ymove(self, eid, key, face=None, top=False):
        """`move`, as a generator: the `enter` triggers it fires may decide."""
        old = self.place(eid, key, face, top)
        if key in self.g.locations and old != key and "enter" in self.g.triggers:
            yield from self.yfire("enter", {"piece": eid, "location": key, "origin": old})

    def place(self, eid, key, face, top, by_place=False):
        """Puts a thing in a zone; where it was. `by_place`: the thing was taken by where it
        lay (a deck's top card), so everyone can tell which one left."""
        st = self.st
        if eid not in st["things"]:
            raise GameFault("?", f"`{eid}` is not a thing that can move")
        if "knowledge" in st:  # (what the players can still tell of it: runtime/visibility.py)
            visibility.moving(self.g, st, eid, st["things"][eid]["zone"], by_place, self.picked.get(eid, ()))
        self.own(eid)
        self.own_zone(st["things"][eid]["zone"])
        self.own_zone(key)
        old = place(st, eid, key, top)
        if old == "removed" or key == "removed":  # what `every K` walks changed too
            self.changed(("field", eid, "zone"), ("zone", old), ("zone", key), ("removed", self.g.kind_of.get(eid, "player")))
        else:
            self.changed(("field", eid, "zone"), ("zone", old), ("zone", key))
        if "." in key:  # remember whose deck a card sits in, for discarding it later
            proto = self.g.protos.get(self.g.proto_of.get(eid, ""))
            if proto is not None and proto.get("deck") == zone_name(key):
                st["things"][eid]["home"] = zone_owner(key)
        if face is not None:
            st["things"][eid]["up"] = face == "up"
            self.changed(("field", eid, "up"))
        if "knowledge" in st:  # (whether it went where a player who knew the pile it left can see it)
            visibility.moved(self.g, st, eid, old, self.picked.get(eid, ()))
        return old

    def things(self, v):
        # one thing named by its id is that thing, not what lies on it (`move card to pile`)
        if isinstance(v, str) and not isinstance(v, Zone) and v in self.st["things"]:
            return [v]
        return [x for x in self.items(v) if isinstance(x, str) and x in self.st["things"]]

    def s_draw(self, s, env):
        n = 1 if s[2] is None else int(num(self.ev(s[2], env)))
        src = self.ev(s[3], env)
        key = self.dest_key(src, s[1])
        if s[4] is not None:
            dest = self.dest_key(self.ev(s[4], env), s[1])
        else:
            p = env.get("player")
            if p is None or "hand" not in self.g.owned_zones:
                raise GameFault(s[1], "say where the drawn things go: `draw ... to X`")
            dest = f"{p}.hand"
        drawn = []
        base = zone_name(key)
        is_pool = base in self.g.pools
        for _ in range(max(0, min(n, 10000))):
            pile = self.st["zones"].get(key)
            if not pile:
                pile = self.refill(key)
            if not pile:
                break
            eid = pile[rng.below(self.st, len(pile))] if is_pool else pile[0]
            self.move(eid, dest, s[5] or "up", by_place=not is_pool)
            drawn.append(eid)
        if s[6]:
            env[s[6]] = drawn if s[2] is not None else (drawn[0] if drawn else None)

    def refill(self, key):
        """An empty deck takes back its discards, shuffled, if the deck says so."""
        base, owner = zone_name(key), zone_owner(key)
        d = self.g.decks.get(base)
        if not d or not d["reshuffle"]:
            return []
        dkey = f"{owner}.{d['discard']}" if owner else d["discard"]
        for eid in contents(self.st, dkey):
            if "knowledge" in self.st:
                visibility.sighted(self.g, self.st, eid)
            self.own(eid)
            self.own_zone(dkey)
            self.own_zone(key)
            place(self.st, eid, key)
            self.st["things"][eid]["up"] = False
        pile = self.own_zone(key) or []
        visibility.shuffled(self.g, self.st, key)
        rng.shuffle(self.st, pile)
        self.changed()
        return pile

    def home_deck(self, eid):
        p = self.g.protos[self.g.proto_of[eid]]
        deck = p.get("deck")
        if deck is None:
            return None, None
        d = self.g.decks[deck]
        owner = None
        if d["of"] != "game":
            # the deck it was last in (a location's or a player's), else its holder's
            owner = self.st["things"][eid].get("home") or self.owner_of(eid)
            if owner is None:
                return None, None
        return (f"{owner}.{deck}" if owner else deck), (f"{owner}.{d['discard']}" if owner else d["discard"])

    def s_discard(self, s, env):
        for x in self.things(self.ev(s[2], env)):
            deck, pile = self.home_deck(x)
            if deck is None:
                self.move(x, "supply")
            elif s[3]:
                self.move(x, deck, "down")
            else:
                self.move(x, pile, "up")

    def s_shuffle(self, s, env):
        key = self.dest_key(self.ev(s[2], env), s[1])
        if s[3] is not None:
            into = self.dest_key(self.ev(s[3], env), s[1])
            for x in contents(self.st, key):
                self.move(x, into, "down")
            key = into
        visibility.shuffled(self.g, self.st, key)
        rng.shuffle(self.st, self.own_zone(key) or [])
        self.changed()

    def seats_of(self, who):
        return [who] if who in self.st["players"] else [p for p in self.items(who) if p in self.st["players"]]

    def s_show(self, s, env):
        """These players learn what the things are, until the things move (runtime/visibility.py)."""
        seats = self.seats_of(self.ev(s[3], env))
        for x in self.things(self.ev(s[2], env)):
            visibility.sighted(self.g, self.st, x)
            ent = self.own(x)
            known = ent.setdefault("shown_to", [])
            known.extend(p for p in seats if p not in known)
            if ent.get("hidden_from"):
                ent["hidden_from"] = [p for p in ent["hidden_from"] if p not in seats]
                if not ent["hidden_from"]:
                    del ent["hidden_from"]
            self.changed(("shown", x))  # nothing an expression reads

    def s_hide(self, s, env):
        """These players may not see what the things are, wherever they lie, until the things move."""
        seats = self.seats_of(self.ev(s[3], env))
        for x in self.things(self.ev(s[2], env)):
            visibility.sighted(self.g, self.st, x)
            ent = self.own(x)
            blind = ent.setdefault("hidden_from", [])
            blind.extend(p for p in seats if p not in blind)
            if ent.get("shown_to"):
                ent["shown_to"] = [p for p in ent["shown_to"] if p not in seats]
            self.changed(("shown", x))

    def s_reveal(self, s, env):
        for x in self.things(self.ev(s[2], env)):
            visibility.sighted(self.g, self.st, x)
            self.own(x)["up"] = True
            self.changed(("field", x, "up"))

    def s_conceal(self, s, env):
        for x in self.things(self.ev(s[2], env)):
            visibility.sighted(self.g, self.st, x)
            self.own(x)["up"] = False
            self.changed(("field", x, "up"))

    def s_remove(self, s, env):
        for x in self.things(self.ev(s[2], env)):
            self.move(x, "removed", "up")

    def s_putback(self, s, env):
        for x in self.things(self.ev(s[2], env)):
            pool = self.g.protos[self.g.proto_of[x]].get("pool")
            deck, _pile = self.home_deck(x) if pool is None else (None, None)
            home = pool or deck
            if home is None:
                for iid, _p, zone, _u in self.g.instances:
                    if iid == x:
                        home = zone
                        break
            self.move(x, home or "supply", "down" if (pool or deck) else None)

    def s_mark(self, s, env):
        until = s[4] or "ever"
        if s[4]:  # a mark that lasts until the end of the turn or round: the flow looks for it
            self.st["flow"]["timed"] = True
            if until == "next_turn":  # the marking player's: it goes as their next turn starts
                until = "next_turn:" + str(env.get("player") or self.st.get("active"))
                self.st["flow"]["next_turn"] = True  # turn starts look for such marks from now on
        for x in self.things(self.ev(s[2], env)):
            self.own(x)["marks"][s[3]] = until
            self.changed(("mark", x, s[3]))

    def s_unmark(self, s, env):
        for x in self.things(self.ev(s[2], env)):
            self.own(x)["marks"].pop(s[3], None)
            self.changed(("mark", x, s[3]))

    def s_fail(self, s, env):
        reason = s[2]
        raise Fail((reason if type(reason) is str else self.said(reason, env)) if reason else WORDS["cannot_now"]["en"] + " / " + WORDS["cannot_now"]["ru"])

    def s_endgame(self, s, env):
        self.st["over"] = True
        # for the figures (flow.ended); `log`: how long the log was, its last line often says why
        self.st.setdefault("ended", {"by": "end game", "at": s[1], "log": len(self.st["log"])})
        self.changed()
        raise GameOver()  # at once: the rest of the effect does not happen

    def s_endturn(self, s, env):
        self.st["flow"]["turn_over"] = True
        self.changed()

    def s_stop(self, s, env):
        raise LoopStop()

    def s_log(self, s, env):
        """A log line; one that names hidden things is read unnamed by those it is hidden
        from, and `log X to P` is read by P alone (runtime/visibility.py)."""
        v = self.ev(s[2], env)
        to = None
        if len(s) > 3 and s[3] is not None:
            who = self.ev(s[3], env)
            to = [who] if who in self.st["players"] else [p for p in self.items(who) if p in self.st["players"]]
        things = visibility.named(self.st, v)
        text, ru = self.spoken(v, s)
        unnamed, unnamed_ru = self.spoken(v, s, True) if things else (None, None)
        types = visibility.named_types(self.g, v, s[2])
        self.st["log"].append(visibility.log_entry(self.g, self.st, text, things, to, unnamed, s[1], types, ru, unnamed_ru))
        if self.g.cache.log_hook is not None:
            self.g.cache.log_hook(self.st, len(self.st["log"]) - 1)

    def spoken(self, v, s=None, unnamed=False):
        """A log line's words: English, and Russian (else None) in a game written in it. A
        text's words are the content's: "English / Русский" gives each side to its language;
        a text written in English alone stays so (its Russian would be English words around
        Russian names); values alone (a thing, a list of them) are said in each language.
        `s`: the `log` statement (how its text is written is worked out once for it)."""
        en = self.show(v, unnamed)
        if not self.g.russian:
            return en, None
        if type(v) is Text:
            known = self.g.cache.spoken.get(id(s))
            if known is None or known[0] is not s:
                known = self.g.cache.spoken[id(s)] = (s, _written([x for x in v if type(x) is Said]))
            how = known[1]
        elif type(v) is str and v not in self.st["things"] and v not in self.g.protos and v not in self.g.terms:
            how = _written([v])
        else:
            how = None
        if how == "both":
            ru = self.show(v, unnamed, "ru").partition(" / ")[2].strip()
            return en.partition(" / ")[0].strip(), ru or None
        if how == "en":
            return en, None
        return en, self.show(v, unnamed, "ru")

    def show(self, v, unnamed=False, lang="en"):
        """A value in words. `unnamed`: things are "a card" (every thing, or those of a set)."""
        if type(v) is Text:
            return "".join(x if type(x) is Said else self._value(x, unnamed, lang) for x in v)
        if isinstance(v, list):
            return ", ".join(self.show(x, unnamed, lang) for x in v)
        if isinstance(v, str) and (v in self.st["things"]):
            if unnamed and v not in self.st["players"] and (unnamed is True or v in unnamed):
                kind = self.g.kind_of.get(v, "thing")
                return WORDS["a"][lang] + KINDS.get(lang, {}).get(kind, kind)
            return label_of(self.g, v).get(lang) or label_of(self.g, v).get("en", v)
        if isinstance(v, str) and (v in self.g.protos or v in self.g.terms):  # a type of card, not one copy: its
            return label_of(self.g, v).get(lang) or v                          # name; an id-like value: its term
        return str(v)

    def _value(self, v, unnamed, lang):
        """A value inside a text: a whole number without `.0`, yes/no, a list joined."""
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        if v is True or v is False or v is None:
            return label_of(self.g, v).get(lang, str(v)).lower()
        if isinstance(v, list) and v:
            words = [self._value(x, unnamed, lang) for x in v]
            return words[0] if len(words) == 1 else ", ".join(words[:-1]) + WORDS["and"][lang] + words[-1]
        return self.show(v, unnamed, lang)

    def said(self, text, env):
        """A prompt or a reason with values, as every seat may read it: a thing hidden from
        any seat is unnamed. Its two languages as a prompt carries them ("en / ru")."""
        v = self.ev(text, env)
        hidden = {x for x in visibility.named(self.st, v) if not all(visibility.can_see(self.g, self.st, x, p) for p in self.st["players"])}
        en = self.show(v, hidden or False, "en")
        if " / " not in en:
            return en
        ru = self.show(v, hidden or False, "ru").partition(" / ")[2]
        return en.partition(" / ")[0] + " / " + (ru or en.partition(" / ")[2])

    def s_emit(self, s, env):
        self.fire(s[2], {k: self.ev(v, env) for k, v in s[3].items()}, env.get("player"))

    def y_emit(self, s, env):
        yield from self.yfire(s[2], {k: self.ev(v, env) for k, v in s[3].items()}, env.get("player"))

    def fire(self, event, bindings, player=None):
        """`yfire`, where nothing can pause (a decision reached: Suspend, as in `run`)."""
        self.done(self.yfire(event, bindings, player))

    def yfire(self, event, bindings, player=None):
        for t in self.g.triggers.get(event, ()):
            env = dict(bindings)
            if "player" not in env and player is not None:
                env["player"] = player
            env.setdefault("player", self.st.get("active") or self.st["first"])
            if "when" in t and not self.ev(t["when"], env):
                continue
            yield from self.ycall_block(t["effect"], env)

    def s_offer(self, s, env):
        return self.done(self.y_offer(s, env))

    def y_offer(self, s, env):
        """A reaction out of turn: the players asked in order, each choosing one of the
        window's actions they may take or none; the first to take one does it (priority),
        with `actor` (the player whose effect offers) and the `with` names bound."""
        window, who, given, as_ = s[2], s[3], s[4], s[5]
        actor = env.get("player")
        if who is None:
            asked = [x for x in (self.order_from(actor) if actor else self.order()) if x != actor]
        else:
            v = self.ev(who, env)
            asked = [v] if v in self.st["players"] else [x for x in self.items(v) if x in self.st["players"]]
        given = dict({k: self.ev(e, env) for k, e in given.items()}, actor=actor)
        taken = None
        for p in asked:
            if "out" in self.st["things"][p]["marks"]:  # out of the round or the game: not asked
                continue
            a = AGAIN
            while a is AGAIN:
                reactions = self.usable(window, p, given)
                a = (yield from self.ypick(p, reactions, None, s[1], True, env)) if reactions else None
            if a is not None:
                taken = p
                yield from self.yperform(a, p, s[1], given)
                break
        if as_:
            env[as_] = taken

    def s_perform(self, s, env):
        x = self.ev(s[2], env)
        p = self.ev(s[3], env) if s[3] is not None else env.get("player")
        self.perform(x, p, s[1])

    def y_perform(self, s, env):
        x = self.ev(s[2], env)
        p = self.ev(s[3], env) if s[3] is not None else env.get("player")
        yield from self.yperform(x, p, s[1])

    def perform(self, x, p, pos, given=None):
        return self.done(self.yperform(x, p, pos, given))

    def yperform(self, x, p, pos, given=None):
        g = self.g
        if isinstance(x, str) and x in g.actions:
            act = g.actions[x]
            env = dict(given, player=p, this=x) if given else {"player": p, "this": x}  # who reacts is `player`
            yield from self.ycall_block(act.get("cost", NO_EFFECT), env)
            yield from self.ycall_block(act.get("effect", NO_EFFECT), env)
            if "action" in g.triggers:
                yield from self.yfire("action", {"player": p, "action": x})
            return
        proto = g.protos.get(g.proto_of.get(x, x)) if isinstance(x, str) else None
        if proto is None:
            raise GameFault(pos, f"`{x}` is not something that can be performed")
        env = {"player": p, "this": x, "card": x, "piece": x, "here": x}
        if "activation" in proto:
            yield from self.ycall_block(proto["activation"].get("cost", NO_EFFECT), env)
            yield from self.ycall_block(proto["activation"].get("effect", NO_EFFECT), env)
        elif "effect" in proto:
            yield from self.ycall_block(proto["effect"], env)

    def s_swap(self, s, env):
        a, b = self.ev(s[2], env), self.ev(s[3], env)
        for x, e in ((a, s[2]), (b, s[3])):
            if type(x) is not str or x not in self.st["things"] or x in self.st["players"]:
                what = "none" if x is None else f"`{x}`" if type(x) in (str, int, float) else "a list" if type(x) is list else "not a thing"
                raise GameFault(e[1], f"`swap` exchanges the places of two things in play; this is {what}")
        za, zb = self.st["things"][a]["zone"], self.st["things"][b]["zone"]
        self.move(a, zb)
        self.move(b, za)

    # ---- decisions ----
    def changed_table(self, ir):
        """A scenario's setup, given as the waiting decision's answer (flow.set_table): run
        where the effect waits, which then works the decision out again (AGAIN), live or
        replayed from its snapshot alike. It may not ask anything itself."""
        try:
            self.call_block(ir, {"player": self.st["first"]})
        except Suspend:
            raise Fail(ASKS) from None
        self.changed()
        return AGAIN

    def answer(self, decision):
        """The answer to a decision: the next of the answers, or, once they are all used, the
        one the flow sends when it resumes the effect (`yield` hands the decision up to it)."""
        visibility.observe(self.g, self.st)  # the players look at the table (the same again in a replay)
        if self.ai >= len(self.answers):
            yield decision
        a = self.answers[self.ai]
        self.ai += 1
        if "knowledge" in self.st and type(a) is str and a in self.st["things"] and type(decision.get("who")) is str:
            # whoever picked a thing by its place ("card 2 of your hand") can tell it as it moves
            self.picked = {**self.picked, a: (decision["who"],)}
        if self.rejoin is not None and self.ai == len(self.answers):  # replayed up to the decision just answered
            self.st["rng"], self.rejoin = self.rejoin, None
        if type(a) is dict and "table" in a:
            return self.changed_table(a["table"])
        return a

    def options(self, src, var, where, env):
        """The things of src (named var) for which where holds."""
        if where is None:
            return list(self.items(src))
        c = self.g.cache.code
        f = c.filters.get(id(where)) if c is not None else None
        try:
            return (f or pysource.options(self.g, where, var))(self, env, self.items(src))
        except EVALUATION_ERRORS as exc:
            raise (pysource.fault(self.g, exc) or GameFault(where[1], f"cannot evaluate `{where[0]}`: {exc}")) from None

    def decision(self, who, kind, opts, prompt, pos, env=None):
        g = self.g
        if type(prompt) is list:  # a prompt with values: worked out each time, never kept
            said = prompt_text(self.said(prompt, env))
        else:
            if prompt not in g.cache.prompts:
                g.cache.prompts[prompt] = prompt_text(prompt)
            said = g.cache.prompts[prompt]
        return {"who": who, "kind": kind, "prompt": said, "at": pos,  # shared, as the options are
                "options": [offered(g, v) for v in opts]}

    def secret_from_others(self, among, who) -> bool:
        """Whether some thing among these is hidden from a player other than `who`."""
        things = self.st["things"]
        others = [p for p in self.st["players"] if p != who]
        return any(type(x) is str and x in things and not visibility.can_see(self.g, self.st, x, p)
                   for x in self.items(among) for p in others)

    def ypick(self, who, opts, prompt, pos, optional, env=None, kinds=False, always=False):
        values = list(opts) + ([None] if optional else [])
        if len(values) == 1 and not optional and not always:
            return values[0]
        d = self.decision(who, "choose", values, prompt, pos, env)
        if kinds:  # a card of one copy among them is its kind, not the card where it lies
            d = dict(d, kinds=True)
        ids = [o["id"] for o in d["options"]]
        a = yield from self.answer(d)
        if a is AGAIN:
            return AGAIN
        return values[ids.index(a)] if a in ids else values[0]

    def s_choose(self, s, env):
        return self.done(self.y_choose(s, env))

    def s_may(self, s, env):
        return self.done(self.y_may(s, env))

    def s_secret(self, s, env):
        return self.done(self.y_secret(s, env))

    def y_choose(self, s, env):
        while True:  # worked out again where the table changed while it waited (AGAIN)
            r = yield from self._y_choose(s, env)
            if r is not AGAIN:
                return r

    def _y_choose(self, s, env):
        upto, var, src, where, by, optional, prompt, body, other = s[2:11]
        who = self.ev(by, env) if by is not None else env.get("player")
        among = self.ev(src, env)
        opts = self.options(among, var, where, env)
        # Whether a choice among things the others cannot see is asked would tell them how many
        # of those things fit: it is asked whatever fits, and "nothing fits" is then an answer.
        always = len(opts) < 2 and where is not None and self.secret_from_others(among, who)
        if not opts and not always:
            if other:
                return (yield from self.yrun(other, env))
            return
        kinds = names_kinds(self.g, src, env)
        if always and not opts:
            if (yield from self.ypick(who, [], prompt, s[1], True, env, kinds)) is AGAIN:
                return AGAIN
            env[var] = [] if upto is not None else None
            return (yield from self.yrun(other, env)) if other else None
        if upto is not None:
            n = int(num(self.ev(upto, env)))
            chosen = []
            while len(chosen) < n and opts:
                v = (yield from self.ypick(who, opts, prompt, s[1], True, env, kinds))
                if v is AGAIN:
                    return AGAIN
                if v is None:
                    break
                chosen.append(v)
                opts = [o for o in opts if o != v]
            env[var] = chosen
        else:
            v = (yield from self.ypick(who, opts, prompt, s[1], optional, env, kinds, always))
            if v is AGAIN:
                return AGAIN
            env[var] = v
            if v is None:
                if other:
                    return (yield from self.yrun(other, env))
                return
        return (yield from self.yrun(body, env))

    def y_may(self, s, env):
        a = AGAIN
        while a is AGAIN:
            who = self.ev(s[2], env) if s[2] is not None else env.get("player")
            a = yield from self.answer(self.decision(who, "may", [True, False], s[3], s[1], env))
        if a == "yes":
            return (yield from self.yrun(s[4], env))
        elif s[5]:
            return (yield from self.yrun(s[5], env))

    def y_secret(self, s, env):
        while True:  # worked out again where the table changed while it waited (AGAIN)
            r = yield from self._y_secret(s, env)
            if r is not AGAIN:
                return r

    def _y_secret(self, s, env):
        pvar, players, var, src, where, body = s[2:8]
        choosers = [p for p in self.items(self.ev(players, env))]
        per = {}
        for p in choosers:
            inner = dict(env)
            inner[pvar] = p
            per[p] = self.options(self.ev(src, inner), var, where, inner)
        if len(s) > 8 and s[8]:  # `or none`: all are asked alike, so being asked tells nothing
            ask = {p: o + [None] for p, o in per.items()}
        else:
            ask = {p: o for p, o in per.items() if o}
        result = {p: None for p in choosers}
        prompt = s[9] if len(s) > 9 else None
        if prompt is not None:  # (one prompt for all: a text with values reads the effect's names, not the chooser's)
            prompt = prompt_text(self.said(prompt, env)) if type(prompt) is list else self.g.cache.prompts.setdefault(prompt, prompt_text(prompt))
        if ask:
            a = yield from self.answer({"who": list(ask), "kind": "secret", "at": s[1], "prompt": prompt,
                                        "options": {p: [offered(self.g, v) for v in o] for p, o in ask.items()}})
            if a is AGAIN:
                return AGAIN
            for p, o in ask.items():
                ids = [option_id(v) for v in o]
                result[p] = o[ids.index(a[p])] if a.get(p) in ids else o[0]
        env[var] = result
        return (yield from self.yrun(body, env))


def names_kinds(game, src, env) -> bool:
    """Whether a choice's options are written as kinds of card: a list of their names
    (`[guard, priest, princess]`) or the kinds of things (`[c.type for c in ...]`). A card
    of one copy has its kind's id, so only how the list is written tells the two apart."""
    op = src[0] if type(src) is list and src else None
    if op == "list":
        return bool(src[2]) and all(type(x) is list and x[:1] == ["name"] and x[2] in game.protos and x[2] not in env
                                    for x in src[2])
    if op == "comp":
        body, var, coll = src[2], src[3], src[4]
        if type(body) is list and body[:1] == ["attr"] and body[3] == "type":
            return True
        return type(body) is list and body[:1] == ["name"] and body[2] == var and names_kinds(game, coll, env)
    return False


ASKS = "it asks a decision: a setup only changes the table (give the decision as a step)"
AGAIN = object()  # an answer that is no choice: the table changed, and the decision is worked out anew


_FIRST = ("first_player",)
_ROUND = ("round",)


_PARTS = {"counters", "marks", "shown_to", "hidden_from"}  # counters, marks, who was shown it or not: copied below


def _copy_thing(ent):
    """A deep copy of a thing in play; its parts are flat but for the odd list counter."""
    c = ent["counters"]
    for v in c.values():
        if type(v) not in FLAT:
            return marshal.loads(marshal.dumps(ent))
    for k, v in ent.items():
        if k not in _PARTS and type(v) not in FLAT:
            return marshal.loads(marshal.dumps(ent))
    new = dict(ent)
    new["counters"] = dict(c)
    new["marks"] = dict(ent["marks"])
    if "shown_to" in ent:
        new["shown_to"] = list(ent["shown_to"])
    if "hidden_from" in ent:
        new["hidden_from"] = list(ent["hidden_from"])
    return new


def _still(it, reads) -> bool:
    """Whether interpreter it's state still holds what a grouping read (see Interp.grouped).

    A read is (kind, ...) -> the value read: ("counter", thing, name), ("zone", key) -> its
    list, ("field", thing, "zone" or "up"), ("mark", thing, mark) -> whether it bears it,
    ("game_counter", name), ("first_player",), ("round",), ("removed", kind) -> the things of
    that kind out of the game."""
    st = it.st
    zones = st["zones"]
    ents = st["things"]
    for k, v in reads.items():
        kind = k[0]
        if kind == "counter":  # counters first: most reads are theirs
            ent = ents.get(k[1])
            if ent is None:
                return False
            now = ent["counters"].get(k[2], ABSENT)
            if now is not v and (type(now) is not type(v) or now != v):
                return False
        elif kind == "zone":
            now = zones.get(k[1])
            if (now != v) if now else v:
                return False
        elif kind == "field":
            ent = ents.get(k[1])
            if ent is None or ent[k[2]] != v:
                return False
        elif kind == "mark":
            ent = ents.get(k[1])
            if ent is None or (k[2] in ent["marks"]) != v:
                return False
        elif kind == "game_counter":
            now = st["game_counters"].get(k[1])
            if now is not v and (type(now) is not type(v) or now != v):
                return False
        elif kind == "first_player":
            if st["first"] != v:
                return False
        elif kind == "round":
            if st["round"] != v:
                return False
        elif kind == "removed":  # the things of a kind taken out of the game (see _in_play)
            if removed_of_kind(it.g, st, k[1]) != v:
                return False
        else:
            return False
    return True
