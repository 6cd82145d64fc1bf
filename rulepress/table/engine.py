"""Where the rooms' games run: never on the server's event loop.

`Games` holds the live games of rooms and does every piece of game work the server asks for
(set a game up and replay its moves, check a seat's answer, apply a move, a bot's choice,
each seat's part of the `table` message). It runs in one of two engines:

- ThreadEngine: in the server's process, a thread per room (one process; the tests);
- ProcessEngine: in worker processes (`rulepress serve --game-workers N`). A room is played
  by one worker (its live game stays there between moves: an effect waiting for a decision
  is a generator kept with its state, runtime/flow.py), rooms spread over a few workers; a room whose game work
  took longer than SLOW_SECONDS moves to a worker of its own, so a long effect holds up
  its own room and nobody else's, whatever the interpreter's lock does; a room whose request
  waits behind that first long piece more than BUSY_SECONDS is set up again on a free
  worker from the moves the server keeps of it (ProcessEngine.played), and asked there.

The server sees a room's game only as a summary (who decides, how many moves) and as the
seats' parts of their messages, made where the game is.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ..runtime import agents, answers
from ..runtime.decision import Decision
from ..runtime.flow import IllegalChoice, apply, choices, new_game
from . import messages

SLOW_SECONDS = 0.05  # game work of one call past this (CPU time, not a busy machine's wait) moves its room to a worker of its own
BUSY_SECONDS = 0.05  # a room whose request would wait behind another's work begun this long ago moves to another worker
OWN_WORKERS = 8      # rooms with a worker of their own at most (past it, slow rooms share)
OWN_NICE = 10        # how much lower a room's own worker runs than the server (os.nice)
ANSWER_SECONDS = 120  # a worker that answers nothing in this long is taken for dead


class GameWorkFault(Exception):
    """Game work that failed for another reason than an illegal choice (a fault of the
    content, a worker lost): the room is rebuilt from the store."""


def summary(game, st) -> dict | None:
    """What the server keeps of a live game: who must still decide, and how many moves were made."""
    if st is None:
        return None
    dec = Decision.of(game, st)
    pending = None if dec is None else {"waiting": list(dec.waiting)}
    return {"pending": pending, "history": len(st["history"]), "over": bool(st["over"])}


class _Snapshot:
    """The room as messages._seat_part reads it, where the game is."""

    def __init__(self, code, game, st, meta):
        self.code, self.game, self.st = code, game, st
        self.version, self.status = meta["version"], meta["status"]
        self.row = _Row(meta["players"])
        self.seats = {s: _Seat(h) for s, h in meta["hosts"].items()}
        self.spectators_see_all = meta.get("see_all") is True  # (a host's option: docs/table.md)
        self.faces = None  # (named by the server as it keeps the part: messages.keep)

    def deciding(self):
        return _deciding(summary(self.game, self.st))


class _Row:
    def __init__(self, players):
        self.players = players


class _Seat:
    def __init__(self, host):
        self.host = host


def _deciding(s) -> list:
    d = s["pending"] if s is not None else None
    return [] if d is None else list(d["waiting"])


class Games:
    """The live games of rooms, by room code, and the work done on them."""

    def __init__(self, games: dict):
        self.games = games
        self.live: dict[str, list] = {}  # code -> [game, st, how it was set up, moves applied since]

    def handle(self, op: str, code: str, *args):
        return getattr(self, f"op_{op}")(code, *args)

    def op_load(self, code, game_id, players, seed, options, moves):
        """A game set up from its seed and the moves replayed; its summary."""
        game = self.games[game_id]
        self.live.pop(code, None)
        st = new_game(game, players, seed=seed, options=options)
        for seat, choice in moves:
            apply(game, st, choice, seat)
        self.live[code] = [game, st, (game_id, players, seed, options), [tuple(m) for m in moves]]
        return summary(game, st)

    def op_more(self, code, moves):
        game, st, _how, played = self.live[code]
        for seat, choice in moves:
            apply(game, st, choice, seat)
            played.append((seat, choice))
        return summary(game, st)

    def op_accept(self, code, seat, choice):
        game, st = self.live[code][:2]
        return answers.accept(game, st, seat, choice)

    def op_play(self, code, seat, choice, meta, seats):
        """A seat's answer checked and played, and the seats' parts of the table after it, in
        one go: ("refused", why) for an answer that is not an option (nothing changed),
        ("illegal", None) for one the flow refused (nothing changed), else ("played", the
        move's choice, the summary, the parts at meta's version)."""
        try:
            choice = self.op_accept(code, seat, choice)
        except IllegalChoice as exc:
            return ("refused", str(exc))
        try:
            after = self.op_apply(code, seat, choice)
        except IllegalChoice:
            return ("illegal", None)
        meta = dict(meta, status="finished" if after["pending"] is None else "playing")
        return ("played", choice, after, self.op_parts(code, meta, seats))

    def op_apply(self, code, seat, choice):
        game, st, _how, played = self.live[code]
        apply(game, st, choice, seat)
        played.append((seat, choice))
        return summary(game, st)

    def op_bot(self, code, seat, agent_seed):
        game, st = self.live[code][:2]
        agent = agents.RandomAgent(agent_seed)
        return agents.ask(game, st, agent, seat, choices(game, st, seat))

    def op_parts(self, code, meta, seats):
        """Each seat's part of its `table` message (messages.Part)."""
        live = self.live.get(code)
        if live is None and meta["status"] != "lobby":
            raise KeyError(f"room {code} is not played here")  # (a worker that was replaced: rebuilt)
        snap = _Snapshot(code, live[0] if live else self.games[meta["game"]], live[1] if live else None, meta)
        return {seat: messages.made_part(snap, seat) for seat in seats}

    def op_state(self, code):
        live = self.live.get(code)
        return None if live is None else live[1]

    def op_export(self, code):
        live = self.live.get(code)
        return None if live is None else (*live[2], live[3])

    def op_drop(self, code):
        self.live.pop(code, None)


