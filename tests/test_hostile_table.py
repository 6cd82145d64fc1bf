"""Hostile input to the online table (docs/table.md): every frame a socket can send, every
body the room API can be posted, and `rulepress serve`'s arguments. Each is refused with one
line to that client alone; the room, the server and the other seats go on."""
from __future__ import annotations

import json
import os

import pytest
from starlette.websockets import WebSocketDisconnect
from table_client import Client, app_on, close_all, hello, night_city, room_of_two

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


def _token_of(client, code, seat):
    return TOKENS[(code, seat)]


TOKENS: dict = {}


@pytest.fixture
def table(tmp_path):
    """A started Night City game of two: (client, code, host's socket, other's socket)."""
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        code, host, other = room_of_two(client)
        TOKENS[(code, "p1")], TOKENS[(code, "p2")] = host["token"], other["token"]
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
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
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


def test_a_card_picture_is_opened_only_by_a_key_the_room_was_given(tmp_path):
    """/faces/CODE/LANG/KEY.png: any other path is a 404, never an error of the server nor a file
    outside the faces' folder (rulepress/table/faces.py; tests/test_table_faces.py plays a game)."""
    from rulepress.table.faces import Faces
    g = night_city()
    faces = Faces({g.id: g}, {}, str(tmp_path / "faces"))
    os.makedirs(os.path.join(faces.folder(g), "ru"))
    for name in ("done", "ru/falco.png", "secret.png"):
        with open(os.path.join(faces.folder(g), name), "w") as fh:
            fh.write(name)
    with Client(app_on(tmp_path / "t.sqlite3", faces=faces)) as client:
        code, _host, _other = room_of_two(client)
        for path in ("ru/falco.png", "ru/..%2Fsecret.png", "ru/%2e%2e%2fsecret.png", "..%2Fru/falco.png", "ru/" + "a" * 5000 + ".png",
                     "ru/%00.png", "ru/" + faces.key(code, "falco") + "x.png", "ru/" + faces.key("OTHER", "falco") + ".png",
                     "xx/" + faces.key(code, "falco") + ".png", "ru/" + faces.key(code, "../secret") + ".png"):
            r = client.get(f"/faces/{code}/{path}")
            assert r.status_code == 404, (path[:60], r.status_code)
        assert client.get(f"/faces/{code}/ru/{faces.key(code, 'falco')}.png").content == b"ru/falco.png"
        close_all()


def test_every_malformed_room_request_is_a_400(tmp_path):
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
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
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
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
    (["--faces", "/proc/nope/x"], "--faces"), (["--faces", ""], "--faces"),
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


# ---- strangers at the table (docs/table.md, "Limits"): each disruption, replayed ----------

@pytest.fixture
def addresses(monkeypatch):
    """Requests say which address they come from in a header of the test's own (the test
    client has one address for everything)."""
    from rulepress.table import app as table_app
    monkeypatch.setattr(table_app, "_address", lambda r: r.headers.get("x-from", "home"))
    monkeypatch.setattr(limits, "MESSAGES_PER_SECOND", 100_000)


def watcher(client, code, address):
    ws = client.websocket_connect(f"/ws/{code}", headers={"x-from": address}).__enter__()
    from table_client import OPEN
    OPEN.append(ws)
    ws.send_text(json.dumps({"type": "hello", "watch": True}))
    return ws


def test_the_host_gets_back_into_a_room_full_of_strangers_sockets(addresses, table):
    client, code, a, b = table
    kept = []
    for n in range(limits.SPECTATORS_PER_ROOM + 8):  # strangers from many addresses, until refused
        ws = watcher(client, code, f"stranger-{n // limits.SPECTATORS_PER_ADDRESS}")
        m = json.loads(ws.receive_text())
        if m["type"] == "error":
            assert "spectators" in m["message"]
            break
        kept.append(ws)
    assert len(kept) == limits.SPECTATORS_PER_ROOM
    room = client.app.state.tables.rooms[code]
    host_token = next(s for s in room.sockets if s.seat == "p1").token_hash
    tabs = [a]
    for _ in range(limits.SOCKETS_PER_SEAT + 1):  # the host opens tab after tab: each gets in
        tabs.append(hello(client, code, _token_of(client, code, "p1")))
        assert tabs[-1].frames[-1]["you"] == "p1"
    assert sum(c.seat == "p1" for c in room.sockets) == limits.SOCKETS_PER_SEAT
    assert all(c.token_hash == host_token for c in room.sockets if c.seat == "p1")
    t = tabs[-1].frames[-1]
    seat = t["deciding"][0]
    mover, mine = (tabs[-1], t) if seat == "p1" else (b, b.frames[-1])
    mover.send({"type": "move", "version": mine["version"], "choice": mine["options"][0]["id"]})
    assert mover.table()["version"] > mine["version"]


def test_one_address_watches_a_room_with_a_few_sockets_only(addresses, table):
    client, code, _a, _b = table
    answers = []
    for _ in range(limits.SPECTATORS_PER_ADDRESS + 1):
        answers.append(json.loads(watcher(client, code, "one").receive_text())["type"])
    # (a socket let in hears the game's names first, then the table)
    assert answers == ["names"] * limits.SPECTATORS_PER_ADDRESS + ["error"]
    assert json.loads(watcher(client, code, "another").receive_text())["type"] == "names"


def test_spectators_coming_and_going_send_the_seats_nothing(addresses, table):
    client, code, a, _b = table
    before = len(a.frames)
    for n in range(30):
        ws = watcher(client, code, f"churn-{n}")
        json.loads(ws.receive_text())
        ws.close()
    a.send({"type": "ping"})
    a.until("pong")
    assert [f["type"] for f in a.frames[before:]] == ["pong"]


