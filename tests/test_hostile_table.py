"""Hostile input to the online table (docs/table.md): every frame a socket can send, every
body the room API can be posted, and `rulepress serve`'s arguments. Each is refused with one
line to that client alone; the room, the server and the other seats go on."""
from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from table_client import app_on, close_all, hello, room_of_two

from rulepress.table import limits

# frames a seat may send in play, each refused with an error and the socket kept open
BAD_FRAMES = [
    "", " ", "nope", "null", "1", '"move"', "[]", "{}", "{", '{"type": null}', '{"type": 3}', '{"type": ["move"]}',
    '{"type": "dance"}', '{"type": "MOVE", "version": 1, "choice": "pass"}', '{"type": "move"}',
    '{"type": "move", "version": 1}', '{"type": "move", "choice": "pass"}',
    '{"type": "move", "version": "1", "choice": "pass"}', '{"type": "move", "version": 1.5, "choice": "pass"}',
    '{"type": "move", "version": true, "choice": "pass"}', '{"type": "move", "version": null, "choice": "pass"}',
    '{"type": "move", "version": 1, "choice": 7}', '{"type": "move", "version": 1, "choice": {"id": "pass"}}',
    '{"type": "move", "version": 1, "choice": "pass", "seat": "p2"}', '{"type": "move", "version": NaN, "choice": "x"}',
    '{"type": "move", "version": Infinity, "choice": "x"}', '{"type": "move", "version": 1e999, "choice": "x"}',
    '{"type": "move", "version": 99999999999999999999999, "choice": "x"}',
    '{"type": "host"}', '{"type": "host", "action": 1}', '{"type": "host", "action": "explode"}',
    '{"type": "host", "action": "free", "seat": 2}', '{"type": "host", "action": "free", "seat": "p9"}',
    '{"type": "host", "action": "free", "seat": "../../etc"}', '{"type": "host", "action": "start"}',
    '{"type": "hello", "token": "x"}', '{"type": "hello", "watch": true}', '{"type": "signal"}',
    '{"type": "signal", "to": "p2"}', '{"type": "signal", "to": "p2", "data": "sdp"}', '{"type": "signal", "to": "p2", "data": []}',
    '{"type": "signal", "to": "p1", "data": {}}', '{"type": "signal", "to": "*", "data": {}}',
    '{"type": "ping", "x": 1}', '{"type": "ping"} {"type": "ping"}', '{"type": "ping", "type": "move"}',
    "[" * 5000 + "]" * 5000, '{"a":' * 2000 + "1" + "}" * 2000, '"\\ud800"', '{"type": "\\u0000"}',
]


@pytest.fixture
def table(tmp_path):
    with TestClient(app_on(tmp_path / "t.sqlite3")) as client:
        code, host, other = room_of_two(client)
        a = hello(client, code, host["token"])
        b = hello(client, code, other["token"])
        a.table()
        a.send({"type": "host", "action": "start"})
        a.table(), b.table()
        yield client, code, a, b
        close_all()


def test_every_malformed_frame_is_an_error_to_its_sender_alone(table):
    client, code, a, b = table
    version = client.app.state.tables.rooms[code].version
    for i, frame in enumerate(BAD_FRAMES):
        if i % 15 == 14:  # (under the flood limit, tested on its own)
            for s in client.app.state.tables.rooms[code].sockets:
                s.rate.times.clear()
        a.send(frame)
        m = a.until("error")
        assert m["message"] and "Traceback" not in m["message"] and len(m["message"]) < 300, frame
    a.send({"type": "ping"})
    assert a.until("pong")
    assert client.app.state.tables.rooms[code].version == version
    b.send({"type": "ping"})
    b.until("pong")
    assert not [f for f in b.frames if f["type"] == "error"]


def test_a_binary_frame_is_refused(table):
    client, code, a, _b = table
    a.ws.send_bytes(b'{"type": "ping"}')
    assert "text" in a.until("error")["message"]
    a.send({"type": "ping"})
    a.until("pong")


@pytest.mark.parametrize("first", [
    '{"type": "ping"}', '{"type": "move", "version": 1, "choice": "pass"}', "garbage", '{"type": "hello"}',
    '{"type": "hello", "token": null}', '{"type": "hello", "token": ""}', '{"type": "hello", "token": "' + "x" * 5000 + '"}',
    '{"type": "hello", "watch": "yes"}', '{"type": "hello", "token": "x", "extra": 1}',
])
def test_a_socket_that_does_not_say_hello_properly_gets_no_table(tmp_path, first):
    with TestClient(app_on(tmp_path / "t.sqlite3")) as client:
        code, host, _other = room_of_two(client)
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_text(first)
            got = []
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(3):
                    got.append(json.loads(ws.receive_text()))
            assert closed.value.code in (1008, 4403)
            assert [m["type"] for m in got] == ["error"] and "Ann" not in json.dumps(got)


