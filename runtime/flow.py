"""The game loop: setup, rounds, phases and turns as named transitions (TRANSITIONS below).

Every caller plays through a `Match` (runtime/match.py); a game to the end, at random:

    m = Match.new(game, players=3, seed=7)
    while not m.is_over:
        seat = m.seats_to_move()[0]  # several seats at a secret pick: each picks in turn
        m.apply(seat, random.choice(m.legal(seat))["id"])
    m.scores(), m.returns()

What the game waits for is one `Decision` (runtime/decision.py). `new_game`, `decision`,
`apply` and `choices` are the match's insides, kept for callers that hand a state around.
Each step of the flow is a transition that says whether the game moved; the end of the game
and `round_until` are looked at once after a step that moved it (docs/design.md).

An effect runs as a task: `st["task"]` holds its spec, the answers given so far and a snapshot
of the state as it began (plain data, saved and copied with the state). The effect itself is
a generator (Interp's `y`-methods and the generated functions that may decide): at a
decision it yields it, and the task keeps the paused generator in memory (`Task.live`, never
copied or saved), so the answer goes on where the effect stopped. A state that has no live
generator (a copy, a `branch`, a saved and loaded state, a bot's dealt world) takes the one
other path: the snapshot is restored and the effect replayed with the answers (`_resume`).
"""
from __future__ import annotations

import hashlib
import json
import marshal
import operator

from . import rng
from .decision import Choices, Decision, IllegalChoice
from .reading import num
from .faults import Fail, GameFault, GameOver, Suspend
from .interpreter import NO_EFFECT, Interp
from .visibility import observe
from .state import FLAT, Task, copy_small, new_state
from .words import bilingual, line, player_name


def new_game(game, players: int, seed=0, options=None, first=None) -> dict:
    if not game.players_min <= players <= game.players_max:
        raise IllegalChoice(f"{game.id} is for {game.players_min} to {game.players_max} players, not {players}")
    st = new_state(game, players, seed, options)
    if first is not None:
        if first not in st["players"]:
            raise IllegalChoice(f"no seat `{first}` in a {players}-player game")
        st["first"] = first
    elif game.flow.get("first_player", "random") == "random":
        st["first"] = st["players"][rng.below(st, players)]
    advance(game, st)
    return st


def decision(game, st):
    """The pending decision as plain data with its options, or None when the game is over."""
    dec = Decision.of(game, st)
    return None if dec is None else dec.public()


def apply(game, st, choice: str, seat: str | None = None, options=None):
    """Apply one choice by the seat whose decision it is (any pending seat for secret choices).

    `options`, the `Choices` the choice was picked from, saves working out again what they
    did. Returns the `Choices` of the turn's decision that follows, where the flow made one
    (what it found out comes along), else None.
    """
    dec = Decision.of(game, st, options)
    if dec is None:
        raise IllegalChoice("the game is over")
    return decide(game, st, dec, choice, seat)


def decide(game, st, dec, choice: str, seat: str | None = None):
    """apply, of the Decision `dec` that `st` waits for (Match.apply)."""
    who = dec.pick(seat, choice)
    st["history"].append([who, choice])
    answer = dec.collect(who, choice)
    if answer is None:  # a secret pick that waits for the others'
        return None
    st["pending"] = None
    if dec.turn:
        _take_action(game, st, who, choice)
    else:
        task = st["task"]
        task["answers"].append(answer)
        try:
            _resume(game, st, task)
        except Fail as exc:
            _failed(game, st, task, exc)
    return advance(game, st)