def test_a_room_and_the_others_survive_a_thousand_creations_by_one_client(tmp_path, addresses):
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        code, _host, _other = room_of_two(client)
        body = {"game": "night-city", "players": 2, "name": "Mallory"}
        made = refused = 0
        for _ in range(1000):
            r = client.post("/api/rooms", json=body, headers={"x-from": "mallory"})
            made += r.status_code == 200
            refused += r.status_code == 429
            assert r.status_code in (200, 429) and "error" in r.json() or r.status_code == 200
        assert made <= limits.ROOMS_PER_ADDRESS and refused == 1000 - made
        r = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "Ann"}, headers={"x-from": "ann"})
        assert r.status_code == 200
        assert client.get(f"/r/{code}").status_code == 200


def test_guessing_codes_is_slowed_to_a_few_a_minute(tmp_path, addresses):
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        code, _host, _other = room_of_two(client)
        statuses = [client.get(f"/r/{limits.new_code()}", headers={"x-from": "guesser"}).status_code
                    for _ in range(limits.MISSES[0] + 5)]
        assert statuses == [404] * limits.MISSES[0] + [429] * 5
        # the right code too, from that address, for now; anyone else comes in
        assert client.get(f"/r/{code}", headers={"x-from": "guesser"}).status_code == 429
        assert client.post(f"/api/rooms/{code}/join", json={"name": "x"}, headers={"x-from": "guesser"}).status_code == 429
        assert client.get(f"/r/{code}", headers={"x-from": "friend"}).status_code == 200
        with client.websocket_connect(f"/ws/{code}", headers={"x-from": "guesser"}) as ws:
            assert "try again" in json.loads(ws.receive_text())["message"]
        # and a token guessed at a known code counts the same
        for n in range(limits.MISSES[0] + 1):
            with client.websocket_connect(f"/ws/{code}", headers={"x-from": "tokens"}) as ws:
                ws.send_text(json.dumps({"type": "hello", "token": f"guess-{n}"}))
                last = json.loads(ws.receive_text())["message"]
        assert "try again" in last
    years = len(limits.CODE_ALPHABET) ** limits.CODE_LENGTH / limits.ROOMS_OPEN / (limits.MISSES[1] * 60 * 24 * 365)
    assert years > 100


def test_another_sites_page_can_neither_open_a_socket_nor_make_or_join_a_room(tmp_path):
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        code, host, _other = room_of_two(client)
        evil = {"origin": "https://evil.example"}
        body = {"game": "night-city", "players": 2, "name": "x"}
        assert client.post("/api/rooms", json=body, headers=evil).status_code == 403
        assert client.post(f"/api/rooms/{code}/join", json={"name": "x"}, headers=evil).status_code == 403
        with pytest.raises(WebSocketDisconnect) as closed:
            with client.websocket_connect(f"/ws/{code}", headers=evil) as ws:
                ws.receive_text()
        assert closed.value.code == 4403
        assert client.post("/api/rooms", json=body, headers={"origin": "http://testserver"}).status_code == 200
        with client.websocket_connect(f"/ws/{code}", headers={"origin": "http://testserver"}) as ws:
            ws.send_text(json.dumps({"type": "hello", "token": host["token"]}))
            assert json.loads(ws.receive_text())["type"] == "names"  # (then its table: it is let in)


@pytest.mark.parametrize("options, says", [
    ({"p1_gang": "junk"}, "p1_gang"), ({"p2_gang": "voodoo"}, "p2_gang"), ({"p1_gang": "maelstrom", "p2_gang": "x"}, "p2_gang"),
])
def test_options_the_game_cannot_set_up_are_refused_when_the_room_is_made(tmp_path, caplog, options, says):
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        r = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "x", "options": options})
        assert r.status_code == 400 and says in r.json()["error"] and "Traceback" not in r.text
        ok = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "x",
                                             "options": {"p1_gang": "maelstrom"}})
        assert ok.status_code == 200
    assert "GameFault" not in caplog.text


def test_a_seat_flooding_signals_is_slowed_and_the_other_seat_stays(addresses, table, caplog):
    client, code, a, b = table
    for n in range(200):
        a.send({"type": "signal", "to": "p2", "data": {"kind": "ice", "n": n}})
    a.send({"type": "ping"})
    for _ in range(5):  # (up to 250 frames: the errors of the signals dropped come first)
        try:
            a.until("pong")
            break
        except AssertionError:
            continue
    dropped = [f for f in a.frames if f["type"] == "error" and "signals a second" in f["message"]]
    assert dropped
    b.send({"type": "ping"})
    b.until("pong")
    got = [f for f in b.frames if f["type"] == "signal"]
    assert 0 < len(got) <= 200 - len(dropped)
    assert "CancelledError" not in caplog.text and "Traceback" not in caplog.text


def test_a_freed_seat_hangs_up_its_calls(tmp_path):
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        code, host, other = room_of_two(client)
        a = hello(client, code, host["token"])
        b = hello(client, code, other["token"])
        a.send({"type": "host", "action": "free", "seat": "p2"})
        freed = b.until("peers")
        while not freed.get("freed"):
            freed = b.until("peers")
        assert freed["seats"] == []
        with pytest.raises(WebSocketDisconnect) as closed:
            b.until("nothing")
        assert closed.value.code == 4403
        assert a.until("peers")["seats"] == ["p1"]
        close_all()
