"""The online table's server (docs/table.md), through Starlette's test client: rooms, seats,
a whole Night City game between two people with every frame scanned for leaks, the host's
controls, stale and concurrent moves, restarts and expiry."""
from __future__ import annotations

import json
import random
import sqlite3
import time

import pytest
from starlette.websockets import WebSocketDisconnect
from table_client import Client, app_on, close_all, hello, leak_in, night_city, room_of_two, state_of

from rulepress.table import limits


@pytest.fixture(autouse=True)
def _closed_sockets():
    yield
    close_all()


@pytest.fixture
def fast(monkeypatch):
    """Tests that play many moves send them faster than a person: the flood limit is tested on its own."""
    monkeypatch.setattr(limits, "MESSAGES_PER_SECOND", 100_000)


@pytest.fixture
def client(tmp_path):
    with Client(app_on(tmp_path / "tables.sqlite3")) as c:
        yield c
        close_all()


def started(client):
    """A two-person room, both seated and connected, the game started: (code, {seat: Socket})."""
    code, host, other = room_of_two(client)
    a = hello(client, code, host["token"])
    b = hello(client, code, other["token"])
    a.table()  # b's arrival
    a.send({"type": "host", "action": "start"})
    ta, tb = a.table(), b.table()
    assert ta["status"] == tb["status"] == "playing"
    return code, {"p1": a, "p2": b}


def deciding_socket(socks, last):
    seat = next(s for s in last["deciding"] if s in socks)
    return seat, socks[seat]


def test_every_socket_hears_the_games_names_once_and_no_table_carries_them(client, fast):
    """The names the page prints come once a socket, before its table: the same words for a
    seat, another seat and a spectator, before and after moves (so they say nothing of the
    game in play), naming every kind of thing a table shows; a move's tables carry none."""
    code, socks = started(client)
    watcher = hello(client, code, watch=True)
    last = {seat: [f for f in sock.frames if f["type"] == "table"][-1] for seat, sock in socks.items()}
    for _ in range(6):
        seat = last["p1"]["deciding"][0]
        socks[seat].send({"type": "move", "version": last[seat]["version"], "choice": last[seat]["options"][0]["id"]})
        last = {s: sock.table() for s, sock in socks.items()}
    late = hello(client, code, watch=True)  # (after the moves)
    firsts = [next(f for f in sock.frames if f["type"] != "peers") for sock in (*socks.values(), watcher, late)]
    assert all(f["type"] == "names" for f in firsts)
    assert all(f == firsts[0] for f in firsts)
    for sock in (*socks.values(), watcher, late):
        assert [f["type"] for f in sock.frames].count("names") == 1
        tables = [f for f in sock.frames if f["type"] == "table"]
        assert tables and not any("labels" in f for f in tables)
        for t in tables:
            if t["view"]:
                kinds = {thing["type"] for thing in t["view"]["things"].values()}
                assert kinds <= set(firsts[0]["labels"]["things"]) | set(t["view"]["players"])