def _failed(game, st, task, exc):
    """A task that failed is undone, but for a line in the log. Its choices stay in the
    history: a replay makes them again, fails again, and writes the same log."""
    spec = task["spec"]
    if spec[0] == "action":
        st["flow"].setdefault("failed", []).append(spec[1])
        # the reason is the actor's alone: it may speak of what only they hold
        done = line(game, st["round"], "cannot", player=spec[2], action=spec[1])
        why = bilingual(str(exc))  # (a `fail` reason may carry both languages)
        entry = dict(done, text=f"{done['text']} ({why[0]})", seen=[spec[2]], unnamed=done["text"])
        if "ru" in done:
            entry.update(ru=f"{done['ru']} ({why[1] or why[0]})", unnamed_ru=done["ru"])
        st["log"].append(entry)


# ---- tasks: effects that may stop for decisions ------------------------------

_UNSAVED = ("history", "log", "task")


_SHARED = ("things", "zones")


def _snapshot(st) -> dict:
    """The state as a task starts, less what only grows (history, log).

    The things (`things`) and zones (`zones`) are shared with the live state rather than copied:
    while the task runs, its interpreter copies a thing or a zone before it first changes
    it (see Interp.own), so the snapshot keeps the values the task started from. Everything
    else is small and copied at once. The snapshot is plain data, ready to be saved.
    """
    snap = {}
    for k, v in st.items():
        if k not in _UNSAVED:
            snap[k] = _copied(k, v)
    snap["_log"] = len(st["log"])
    return snap


def branch(st) -> dict:
    """A copy of `st` to play on and throw away (a bot's look-ahead), for a fraction of a
    full copy's cost: it shares the things and the zones' lists with `st` the way a task
    shares them with its snapshot, and whatever changes one of them in the copy changes a
    copy of it (Interp.own, _expire). A waiting task's snapshot is shared as it is (a replay
    only reads it). So `st` itself must not change while its branches are played on; and
    a branch is played through `apply` alone (a scenario's setup, an interruption, change
    the state outside any task: they want a `state.clone`)."""
    out = {}
    for k, v in st.items():
        if k in _PAST:
            out[k] = list(v)  # only ever added to (or cut back): their lines are shared
        elif k == "task" and type(v) is dict:
            out[k] = dict(v, answers=list(v["answers"]))  # its spec and snapshot only read
        else:
            out[k] = _copied(k, v)
    return out


def _copied(k, v):
    """A state's entry for a state that shares its things and zones' lists (a snapshot, a
    replay, a branch): most entries are plain values, nothing to copy."""
    if k == "knowledge":  # (its table of what is known is never changed in place: shared)
        return {"saw": copy_small(v["saw"]), "known": v["known"], "n": v["n"]}
    return v if type(v) in FLAT else dict(v) if k in _SHARED else copy_small(v)


_PAST = ("history", "log")


def settle(st) -> None:
    """Give every waiting task a snapshot of its own, before the state is changed by anything
    other than that task (an interruption, a scenario's setup), and have its live effect
    forget what it worked out from the state."""
    tasks = [st.get("task")] + [b.get("task") for b in st.get("interrupted") or ()]
    for task in tasks:
        if task is not None:
            live = getattr(task, "live", None)
            if live is not None:
                live[1].changed()
            if isinstance(task.get("snap"), dict):
                task["snap"] = marshal.loads(marshal.dumps(task["snap"]))


def set_table(game, st, ir) -> bool:
    """Change the table while an effect waits for a decision (a scenario's setup): the
    statements `ir` are handed to the effect as an answer of its own, run where it waits,
    and the decision is worked out again from what they left (Interp.changed_table). Like
    any answer it is kept with the task, so a copy of the state replays it from the snapshot
    the same way. False where no effect waits (a turn's options are worked out as asked)."""
    task = st.get("task")
    if task is None or st["pending"] is None or st.get("interrupted"):
        return False
    settle(st)
    st["pending"] = None
    task["answers"].append({"table": ir})
    _resume(game, st, task)  # (a Fail: the state as the task found it, and the caller says why)
    advance(game, st)
    return True


