"""What a game waits for: one `Decision`, whatever its kind.

A game waits for one of four things: a turn's action (the phase's actions and pass), a
choice among options (`choose`), a yes or no (`may`), or the secret picks of several seats
made at once (`secret`). The state keeps the waiting decision as plain data
(`st["pending"]`, saved and hashed with the state); a `Decision` reads it, and is the only
code that tells the kinds apart:

    dec = Decision.of(game, st)         # None where the game is over
    dec.waiting                         # the seats that still have to pick, in seat order
    dec.options_for(seat)               # their legal options, each {"id", "label"}
    dec.pick(seat, choice)              # checks it: IllegalChoice, or the seat that picks

A turn's options are worked out when asked (`Choices`): a bot that picks one at random
checks a few conditions instead of every one at every decision.
"""
from __future__ import annotations

from collections.abc import Sequence

from . import rng
from .interpreter import Interp
from .visibility import seat_options
from .words import both
from .state import copy_small


class IllegalChoice(Exception):
    """A choice that is not among the legal ones; the state is unchanged."""


class Choices(Sequence):
    """The options of a turn's decision, each worked out when first asked for.

    As a sequence it is the full list of legal options, in the phase's order, pass last.
    `sample` picks one of them uniformly while checking only as many as it must.
    """

    def __init__(self, game, st, d, it=None):
        self.game, self.st, self.d = game, st, d
        self.phase = game.flow["phases"][st["flow"]["ph"]]
        self.it = it or Interp(game, st)
        self.known = {}  # option id -> legal now
        self._all = None

    def legal(self, choice) -> bool:
        ok = self.known.get(choice)
        if ok is None:
            if choice == "pass":
                ph, p = self.phase, self.d["who"]
                ok = "can_pass" not in ph or bool(self.it.ev(ph["can_pass"], {"player": p, "phase": ph["id"]})) \
                    or not self.any_action()
            elif choice not in self.d["actions"]:
                ok = False
            else:
                act = self.game.actions[choice]
                # an action with neither condition nor cost may always be taken
                ok = ("if" not in act and not act.get("cost")) or bool(self.it.action_allowed(choice, self.d["who"]))
            self.known[choice] = ok
        return ok

    def any_action(self) -> bool:
        """Whether some action may be taken now: one with neither condition nor cost always
        may, so those are looked for before any condition is worked out."""
        acts = self.d["actions"]
        return any(a in self.game.free_actions for a in acts) or any(self.legal(a) for a in acts)

    def sample(self, rng_state) -> str:
        """A uniform pick among the legal options, by the generator of `rng_state`."""
        todo = self.d["actions"] + ["pass"]
        while todo:  # the first legal one of a random order: each legal one as likely as the others
            c = todo.pop(rng.below(rng_state, len(todo)))
            if self.legal(c):
                return c
        raise IllegalChoice("nothing is legal")  # never: pass is, where no action is

    def options(self) -> list:
        """All the legal options, as {"id", "label"}."""
        if self._all is None:
            names = self.game.actions
            self._all = [{"id": a, "label": names[a]["name"]} for a in self.d["actions"] if self.legal(a)]
            if self.legal("pass"):
                self._all.append({"id": "pass", "label": both("pass")})
        return self._all

    def __len__(self):
        return len(self.options())

    def __getitem__(self, i):
        return self.options()[i]


