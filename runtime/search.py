"""Information-set Monte Carlo tree search: a bot that plays to win from what its seat knows.

Each playout deals a world consistent with the seat's view (`Seen.sample`: the things hidden
from the seat dealt again at random where they agree with the public facts and with what the
seat saw before, the dice's generator seeded afresh), walks down one
tree shared by every world, adds a node, plays on for a few decisions (ROLLOUT_DEPTH, or
`mcts:N:depthD`; at random, or with `mcts:N:greedy` each decision's best option as the
heuristic sees it) and scores where it stopped with the content's heuristic. The tree is
keyed by the options as the searching seat sees them (a hidden card is "card 2 of Player
2's Hand" in every world), so the worlds' statistics add up on the same nodes however the
hidden things were dealt: single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012), as in OpenSpiel's `ismcts`.

What a playout costs is steps of the rules, and the dearest is the first: a world that waits
inside an effect has no paused generator to go on with (none can be copied), so the effect
is replayed from its start (runtime/flow.py). Until a playout rolls a die, where it stands
is a function of its world and the options taken, so what it finds there holds for every
playout of that world: each node keeps it (`Node.known`), with the world itself where no
effect waits, and a playout walks down what is known and is played only from the deepest
world kept on its way. It plays the same steps as one played from the root: the same choice,
for less (bench/search_depth.md).

The bot is handed only `Seen` and the seat's options, like every agent (runtime/agents.py).
"""
from __future__ import annotations

import math
import time
from typing import NamedTuple

from . import rng, visibility
from .reading import num
from .decision import Choices, Decision
from .flow import apply, branch
from .interpreter import Interp

MAX_PLAYOUTS = 100_000
MAX_MS = 600_000  # ten minutes a decision: longer is a typo, not a plan
DEFAULT_PLAYOUTS = 100
ROLLOUT_DEPTH = 4  # decisions played past the tree before the heuristic judges; 1 costs half and lost nothing measurable, 0 lost (bench/search_depth.md)
MAX_DEPTH = 16  # `:depthD` beyond this is a typo: a rollout that long is a random game, not a look-ahead
WORLDS = 4  # worlds dealt a decision; each playout plays on a branch of one (tens of times cheaper than a deal)
EXPLORE = 0.7  # UCB's exploration weight, on values scaled to 0..1 at each node
WIN = 100.0  # what winning the game is worth, in the heuristic's units
GREEDY_WIDTH = 8  # options a greedy rollout tries at one decision (a sample of them where more): a copy and an evaluation each
ROLLOUTS = ("random", "greedy")
DECLINE = ("pass", "no", "none")  # the options that decline: a pass, a `may` answered no, `or none`


class Budget(NamedTuple):
    """What one decision may spend: a number of playouts, or milliseconds of the clock;
    how a playout goes on past the tree, and for how many decisions."""
    playouts: int | None
    ms: int | None
    rollout: str = "random"
    depth: int = ROLLOUT_DEPTH


