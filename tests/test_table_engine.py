"""Where the table's games run (rulepress/table/engine.py): in worker processes, the same game
as on a thread; a room whose game work runs long moved to a worker of its own and played on
there; a worker lost is said as a fault the room recovers from (rebuilt from the store)."""
from __future__ import annotations

import asyncio
import json
import os
import random
import signal

import pytest
from table_client import night_city

from rulepress.runtime.flow import IllegalChoice
from rulepress.table import engine as engine_module
from rulepress.table.engine import GameWorkFault, ProcessEngine, ThreadEngine


class _Room:
    def __init__(self, code):
        self.code = code


def _play(engine, room, moves, seed):
    """`moves` random legal moves through `engine`; the summaries after each."""
    game = night_city()

    async def run():
        out = [await engine.call(room, "load", game.id, 2, "engine:1", {}, [])]
        rng = random.Random(seed)
        for _ in range(moves):
            s = out[-1]
            if s["pending"] is None:
                break
            seat = s["pending"]["waiting"][0]
            meta = {"game": game.id, "version": len(out), "status": "playing", "players": 2,
                    "hosts": {"p1": True, "p2": False}}
            part = (await engine.call(room, "parts", meta, [seat]))[seat]
            choice = rng.choice(json.loads(part.text + "}")["options"])["id"]
            out.append(await engine.call(room, "apply", seat, choice))
        return out
    return asyncio.run(run())


def test_a_game_in_worker_processes_is_the_game_on_a_thread():
    game = night_city()
    here = ThreadEngine({game.id: game})
    there = ProcessEngine({game.id: game}, 2)
    try:
        played = _play(there, _Room("AAAAAAAA"), 40, 3)
        assert len(played) == 41 and played[-1]["history"] == 40
        assert played == _play(here, _Room("AAAAAAAA"), 40, 3)
    finally:
        there.close()
        here.close()


def test_a_room_whose_game_work_runs_long_gets_a_worker_of_its_own_and_plays_on(monkeypatch):
    game = night_city()
    monkeypatch.setattr(engine_module, "SLOW_SECONDS", 0.0)  # (every call is "long")
    there = ProcessEngine({game.id: game}, 2)
    here = ThreadEngine({game.id: game})
    try:
        room = _Room("BBBBBBBB")
        played = _play(there, room, 30, 4)
        assert "BBBBBBBB" in there.own and there.at["BBBBBBBB"] is there.own["BBBBBBBB"]
        # its long effects run below the server's priority: on busy cores they wait, not the event loop
        assert os.getpriority(os.PRIO_PROCESS, there.own["BBBBBBBB"].proc.pid) \
            == min(19, os.getpriority(os.PRIO_PROCESS, 0) + engine_module.OWN_NICE)
        assert all(os.getpriority(os.PRIO_PROCESS, w.proc.pid) == os.getpriority(os.PRIO_PROCESS, 0)
                   for w in there.shared)
        assert not any("BBBBBBBB" in w.rooms for w in there.shared)
        assert played == _play(here, _Room("BBBBBBBB"), 30, 4)
        there.drop("BBBBBBBB")
        assert not there.own
        # so does a room played on threads: its long effects leave the server's interpreter
        assert "BBBBBBBB" in here.own and "BBBBBBBB" not in here.local.live and "BBBBBBBB" not in here.threads
        assert len(here.state("BBBBBBBB")["history"]) == played[-1]["history"]  # (a copy, read from its worker)
        assert os.getpriority(os.PRIO_PROCESS, here.own["BBBBBBBB"].proc.pid) \
            == min(19, os.getpriority(os.PRIO_PROCESS, 0) + engine_module.OWN_NICE)
        here.drop("BBBBBBBB")
        assert not here.own
    finally:
        there.close()
        here.close()