class Decision:
    """The decision a game waits for, read from the state's plain record of it.

    `kind` is one of "action" (a turn), "choose", "may" and "secret" (several seats at
    once); callers ask what they mean instead (`turn`, `simultaneous`, `waiting`,
    `options_for`). `turns` is the `Choices` a caller already has for this very decision
    (what `flow.apply` returns), so its worked-out options are not worked out again.
    """
    __slots__ = ("game", "st", "raw", "_turn")

    @classmethod
    def of(cls, game, st, turns=None) -> "Decision | None":
        """The decision `st` waits for, or None where the game is over."""
        return None if st["pending"] is None else cls(game, st, turns)

    def __init__(self, game, st, turns=None):
        self.game, self.st, self.raw = game, st, st["pending"]
        self._turn = turns if turns is not None and type(turns) is Choices and turns.d is self.raw and turns.st is st \
            else None

    @property
    def kind(self) -> str:
        return self.raw["kind"]

    @property
    def turn(self) -> bool:
        """A turn's decision: the phase's actions and pass."""
        return self.raw["kind"] == "action"

    @property
    def simultaneous(self) -> bool:
        """Several seats pick at once, none seeing the others' picks until all have picked."""
        return self.raw["kind"] == "secret"

    @property
    def seats(self) -> list:
        """Every seat this decision asks (one, but for a secret pick)."""
        who = self.raw["who"]
        return list(who) if self.raw["kind"] == "secret" else [who]

    @property
    def waiting(self) -> list:
        """The seats that still have to pick, in the decision's order."""
        d = self.raw
        if d["kind"] == "secret":
            return [p for p in d["who"] if p not in d["collected"]]
        return [d["who"]]

    @property
    def picked(self) -> dict:
        """Of a secret pick, the picks made so far (seat -> option id); else empty."""
        return (self.raw.get("collected") or {}) if self.raw["kind"] == "secret" else {}

    @property
    def prompt(self):
        return self.raw.get("prompt")

    @property
    def position(self):
        """Where in the content the decision is asked (None for a turn's)."""
        return self.raw.get("at")

    @property
    def worked_out(self):
        """A turn's `Choices` as far as they were worked out, None before they were asked for."""
        return self._turn

    def asks(self, seat) -> bool:
        """Whether `seat` has a pick to make now."""
        return seat in self.waiting

    def next_seat(self, prefer=()) -> str:
        """Who picks next: the first waiting seat, or the first of `prefer` that is waiting."""
        waiting = self.waiting
        return next((p for p in waiting if p in prefer), waiting[0])

    def options_for(self, seat=None):
        """The legal options of `seat` (by default whoever picks next); a turn's are `Choices`."""
        d = self.raw
        if d["kind"] == "secret":
            return d["options"][seat or self.next_seat()]
        if d["kind"] == "action":
            if self._turn is None:
                self._turn = Choices(self.game, self.st, d)
            return self._turn
        return d["options"]

    def sample(self, seat, rng_state) -> str:
        """A uniform pick among `seat`'s legal options, by the generator of `rng_state` (a turn's
        checks only as many of its options as it must)."""
        opts = self.options_for(seat)
        if type(opts) is Choices:
            return opts.sample(rng_state)
        return opts[rng.below(rng_state, len(opts))]["id"]

    def public(self) -> dict:
        """The decision as plain data: kind, who, prompt, options (all seats' for a secret
        pick, the legal ones for a turn). What a seat may see of it is views.view's."""
        d = self.raw
        if d["kind"] == "action":
            return dict(d, options=self.options_for().options())
        return d

    def seen_by(self, seat) -> dict:
        """The decision as `seat` is shown it (views.view): its own options, as offered to it
        (a hidden thing as a handle); of another seat's, only whose it is."""
        d = self.raw
        if d["kind"] == "secret":
            mine = seat in d["who"] and seat not in d["collected"]
            out = {"kind": "secret", "waiting_for": self.waiting,
                   "options": copy_small(seat_options(self.game, self.st, seat, d["options"][seat])) if mine else None}
            if d.get("prompt") is not None:
                out["prompt"] = d["prompt"]
            return out
        if d["who"] == seat:
            out = {k: v for k, v in self.public().items() if k not in ("at", "actions")}
            out["options"] = seat_options(self.game, self.st, seat, out["options"])
            return copy_small(out)  # a copy: never the state's own lists and texts
        return {"kind": d["kind"], "who": d["who"]}

    def pick(self, seat, choice) -> str:
        """The seat that makes `choice` (`seat`, or by default whoever picks next), once it is
        checked: IllegalChoice where it is not that seat's to make or not legal."""
        d = self.raw
        if type(choice) is not str or (seat is not None and type(seat) is not str):
            raise IllegalChoice("a choice and a seat are words (option ids)")
        if d["kind"] == "secret":
            who = seat or self.next_seat()
            if who not in d["who"] or who in d["collected"]:
                raise IllegalChoice(f"{who} has no secret choice to make now")
            if choice not in [o["id"] for o in d["options"][who]]:
                raise IllegalChoice(f"`{choice}` is not one of {who}'s choices")
            return who
        if seat is not None and seat != d["who"]:
            raise IllegalChoice(f"it is {d['who']}'s decision, not {seat}'s")
        if d["kind"] == "action":
            opts = self.options_for()
            ok = opts.legal(choice)
        else:
            opts = d["options"]
            ok = choice in [o["id"] for o in opts]
        if not ok:
            ids = [o["id"] for o in opts]
            raise IllegalChoice(f"`{choice}` is not a legal choice here; legal: {', '.join(ids)}")
        return d["who"]

    def collect(self, seat, choice):
        """Note a checked pick; the answer the game goes on with once every seat has picked
        (a secret pick's: seat -> option id), else None."""
        d = self.raw
        if d["kind"] != "secret":
            return choice
        d["collected"][seat] = choice
        if len(d["collected"]) < len(d["who"]):
            return None
        return dict(d["collected"])