def parse_budget(text: str) -> Budget:
    """`200` (playouts) or `50ms`, then optionally `:greedy` (or `:random`) for the
    rollouts and `:depthD` for how many decisions they play past the tree (0 to
    MAX_DEPTH; 0 judges the node a playout added as it is), each once, in either order:
    `200:greedy:depth1`. ValueError with the reason otherwise."""
    t, *rest = text.strip().split(":")
    t = t.strip()
    rollout = depth = None
    for part in (r.strip() for r in rest):
        if part in ROLLOUTS:
            if rollout is not None:
                raise ValueError(f"`{part}` after `{rollout}`: one rollout at most (mcts:20:greedy)")
            rollout = part
        elif part.startswith("depth"):
            d = part[5:]
            if not (d.isascii() and d.isdigit()) or len(d) > 2 or int(d) > MAX_DEPTH:
                raise ValueError(f"`{part[:20]}` is not a rollout depth: give depth0 to depth{MAX_DEPTH} (mcts:100:depth2)")
            if depth is not None:
                raise ValueError(f"`{part}` after `depth{depth}`: one depth at most (mcts:100:depth2)")
            depth = int(d)
        else:
            raise ValueError(f"`{part[:20]}` is not a rollout: give {' or '.join(ROLLOUTS)} (mcts:20:greedy), "
                             f"or a depth, depth0 to depth{MAX_DEPTH} (mcts:100:depth2)")
    unit, digits = ("ms", t[:-2]) if t.endswith("ms") else ("playouts", t)
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 7:  # (not "١٢": int() would read it)
        raise ValueError(f"`{text}` is not a budget: give playouts (mcts:200) or milliseconds (mcts:50ms)")
    n, cap = int(digits), (MAX_MS if unit == "ms" else MAX_PLAYOUTS)
    if not 1 <= n <= cap:
        raise ValueError(f"a budget of 1 to {cap} {unit}, not {n}")
    rollout, depth = rollout or "random", ROLLOUT_DEPTH if depth is None else depth
    return Budget(None, n, rollout, depth) if unit == "ms" else Budget(n, None, rollout, depth)


class Evaluation:
    """How good a state is for each seat: the content's heuristic (by default the score
    expression) plus the weighted terms of its `bot:` section, and a win's worth at the end.

    Where the game is played as a team (`bot: cooperative`), a seat values the team's total;
    otherwise its own value less the best of the others', so a point taken from the leader
    counts as much as a point won.
    """

    def __init__(self, game):
        bot = game.bot or {}
        base = game.heuristic or game.scoring.get("score")
        self.terms = ([(base, 1.0)] if base is not None else []) + [(t["value"], t["weight"]) for t in bot.get("terms", ())]
        self.cooperative = bool(bot.get("cooperative"))
        self.game = game

    def values(self, st) -> dict:
        it = Interp(self.game, st)
        out = {}
        for p in st["players"]:
            v = 0.0
            for expr, weight in self.terms:  # one that cannot be worked out fails the playout (see choose)
                v += weight * num(it.ev(expr, {"player": p}))
            out[p] = v
        if st["scores"] is not None:  # the end: who won weighs more than any heuristic
            won = st["winners"] or []
            for p in out:
                if p in won:  # a team's win is each of its members' (a shared win among rivals, a part)
                    out[p] += WIN if self.cooperative else WIN / len(won)
        return out

    def utilities(self, st) -> dict:
        v = self.values(st)
        if self.cooperative:
            team = sum(v.values()) / len(v)
            return {p: team for p in v}
        if len(v) == 1:
            return v
        return {p: x - max(y for q, y in v.items() if q != p) for p, x in v.items()}


class Node:
    """A position in the tree as the searching seat knows it. `avail` counts the playouts in
    which its option was legal (ISMCTS: an option legal in few worlds is not explored as if
    it were legal in all)."""
    __slots__ = ("children", "visits", "avail", "total", "known")

    def __init__(self):
        self.children: dict = {}  # option as the searching seat sees it -> Node
        self.visits = 0
        self.avail = 0
        self.total: dict = {}  # seat -> sum of its utilities over the playouts through here
        # world number -> (who decides, option ids, keys, the world here or None), where the
        # way here rolled no die (MctsAgent._playout)
        self.known: dict = {}

    def mean(self, seat) -> float:
        return self.total.get(seat, 0.0) / self.visits