def _meta(room) -> dict:
    return {"game": room.game.id, "version": room.version, "status": room.status, "players": room.row.players,
            "hosts": {s: r.host for s, r in room.seats.items()}, "see_all": room.spectators_see_all}


class ThreadEngine:
    """Game work on a thread of each room's own, in this process. A thread busy with a long
    effect would share the interpreter with the event loop (the server sets a short switch
    interval): a room whose game work took longer than SLOW_SECONDS twice moves to a worker
    process of its own, at a lower priority (as in the ProcessEngine), and the rooms that
    stay here are the quick ones."""

    def __init__(self, games: dict):
        self.games = games
        self.local = Games(games)
        self.threads: dict[str, ThreadPoolExecutor] = {}
        self.own: dict[str, _Worker] = {}  # code -> the worker process of a room moved out
        self.slow: dict[str, int] = {}     # code -> its pieces of game work that ran long

    async def call(self, room, op, *args):
        own = self.own.get(room.code)
        if own is not None:
            return (await own.ask((op, room.code, *args)))[0]
        worker = self.threads.get(room.code)
        if worker is None:
            worker = self.threads[room.code] = ThreadPoolExecutor(1, thread_name_prefix=f"table-{room.code}")
        out, cpu = await asyncio.get_running_loop().run_in_executor(worker, functools.partial(self._timed, room.code, op, args))
        if cpu > SLOW_SECONDS and op in ("play", "apply", "accept", "bot", "more"):
            # twice: once may be the game's code made on its first use here, or a collection
            # of the interpreter's garbage, which a room of long effects does not need to be
            slow = self.slow[room.code] = self.slow.get(room.code, 0) + 1
            if slow >= 2 and len(self.own) < OWN_WORKERS:
                await self._isolate(room)
        return out

    async def _isolate(self, room) -> None:
        """Move a room whose game work runs long to a worker process of its own (its game
        replayed there from its seed and moves)."""
        how = self.local.op_export(room.code)
        if how is None or how[2] is None or room.code in self.own:
            return
        loop = asyncio.get_running_loop()
        own = await loop.run_in_executor(None, _Worker, self.games, list(self.own.values()), OWN_NICE)
        try:
            await own.ask(("load", room.code, *how))
        except Exception:  # (it stays here)
            own.stop()
            return
        self.own[room.code] = own
        self.local.live.pop(room.code, None)
        worker = self.threads.pop(room.code, None)
        if worker is not None:
            worker.shutdown(wait=False)

    def call_now(self, room, op, *args):
        own = self.own.get(room.code)
        if own is not None:
            return own.ask_now((op, room.code, *args))
        return self._ask(room.code, op, args)

    def _timed(self, code, op, args):
        began = time.thread_time()
        out = self._ask(code, op, args)
        return out, time.thread_time() - began

    def _ask(self, code, op, args):
        try:
            return self.local.handle(op, code, *args)
        except IllegalChoice:
            raise
        except Exception as exc:
            raise GameWorkFault(f"{type(exc).__name__}: {exc}") from exc

    def meta(self, room) -> dict:
        return _meta(room)

    def state(self, code):
        own = self.own.get(code)
        if own is not None:  # (a copy, from its worker)
            return own.ask_now(("state", code))
        live = self.local.live.get(code)
        return live[1] if live else None

    def set_state(self, room, st) -> None:
        """(The tests: a room's live game set by hand.)"""
        own = self.own.pop(room.code, None)
        if own is not None:
            own.stop()
        if st is None:
            self.local.live.pop(room.code, None)
        else:
            self.local.live[room.code] = [room.game, st, None, []]

    def drop(self, code) -> None:
        self.local.live.pop(code, None)
        worker = self.threads.pop(code, None)
        if worker is not None:
            worker.shutdown(wait=False)
        own = self.own.pop(code, None)
        if own is not None:
            own.stop()
        self.slow.pop(code, None)

    def close(self) -> None:
        for code in list(self.threads) + list(self.own):
            self.drop(code)