def test_a_room_is_made_joined_and_played_to_its_end_with_nothing_leaking(client, fast):
    code, host, other = room_of_two(client)
    assert len(code) == limits.CODE_LENGTH and set(code) <= set(limits.CODE_ALPHABET)
    assert host["seat"] == "p1" and other["seat"] == "p2" and host["token"] != other["token"]
    assert client.get(f"/r/{code}").status_code == 200
    a = hello(client, code, host["token"])
    b = hello(client, code, other["token"])
    watcher = hello(client, code, watch=True)
    assert watcher.seat is None and a.seat == "p1" and b.seat == "p2"
    a.table()  # b's arrival (a spectator's is no news to anyone)
    a.send({"type": "host", "action": "start"})
    socks = {"p1": a, "p2": b, None: watcher}
    last = {s: sock.table() for s, sock in socks.items()}
    game, room = night_city(), client.app.state.tables.rooms[code]
    pick = random.Random(7)
    moves = 0
    while last["p1"]["status"] == "playing":
        assert moves < 3000
        assert len({m["version"] for m in last.values()}) == 1  # every socket got the same change
        seat = pick.choice(last["p1"]["deciding"])
        mine = last[seat]
        assert mine["options"], f"{seat} decides but was offered nothing"
        for other_seat in ("p1", "p2"):
            if other_seat not in mine["deciding"]:
                assert last[other_seat]["options"] == []  # only the seat deciding is offered anything
        assert last[None]["options"] == [] and last[None]["view"]["seat"] is None
        socks[seat].send({"type": "move", "version": mine["version"], "choice": pick.choice(mine["options"])["id"]})
        last = {s: sock.table() for s, sock in socks.items()}
        moves += 1
        leak = leak_in(game, state_of(client, room), last)
        assert leak is None, leak.text()
    assert moves > 20
    end = last["p1"]
    assert end["status"] == "finished" and end["result"]["scores"].keys() == {"p1", "p2"}
    assert last[None]["result"] == end["result"]
    # a move for a finished game is refused, and nothing changes
    a.send({"type": "move", "version": end["version"], "choice": "pass"})
    assert a.until("error")["message"] == "the game is over"
    assert client.app.state.tables.rooms[code].version == end["version"]
    # a new game in the same room, the same seats
    b.send({"type": "host", "action": "new"})
    assert b.until("error")["message"] == "only the host can do that"
    a.send({"type": "host", "action": "new"})
    fresh = a.table()
    assert fresh["status"] == "playing" and fresh["version"] > end["version"] and fresh["result"] is None
    assert fresh["view"]["round"] == 1


def test_a_stale_move_is_refused_with_the_fresh_table(client):
    code, socks = started(client)
    last = socks["p1"].frames[-1]
    seat, sock = deciding_socket(socks, last)
    first = sock.frames[-1]
    sock.send({"type": "move", "version": first["version"], "choice": first["options"][0]["id"]})
    now = sock.table()
    assert now["version"] > first["version"]
    sock.send({"type": "move", "version": first["version"], "choice": first["options"][0]["id"]})
    refused = sock.until("refused")
    assert refused["message"] == "the table has already changed"
    fresh = sock.table()
    assert fresh["version"] == now["version"] and fresh["view"] == now["view"]


def test_two_moves_on_one_version_cannot_both_apply(client, fast):
    """One seat at two tabs sends the same move from both at once: one applies, the other is
    refused as stale; the store holds one move."""
    code, host, other = room_of_two(client)
    a = hello(client, code, host["token"])
    a2 = hello(client, code, host["token"])
    b = hello(client, code, other["token"])
    a.table(), a2.table()  # b's arrival (a2 is p1 again: no news)
    a.send({"type": "host", "action": "start"})
    t, t2, tb = a.table(), a2.table(), b.table()
    for _ in range(50):  # until it is p1's decision alone
        if t["deciding"] == ["p1"]:
            break
        mover = b if "p2" in t["deciding"] else a
        mine = tb if mover is b else t
        mover.send({"type": "move", "version": mine["version"], "choice": mine["options"][0]["id"]})
        t, t2, tb = a.table(), a2.table(), b.table()
    assert t["deciding"] == ["p1"] and t2["version"] == t["version"]
    before = len(client.app.state.tables.store.moves(code, 1))
    a.send({"type": "move", "version": t["version"], "choice": t["options"][0]["id"]})
    a2.send({"type": "move", "version": t2["version"], "choice": t2["options"][-1]["id"]})
    kinds = []
    for s in (a, a2):
        for _ in range(4):
            m = json.loads(s.ws.receive_text())
            if m["type"] in ("table", "refused"):
                kinds.append(m["type"])
                if m["type"] == "refused" or s is a:
                    break
    assert kinds.count("refused") == 1, kinds
    assert len(client.app.state.tables.store.moves(code, 1)) == before + 1


def test_a_forged_or_other_rooms_token_opens_nothing(client):
    code, host, _other = room_of_two(client)
    code2, host2, _ = room_of_two(client)
    for token in ("forged-token", host2["token"], host["token"][:-1] + "x", "", 12):
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            frames = []
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(5):
                    frames.append(ws.receive_text())
            assert closed.value.code in (4403, 1008)
            assert all(json.loads(f)["type"] == "error" for f in frames), frames
            assert not any(host["token"] in f or "Ann" in f or "view" in f for f in frames)
    with client.websocket_connect(f"/ws/{code}") as ws:  # the right token still works
        ws.send_text(json.dumps({"type": "hello", "token": host["token"]}))
        assert json.loads(ws.receive_text())["type"] == "names"  # (the game's names come first)
        assert json.loads(ws.receive_text())["you"] == "p1"