def _restore(st, snap) -> None:
    """Put the state back as the task's snapshot has it, to replay the task.

    A snapshot in memory is not copied whole: the state shares its things and zones' lists,
    as the state the snapshot was taken from did, and the replaying interpreter copies one
    before it changes it (Interp.share, Interp.own). A snapshot that was saved (bytes) is
    read afresh."""
    history, log = st["history"], st["log"]
    if isinstance(snap, bytes):
        restored = marshal.loads(snap)
    else:
        restored = {k: _copied(k, v) for k, v in snap.items()}
    del log[restored.pop("_log"):]
    st.clear()
    st.update(restored)
    st["history"], st["log"], st["task"] = history, log, None


def _run(game, st, spec):
    """Run a task from a snapshot; on a decision, park it in the state and return False."""
    task = {"spec": spec, "answers": [], "snap": _snapshot(st)}
    try:
        return _resume(game, st, task, fresh=True)
    except Fail as exc:
        _failed(game, st, task, exc)
        return True


def _resume(game, st, task, fresh=False):
    """Run a task on to its next decision or its end: its live effect where it has one that
    waits for the answer just given, else the effect from its start (from the snapshot, with
    the answers so far: the one replay path, for a state that was copied, saved or loaded)."""
    live = None if fresh else getattr(task, "live", None)
    if live is not None:
        task.live = None
        if live[1].ai != len(task["answers"]) - 1:  # answered more than once since (never, but for a caller's own)
            live = None
    if live is None:
        it = Interp(game, st, task["answers"])
        if not fresh:
            # The replay reaches the decision with the dice the state had there (the same,
            # in the game itself; a bot's sample is dealt dice of its own, and the snapshot's
            # would roll the real game's from the decision on).
            it.rejoin = st["rng"]
            _restore(st, task["snap"])
        it.share(task["snap"])
        effect = _exec(game, it, task["spec"])
    else:
        effect, it = live
    try:
        d = effect.send(None)
    except StopIteration:
        d = None
    except Suspend as s:  # a decision reached where nothing could pause: replayed once answered
        d, effect = s.decision, None
    except Fail:
        dice = st["rng"] if it.rejoin is None else it.rejoin  # (a replay may fail before the decision)
        _restore(st, task["snap"])
        if task.get("dealt"):  # a bot's sample: the snapshot's generator is the real game's
            st["rng"] = dice
        raise
    if it.rejoin is not None:  # a replay that ended short of its decision: only a dealt world's can
        st["rng"], it.rejoin = it.rejoin, None
    if d is not None:
        # The state stays as it is at the decision, so the chooser sees what the effect
        # has done so far (cards just drawn, for instance). The effect waits live, with the
        # task; a copy of the state has none and replays it from the snapshot with the answers.
        if type(task) is not Task:
            task = Task(task)
        task.live = (effect, it) if effect is not None else None
        if d["kind"] == "secret":
            d["collected"] = {}
        st["task"] = task
        st["pending"] = d
        return False
    st["task"] = None
    st["steps"] += 1
    if st["steps"] > game.flow.get("max_steps", 100000):
        raise GameFault("flow", "the game ran more steps than flow.max_steps allows")
    return True


def _exec(game, it, spec):
    """The task's effect, as a generator: it yields each decision it waits for."""
    try:
        yield from _exec_spec(game, it, spec)
    except GameOver:
        pass


def _exec_spec(game, it, spec):
    kind = spec[0]
    if kind == "action":
        _, aid, p = spec
        f = it.st["flow"]
        f["acts"] = f.get("acts", 0) + 1
        f.setdefault("used", {})[aid] = f.get("used", {}).get(aid, 0) + 1
        it.st["active"] = p
        yield from it.yperform(aid, p, "action")
    elif kind == "effect":
        _, ir, env = spec
        yield from it.ycall_block(ir, dict(env))
    elif kind == "event":
        _, name, env = spec
        yield from it.yfire(name, dict(env), env.get("player"))
    elif kind == "scoring":
        yield from it.ycall_block(game.scoring.get("effect", NO_EFFECT), {"player": it.st["first"]})