def test_a_room_held_up_behind_another_rooms_long_work_moves_to_a_free_worker(monkeypatch):
    """The first long piece of a room's game work (the next moves the room to a worker of its
    own) held up every room sharing its worker until it ended; a room whose request waits
    behind it more than BUSY_SECONDS is now set up again, from its moves, on a worker that
    is free, asked there, and plays on there as it would have."""
    import time
    game = night_city()
    apply = engine_module.Games.op_apply

    def long_for_one(self, code, seat, choice):
        if code == "SLOWSLOW":
            time.sleep(1.5)  # (waiting, not CPU: the room is not moved out for it)
        return apply(self, code, seat, choice)
    monkeypatch.setattr(engine_module.Games, "op_apply", long_for_one)  # (before the workers fork: theirs too)
    there = ProcessEngine({game.id: game}, 2)
    here = ThreadEngine({game.id: game})
    meta = {"game": game.id, "version": 1, "status": "playing", "players": 2, "hosts": {"p1": True, "p2": False}}

    async def move(engine, room, rng):
        s = await engine.call(room, "parts", meta, ["p1", "p2"])
        seat = next(p for p in ("p1", "p2") if json.loads(s[p].text + "}")["options"])
        choice = rng.choice(json.loads(s[seat].text + "}")["options"])["id"]
        return await engine.call(room, "apply", seat, choice)

    async def run(engine, slow_too):
        slow, other, held = _Room("SLOWSLOW"), _Room("OTHEROTH"), _Room("HELDHELD")
        for r in (slow, other, held):
            await engine.call(r, "load", game.id, 2, f"engine:{r.code}", {}, [])
        rng = random.Random(6)
        out = [await move(engine, held, rng) for _ in range(5)]
        if slow_too:
            assert engine.at["HELDHELD"] is engine.at["SLOWSLOW"]  # (two workers, three rooms: these share one)
            long = asyncio.create_task(move(engine, slow, random.Random(1)))
            while not any(c == "SLOWSLOW" for w in engine.shared for _t, c in w.asked.values()):
                await asyncio.sleep(0.001)  # (the long work asked for, not yet known to be long)
            began = time.monotonic()
            out += [await move(engine, held, rng) for _ in range(5)]
            waited = time.monotonic() - began
            assert engine.at["HELDHELD"] is not engine.at["SLOWSLOW"] and not long.done(), waited
            await long
        else:
            out += [await move(engine, held, rng) for _ in range(5)]
        return out
    try:
        assert asyncio.run(run(there, True)) == asyncio.run(run(here, False))
    finally:
        there.close()
        here.close()


def test_an_illegal_choice_and_a_lost_worker_are_told_apart():
    game = night_city()
    there = ProcessEngine({game.id: game}, 1)
    room = _Room("CCCCCCCC")

    async def run():
        s = await there.call(room, "load", game.id, 2, "engine:2", {}, [])
        seat = s["pending"]["waiting"][0]
        with pytest.raises(IllegalChoice):
            await there.call(room, "accept", seat, "no such option")
        os.kill(there.at["CCCCCCCC"].proc.pid, signal.SIGKILL)
        with pytest.raises(GameWorkFault):
            await there.call(room, "accept", seat, "no such option")
        # the room is set up again (the server rebuilds it from the store) on a worker that lives
        again = await there.call(room, "load", game.id, 2, "engine:2", {}, [])
        assert again == s
    try:
        asyncio.run(run())
    finally:
        there.close()



@pytest.mark.parametrize("where", ["threads", "processes"])
def test_a_room_loaded_from_the_store_replays_off_the_event_loop(tmp_path, monkeypatch, where):
    """A room read from the store the first time is set up again (its seed, every stored move)
    where games run: the event loop goes on serving meanwhile. The load here waits until a
    coroutine of the loop lets it go; a load on the loop itself would wait in vain."""
    import inspect
    import multiprocessing

    from rulepress.table.rooms import Tables
    from rulepress.table.store import Store

    game = night_city()
    db = str(tmp_path / "t.sqlite3")

    async def made():
        tables = Tables({game.id: game}, Store(db))
        j = await tables.create(game.id, 2, {}, "Ann")
        async with j.room.lock:
            await tables.host(j.room, "p1", "bot", "p2")
            await tables.host(j.room, "p1", "start")
        assert j.room.status == "playing"
        tables.engine.close()
        return j.room.code
    code = asyncio.run(made())

    ctx = multiprocessing.get_context("fork")
    began, free = ctx.Event(), ctx.Event()
    load = engine_module.Games.op_load

    def held_load(self, *args):
        began.set()
        if not free.wait(10):
            raise RuntimeError("the event loop never let the load go")
        return load(self, *args)
    monkeypatch.setattr(engine_module.Games, "op_load", held_load)  # (before the workers fork: theirs too)
    engine = ProcessEngine({game.id: game}, 1) if where == "processes" else ThreadEngine({game.id: game})

    async def let_go():
        while not began.is_set():
            await asyncio.sleep(0.01)
        free.set()

    async def run():
        tables = Tables({game.id: game}, Store(db), engine=engine)
        helper = asyncio.create_task(let_go())
        got = tables.get(code)
        room = await got if inspect.isawaitable(got) else got
        helper.cancel()
        return room
    try:
        room = asyncio.run(run())
    finally:
        engine.close()
    assert room is not None and room.status == "playing" and room.summary["pending"] is not None