def test_an_unknown_room_is_a_404_everywhere(client):
    r = client.get("/r/ZZZZZZ")
    assert r.status_code == 404 and "notfound" in r.text
    assert client.get("/watch/not-a-code").status_code == 404
    assert client.get("/obs/<script>").status_code == 404
    assert client.post("/api/rooms/ZZZZZZ/join", json={"name": "x"}).status_code == 404
    with client.websocket_connect("/ws/ZZZZZZ") as ws:
        assert json.loads(ws.receive_text())["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4404


def test_a_malformed_message_is_an_error_to_its_client_and_the_room_goes_on(client):
    code, socks = started(client)
    a, b = socks["p1"], socks["p2"]
    version = client.app.state.tables.rooms[code].version
    for bad in ("nope", "[]", "{}", '{"type": 3}', '{"type": "dance"}', '{"type": "move"}',
                '{"type": "move", "version": "1", "choice": "x"}', '{"type": "move", "version": true, "choice": "x"}',
                '{"type": "move", "version": 1, "choice": "x", "extra": 1}', '{"type": "ping", "x": NaN}',
                '{"type": "host", "action": "explode"}', '{"type": "hello", "token": "x"}',
                '{"type": "signal", "to": "p2", "data": "not an object"}', "[" * 5000 + "]" * 5000):
        a.send(bad)
        assert a.until("error")["message"]
    a.send({"type": "ping"})
    assert a.until("pong") == {"type": "pong"}
    assert client.app.state.tables.rooms[code].version == version
    b.send({"type": "ping"})  # the other seat never heard of it
    b.until("pong")
    assert not [f for f in b.frames if f["type"] == "error"]


def test_an_oversized_message_is_refused_and_the_socket_closed(client):
    code, socks = started(client)
    a = socks["p1"]
    a.send(json.dumps({"type": "ping", "pad": "x" * (limits.MESSAGE_BYTES + 1)}))
    assert "KiB" in a.until("error")["message"]
    with pytest.raises(WebSocketDisconnect) as closed:
        a.until("table")
    assert closed.value.code == 1009
    big = json.dumps({"game": "night-city", "players": 2, "name": "x" * (limits.MESSAGE_BYTES + 10)})
    r = client.post("/api/rooms", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_a_flood_is_refused_and_the_socket_closed(client):
    code, socks = started(client)
    a = socks["p1"]
    for _ in range(limits.MESSAGES_PER_SECOND + 5):
        a.send({"type": "ping"})
    with pytest.raises(WebSocketDisconnect) as closed:
        a.until("nothing")
    assert closed.value.code == 1008
    assert any(f["type"] == "error" and "a second" in f["message"] for f in a.frames)
    assert sum(f["type"] == "pong" for f in a.frames) <= limits.MESSAGES_PER_SECOND
    b = socks["p2"]  # the room goes on
    b.send({"type": "ping"})
    b.until("pong")


def test_pause_blocks_moves_until_resumed(client):
    code, socks = started(client)
    a = socks["p1"]
    a.send({"type": "host", "action": "pause"})
    t = a.table()
    assert t["status"] == "paused"
    seat, sock = deciding_socket(socks, t)
    mine = sock.table() if sock is not a else t
    sock.send({"type": "move", "version": mine["version"], "choice": mine["options"][0]["id"]})
    assert sock.until("error")["message"] == "the game is paused"
    a.send({"type": "host", "action": "resume"})
    t = a.table()
    mine = sock.table() if sock is not a else t
    assert mine["status"] == "playing"
    sock.send({"type": "move", "version": mine["version"], "choice": mine["options"][0]["id"]})
    assert sock.table()["version"] == mine["version"] + 1 or sock.frames[-1]["version"] > mine["version"]


def test_a_seat_is_freed_only_before_the_start_and_its_token_then_opens_nothing(client):
    code, host, other = room_of_two(client)
    a = hello(client, code, host["token"])
    b = hello(client, code, other["token"])
    a.table()
    b.send({"type": "host", "action": "free", "seat": "p1"})
    assert b.until("error")["message"] == "only the host can do that"
    a.send({"type": "host", "action": "free", "seat": "p1"})
    assert a.until("error")["message"] == "the host's own seat stays"
    a.send({"type": "host", "action": "free", "seat": "p2"})
    assert [s["name"] for s in a.table()["seats"]] == ["Ann", ""]
    assert "freed" in b.until("error")["message"]
    with pytest.raises(WebSocketDisconnect) as closed:
        b.until("table")
    assert closed.value.code == 4403
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": other["token"]}))
        assert json.loads(ws.receive_text())["type"] == "error"
        with pytest.raises(WebSocketDisconnect):
            ws.receive_text()
    # the seat is taken again, the game starts, and then no seat can be freed
    again = client.post(f"/api/rooms/{code}/join", json={"name": "Cy"}).json()
    assert again["seat"] == "p2"
    a.table()
    a.send({"type": "host", "action": "start"})
    a.table()
    a.send({"type": "host", "action": "free", "seat": "p2"})
    assert a.until("error")["message"] == "seats change only before the start"
    assert client.post(f"/api/rooms/{code}/join", json={"name": "Di"}).status_code == 409


def test_start_needs_every_seat_and_a_bot_fills_one(client, fast):
    r = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "Ann"}).json()
    a = hello(client, r["code"], r["token"])
    a.send({"type": "host", "action": "start"})
    assert "free" in a.until("error")["message"]
    a.send({"type": "host", "action": "bot", "seat": "p2"})
    t = a.table()
    assert t["seats"][1]["bot"] is True
    a.send({"type": "host", "action": "start"})
    t = a.table()
    pick = random.Random(3)
    for _ in range(60):  # the bot answers at once: it is never the bot's turn when the table arrives
        if t["status"] != "playing":
            break
        assert t["deciding"] == ["p1"] and t["options"]
        a.send({"type": "move", "version": t["version"], "choice": pick.choice(t["options"])["id"]})
        t = a.table()
    moves = client.app.state.tables.store.moves(r["code"], 1)
    assert {m.seat for m in moves} == {"p1", "p2"}