def _take_action(game, st, p, aid):
    f = st["flow"]
    if aid == "pass":
        f["turn_over"] = True
        f.setdefault("passed", []).append(p)
        st["log"].append(line(game, st["round"], "passes", player=p))
        return
    st["log"].append(line(game, st["round"], "takes", player=p, action=aid))
    _run(game, st, ["action", aid, p])


# ---- the flow ----------------------------------------------------------------

def _action_decision(game, st, p):
    """A turn's decision: the phase's actions not used up or failed this turn, and pass.

    Which of them may be taken now is worked out when asked (`choices`): a bot that picks
    one at random checks a few conditions instead of every one at every decision. The state
    keeps only what the flow decided; the options follow from it.
    """
    f = st["flow"]
    phase = game.flow["phases"][f["ph"]]
    used, failed = f.get("used") or {}, f.get("failed") or ()
    acts = []
    for aid in phase["actions"]:
        act = game.actions[aid]
        if "limit" in act and used.get(aid, 0) >= act["limit"]:
            continue
        if aid not in failed:
            acts.append(aid)
    return {"who": p, "kind": "action", "prompt": None, "actions": acts}


def choices(game, st, seat=None):
    """The options of the pending decision for `seat` (by default whoever decides next)."""
    dec = Decision.of(game, st)
    return [] if dec is None else dec.options_for(seat)


def _event(game, st, name, env):
    """A flow event: False where a trigger of it waits for a decision, True where one ran,
    None where the game has no trigger of it (nothing happened)."""
    if name in game.triggers:
        return _run(game, st, ["event", name, env])
    return None


class _Looks:
    """The flow's conditions (its end, `round_until`, a phase's `if` and `until`, a turn's
    options) as the state stands: one interpreter for all of them until the state moves,
    and `round_until`'s answer kept until then. Each condition starts with the step budget
    a fresh interpreter has, so sharing one changes no outcome."""
    __slots__ = ("game", "st", "it", "steps", "round_over", "turn")

    def __init__(self, game, st):
        self.game, self.st, self.it, self.round_over, self.turn = game, st, None, None, None

    def moved(self):
        """Something the conditions may read changed (an effect ran, a round began, marks went)."""
        self.it = self.round_over = None

    def interp(self):
        it = self.it
        if it is None:
            it = self.it = Interp(self.game, self.st)
            self.steps = it.steps
        else:
            it.steps = self.steps
        return it

    def holds(self, expr, env) -> bool:
        return bool(self.interp().ev(expr, env))

    def ended(self) -> bool:
        """Whether the game is over: ended by a statement, or by the flow's `end` holding now."""
        st = self.st
        if st["over"]:
            return True
        end = self.game.flow.get("end")
        if end is not None and self.holds(end, {"player": st["first"]}):
            st["over"] = True
            st.setdefault("ended", {"by": "end condition", "at": end[1]})
        return st["over"]

    def round_is_over(self) -> bool:
        """Whether the flow's `round_until` holds: the round ends at once (after the turn or
        effect that made it hold) and the next one starts."""
        if self.round_over is None:
            until = self.game.flow.get("round_until")
            self.round_over = until is not None and self.holds(until, {"player": self.st["first"]})
        return self.round_over


def _end_check(game, st):
    return _Looks(game, st).ended()


def _out(st, p) -> bool:
    """Whether player p is out (marked `out`: of the game, or until the end of the round)."""
    return "out" in st["things"][p]["marks"]