class _Worker:
    """A worker process and the pipe to it. The server's event loop writes requests and
    reads answers itself (no thread between: a thread's wake-up would wait for the
    interpreter's lock): requests are numbered, the worker answers them in order, and each
    answer settles the future of its number."""

    def __init__(self, games: dict, others: list, nice: int = 0):
        ctx = multiprocessing.get_context("fork")  # (the games as they are: nothing loaded again)
        here, there = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(there, here, games, [w.conn for w in others], nice), daemon=True,
                                name="rulepress-game")
        self.proc.start()
        there.close()
        self.conn = here
        self.rooms: set = set()
        self.dead = False
        self.waiting: dict = {}  # request number -> its future
        self.asked: dict = {}  # request number -> (when it was sent, its room), until answered
        self.numbers = itertools.count()
        self.loop = None  # the event loop reading this worker's answers

    def _send(self, message) -> int:
        n = next(self.numbers)
        try:
            self.conn.send((n, message))
        except (OSError, ValueError) as exc:
            self._lost(exc)
            raise GameWorkFault(f"the game's worker was lost ({type(exc).__name__})") from None
        return n

    def _lost(self, exc) -> None:
        self.dead = True
        self._unwatch()
        for fut in self.waiting.values():
            if not fut.done():
                fut.set_exception(GameWorkFault(f"the game's worker was lost ({type(exc).__name__})"))
        self.waiting.clear()
        self.asked.clear()

    def _readable(self) -> None:
        try:
            while self.conn.poll():
                n, *answer = self.conn.recv()
                self.asked.pop(n, None)
                fut = self.waiting.pop(n, None)
                if fut is not None and not fut.done():
                    fut.set_result(answer)
        except (OSError, EOFError) as exc:
            self._lost(exc)

    def held_up(self, code, n=None) -> bool:
        """Whether a request of room `code` sent now (`n`: request `n`, sent already) would
        wait behind another room's work begun more than BUSY_SECONDS ago, and behind no
        request of its own that came before."""
        if not self.asked:
            return False
        first = min(self.asked)
        since, whose = self.asked[first]
        return whose != code and time.monotonic() - since > BUSY_SECONDS \
            and all(c != code for m, (_t, c) in self.asked.items() if n is None or m < n)

    def _watch(self, loop) -> None:
        if self.loop is not loop:
            self._unwatch()
            loop.add_reader(self.conn.fileno(), self._readable)
            # blocking again (uvloop makes what it watches non-blocking): an answer is read
            # whole once its first bytes are there, and the worker writes it at once
            os.set_blocking(self.conn.fileno(), True)
            self.loop = loop

    def _unwatch(self) -> None:
        if self.loop is not None:
            with contextlib.suppress(Exception):
                self.loop.remove_reader(self.conn.fileno())
            self.loop = None

    async def ask(self, message, moved=None):
        """The answer to `message`, and the CPU seconds its work took in the worker.
        `moved`: for a request found waiting behind another room's work begun more than
        BUSY_SECONDS ago, an async function that sets the room up on another worker and
        returns where it is; the request is then asked there, and this worker's answer to it
        (its work on a copy it drops next) is never read."""
        if self.dead:
            raise GameWorkFault("the game's worker was lost")
        loop = asyncio.get_running_loop()
        self._watch(loop)
        fut = loop.create_future()
        n = self._send(message)
        self.waiting[n] = fut
        self.asked[n] = (time.monotonic(), message[1])
        try:
            if moved is not None:
                with contextlib.suppress(asyncio.TimeoutError):
                    answer = await asyncio.wait_for(asyncio.shield(fut), BUSY_SECONDS)
                    return _unwrap(answer), answer[2]
                if self.held_up(message[1], n):
                    there = await moved()
                    if there is not self:  # (even if answered meanwhile: that was its dropped copy)
                        self.waiting.pop(n, None)
                        self.asked.pop(n, None)
                        return await there.ask(message)
            answer = await asyncio.wait_for(fut, ANSWER_SECONDS)
        except asyncio.TimeoutError:
            self._lost(TimeoutError())
            raise GameWorkFault("the game's worker answered nothing") from None
        return _unwrap(answer), answer[2]

    def ask_now(self, message):
        """The same, waited for on this thread (the answers of other requests that come first
        settle their futures on the way)."""
        if self.dead:
            raise GameWorkFault("the game's worker was lost")
        n = self._send(message)
        try:
            while True:
                if not self.conn.poll(ANSWER_SECONDS):
                    raise TimeoutError("no answer")
                m, *answer = self.conn.recv()
                if m == n:
                    return _unwrap(answer)
                self.asked.pop(m, None)
                fut = self.waiting.pop(m, None)
                if fut is not None and not fut.done():
                    fut.set_result(answer)
        except (OSError, EOFError, TimeoutError) as exc:
            self._lost(exc)
            raise GameWorkFault(f"the game's worker was lost ({type(exc).__name__})") from None

    def tell(self, message) -> None:
        """A request whose answer nobody waits for."""
        with contextlib.suppress(GameWorkFault):
            self._send(message)

    def stop(self) -> None:
        self._lost(EOFError())
        self.conn.close()  # (the worker ends when its pipe does)
        self.proc.join(2)
        if self.proc.is_alive():
            self.proc.kill()