def test_the_host_returns_the_table_to_the_lobby(client):
    code, socks = started(client)
    a = socks["p1"]
    a.send({"type": "host", "action": "lobby"})
    t = a.table()
    assert t["status"] == "lobby" and t["view"] is None and [s["name"] for s in t["seats"]] == ["Ann", "Bob"]
    a.send({"type": "host", "action": "start"})
    assert a.table()["status"] == "playing"


def test_spectators_neither_play_nor_signal_and_signals_reach_one_seat(client):
    code, socks = started(client)
    w = hello(client, code, watch=True)
    w.send({"type": "move", "version": 1, "choice": "pass"})
    assert w.until("error")["message"] == "spectators watch; they do not play"
    w.send({"type": "signal", "to": "p1", "data": {"sdp": "x"}})
    assert w.until("error")
    socks["p1"].send({"type": "signal", "to": "p2", "data": {"kind": "offer", "sdp": "v=0"}})
    got = socks["p2"].until("signal")
    assert got == {"type": "signal", "from": "p1", "data": {"kind": "offer", "sdp": "v=0"}}
    socks["p1"].send({"type": "signal", "to": "p9", "data": {}})
    assert socks["p1"].until("error")
    w.send({"type": "ping"})
    w.until("pong")
    assert not [f for f in w.frames if f["type"] in ("signal", "peers")]


def test_a_seat_rejoins_with_its_link_and_gets_its_view_back(client):
    code, host, other = room_of_two(client)
    a = hello(client, code, host["token"])
    b = hello(client, code, other["token"])
    a.table()
    a.send({"type": "host", "action": "start"})
    before = a.table()
    b.table()
    a.ws.close()
    assert [s["connected"] for s in b.table()["seats"]] == [False, True]
    again = hello(client, code, host["token"])
    t = again.frames[-1]
    assert t["you"] == "p1" and t["view"] == before["view"] and t["version"] == before["version"]
    assert [s["connected"] for s in b.table()["seats"]] == [True, True]