def _expire(st, until) -> bool:
    """Marks that last `until` the end of the turn or round (or a player's next turn) go;
    whether any went. The flow notes while any such mark may be in play (flow.timed, made by
    Interp.s_mark); without it nothing is walked."""
    f = st["flow"]
    if "timed" not in f:
        return False
    timed = False
    things = st["things"]
    expiring = []
    for m in filter(None, map(_MARKS, things.values())):  # only things with marks: most have none
        if until in m.values():
            expiring.append(m)
        timed = timed or any(v != "ever" and v != "game" and v != until for v in m.values())
    if expiring:
        # A thing may be shared with a task's snapshot or a look-ahead's world (branch): it is
        # changed as a copy of its own, never in place.
        expiring = {id(m) for m in expiring}
        for eid, ent in things.items():
            if id(ent["marks"]) in expiring:
                ent = things[eid] = copy_small(ent)
                ent["marks"] = {k: v for k, v in ent["marks"].items() if v != until}
    if not timed:
        del f["timed"]
    return bool(expiring)


_MARKS = operator.itemgetter("marks")


def interrupt(game, st, ir, env) -> None:
    """Run an effect now, in the middle of whatever waits; the waiting decision comes back after it."""
    settle(st)
    st.setdefault("interrupted", []).append({"pending": st["pending"], "task": st["task"]})
    st["pending"] = st["task"] = None
    if _run(game, st, ["effect", ir, env]):
        advance(game, st)


# ---- the flow as named transitions --------------------------------------------
#
# `st["flow"]["stage"]` names the step the flow takes next; each step below is a transition:
# it does what its stage means (runs the event's triggers, starts a turn, asks for an
# action), names the stage that follows, and says what became of the state:
#   STILL   only the flow's own place moved (which phase, which seat): no condition reads it
#   MOVED   the game moved (an effect or trigger ran, a round began, marks went): the end of
#           the game and `round_until` are looked at again, once, before the next step
#   PARKED  someone must decide (st["pending"]): the flow stops until the choice is applied
# The stage is kept in the state, so a saved game goes on where it stopped.

STILL, MOVED, PARKED = None, True, False  # what _event returns; _run returns MOVED or PARKED


def _game_setup(game, st, f, looks):
    f["stage"] = "game_start"
    fl = game.flow
    return _run(game, st, ["effect", fl["setup"], {"player": st["first"]}]) if "setup" in fl else None


def _game_start(game, st, f, looks):
    f["stage"] = "round_start"
    return _event(game, st, "game_start", {"player": st["first"]})


def _round_start(game, st, f, looks):
    rounds = game.flow.get("rounds")
    if rounds and st["round"] >= rounds:
        st["over"] = True
        st.setdefault("ended", {"by": "last round", "at": f"flow.rounds = {rounds}"})
        return STILL  # (an over game is finished before any further step)
    st["round"] += 1
    f.update(stage="phase_start", ph=0)
    f.pop("repeats", None)
    ran = _event(game, st, "round_start", {"player": st["first"]})
    return PARKED if ran is False else MOVED  # the round's number moved, whatever ran


def _phase_start(game, st, f, looks):
    fl = game.flow
    phases = fl["phases"]
    if f["ph"] >= len(phases):
        if "round_until" in fl:  # a round that ends by a condition: its phases go round again
            f["ph"] = 0
            f["repeats"] = f.get("repeats", 0) + 1
            if f["repeats"] > 10000:
                raise GameFault("flow", "the round's phases went round 10000 times without `round_until` holding")
            return STILL
        f["stage"] = "round_end"
        return STILL
    ph = phases[f["ph"]]
    if "if" in ph and not looks.holds(ph["if"], {"player": st["first"], "phase": ph["id"]}):
        f["ph"] += 1
        return STILL
    ps, first = st["players"], st["first"]
    i = ps.index(first) if first in ps else 0
    f.update(order=ps[i:] + ps[:i], i=0, passed=[], stage=_PHASE_MODES[ph["mode"]])
    return _event(game, st, "phase_start", {"player": st["first"], "phase": ph["id"]})


_PHASE_MODES = {"once": "phase_once", "each": "phase_each", "turns": "turn_start"}


def _phase_once(game, st, f, looks):
    ph = game.flow["phases"][f["ph"]]
    f["stage"] = "phase_end"
    if "effect" not in ph:
        return STILL
    return _run(game, st, ["effect", ph["effect"], {"player": st["first"], "phase": ph["id"]}])


