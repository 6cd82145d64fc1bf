"""The online table under load: many seats playing random legal moves over loopback.

    .venv/bin/python bench/table_load.py [--rooms 50] [--seats 4] [--seconds 20] [--think 1] [GAME]

Starts `rulepress serve` as its own process (a free port, a fresh database in a temporary
folder), opens the rooms, seats every player over its own WebSocket, starts the games once
every seat has its table (the moves and the CPU are counted from there), and lets each seat pick
a random option whenever the table says it decides, after thinking 0.5-1.5 times `--think`
seconds (a person's pace; 50 rooms then offer about 50 moves a second). `--think 0` moves
at once: the server is saturated by construction and the latency measured is the queue of
every room's move, so that run is for moves a second. It prints the machine, moves accepted a
second, and the latency of a move: from the moment a seat sends it to the moment the last
seat of its room holds a view of the changed table (p50, p99, max). Goal: p99 < 100 ms for
200 seats in 50 rooms on a 2-core machine.

How a move is told apart from its neighbours: a seat sends at most one move per version of
the table, and the server answers a seat's messages in order, so a `refused` or `error`
belongs to that seat's oldest move still unanswered. An accepted move at version V made the
table's next version, and every seat of the room receiving a version above V has its view.
"""
from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import os
import random
import pstats
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine, yardstick  # noqa: E402  the same lines about the machine as the other benchmarks


@dataclass(slots=True)
class Move:
    room: str
    seat: str
    version: int
    sent: float
    refused: bool = False


@dataclass(slots=True)
class Room:
    code: str
    seats: list = field(default_factory=list)          # (seat, token)
    versions: dict = field(default_factory=dict)       # seat -> versions received, in order
    times: dict = field(default_factory=dict)          # seat -> when each of them arrived
    games: int = 0


@dataclass(slots=True)
class Tally:
    moves: list = field(default_factory=list)
    refused: int = 0
    errors: list = field(default_factory=list)
    frames: int = 0
    bytes: int = 0
    seated: int = 0  # seats that have had their first table
    seating: float = 0.0  # how long it took them all


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The server with a slow room: `apply` of a game of SLOW_PLAYERS seats busy for SLOW_MS more.
SEAT_SECONDS = 60  # how long the seats may take to connect and get their tables before play starts

SLOW_SERVER = """
import os, sys, time
from rulepress.table import engine, rooms
players, ms = map(int, os.environ["RULEPRESS_BENCH_SLOW"].split(":"))
plain = getattr(engine, "apply", None) or rooms.apply  # (game work in engine.py; rooms.py before it)
def apply(game, st, *args, **kw):
    if len(st["players"]) == players:
        until = time.perf_counter() + ms / 1000
        while time.perf_counter() < until:
            pass
    return plain(game, st, *args, **kw)
engine.apply = rooms.apply = apply  # (worker processes are forked after this: they have it too)
from rulepress.cli import run
sys.argv = ["rulepress", *sys.argv[1:]]
run()
"""


def start_server(game: str, port: int, db: str, profile: str | None = None, slow: str | None = None,
                 extra: tuple = ()) -> subprocess.Popen:
    # under cProfile when asked: where the server's time goes (written when it stops)
    head = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "rulepress"] if profile else \
        [sys.executable, "-c", SLOW_SERVER] if slow else \
        [shutil.which("rulepress", path=os.path.dirname(sys.executable)) or "rulepress"]
    env = dict(os.environ, RULEPRESS_BENCH_SLOW=slow) if slow else None
    proc = subprocess.Popen([*head, "serve", game, "--port", str(port), "--db", db, "--no-address-limits", *extra], env=env,
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped: {proc.stderr.read()[-2000:]}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).read()
            return proc
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not answer within 60 s")


def post(base: str, path: str, body: dict) -> dict:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def open_rooms(base: str, game: str, rooms: int, seats: int) -> list[Room]:
    out = []
    for i in range(rooms):
        made = post(base, "/api/rooms", {"game": game, "players": seats, "options": {}, "name": f"host{i}"})
        room = Room(made["code"], [(made["seat"], made["token"])])
        for j in range(1, seats):
            joined = post(base, f"/api/rooms/{room.code}/join", {"name": f"guest{i}-{j}"})
            room.seats.append((joined["seat"], joined["token"]))
        out.append(room)
    return out