def test_rooms_survive_a_restart(tmp_path, fast):
    db = tmp_path / "tables.sqlite3"
    with Client(app_on(db)) as client:
        code, host, other = room_of_two(client)
        a = hello(client, code, host["token"])
        b = hello(client, code, other["token"])
        a.table()
        a.send({"type": "host", "action": "start"})
        socks = {"p1": a, "p2": b}
        last = {"p1": a.table(), "p2": b.table()}
        pick = random.Random(11)
        for _ in range(25):
            seat = last["p1"]["deciding"][0]
            m = last[seat]
            socks[seat].send({"type": "move", "version": m["version"], "choice": pick.choice(m["options"])["id"]})
            last = {"p1": a.table(), "p2": b.table()}
        close_all()
    with Client(app_on(db)) as client:
        for seat, token in (("p1", host["token"]), ("p2", other["token"])):
            t = hello(client, code, token).frames[-1]
            assert t["version"] == last[seat]["version"]
            assert t["view"] == last[seat]["view"] and t["options"] == last[seat]["options"]
            assert t["log"] == last[seat]["log"]
        close_all()


def test_tokens_are_stored_only_hashed(tmp_path):
    db = tmp_path / "tables.sqlite3"
    with Client(app_on(db)) as client:
        _code, host, other = room_of_two(client)
    raw = db.read_bytes() + (tmp_path / "tables.sqlite3-wal").read_bytes() if (tmp_path / "tables.sqlite3-wal").exists() \
        else db.read_bytes()
    assert host["token"].encode() not in raw and other["token"].encode() not in raw
    hashes = [r[0] for r in sqlite3.connect(db).execute("SELECT token_hash FROM seats WHERE token_hash IS NOT NULL")]
    assert len(hashes) == 2 and all(len(h) == 64 for h in hashes)


def test_rooms_expire_after_their_last_connection(tmp_path):
    now = [1_000_000.0]
    with Client(app_on(tmp_path / "t.sqlite3", expire_hours=72, clock=lambda: now[0])) as client:
        tables = client.app.state.tables
        code, host, _other = room_of_two(client)
        kept, kept_host, _ = room_of_two(client)
        now[0] += 71 * 3600
        hello(client, kept, kept_host["token"]).ws.close()  # a connection keeps a room
        now[0] += 2 * 3600
        assert client.portal.call(tables.expire, 72) == [code]
        assert client.get(f"/r/{code}").status_code == 404
        assert client.get(f"/r/{kept}").status_code == 200
        held = hello(client, kept, kept_host["token"])  # connected: never dropped while someone is there
        now[0] += 100 * 3600
        assert client.portal.call(tables.expire, 72) == []
        close_all()


def test_the_server_sweeps_expired_rooms_by_itself(tmp_path):
    now = [1_000_000.0]
    with Client(app_on(tmp_path / "t.sqlite3", expire_hours=1, sweep_seconds=0.05,
                           clock=lambda: now[0])) as client:
        code, _host, _other = room_of_two(client)
        now[0] += 2 * 3600
        for _ in range(100):
            if client.get(f"/r/{code}").status_code == 404:
                break
            time.sleep(0.05)
        assert client.get(f"/r/{code}").status_code == 404


def test_joining_a_full_or_started_room_and_bad_names(client):
    code, host, _other = room_of_two(client)
    assert client.post(f"/api/rooms/{code}/join", json={"name": "Cy"}).status_code == 409
    r = client.post("/api/rooms", json={"game": "night-city", "players": 3, "name": "Ann"}).json()
    for name in ("", "   ", "x" * 33, 7, None, "a\u202eb", "new\x00line"):
        got = client.post(f"/api/rooms/{r['code']}/join", json={"name": name})
        assert got.status_code == 400, name
    ok = client.post(f"/api/rooms/{r['code'].lower()}/join", json={"name": "  Bob   the  Builder "}).json()
    assert ok["seat"] == "p2"
    assert client.app.state.tables.rooms[r["code"]].seats["p2"].name == "Bob the Builder"


def test_no_more_rooms_than_the_limit(client, monkeypatch):
    monkeypatch.setattr(limits, "ROOMS_OPEN", 2)
    room_of_two(client)
    room_of_two(client)
    r = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "Ann"})
    assert r.status_code == 503 and "too many rooms" in r.json()["error"]