def _phase_each(game, st, f, looks):
    """Each seat in turn order gets the phase's effect (no decision of actions)."""
    ph = game.flow["phases"][f["ph"]]
    if f["i"] >= len(f["order"]):
        f["stage"] = "phase_end"
        return STILL
    if looks.round_is_over():
        f["stage"] = "round_end"
        return STILL
    p = f["order"][f["i"]]
    f["i"] += 1
    if _out(st, p):
        return STILL
    st["active"] = p
    if "effect" not in ph:
        return STILL  # (no condition reads whose turn it is)
    return _run(game, st, ["effect", ph["effect"], {"player": p, "phase": ph["id"]}])


def _turn_start(game, st, f, looks):
    """The next seat's turn begins, or the phase ends (a rotating phase goes round the table
    until every seat has passed)."""
    ph = game.flow["phases"][f["ph"]]
    if f["i"] >= len(f["order"]):
        if ph.get("rotate") and len(set(f["passed"])) < len(f["order"]):
            f["i"] = 0
            f["laps"] = f.get("laps", 0) + 1
            if f["laps"] > 10000:
                raise GameFault("flow", f"phase `{ph['id']}` went round the table 10000 times")
            return STILL
        f["stage"] = "phase_end"
        f["laps"] = 0
        return STILL
    if looks.round_is_over():
        f["stage"] = "round_end"
        return STILL
    p = f["order"][f["i"]]
    if ph.get("rotate") and p in f["passed"]:
        f["i"] += 1
        return STILL
    if _out(st, p):  # out of the round or the game: no turn (a pass, where passes are counted)
        if ph.get("rotate"):
            f["passed"].append(p)
        f["i"] += 1
        return STILL
    st["active"] = p
    # marks made "until your next turn" (none in most games: nothing walked)
    expired = "next_turn" in f and _expire(st, "next_turn:" + p)
    f.update(stage="turn_act", acts=0, used={}, failed=[], turn_over=False)
    ran = _event(game, st, "turn_start", {"player": p})
    return PARKED if ran is False else MOVED if ran or expired else STILL


def _turn_act(game, st, f, looks):
    """The turn's seat is asked for an action, or its turn is over."""
    ph = game.flow["phases"][f["ph"]]
    p = f["order"][f["i"]]
    limit = ph.get("max_actions", 1 if ph.get("rotate") else None)
    done = f.get("turn_over") or (limit is not None and f["acts"] >= limit) or _out(st, p)
    if not done and "until" in ph:
        done = looks.holds(ph["until"], {"player": p, "phase": ph["id"]})
    if done:
        f["stage"] = "turn_end"
        return STILL
    d = _action_decision(game, st, p)
    opts = Choices(game, st, d, looks.interp())
    if not opts.any_action():  # nothing but "pass" is left: the turn ends by itself
        if ph.get("rotate"):
            f["passed"].append(p)
        f["stage"] = "turn_end"
        return STILL
    st["pending"] = d
    observe(game, st)
    looks.turn = opts  # (handed back to whoever applies the choice: see apply)
    return PARKED


def _turn_end(game, st, f, looks):
    p = f["order"][f["i"]]
    f["stage"] = "turn_over"
    return _event(game, st, "turn_end", {"player": p})


def _turn_over(game, st, f, looks):
    # marks that last until the end of the turn are still there for turn_end triggers
    expired = _expire(st, "turn")
    f["i"] += 1
    f["stage"] = "turn_start"
    return MOVED if expired else STILL


def _phase_end(game, st, f, looks):
    ph = game.flow["phases"][f["ph"]]
    f["ph"] += 1
    f["stage"] = "round_end" if looks.round_is_over() else "phase_start"
    return _event(game, st, "phase_end", {"player": st["first"], "phase": ph["id"]})