async def seat_loop(url: str, room: Room, seat: str, token: str, host: bool, rng: random.Random, think: float,
                    tally: Tally, stop: asyncio.Event, started: asyncio.Event, seated):
    unanswered: list[Move] = []  # this seat's moves not yet refused, oldest first
    moved_at = -1                # the last version this seat moved at (one move per version)
    versions = room.versions.setdefault(seat, [])
    times = room.times.setdefault(seat, [])

    async def move(ws, version, choice, delay):
        if delay:
            await asyncio.sleep(delay)
            if versions[-1] != version or stop.is_set():
                return  # the table changed while this seat thought: the new one is answered instead
        m = Move(room.code, seat, version, time.perf_counter())
        unanswered.append(m)
        tally.moves.append(m)
        await ws.send(json.dumps({"type": "move", "version": version, "choice": choice}))

    pending = set()  # moves being thought about (a task is kept only while someone holds it)
    async with websockets.connect(url, max_size=2**22, ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        if host:
            async def start():
                await started.wait()  # every seat has its table (this one's too, read below): start
                await ws.send(json.dumps({"type": "host", "action": "start"}))
            pending.add(asyncio.create_task(start()))
        while not stop.is_set():
            try:
                frame = await asyncio.wait_for(ws.recv(), timeout=0.5)
            except asyncio.TimeoutError:
                continue
            now = time.perf_counter()
            tally.frames += 1
            tally.bytes += len(frame)
            msg = json.loads(frame)
            kind = msg.get("type")
            if kind in ("refused", "error"):
                if kind == "error":
                    tally.errors.append(msg.get("message"))
                if unanswered:
                    unanswered.pop(0).refused = True
                    tally.refused += kind == "refused"
                continue
            if kind != "table":
                continue
            version = msg["version"]
            if not versions:
                seated()
            versions.append(version)
            times.append(now)
            if msg["status"] == "finished" and host:
                room.games += 1
                await ws.send(json.dumps({"type": "host", "action": "new"}))  # the next game starts at once
                continue
            if msg["status"] != "playing" or seat not in (msg.get("deciding") or []) or not msg.get("options"):
                continue
            if version <= moved_at:
                continue
            moved_at = version
            choice = rng.choice(msg["options"])["id"]
            if think:  # a person takes a moment: half to one and a half times `think`
                pending.add(asyncio.create_task(move(ws, version, choice, think * (0.5 + rng.random()))))
                pending.difference_update([t for t in pending if t.done()])
            else:
                await move(ws, version, choice, 0)


def latencies(rooms: list[Room], moves: list[Move], until: float) -> list[float]:
    """Seconds from each accepted move to the last seat of its room holding a later version."""
    by_code = {r.code: r for r in rooms}
    out = []
    for m in moves:
        if m.refused or m.sent > until:
            continue
        room = by_code[m.room]
        worst = 0.0
        for seat, _token in room.seats:
            versions = room.versions.get(seat, [])
            i = bisect.bisect_right(versions, m.version)  # the first view of a later table
            if i == len(versions):
                break  # the run ended first
            worst = max(worst, room.times[seat][i] - m.sent)
        else:
            out.append(worst)
    return out


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def play(base: str, rooms: list[Room], seconds: float, seed: int, think: float, on_start=lambda: None) -> tuple[Tally, float, float]:
    tally = Tally()
    stop = asyncio.Event()
    started = asyncio.Event()
    rng = random.Random(seed)
    ws_base = base.replace("http://", "ws://")
    everyone = asyncio.Event()
    seats = sum(len(r.seats) for r in rooms)

    def seated():
        tally.seated += 1
        if tally.seated == seats:
            everyone.set()
    tasks = [asyncio.create_task(seat_loop(f"{ws_base}/ws/{r.code}", r, seat, token, i == 0,
                                           random.Random(rng.random()), think, tally, stop, started, seated))
             for r in rooms for i, (seat, token) in enumerate(r.seats)]
    # every seat has its table before the hosts start: the moves are timed in play, not while
    # a thousand sockets still connect (that took up to 7 s on two busy cores, against the
    # 1 s this waited before)
    t0 = time.perf_counter()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(everyone.wait(), SEAT_SECONDS)
    tally.seating = time.perf_counter() - t0
    on_start()  # (the CPU is counted from here: a move's, not the seating's)
    started.set()
    begin = time.perf_counter()
    await asyncio.sleep(seconds)
    stop.set()
    end = time.perf_counter()
    for t in asyncio.as_completed(tasks):
        try:
            await t
        except Exception as e:  # noqa: BLE001 a dropped socket is a finding, reported below
            tally.errors.append(f"socket: {type(e).__name__}: {e}")
    return tally, end - begin, end


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", nargs="?", default=os.path.join(ROOT, "build", "night-city"),
                    help="a built game folder or game.json (default: build/night-city)")
    ap.add_argument("--game-id", default=None, help="the game's id in the server (default: the folder's name)")
    ap.add_argument("--rooms", type=int, default=50)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--think", type=float, default=1.0, metavar="SECONDS",
                    help="a seat's mean time to decide (0: at once, the server saturated; latency is then "
                         "the queue of every room's move, not the time of one)")
    ap.add_argument("--url", default=None, help="use a server already running there instead of starting one")
    ap.add_argument("--slow-room", type=int, default=0, metavar="MS",
                    help="one more room whose every move costs the server MS more of CPU; the others' latency is reported")
    ap.add_argument("--processes", type=int, default=1,
                    help="server processes sharing the port (more than one: a PostgreSQL cluster of the benchmark's own)")
    ap.add_argument("--postgres", action="store_true",
                    help="the rooms in a PostgreSQL cluster the benchmark starts (fsync on), not SQLite")
    ap.add_argument("--game-workers", type=int, default=None, metavar="N",
                    help="passed to `rulepress serve` (0: a thread per room in the server process)")
    ap.add_argument("--profile", default=None, metavar="FILE",
                    help="run the server under cProfile and print where its time went (the raw profile goes to FILE)")
    a = ap.parse_args()
    game_id = a.game_id or os.path.basename(os.path.normpath(a.game)).removesuffix(".json")
    if game_id == "game":
        game_id = os.path.basename(os.path.dirname(os.path.abspath(a.game)))
    print(f"machine: {machine()}")
    print(yardstick())
    tmp = tempfile.mkdtemp(prefix="rulepress-load-")
    proc = None
    cluster = None
    try:
        slow_seats = 3 if a.seats != 3 else 2
        if a.url:
            base = a.url.rstrip("/")
        else:
            port = free_port()
            db = os.path.join(tmp, "tables.sqlite3")
            extra = []
            if a.postgres or a.processes > 1:
                sys.path.insert(0, os.path.join(ROOT, "tests"))
                from pg_cluster import Cluster, missing
                if missing():
                    raise SystemExit(f"no PostgreSQL: {missing()}")
                cluster = Cluster(durable=True)
                db = cluster.__enter__()
                extra += ["--processes", str(a.processes)]
            if a.game_workers is not None:
                extra += ["--game-workers", str(a.game_workers)]
            print(f"server: {a.processes} process(es), store {'PostgreSQL' if cluster else 'SQLite'}"
                  f"{'' if a.game_workers is None else f', --game-workers {a.game_workers}'}")
            proc = start_server(a.game, port, db, a.profile,
                                f"{slow_seats}:{a.slow_room}" if a.slow_room else None, tuple(extra))
            base = f"http://127.0.0.1:{port}"
        t = time.perf_counter()
        rooms = open_rooms(base, game_id, a.rooms, a.seats)
        print(f"{a.rooms} rooms of {a.seats} seats opened in {time.perf_counter() - t:.1f} s")
        slow = open_rooms(base, game_id, 1, slow_seats) if a.slow_room and not a.url else []
        if slow:
            print(f"and one room of {slow_seats} seats whose every move costs {a.slow_room} ms more")
        before = {}

        def on_start():
            before.update(cpu=_cpu(proc), own=time.process_time(), queued=_queued(proc), whole=time.perf_counter())
        # the seats' client collects no cycles while it measures: its own pauses (up to 140 ms
        # at 1,000 seats) were taken for the server's latency (it makes no cycles: it grows
        # by its tally alone)
        gc.collect()
        gc.disable()
        try:
            tally, wall, end = asyncio.run(play(base, rooms + slow, a.seconds, a.seed, a.think, on_start))
        finally:
            gc.enable()
        whole = time.perf_counter() - before["whole"]  # the run with its goodbyes
        cpu = _cpu(proc) - before["cpu"] if proc else float("nan")
        queued = _queued(proc) - before["queued"]
        own = time.process_time() - before["own"]
        lat = latencies(rooms, [m for m in tally.moves if m.room not in {r.code for r in slow}], end - 1.0)
        accepted = sum(not m.refused for m in tally.moves)
        print(f"seats: {a.rooms * a.seats}, all with their tables in {tally.seating:.1f} s"
              + ("" if tally.seated >= a.rooms * a.seats + len(slow and slow[0].seats) else f" (only {tally.seated} after {SEAT_SECONDS} s)"))
        print(f"think {a.think:g} s; {wall:.1f} s; moves accepted: {accepted} ({accepted / wall:.0f}/s); "
              f"refused as stale: {tally.refused}; games finished: {sum(r.games for r in rooms)}")
        print(f"move -> every seat of its room has its view: p50 {percentile(lat, 0.5) * 1000:.1f} ms, "
              f"p99 {percentile(lat, 0.99) * 1000:.1f} ms, max {max(lat, default=float('nan')) * 1000:.1f} ms "
              f"({len(lat)} moves); goal p99 < 100 ms: {'met' if percentile(lat, 0.99) < 0.1 else 'MISSED'}")
        print(f"frames received: {tally.frames} ({tally.bytes / max(1, tally.frames) / 1024:.1f} KiB mean); "
              f"server CPU: {cpu:.1f} s ({cpu / whole * 100:.0f}% of one core, "
              f"{cpu / max(1, accepted) * 1000:.1f} ms a move with its {a.seats} views); "
              f"the seats' own CPU: {own:.1f} s")
        print(f"in {whole:.1f} s the server ran {cpu:.1f} s and its event loop waited {queued:.1f} s for a CPU "
              f"held by other processes ({queued / whole * 100:.0f}%; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        if slow:
            codes = {r.code for r in slow}
            print(f"the slow room: {sum(not m.refused for m in tally.moves if m.room in codes)} moves accepted")
        if tally.errors:
            print(f"errors: {len(tally.errors)}; first: {tally.errors[0]}")
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGINT)  # uvicorn stops cleanly, and cProfile writes its file
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        if cluster is not None:
            cluster.__exit__(None, None, None)
        shutil.rmtree(tmp, ignore_errors=True)
    if a.profile and os.path.exists(a.profile):
        stats = pstats.Stats(a.profile)
        stats.sort_stats("tottime").print_stats(25)
    print(yardstick())


def _queued(proc) -> float:
    """Seconds the server's event loop (its main thread) was ready to run but waited for a CPU
    (Linux schedstat): on a shared machine, time no change to the server can take away."""
    if proc is None:
        return float("nan")
    try:
        with open(f"/proc/{proc.pid}/task/{proc.pid}/schedstat", encoding="ascii") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def _cpu(proc) -> float:
    """CPU seconds the server has used so far, its processes and their workers together
    (Linux /proc; NaN elsewhere)."""
    if proc is None:
        return float("nan")
    total, todo, seen = 0.0, [proc.pid], 0
    while todo and seen < 1000:
        pid = todo.pop()
        seen += 1
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in os.listdir(f"/proc/{pid}/task"):  # (a child forked by a thread is that thread's)
                with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                    todo += [int(p) for p in fh.read().split()]
        except (OSError, IndexError, ValueError):
            if pid == proc.pid:
                return float("nan")
    return total


if __name__ == "__main__":
    main()