def test_a_guessed_hidden_id_is_refused_like_any_unknown_choice(client, fast):
    """A seat deciding among offered things cannot name a thing hidden from it (another
    seat's card): the refusal is word for word the one for a made-up id, so it tells nothing."""
    code, socks = started(client)
    room = client.app.state.tables.rooms[code]
    last = {s: sock.frames[-1] for s, sock in socks.items()}
    pick = random.Random(5)
    for _ in range(400):
        t = last["p1"]
        d = (t["view"] or {}).get("decision") or {}
        if t["status"] != "playing":
            break
        if "p1" in t["deciding"] and d.get("kind") != "action" and t["options"]:
            hidden = [x for x in state_of(client, room)["zones"].get("p2.hand", [])]
            assert hidden
            replies = []
            for guess in (hidden[0], "no-such-thing"):
                socks["p1"].send({"type": "move", "version": t["version"], "choice": guess})
                replies.append(socks["p1"].until("error")["message"])
            assert replies[0] == replies[1] == "that is not one of your options"
            assert room.version == t["version"]
            return
        seat = pick.choice(t["deciding"])
        mine = last[seat]
        socks[seat].send({"type": "move", "version": mine["version"], "choice": pick.choice(mine["options"])["id"]})
        last = {s: sock.table() for s, sock in socks.items()}
    pytest.fail("p1 was never asked to choose among things in 400 moves")


def test_a_game_plays_in_a_thread_after_another_thread_played():
    """A server may run its games in another thread than the last one did (the test client
    starts one per app): the runtime's idle effects of the old thread are not reused."""
    import threading

    from rulepress.runtime.agents import RandomAgent, play_out
    from rulepress.runtime.flow import new_game
    game = night_city()

    def one_game(out, seed):
        try:
            st = new_game(game, 2, seed=seed)
            out.append(play_out(game, st, {p: RandomAgent(p) for p in st["players"]}))
        except Exception as exc:  # noqa: BLE001 - reported below
            out.append(exc)
    results = []
    for seed in ("a", "b"):
        worker = threading.Thread(target=one_game, args=(results, seed))
        worker.start()
        worker.join()
    one_game(results, "c")
    assert all(isinstance(n, int) and n > 0 for n in results), results


def test_a_change_is_stored_whole_or_not_at_all_even_in_a_batch(tmp_path):
    """Changes that reach the store together are committed together, each whole or not at
    all: a move that fails halfway leaves no trace, and the moves beside it are kept."""
    import asyncio

    from rulepress.table.store import Move, RoomRow, SeatRow, Store

    store = Store(str(tmp_path / "t.sqlite3"))

    async def run():
        await store.create_room(RoomRow("ABCDEF", "g", "h", 2, {}, "s", "playing", 1, 1, 0.0, 0.0),
                                SeatRow("p1", "Ann", "x" * 64, False, True))

        def half(db):
            db.execute("INSERT INTO moves VALUES ('ABCDEF', 1, 99, 'p1', 'half')")
            raise RuntimeError("the disk is full halfway")
        return await asyncio.gather(
            store.add_move("ABCDEF", 2, 1, 0, Move("p1", "a"), "playing"),
            store._write(half),
            store.add_move("ABCDEF", 3, 1, 1, Move("p2", "b"), "playing"),
            store.add_move("ABCDEF", 4, 1, 1, Move("p2", "again"), "playing"),  # n taken: refused
            return_exceptions=True)
    results = asyncio.run(run())
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], RuntimeError) and isinstance(results[3], sqlite3.IntegrityError)
    assert store.moves("ABCDEF", 1) == [Move("p1", "a"), Move("p2", "b")]
    assert store.room("ABCDEF").version == 3
    store.close()


def test_simultaneous_secret_picks_are_never_stale_for_each_other(client, fast):
    """Both seats pick a secret at once from the same table: the second pick stands, since
    nothing its picker could see changed (only who is still picking)."""
    code, socks = started(client)
    pick = random.Random(3)
    last = {s: socks[s].frames[-1] for s in socks}
    for _ in range(3000):
        t = last["p1"]
        assert t["status"] == "playing"
        d = (last["p1"]["view"] or {}).get("decision") or {}
        if d.get("kind") == "secret" and sorted(t["deciding"]) == ["p1", "p2"]:
            break
        seat = pick.choice(t["deciding"])
        mine = last[seat]
        socks[seat].send({"type": "move", "version": mine["version"], "choice": pick.choice(mine["options"])["id"]})
        last = {s: socks[s].table() for s in socks}
    else:
        pytest.fail("no secret pick by both seats in 3000 moves")
    version = last["p1"]["version"]
    socks["p1"].send({"type": "move", "version": version, "choice": last["p1"]["options"][0]["id"]})
    socks["p1"].table(), socks["p2"].table()
    socks["p2"].send({"type": "move", "version": version, "choice": last["p2"]["options"][0]["id"]})
    after = socks["p2"].table()
    assert not [f for f in socks["p2"].frames if f["type"] in ("refused", "error")]
    assert after["version"] >= version + 2


