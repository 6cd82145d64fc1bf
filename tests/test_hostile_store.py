"""The table's store read back as untrusted (rulepress/table/store.py): an SQLite file or a
PostgreSQL database that someone else wrote to. A row of a shape the server never writes
reads as no room (404, close 4404), never a traceback or a game played from it; a
notification on the rooms' channel that is not CODE:VERSION is ignored; a wrong `--db` is
one line."""
from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys

import pytest
from pg_cluster import Cluster, missing
from starlette.websockets import WebSocketDisconnect
from table_client import Client, NIGHT_CITY, app_on, close_all, hello, room_of_two

from rulepress.table import limits

RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")
_DBS = itertools.count()

# (what is changed, with ? for the room's code)
TAMPERED = [
    "UPDATE rooms SET options = 'not json' WHERE code = ?",
    "UPDATE rooms SET options = '[1, 2]' WHERE code = ?",
    "UPDATE rooms SET options = '{\"a\": NaN}' WHERE code = ?",
    "UPDATE rooms SET status = 'exploded' WHERE code = ?",
    "UPDATE rooms SET version = -5 WHERE code = ?",
    "UPDATE rooms SET players = 0 WHERE code = ?",
    "UPDATE rooms SET players = 99 WHERE code = ?",
    "UPDATE rooms SET seed = repeat('s', 500) WHERE code = ?",
    "UPDATE rooms SET game_hash = 'another build' WHERE code = ?",
    "UPDATE seats SET seat = 'zz' WHERE code = ? AND seat = 'p2'",
    "UPDATE seats SET token_hash = 'not a hash' WHERE code = ? AND seat = 'p2'",
    "UPDATE seats SET bot = 7 WHERE code = ? AND seat = 'p2'",
    "UPDATE seats SET name = repeat('n', 5000) WHERE code = ? AND seat = 'p2'",
    "DELETE FROM seats WHERE code = ? AND seat = 'p2'",
    "UPDATE moves SET choice = repeat('c', 5000) WHERE code = ? AND n = 0",
    "UPDATE moves SET choice = 'no such option' WHERE code = ? AND n = 0",
    "UPDATE moves SET seat = 'p9' WHERE code = ? AND n = 0",
    "DELETE FROM moves WHERE code = ? AND n = 1",
]


@pytest.fixture(scope="module")
def cluster():
    if missing():
        pytest.skip(missing())
    with Cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """(the --db of a fresh store, a function that runs SQL on it as someone else would)"""
    if request.param == "sqlite":
        db = str(tmp_path / "t.sqlite3")

        def run(sql, *args):
            with sqlite3.connect(db) as conn:
                conn.create_function("repeat", 2, lambda s, n: s * n)
                conn.execute(sql, args)
        return db, run
    import psycopg
    url = request.getfixturevalue("cluster")
    name = f"h{os.getpid()}_{next(_DBS)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    db = url.replace("/postgres?", f"/{name}?")

    def run(sql, *args):
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute(sql.replace("?", "%s"), args)
    return db, run


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(limits, "MESSAGES_PER_SECOND", 100_000)
    yield
    close_all()


def _played(client, moves=4):
    """A started two-seat room with a few moves stored: (code, host's answer)."""
    code, host, other = room_of_two(client)
    a = hello(client, code, host["token"])
    b = hello(client, code, other["token"])
    a.table()
    a.send({"type": "host", "action": "start"})
    last = {"p1": a.table(), "p2": b.table()}
    socks = {"p1": a, "p2": b}
    for _ in range(moves):
        seat = last["p1"]["deciding"][0]
        socks[seat].send({"type": "move", "version": last[seat]["version"], "choice": last[seat]["options"][0]["id"]})
        target = last["p1"]["version"] + 1
        last = {s: _until(socks[s], target) for s in socks}
    close_all()
    return code, host


def _until(sock, version):
    for _ in range(50):
        t = sock.table()
        if t["version"] >= version:
            return t
    raise AssertionError("no table")


@pytest.mark.parametrize("sql", TAMPERED)
def test_a_room_whose_rows_someone_else_wrote_is_not_served(store, sql):
    db, run = store
    with Client(app_on(db)) as client:
        code, host = _played(client)
    try:
        run(sql, code)
    except Exception as exc:  # noqa: BLE001 - a column type that refuses the value: nothing to test there
        pytest.skip(f"the database refuses it: {type(exc).__name__}")
    with Client(app_on(db)) as client:
        assert client.get(f"/r/{code}").status_code == 404
        with client.websocket_connect(f"/ws/{code}") as ws:
            assert "no room" in ws.receive_json()["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404
        assert client.post(f"/api/rooms/{code}/join", json={"name": "Eve"}).status_code == 404
        # the server goes on: a new room is made and joined
        made = room_of_two(client)
        assert made[0] != code


def test_a_room_changed_under_its_sockets_into_rows_never_written_closes_them(cluster):
    """Another process's change arrives as a notification; what it left in the store is
    read as untrusted: the room's sockets are told it is no longer served and closed."""
    import psycopg
    name = f"h{os.getpid()}_{next(_DBS)}"
    with psycopg.connect(cluster, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    db = cluster.replace("/postgres?", f"/{name}?")
    with Client(app_on(db)) as client:
        code, host, _other = room_of_two(client)
        a = hello(client, code, host["token"])
        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("UPDATE rooms SET status = 'exploded', version = version + 1 WHERE code = %s", (code,))
            conn.execute("SELECT pg_notify('rulepress_rooms', %s)", (f"{code}:99",))
        assert a.until("error")["message"] == "this room is no longer served"
        with pytest.raises(WebSocketDisconnect) as closed:
            a.until("table")
        assert closed.value.code == 4404
        close_all()


NOTES = ["", "garbage", ":", "ABCDEFGH", "ABCDEFGH:", "ABCDEFGH:-1", "ABCDEFGH:²", "ABCDEFGH:1e9",
         "ABCDEFGH:" + "9" * 30, "x" * 7000, "abcdefgh:3", "ABCDEFGH:3:4", "\u202eABCDEFGH:3", "ABCDEFGH:٣"]


def test_notifications_that_are_not_code_and_version_are_ignored(cluster):
    import psycopg
    name = f"h{os.getpid()}_{next(_DBS)}"
    with psycopg.connect(cluster, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    db = cluster.replace("/postgres?", f"/{name}?")
    with Client(app_on(db)) as one, Client(app_on(db)) as two:
        code, host, other = room_of_two(one)
        a = hello(one, code, host["token"])
        b = hello(two, code, other["token"])
        with psycopg.connect(db, autocommit=True) as conn:
            for note in NOTES + [n.replace("ABCDEFGH", code) for n in NOTES]:
                conn.execute("SELECT pg_notify('rulepress_rooms', %s)", (note,))
        # the room goes on between the two processes
        a.send({"type": "host", "action": "start"})
        for s in (a, b):
            for _ in range(20):
                if s.table()["status"] == "playing":
                    break
            else:
                raise AssertionError("the start did not reach both processes")
        assert not [f for s in (a, b) for f in s.frames if f["type"] == "error"]
        close_all()


def test_serve_says_a_wrong_store_in_one_line(tmp_path):
    run = [RULEPRESS, "serve", NIGHT_CITY, "--port", "0"]
    r = subprocess.run([*run, "--db", str(tmp_path / "t.sqlite3"), "--processes", "2"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "PostgreSQL" in r.stderr and "Traceback" not in r.stderr
    if missing() is None:
        r = subprocess.run([*run, "--db", f"postgresql:///nowhere?host={tmp_path}&connect_timeout=3"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
