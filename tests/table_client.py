"""Helpers of the online table's tests: an app on a store in a temporary folder, and sockets
that keep every frame they were sent (for the leak scan)."""
from __future__ import annotations

import json
import os

from starlette.testclient import TestClient

from rulepress.leakscan import scan_state
from rulepress.runtime.tables import Game
from rulepress.table.app import create_app

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NIGHT_CITY = os.path.join(ROOT, "build", "night-city", "game.json")
_GAMES = {}


def night_city() -> Game:
    if "nc" not in _GAMES:
        _GAMES["nc"] = Game.load(NIGHT_CITY)
    return _GAMES["nc"]


def app_on(db, **kw):
    g = night_city()
    return create_app({g.id: g}, str(db), **kw)


class Socket:
    """A test client's WebSocket that remembers what it was sent."""

    def __init__(self, ws, seat=None):
        self.ws, self.seat, self.frames = ws, seat, []

    def send(self, message) -> None:
        self.ws.send_text(message if isinstance(message, str) else json.dumps(message))

    def until(self, kind: str) -> dict:
        """The next message of this type (messages of other types before it are kept too)."""
        for _ in range(50):
            m = json.loads(self.ws.receive_text())
            self.frames.append(m)
            if m["type"] == kind:
                return m
        raise AssertionError(f"no {kind} message in 50")

    def table(self) -> dict:
        return self.until("table")


OPEN: list = []  # sockets a test opened, closed after it (an open one holds the test client's exit)


class Client(TestClient):
    """A TestClient that closes the sockets a test opened before it stops the app: one left
    open (an assertion failed before the test closed them) would hold its exit for good."""

    def __exit__(self, *exc):
        close_all()
        return super().__exit__(*exc)


def close_all() -> None:
    while OPEN:
        try:
            OPEN.pop().__exit__(None, None, None)  # (close alone leaves the session's task waiting)
        except Exception:
            pass


def hello(client: TestClient, code: str, token=None, watch=False) -> Socket:
    ws = client.websocket_connect(f"/ws/{code}").__enter__()
    OPEN.append(ws)
    s = Socket(ws)
    s.send({"type": "hello", "watch": True} if watch else {"type": "hello", "token": token})
    s.seat = s.table()["you"]
    return s


def room_of_two(client: TestClient, name="Ann", other="Bob"):
    """A Night City room with two people: (code, host's join answer, second's join answer)."""
    r = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": name})
    assert r.status_code == 200, r.text
    host = r.json()
    j = client.post(f"/api/rooms/{host['code']}/join", json={"name": other})
    assert j.status_code == 200, j.text
    return host["code"], host, j.json()


def state_of(client: TestClient, room):
    """The room's game state, read on the server's event loop as the server reads it. A room
    whose moves ran long is moved to a worker process of its own (a loaded machine makes any
    room one), which answers on a pipe the loop reads: read from the test's thread, the
    answer could be taken by the loop and the read wait out its time."""
    return client.portal.call(lambda: room.st)


def leak_in(game, st, frames: dict):
    """rulepress/leakscan over the frames each seat (None: a spectator) was last sent: the
    view, its options, seats and log, everything of the frame."""
    def as_view(_game, _st, seat):
        f = frames[seat]
        v = dict(f["view"])
        v["log"] = f["log"]
        v["the rest"] = {k: f[k] for k in ("options", "seats", "deciding", "result", "prompt", "faces") if k in f}
        return v
    return scan_state(game, st, view_fn=as_view)