BAD_BODIES = [
    b"", b"nope", b"[]", b"null", b'"x"', b"{", b"\xff\xfe", b'{"game": NaN}',
    json.dumps({"game": "night-city", "players": 2}).encode(),  # no name
    json.dumps({"game": "night-city", "players": "2", "name": "x"}).encode(),
    json.dumps({"game": "night-city", "players": True, "name": "x"}).encode(),
    json.dumps({"game": "night-city", "players": 1, "name": "x"}).encode(),
    json.dumps({"game": "night-city", "players": 9, "name": "x"}).encode(),
    json.dumps({"game": "night-city", "players": 2.5, "name": "x"}).encode(),
    json.dumps({"game": "no-such-game", "players": 2, "name": "x"}).encode(),
    json.dumps({"game": ["night-city"], "players": 2, "name": "x"}).encode(),
    json.dumps({"game": "night-city", "players": 2, "name": "x", "options": []}).encode(),
    json.dumps({"game": "night-city", "players": 2, "name": "x", "options": {"nope": 1}}).encode(),
    json.dumps({"game": "night-city", "players": 2, "name": "x", "options": {"p1_gang": 3}}).encode(),
    json.dumps({"game": "night-city", "players": 2, "name": "x", "options": {"p1_gang": "x" * 500}}).encode(),
    json.dumps({"game": "night-city", "players": 2, "name": "x\ny"}).encode().replace(b"\\n", b"\\u0007"),
    json.dumps({"game": "night-city", "players": 2, "name": "x" * 40}).encode(),
]


def test_every_malformed_room_request_is_a_400(tmp_path):
    with TestClient(app_on(tmp_path / "t.sqlite3")) as client:
        for body in BAD_BODIES:
            r = client.post("/api/rooms", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 400, (body[:80], r.status_code, r.text)
            assert set(r.json()) == {"error"} and len(r.json()["error"]) < 200
        code, _host, _other = room_of_two(client)
        for body in (b"", b"[]", b'{"name": 3}', b'{"name": ""}', b'{}'):
            assert client.post(f"/api/rooms/{code}/join", content=body).status_code in (400, 409)
        assert client.post("/api/rooms", content=b"x", headers={"content-length": "99999999"}).status_code == 413
        assert client.app.state.tables.store.count_rooms() == 1


def test_a_name_is_printed_as_text_never_as_markup(tmp_path):
    """A name with markup goes back as the same characters in JSON; the page sets it with
    textContent (table.js never assigns innerHTML)."""
    with TestClient(app_on(tmp_path / "t.sqlite3")) as client:
        r = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "<img src=x onerror=alert(1)>"})
        assert r.status_code == 200
        t = hello(client, r.json()["code"], r.json()["token"]).frames[-1]
        assert t["seats"][0]["name"] == "<img src=x onerror=alert(1)>"
        close_all()
    from rulepress.table.app import STATIC
    import os
    for page in ("table.js", "lobby.js", "i18n.js"):
        with open(os.path.join(STATIC, page), encoding="utf-8") as fh:
            assert "innerHTML" not in fh.read()


@pytest.mark.parametrize("args, says", [
    (["--port", "70000"], "--port"), (["--port", "-1"], "--port"), (["--host", "a b"], "--host"),
    (["--host", "-x"], "--host"), (["--expire-hours", "0"], "--expire-hours"), (["--expire-hours", "nan"], "--expire-hours"),
    (["--db", "/"], "--db"), (["--db", "/proc/nope/x/y.sqlite3"], "--db"), (["no-such-game"], "no game"),
    (["--host", "no-such-host.invalid"], "--host"), (["--host", "8.8.8.8"], "--port"), (["--port", "TAKEN"], "--port"),
])
def test_serve_refuses_bad_arguments_in_one_line(capsys, monkeypatch, tmp_path, args, says):
    import socket
    import sys

    from rulepress.cli import run
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # never the user's own store
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    args = [str(taken.getsockname()[1]) if a == "TAKEN" else a for a in args]
    monkeypatch.setattr(sys, "argv", ["rulepress", "serve", *args])
    with pytest.raises(SystemExit) as ended:
        run()
    err = capsys.readouterr().err
    assert ended.value.code == 2, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("rulepress: ") and says in lines[0], err
    taken.close()


def test_serve_refuses_a_store_that_is_not_sqlite(capsys, monkeypatch, tmp_path):
    import sys

    from rulepress.cli import run
    fake = tmp_path / "tables.sqlite3"
    fake.write_text("not a database")
    monkeypatch.setattr(sys, "argv", ["rulepress", "serve", "--db", str(fake)])
    with pytest.raises(SystemExit) as ended:
        run()
    assert ended.value.code == 2 and "not an SQLite database" in capsys.readouterr().err
    assert fake.read_text() == "not a database"


def test_room_codes_avoid_characters_read_two_ways():
    assert not set("01ILO") & set(limits.CODE_ALPHABET)
    codes = {limits.new_code() for _ in range(200)}
    assert len(codes) == 200 and all(limits.room_code(c.lower()) == c for c in codes)


def test_binary_frames_count_toward_the_flood_limit(table, monkeypatch):
    client, code, a, _b = table
    for _ in range(limits.MESSAGES_PER_SECOND + 5):
        a.ws.send_bytes(b"\x00")
    with pytest.raises(WebSocketDisconnect) as closed:
        a.until("nothing")
    assert closed.value.code == 1008
