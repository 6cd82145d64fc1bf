"""Where the time of played games goes, line by line of the content.

`attach(game)` writes the game's code anew with a clock around each statement, each
action's condition and each condition the flow asks (a phase's `if`, a trigger's `when`...).
The time of a line is its own: what the lines it runs (a procedure it calls) take is theirs.
How often each line runs is the same on every run of the same games; how long it takes is
measured, so it varies a little from run to run.

Without `attach`, nothing of this is in the code: plain play pays nothing for it.
"""
from __future__ import annotations

import time

_clock = time.perf_counter_ns


class Profile:
    def __init__(self):
        self.own = {}  # position -> nanoseconds spent in the line itself
        self.runs = {}  # position -> times the line ran
        self.what = {}  # position -> what is there ("move", "condition of claim_card", ...)
        self.inner = [0]  # time of the lines running inside the one that runs now, one per level
        self.total = 0  # nanoseconds of play measured, see timed
        self.building = 0  # nanoseconds of that spent writing the game's code, once per game: see aside
        self._making = 0  # code being written now, one inside another (see aside)
        self.roots = {}  # id of a condition clocked on its own -> (position, what): see attach

    def clocked(self, f, pos, what):
        """f(it, env) with its own time and its runs noted under `pos`."""
        self.what.setdefault(pos, what)
        own, runs, inner = self.own, self.runs, self.inner

        def timed_line(it, env):
            inner.append(0)
            t0 = _clock()
            try:
                return f(it, env)
            finally:
                spent = _clock() - t0
                below = inner.pop()
                inner[-1] += spent
                own[pos] = own.get(pos, 0) + spent - below
                runs[pos] = runs.get(pos, 0) + 1
        return timed_line

    def aside(self, make, *args):
        """make(*args), code being written on its first use: its time is nobody's line."""
        inner = self.inner
        inner.append(0)
        self._making += 1
        t0 = _clock()
        try:
            return make(*args)
        finally:
            spent = _clock() - t0
            self._making -= 1
            inner.pop()
            inner[-1] += spent
            if not self._making:  # code written while writing other code is in its time
                self.building += spent

    def timed(self, play):
        """play(), with its whole time counted as the time the shares are of."""
        t0 = _clock()
        try:
            return play()
        finally:
            self.total += _clock() - t0

    def rows(self, games: int, top: int = 20) -> list[dict]:
        """The lines that took the most time, first: where, what, share of play, runs a game."""
        total = self.total or 1
        order = sorted(self.own, key=lambda p: (-self.own[p], p))[:top]
        return [{"at": p, "what": self.what[p], "share": round(self.own[p] / total, 4),
                 "runs_per_game": round(self.runs[p] / max(1, games), 2)} for p in order]

    def share_in_lines(self) -> float:
        """How much of the play time the content's lines took themselves (the rest is the
        flow's, the bots' and the runtime's own work between them)."""
        return round(sum(self.own.values()) / (self.total or 1), 4)


def attach(game) -> Profile:
    """Clock this game's content from now on: its code is written again, with clocks."""
    prof = Profile()
    game.cache.profile = prof
    game.forget_code()
    roots = prof.roots  # the conditions the runtime evaluates on their own, not as a statement
    for aid, act in game.actions.items():
        if "if" in act:
            roots[id(act["if"])] = (act["if"][1], f"condition of {aid}")
    for ts in game.triggers.values():
        for t in ts:
            if "when" in t:
                roots[id(t["when"])] = (t["when"][1], f"when of {t.get('id', 'a trigger')}")
    for ph in game.flow.get("phases", ()):
        for k in ("if", "until", "can_pass"):
            if k in ph:
                roots[id(ph[k])] = (ph[k][1], f"{k} of phase {ph['id']}")
    if "end" in game.flow:
        roots[id(game.flow["end"])] = (game.flow["end"][1], "end of the game")
    if "round_until" in game.flow:
        roots[id(game.flow["round_until"])] = (game.flow["round_until"][1], "end of a round")
    for k in ("score", "tiebreak", "wins", "faction"):
        if k in game.scoring:
            roots[id(game.scoring[k])] = (game.scoring[k][1], f"{k} of scoring")
    return prof