def test_a_move_from_before_a_change_its_seat_saw_is_stale(client, fast):
    code, socks = started(client)
    t = socks["p1"].frames[-1]
    seat = t["deciding"][0]
    mine = socks[seat].frames[-1]
    socks[seat].send({"type": "move", "version": mine["version"], "choice": mine["options"][0]["id"]})
    now = socks[seat].table()
    assert now["view"] != mine["view"] or now["options"] != mine["options"]
    if seat in now["deciding"]:
        socks[seat].send({"type": "move", "version": mine["version"], "choice": now["options"][0]["id"]})
        assert socks[seat].until("refused")


def test_connected_seats_keep_their_room_through_a_crash(tmp_path):
    """The sweep refreshes the last-seen time of every room someone is at, so a restart keeps
    it for the whole expiry after its last real connection, not after its seats connected."""
    now = [1_000_000.0]
    db = tmp_path / "t.sqlite3"
    with Client(app_on(db, expire_hours=1, sweep_seconds=0.05, clock=lambda: now[0])) as client:
        code, host, _other = room_of_two(client)
        hello(client, code, host["token"])
        now[0] += 3 * 3600  # connected all along
        for _ in range(100):
            if client.app.state.tables.store.room(code).last_seen == now[0]:
                break
            time.sleep(0.05)
        assert client.app.state.tables.store.room(code).last_seen == now[0]
        close_all()
    # (a crash: the socket's goodbye is never written) and back, half an hour later
    now[0] += 1800
    with Client(app_on(db, expire_hours=1, clock=lambda: now[0])) as client:
        assert client.portal.call(client.app.state.tables.expire, 1) == []
        assert client.get(f"/r/{code}").status_code == 200


def test_a_game_goes_on_in_another_thread_than_the_one_it_waited_in():
    """A room rebuilt on the event loop's thread plays its next moves on its own thread: a
    decision left waiting live in the first thread is replayed in the second, to the same game."""
    import threading

    from rulepress.runtime.flow import apply, choices, new_game
    game = night_city()

    def moves(st, n, rng):
        for _ in range(n):
            if st["pending"] is None:
                return
            d = st["pending"]
            seat = d["who"] if d["kind"] != "secret" else next(p for p in d["who"] if p not in d["collected"])
            opts = d["options"][seat] if d["kind"] == "secret" else choices(game, st)
            apply(game, st, opts[rng.randrange(len(opts))]["id"] if isinstance(opts[0], dict) else
                  opts[rng.randrange(len(opts))], seat)

    def in_thread(fn, *args):
        worker = threading.Thread(target=fn, args=args)
        worker.start()
        worker.join()

    here = new_game(game, 2, seed="threads")
    moves(here, 60, random.Random(1))
    there = new_game(game, 2, seed="threads")
    rng = random.Random(1)
    for _ in range(6):  # ten moves at a time, each batch on a new thread
        in_thread(moves, there, 10, rng)
    assert there["history"] == here["history"]


def test_a_last_seen_the_store_cannot_write_costs_a_seat_nothing(tmp_path):
    """A seat's connection writes the room's "last seen"; where the store refuses it (a
    database busy or away: PostgreSQL undid such writes as deadlocks under load), the seat
    still gets its table and plays; no traceback drops its socket."""
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        code, host, _other = room_of_two(client)
        store = client.app.state.tables.store

        async def refused(*_args):
            raise sqlite3.OperationalError("database is locked")
        store.touch = refused
        a = hello(client, code, host["token"])  # (its table came)
        a.send({"type": "ping"})
        assert a.until("pong")
        close_all()
