"""Effects waiting for a decision, kept running in memory so an answer does not replay them.

A waiting task is always also plain data (snapshot + answers) and replays exactly; this
is only a shortcut for the process that holds the live state. A state that was copied,
saved or loaded has other task objects, finds nothing here, and replays.
"""
from __future__ import annotations

from typing import NamedTuple

from greenlet import getcurrent, greenlet

LIMIT = 64  # live tasks kept; the oldest is dropped (and would replay if answered later)
_live: dict = {}  # id(task) -> its Live entry, the oldest first
_idle: list = []  # greenlets whose last task ended, each waiting for the next


class Live(NamedTuple):
    """A task waiting in memory: the very task object, its greenlet and its interpreter."""
    task: dict
    glet: greenlet
    interp: object


class Waiting:
    """What a running effect hands back when it needs a decision."""
    __slots__ = ("decision",)

    def __init__(self, decision):
        self.decision = decision


def start(run) -> greenlet:
    """A greenlet that runs `run` when first switched to, and hands back None once it ends.

    A greenlet whose last task ended runs the next: making a greenlet, and ending it, costs
    several times more than switching to one that waits.
    """
    glet = _idle.pop() if _idle else greenlet(_serve)
    try:
        glet.parent = getcurrent()
    except ValueError:  # an idle greenlet of another thread (a server may play in more than one): left behind
        glet = greenlet(_serve)
        glet.parent = getcurrent()
    glet.task = run
    return glet


def _serve():
    me = getcurrent()
    while True:
        me.task()
        me.task = None  # what the task held is let go while this waits for the next
        _idle.append(me)
        me.parent.switch(None)


def keep(task, glet, it) -> None:
    old = _live.pop(id(task), None)  # kept again: now the newest
    if old is not None and old.glet is not glet:
        _end(old)
    _live[id(task)] = Live(task, glet, it)
    if len(_live) > LIMIT:
        _end(_live.pop(next(iter(_live))))


def take(task):
    """The live (greenlet, interpreter) of this very task object, if it waits for the next answer."""
    entry = _live.pop(id(task), None)
    if entry is None:
        return None
    if entry.task is not task or entry.interp.ai != len(task["answers"]) - 1:
        _end(entry)
        return None
    try:
        entry.glet.parent = getcurrent()
    except ValueError:  # left waiting by another thread (a server moved the game): replayed here
        return None
    return entry.glet, entry.interp


def _end(entry: Live) -> None:
    """Unwind a waiting effect no one will answer (it would replay if ever answered).

    Dropping it is not enough: its interpreter holds the greenlet and the greenlet's frames
    hold the interpreter, a cycle Python's collector does not break through a suspended
    greenlet, so each would keep its copy of the state for good (hundreds of MB a game under
    the search bot, which leaves a world at every playout). Its `finally` blocks touch only
    its interpreter."""
    glet = entry.glet
    if glet.dead or not glet:
        return
    try:
        glet.parent = getcurrent()  # the unwound greenlet hands control back here
    except ValueError:  # this greenlet runs inside that one: it cannot be ended from here
        return
    glet.throw()


def drop(task) -> None:
    """This waiting task will never be answered (its effect starts again): unwind it."""
    entry = _live.pop(id(task), None)
    if entry is not None:
        _end(entry)


def changing(task) -> None:
    """The state is about to be changed by something other than this waiting task: what its
    interpreter has worked out from the state no longer holds when it goes on."""
    entry = _live.get(id(task))
    if entry is not None and entry.task is task:
        entry.interp.changed()


def wait(it, decision):
    """Called inside a running effect: pause it until the flow has the answer."""
    it.glet.parent.switch(Waiting(decision))