def _round_end(game, st, f, looks):
    f["stage"] = "round_over"
    return _event(game, st, "round_end", {"player": st["first"]})


def _round_over_step(game, st, f, looks):
    expired = _expire(st, "round")
    f["stage"] = "round_start"
    return MOVED if expired else STILL


def _scoring(game, st, f, looks):
    return PARKED  # (the scoring effect waits for a decision: see _finish)


TRANSITIONS = {
    "init": _game_setup, "game_start": _game_start,
    "round_start": _round_start, "phase_start": _phase_start,
    "phase_once": _phase_once, "phase_each": _phase_each,
    "turn_start": _turn_start, "turn_act": _turn_act, "turn_end": _turn_end, "turn_over": _turn_over,
    "phase_end": _phase_end, "round_end": _round_end, "round_over": _round_over_step,
    "scoring": _scoring,
}


def advance(game, st):
    """Take the flow's steps until someone must decide or the game ends; returns the Choices
    of a turn's decision it made (see apply).

    The end of the game is looked at as the flow is entered (a choice was just applied) and
    after each step that moved the game, never after one that only moved the flow's place."""
    if st.get("interrupted") and st["pending"] is None and st["task"] is None:
        back = st["interrupted"].pop()
        if not st["interrupted"]:
            del st["interrupted"]
        if not _end_check(game, st):
            st["pending"], st["task"] = back["pending"], back["task"]
            observe(game, st)
            return
    looks = _Looks(game, st)
    due = True  # the state as the flow finds it is yet to be looked at
    guard = 0
    while st["pending"] is None and st["scores"] is None:
        guard += 1
        if guard > 1_000_000:
            raise GameFault("flow", "the flow made no progress")
        f = st["flow"]  # (a failed effect puts back the flow as it was: another dict)
        if due and f["stage"] != "init":  # (not before the game's setup)
            due = False
            if looks.ended():
                _finish(game, st)
                return
        elif st["over"]:
            _finish(game, st)
            return
        out = TRANSITIONS[f["stage"]](game, st, f, looks)
        if out is PARKED:
            return looks.turn
        if out is MOVED:
            looks.moved()
            due = True


def _finish(game, st):
    f = st["flow"]
    if f.get("stage") != "scoring":
        f["stage"] = "scoring"
        st["over"] = True
        if game.scoring.get("effect") and not _run(game, st, ["scoring"]):
            return
    it = Interp(game, st)
    scores = {}
    for p in st["players"]:
        scores[p] = num(it.ev(game.scoring["score"], {"player": p})) if "score" in game.scoring else 0
    st["scores"] = scores
    best = max(scores.values()) if scores else 0
    top = [p for p in st["players"] if scores[p] == best]
    if len(top) > 1 and "tiebreak" in game.scoring:
        tb = {p: num(it.ev(game.scoring["tiebreak"], {"player": p})) for p in top}
        b2 = max(tb.values())
        top = [p for p in top if tb[p] == b2]
    if len(top) > 1 and game.scoring.get("tie") == "no_winner":
        top = []
    if "wins" in game.scoring:
        top = [p for p in st["players"] if it.ev(game.scoring["wins"], {"player": p})]
    st["winners"] = top
    st["pending"] = None
    st["task"] = None
    st["log"].append(line(game, st["round"], "game_over",
                          scores=lambda lang: ", ".join(f"{player_name(p, lang)} {scores[p]}" for p in st["players"])))


def ended(st) -> dict | None:
    """How a finished game ended: `by` the flow's `end` condition, an `end game` statement or
    the last round, `at` the content position that ended it. Kept beside the state for the
    figures (rulepress balance), out of its hash: logs recorded before it replay unchanged.
    (What the players know of things they no longer see, `knowledge`, is kept so too:
    runtime/visibility.py.)"""
    return st.get("ended")


def state_hash(st) -> str:
    keep = {k: v for k, v in st.items() if k not in ("task", "ended", "knowledge")}
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()[:16]