class MctsAgent:
    """`mcts:200` searches 200 playouts a decision, `mcts:50ms` as many as 50 ms allow (the
    clock's budget is the one thing that makes a game differ from run to run); `mcts` is
    mcts:100; `mcts:20:greedy` plays its rollouts greedily, `mcts:100:depth1` one decision
    past the tree (ROLLOUT_DEPTH by default). Seeded: the same seed, budget in playouts and
    view give the same choice."""
    name = "mcts"
    remembers = True

    def __init__(self, seed=0, budget: str | None = None):
        self.budget = parse_budget(budget) if budget is not None else Budget(DEFAULT_PLAYOUTS, None)
        self.st = {"rng": rng.seed_state(f"mcts:{seed}")}
        self.evaluation = None
        self.depth = self.budget.depth

    def choose(self, game, seen, seat, options):
        if len(options) == 1:
            return options[0]["id"]
        if self.evaluation is None or self.evaluation.game is not game:
            self.evaluation = Evaluation(game)
        ids = [o["id"] for o in options]
        root = Node()
        worlds = []
        deals = WORLDS if seen.hides() else 1
        start = time.perf_counter()
        done = 0
        while True:
            if self.budget.playouts is not None:
                if done >= self.budget.playouts:
                    break
            elif done and (time.perf_counter() - start) * 1000 >= self.budget.ms:
                break
            if len(worlds) < deals:
                worlds.append(seen.sample(self.st, lean=True))
            w = done % len(worlds)
            dice = rng.below(self.st, 1 << 62)  # each playout's dice of its own
            self._playout(game, worlds[w], w, dice, seat, root)
            done += 1
        # The most searched option; between equals the better; between options alike in
        # both, one drawn at random (taking the first would favour whatever the content
        # declares first, the first location say: searches of a few playouts tie often),
        # but doing something before declining (a pass, a `may` answered no, `or none`).
        ranked = {k: (c.visits, c.mean(seat)) for k in ids
                  if (c := root.children.get(k)) is not None and c.visits}
        if not ranked:
            return ids[rng.below(self.st, len(ids))]
        top = max(ranked.values())
        best = [k for k in ids if ranked.get(k) == top]
        acting = [k for k in best if k not in DECLINE]
        best = acting or best
        return best[0] if len(best) == 1 else best[rng.below(self.st, len(best))]

    # ---- one playout ------------------------------------------------------------

    def _playout(self, game, world, w, dice, me, root):
        """Plays one playout in world number `w` with its own `dice`, and adds what it found
        to the tree. A fault met on the way is raised: the worlds dealt agree with all the
        seat knows, so a step the rules cannot take in one is the content's (an effect, a
        `bot:` term), never a wrong guess, and a search that went round it would hide it.

        Until a playout rolls a die, where it stands is a function of its world and the
        options taken: each node keeps, for each world, the decision there (`Node.known`),
        and where nothing waits inside an effect, the world as it stands there. A playout
        walks down what is known without playing a step, and is played (`_made`) from the
        deepest world kept on its way, once it needs a state: an effect waiting at the root
        is replayed from its start (there is no copying a paused generator) only by the
        playouts that leave the tree before the effect ends. It plays the very same
        steps as one played from the root, so the search chooses the same."""
        path = [root]
        node = root
        s, opts = None, None  # the playout's own state, made once a step needs it
        base, moves = world, []  # else: the state to make it from, and the options taken since
        steady = True  # no die rolled yet: what is found here holds for every playout of world w
        while True:
            here = node.known.get(w) if steady else None
            if here is None:
                if s is None:
                    s, opts = self._made(game, base, moves, dice)
                if s["pending"] is None:
                    break
                actor, offered = self._decision(game, s, me if node is root else None, opts)
                ids = [o["id"] for o in offered]
                keys = ids if type(offered) is Choices else self._keys(game, s, me, offered)
                steady = s["rng"] == dice
                if steady:
                    kept = None
                    if s["task"] is None and not s.get("interrupted"):  # branched without a replay
                        kept, s = s, branch(s)  # (`kept` is not changed again: its branches share it)
                    node.known[w] = (actor, ids, keys, kept)
            else:
                actor, ids, keys, kept = here
                offered = None
                if s is None and kept is not None:
                    base, moves = kept, []
            fresh = []
            for i, k in enumerate(keys):
                child = node.children.get(k)
                if child is None:
                    fresh.append(i)
                else:
                    child.avail += 1
            if fresh:  # expand one option no playout has taken here yet
                i = fresh[rng.below(self.st, len(fresh))]
                child = node.children[keys[i]] = Node()
                child.avail = 1
                if s is None:
                    s, opts = self._made(game, base, moves, dice)
                self._apply(game, s, ids[i], actor, offered)
                path.append(child)
                break
            i = self._select(node, keys, actor)
            node = node.children[keys[i]]
            path.append(node)
            if s is None:
                moves.append((ids[i], actor))
            else:
                opts = self._apply(game, s, ids[i], actor, offered)
                steady = steady and s["rng"] == dice
        self._rollout(game, s)
        u = self.evaluation.utilities(s)
        for n in path:
            n.visits += 1
            t = n.total
            for p, x in u.items():
                t[p] = t.get(p, 0.0) + x

    @staticmethod
    def _made(game, base, moves, dice):
        """A playout's own state: a branch of `base` with the playout's dice, the options
        `moves` taken on it; and the turn's options the last of them left."""
        s = branch(base)
        s["rng"] = dice
        s["playout"] = True  # its tasks have a budget of their own (faults.PLAYOUT_STEPS)
        s.pop("knowledge", None)  # (nothing deals worlds from a playout: it notes nothing)
        opts = None
        for choice, actor in moves:
            opts = apply(game, s, choice, actor)
        return s, opts

    @staticmethod
    def _decision(game, s, seat, opts):
        """(who decides, their options) in world `s`; `seat` picks first where it is asked (a
        secret pick's seats pick one by one). `opts`: the turn's options the last choice left."""
        dec = Decision.of(game, s, opts)
        who = seat if dec.asks(seat) else dec.next_seat()
        return who, dec.options_for(who)

    @staticmethod
    def _keys(game, s, me, offered) -> list:
        """The options as the searching seat sees them (a turn's, never secret, are their ids)."""
        return [o["id"] for o in visibility.seat_options(game, s, me, offered)]

    @staticmethod
    def _select(node, keys, actor) -> int:
        kids = [node.children[k] for k in keys]
        means = [c.mean(actor) for c in kids]
        lo, hi = min(means), max(means)
        span = hi - lo or 1.0
        best, best_i = -math.inf, 0
        for i, c in enumerate(kids):
            ucb = (means[i] - lo) / span + EXPLORE * math.sqrt(math.log(c.avail) / c.visits)
            if ucb > best:
                best, best_i = ucb, i
        return best_i

    @staticmethod
    def _apply(game, s, choice, actor, offered):
        return apply(game, s, choice, actor, offered if type(offered) is Choices else None)

    def _rollout(self, game, s):
        if self.budget.rollout == "greedy":
            return self._greedy_rollout(game, s)
        opts = None
        for _ in range(self.depth):
            dec = Decision.of(game, s, opts)
            if dec is None:
                return
            p = dec.next_seat()
            opts = apply(game, s, dec.sample(p, self.st), p, dec.worked_out)
            if dec.simultaneous:  # (a turn's options after a secret pick are worked out afresh)
                opts = None

    def _greedy_rollout(self, game, s):
        """Each decision's option whose outcome the decider's evaluation likes best (ties and
        a sample of a long list drawn at random): playouts that play on as a player would, at
        a copy and an evaluation per option tried."""
        for _ in range(self.depth):
            d = s["pending"]
            if d is None:
                return
            actor, offered = self._decision(game, s, None, None)
            ids = [o["id"] for o in offered]
            if len(ids) > GREEDY_WIDTH:
                rng.shuffle(self.st, ids)
                ids = ids[:GREEDY_WIDTH]
            best, tied = -math.inf, []
            for k in ids:
                after = branch(s)  # thrown away before `s` moves on
                apply(game, after, k, actor)
                v = self.evaluation.utilities(after)[actor]
                if v > best:
                    best, tied = v, [k]
                elif v == best:
                    tied.append(k)
            apply(game, s, tied[rng.below(self.st, len(tied))], actor)