def _unwrap(answer):
    kind, value, _cpu = answer
    if kind == "ok":
        return value
    if kind == "illegal":
        raise IllegalChoice(value)
    raise GameWorkFault(value)


def _serve(conn, parent_end, games, others, nice=0) -> None:
    """A worker process: answers the server's game work until its pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (Ctrl-C stops the server, which closes the pipe)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    parent_end.close()
    for other in others:  # (pipes of the workers forked before: only the server keeps them open)
        other.close()
    work = Games(games)
    while True:
        try:
            n, message = conn.recv()
        except (EOFError, OSError):
            return
        began = time.thread_time()
        try:
            answer = ("ok", work.handle(*message))
        except IllegalChoice as exc:
            answer = ("illegal", str(exc))
        except Exception as exc:  # noqa: BLE001 - said to the server, which rebuilds the room
            answer = ("fault", f"{type(exc).__name__}: {exc}")
        try:
            conn.send((n, *answer, time.thread_time() - began))
        except (OSError, ValueError):
            return


class ProcessEngine:
    def __init__(self, games: dict, workers: int | None = None):
        self.games = games
        n = workers or max(2, os.cpu_count() or 2)
        self.shared: list[_Worker] = []
        for _ in range(n):
            self.shared.append(_Worker(games, self.shared))
        self.own: dict[str, _Worker] = {}   # code -> a worker of that room's own
        self.at: dict[str, _Worker] = {}    # code -> the worker its live game is in
        # code -> how its game was set up and the moves played since (the arguments of a
        # `load` that makes it again): a room held up behind another's long work is set up
        # again on another worker from these, its own worker being busy
        self.played: dict[str, list] = {}
        self.moving: dict[str, asyncio.Future] = {}  # code -> the worker it is being moved to, once set up there
        self.lock = threading.Lock()

    def _worker(self, code) -> _Worker:
        w = self.at.get(code)
        if w is None or w.dead:
            with self.lock:
                if w is not None and w.dead:
                    self._replace(w)
                w = min((x for x in self.shared if not x.dead), key=lambda x: len(x.rooms))
                w.rooms.add(code)
                self.at[code] = w
        return w

    def _replace(self, dead: _Worker) -> None:
        for code in dead.rooms:
            self.at.pop(code, None)
        if dead in self.shared:
            self.shared[self.shared.index(dead)] = _Worker(self.games, self._all())
        dead.stop()

    def _all(self) -> list:
        return self.shared + list(self.own.values())

    async def call(self, room, op, *args):
        w = self._worker(room.code)
        if op != "load" and room.code not in w.rooms:  # pragma: no cover - (a worker replaced under the room)
            raise GameWorkFault("the game's worker was replaced")
        loop = asyncio.get_running_loop()
        moving = self.moving.get(room.code)
        if moving is not None:  # (a call of the room's is moving it: nothing goes to where it was)
            w = await asyncio.shield(moving)
        moved = None
        if op != "load" and room.code not in self.own:
            # found held up behind the first long piece of another room's work on this worker
            # (the next moves that room to a worker of its own): set up again on a free worker
            # and asked there
            moved = functools.partial(self._moved, room.code, w)
        out, cpu = await w.ask((op, room.code, *args), moved)
        w = self.at.get(room.code, w)
        self._note(room.code, op, args, out)
        if cpu > SLOW_SECONDS and room.code not in self.own and len(self.own) < OWN_WORKERS \
                and op in ("play", "apply", "accept", "bot", "more"):
            await self._isolate(room, w, loop)
        return out

    def _note(self, code, op, args, out) -> None:
        """The moves a room's game took in `op`, kept in `played`."""
        if op == "load":
            self.played[code] = [*args[:4], [tuple(m) for m in args[4]]]
        elif code not in self.played:
            return
        elif op == "apply":
            self.played[code][4].append((args[0], args[1]))
        elif op == "more":
            self.played[code][4].extend(tuple(m) for m in args[0])
        elif op == "play" and out[0] == "played":
            self.played[code][4].append((args[0], out[1]))

    async def _moved(self, code, busy: _Worker) -> _Worker:
        """Where room `code`, held up at `busy`, is now: moved by this call, or by another
        of the room's calls (moving it, or already moved)."""
        moving = self.moving.get(code)
        if moving is not None:
            return await asyncio.shield(moving)
        if self.at.get(code) is not busy:
            return self.at.get(code, busy)
        return await self._move_off(code, busy)

    async def _move_off(self, code, busy: _Worker) -> _Worker:
        """Room `code` set up again on the shared worker with the fewest rooms that nothing
        holds up (`busy`, where it was, drops it once free); `busy` where there is none, or
        where the room has no moves kept to set it up from. The worker the room is at."""
        self.moving[code] = done = asyncio.get_running_loop().create_future()
        to = busy
        try:
            how = self.played.get(code)
            free = [x for x in self.shared if x is not busy and not x.dead and not x.held_up(code)]
            if how is not None and free:
                to = min(free, key=lambda x: len(x.rooms))
                try:
                    await to.ask(("load", code, *how))
                except Exception:  # (it stays where it is)
                    to = busy
                else:
                    with self.lock:
                        busy.rooms.discard(code)
                        to.rooms.add(code)
                        self.at[code] = to
                    busy.tell(("drop", code))
        finally:
            del self.moving[code]
            done.set_result(to)
        return to

    async def _isolate(self, room, w: _Worker, loop) -> None:
        """Move a room whose game work runs long to a worker of its own (its game replayed there)."""
        how, _ = await w.ask(("export", room.code))
        if how is None or how[2] is None:
            return
        # (a fork: not on the event loop). At a lower priority: where the cores are busy, the
        # long effects of rooms like this one wait, not the event loop and the other rooms
        own = await loop.run_in_executor(None, _Worker, self.games, self._all(), OWN_NICE)
        try:
            await own.ask(("load", room.code, *how))
        except Exception:  # (it stays where it is)
            own.stop()
            return
        w.tell(("drop", room.code))
        with self.lock:
            w.rooms.discard(room.code)
            own.rooms.add(room.code)
            self.own[room.code] = own
            self.at[room.code] = own

    def call_now(self, room, op, *args):
        """The same, waited for here (a room read when first asked for, outside a coroutine)."""
        return self._worker(room.code).ask_now((op, room.code, *args))

    def meta(self, room) -> dict:
        return _meta(room)

    def state(self, code):
        return None  # (in a worker)

    def set_state(self, room, st) -> None:  # pragma: no cover - (the tests set live games on the ThreadEngine)
        raise NotImplementedError

    def drop(self, code) -> None:
        self.played.pop(code, None)
        w = self.at.pop(code, None)
        if w is None:
            return
        own = self.own.pop(code, None)
        if own is not None:
            own.stop()
            return
        w.rooms.discard(code)
        w.tell(("drop", code))

    def close(self) -> None:
        for w in self._all():
            w.stop()
        self.shared, self.own, self.at = [], {}, {}
