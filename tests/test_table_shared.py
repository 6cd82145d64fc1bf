"""Several table servers sharing rooms through PostgreSQL (docs/table.md, "Several processes"):
a room played from two processes at once, frames fanned out to whichever holds each socket,
races between them settled by the store, and a process killed with SIGKILL whose seats
reconnect to another and find every move they saw. Each test runs against a PostgreSQL
cluster the suite starts itself (tests/pg_cluster.py)."""
from __future__ import annotations

import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from pg_cluster import Cluster, missing
from table_client import Client, NIGHT_CITY, app_on, close_all, hello, room_of_two

from rulepress.table import limits

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")
_DBS = itertools.count()
SERVER_RATE = limits.MESSAGES_PER_SECOND  # a `rulepress serve` process's, whatever a test sets here


@pytest.fixture(scope="module")
def cluster():
    with Cluster() as url:
        yield url


@pytest.fixture
def pg(cluster):
    """A fresh database of the cluster for one test: its URL."""
    import psycopg
    name = f"t{os.getpid()}_{next(_DBS)}"
    with psycopg.connect(cluster, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return cluster.replace("/postgres?", f"/{name}?")


@pytest.fixture(autouse=True)
def _closed_sockets(monkeypatch):
    monkeypatch.setattr(limits, "MESSAGES_PER_SECOND", 100_000)
    yield
    close_all()


def until(sock, test, kind="table", tries=200):
    """The first frame of `kind` that passes `test` (frames before it kept in sock.frames)."""
    for _ in range(tries):
        m = sock.until(kind)
        if test(m):
            return m
    raise AssertionError(f"no such {kind} frame in {tries}")


def test_a_room_is_played_from_two_processes_and_each_seat_sees_every_move(pg):
    """p1's socket is on one server, p2's on another: each move reaches the other seat
    through the store, the same game on both; both seats picking a secret at once from
    different processes are never stale."""
    with Client(app_on(pg)) as one, Client(app_on(pg)) as two:
        code, host, other = room_of_two(one)
        a = hello(one, code, host["token"])
        b = hello(two, code, other["token"])  # (the second process reads the room from the store)
        a.send({"type": "host", "action": "start"})
        last = {"p1": until(a, lambda t: t["status"] == "playing"), "p2": until(b, lambda t: t["status"] == "playing")}
        socks = {"p1": a, "p2": b}
        pick, both_secret = random.Random(5), 0
        for _ in range(120):
            v = last["p1"]["version"]
            assert last["p2"]["version"] == v and last["p1"]["deciding"] == last["p2"]["deciding"]
            if last["p1"]["status"] != "playing":
                break
            deciding = last["p1"]["deciding"]
            if sorted(deciding) == ["p1", "p2"]:  # a secret pick by both, sent at once from both processes
                both_secret += 1
                for seat in deciding:
                    socks[seat].send({"type": "move", "version": v, "choice": pick.choice(last[seat]["options"])["id"]})
                target = v + 2
            else:
                seat = deciding[0]
                socks[seat].send({"type": "move", "version": v, "choice": pick.choice(last[seat]["options"])["id"]})
                target = v + 1
            last = {s: until(socks[s], lambda t, target=target: t["version"] >= target) for s in socks}
        assert not [f for s in socks.values() for f in s.frames if f["type"] in ("refused", "error")]
        assert last["p1"]["version"] > 60
        # the store holds one game, which both processes played: a third process reads the same tables
        with Client(app_on(pg)) as three:
            for seat, token in (("p1", host["token"]), ("p2", other["token"])):
                t = hello(three, code, token).frames[-1]
                assert (t["version"], t["view"], t["options"]) == (last[seat]["version"], last[seat]["view"],
                                                                   last[seat]["options"])
            close_all()


def test_a_move_made_elsewhere_is_caught_up_by_reading_its_moves_alone(pg):
    """The process holding the other seat hears of a move as a move (its note says so): it
    reads the new moves only, not the room's row and seats again, and its seat sees the
    move; a change that is not a move is read whole."""
    with Client(app_on(pg)) as one, Client(app_on(pg)) as two:
        code, host, other = room_of_two(one)
        a = hello(one, code, host["token"])
        b = hello(two, code, other["token"])
        a.send({"type": "host", "action": "start"})
        t = until(b, lambda t: t["status"] == "playing")
        store = two.app.state.tables.store
        reads = []
        for name in ("room", "seats", "moves"):
            def counted(*args, _name=name, _plain=getattr(store, name)):
                reads.append(_name)
                return _plain(*args)
            setattr(store, name, counted)
        mover = {"p1": a, "p2": b}
        for _ in range(6):
            seat = t["deciding"][0]
            mine = t if seat == "p2" else until(a, lambda x: x["version"] == t["version"])
            reads.clear()
            mover[seat].send({"type": "move", "version": t["version"], "choice": mine["options"][0]["id"]})
            t = until(b, lambda x, v=t["version"]: x["version"] > v)
            if seat == "p1":  # made in the other process: p2's learns of it by its moves alone
                assert reads == ["moves"], reads
        a.send({"type": "host", "action": "pause"})
        reads.clear()
        assert until(b, lambda x: x["status"] == "paused")
        assert "room" in reads
        close_all()


def test_a_write_undone_by_a_deadlock_with_another_process_is_written_again(pg):
    """Two processes' batches may take the same rooms in opposite orders: the database then
    undoes one of them whole (a deadlock). The store writes it again, and the change (a
    move, a seat's "last seen") is made, not refused to its player."""
    import asyncio
    import threading
    import psycopg
    from rulepress.table.pgstore import PgStore
    from rulepress.table.store import RoomRow, SeatRow

    store = PgStore(pg)
    try:
        async def run():
            for code in ("DEADAAAA", "DEADBBBB"):
                await store.create_room(RoomRow(code, "night-city", "h", 2, {}, "seed", "lobby", 1, 0, 1.0, 1.0),
                                        SeatRow("p1", "Ann", None, False, True))
            with psycopg.connect(pg, autocommit=True) as other:
                other.execute("BEGIN")
                other.execute("UPDATE rooms SET last_seen = 5 WHERE code = 'DEADBBBB'")  # (B held by the other)

                def both(db):  # A, then B: waits for the other, which then asks for A
                    db.execute("UPDATE rooms SET last_seen = 7 WHERE code = ?", ("DEADAAAA",))
                    db.execute("UPDATE rooms SET last_seen = 7 WHERE code = ?", ("DEADBBBB",))

                def crosses():
                    time.sleep(0.3)
                    other.execute("UPDATE rooms SET last_seen = 5 WHERE code = 'DEADAAAA'")
                    other.execute("COMMIT")
                crossing = threading.Thread(target=crosses)
                crossing.start()
                try:
                    await store._write(both)
                finally:
                    crossing.join(30)
        asyncio.run(run())
        assert store.room("DEADAAAA").last_seen == 7 and store.room("DEADBBBB").last_seen == 7
    finally:
        store.close()


def test_a_store_that_listens_closes_at_once_not_at_its_listeners_next_look(pg, monkeypatch):
    """A server stopping (or a test's store) closes its store at once: the listener is woken,
    not waited for until its next look. Two stores on one database: closing one does not
    wake the other's listener with a change that was not made."""
    import threading
    from rulepress.table import pgstore

    monkeypatch.setattr(pgstore, "LISTEN_POLL", 600.0)
    heard = {"a": [], "b": []}
    a, b = pgstore.PgStore(pg), pgstore.PgStore(pg)
    a.listen(heard["a"].append)
    b.listen(heard["b"].append)
    time.sleep(0.5)  # (both listening)
    closing = threading.Thread(target=a.close, daemon=True)
    closing.start()
    closing.join(60)
    try:
        assert not closing.is_alive(), "close waited for the listener's next look"
        assert not a._listener.is_alive()
        assert heard == {"a": [], "b": []}
    finally:
        b.close()


def test_a_race_between_processes_is_settled_by_the_store(pg):
    """Two seats join the last free seats through two processes at once, and two hosts' actions
    cross: the store takes one change at each version, and the loser sees the table as it is."""
    with Client(app_on(pg)) as one, Client(app_on(pg)) as two:
        r = one.post("/api/rooms", json={"game": "night-city", "players": 3, "name": "Ann"}).json()
        code = r["code"]
        j1 = two.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
        j2 = one.post(f"/api/rooms/{code}/join", json={"name": "Cat"}).json()  # (one is behind: it catches up first)
        assert {j1["seat"], j2["seat"]} == {"p2", "p3"}
        assert two.post(f"/api/rooms/{code}/join", json={"name": "Dan"}).status_code == 409
        host = hello(two, code, r["token"])
        host.send({"type": "host", "action": "start"})
        t = until(host, lambda t: t["status"] == "playing")
        seen = hello(one, code, j1["token"]).frames[-1]
        assert seen["version"] == t["version"] and seen["status"] == "playing"
        close_all()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(pg, port, *extra):
    proc = subprocess.Popen([RULEPRESS, "serve", NIGHT_CITY, "--port", str(port), "--db", pg, *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the server did not answer in 60 s")


def _post(port, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


class Seat:
    """A seat's socket to a real server (websockets' client), frames kept."""

    def __init__(self, port, code, token):
        from websockets.sync.client import connect
        # (the timeouts only keep a broken server from hanging the test: a loaded machine, three
        # test workers on two cores, has held a frame back more than 10 s)
        self.ws = connect(f"ws://127.0.0.1:{port}/ws/{code}", open_timeout=30, close_timeout=2).__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.last = self.next("table")

    def next(self, kind="table", test=lambda m: True):
        for _ in range(500):
            m = json.loads(self.ws.recv(timeout=30))
            if m["type"] in ("error", "refused"):
                raise AssertionError(m)
            if m["type"] == kind and test(m):
                if kind == "table":
                    self.last = m
                return m
        raise AssertionError(f"no {kind}")

    def move(self, rng):
        # a real server closes a socket sending more than its SERVER_RATE messages a second (the
        # limit raised for the tests does not reach another process): a seat keeps to it
        now = time.monotonic()
        self.sent = [t for t in getattr(self, "sent", []) if now - t < 1.1]
        if len(self.sent) >= SERVER_RATE - 1:
            time.sleep(1.1 - (now - self.sent[0]))
        self.sent.append(time.monotonic())
        self.ws.send(json.dumps({"type": "move", "version": self.last["version"],
                                 "choice": rng.choice(self.last["options"])["id"]}))


def _play(seats, rng, moves):
    """`moves` moves, each by a seat deciding alone (both seats hold the new table after it)."""
    for _ in range(moves):
        t = seats["p1"].last
        if t["status"] != "playing":
            return
        for seat in t["deciding"]:  # (a secret pick by both: sent at once)
            seats[seat].move(rng)
        target = t["version"] + len(t["deciding"])
        for s in seats.values():
            s.next(test=lambda m, target=target: m["version"] >= target)


def test_a_process_killed_loses_no_move_and_its_seats_play_on_at_another(pg):
    one, two = _free_port(), _free_port()
    a_proc, b_proc = _serve(pg, one, "--game-workers", "1"), _serve(pg, two)  # (games in a worker, and on threads)
    try:
        made = _post(one, "/api/rooms", {"game": "night-city", "players": 2, "name": "Ann"})
        code = made["code"]
        joined = _post(two, f"/api/rooms/{code}/join", {"name": "Bob"})
        seats = {"p1": Seat(one, code, made["token"]), "p2": Seat(two, code, joined["token"])}
        seats["p1"].ws.send(json.dumps({"type": "host", "action": "start"}))
        for s in seats.values():
            s.next(test=lambda m: m["status"] == "playing")
        rng = random.Random(8)
        _play(seats, rng, 30)
        seen = seats["p1"].last
        os.killpg(a_proc.pid, signal.SIGKILL)  # p1's server, mid-game
        a_proc.wait(10)
        back = Seat(two, code, made["token"])  # p1 reconnects to the other
        assert (back.last["version"], back.last["view"], back.last["log"]) == (seen["version"], seen["view"], seen["log"])
        seats["p1"] = back
        _play(seats, rng, 10)
        assert seats["p1"].last["version"] > seen["version"]
        for s in seats.values():
            s.ws.close()
    finally:
        for p in (a_proc, b_proc):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGINT)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)


def test_serve_with_two_processes_replaces_one_killed(pg):
    """`--processes 2`: two processes on one port; one killed, the port still serves the room
    (its seat reconnects to the other), and a new process takes the dead one's place. Each
    plays its games in a worker process of its own, which ends with it."""
    port = _free_port()
    proc = _serve(pg, port, "--processes", "2", "--game-workers", "1")  # (and their games in worker processes)
    try:
        children = _children(proc.pid)
        assert len(children) == 2, children
        made = _post(port, "/api/rooms", {"game": "night-city", "players": 2, "name": "Ann"})
        _post(port, f"/api/rooms/{made['code']}/join", {"name": "Bob"})
        os.kill(children[0], signal.SIGKILL)
        seat = Seat(port, made["code"], made["token"])
        assert seat.last["seats"][1]["name"] == "Bob"
        seat.ws.close()
        for _ in range(100):
            now = _children(proc.pid)
            if len(now) == 2 and children[0] not in now:
                break
            time.sleep(0.1)
        assert len(now) == 2 and children[0] not in now, (children, now)
    finally:
        _stop(proc)
    err = proc.stderr.read()
    assert "Traceback" not in err, err


def test_two_processes_count_an_address_s_misses_together(pg):
    """Behind `--processes 2` an address guessing room codes is stopped after as many misses
    as behind one (limits.MISSES), whichever process each connection reaches."""
    port = _free_port()
    proc = _serve(pg, port, "--processes", "2")
    try:
        answers = []
        for _ in range(3 * limits.MISSES[0]):  # a new connection each (urllib keeps none)
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/r/ZZZZZZZZ", timeout=10).read()
                answers.append(200)
            except urllib.error.HTTPError as exc:
                answers.append(exc.code)
        assert answers.count(404) <= limits.MISSES[0] + 1, answers  # (+1: a token may come back meanwhile)
        assert answers[-limits.MISSES[0]:] == [429] * limits.MISSES[0], answers
    finally:
        _stop(proc)


def _stop(proc) -> None:
    """Ctrl-C to a `serve`: it ends by itself, as a person stopping it sees (else it is killed, and the test fails)."""
    proc.send_signal(signal.SIGINT)
    try:
        assert proc.wait(30) in (0, 130)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise


def _children(pid) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
        return [int(p) for p in fh.read().split()]
