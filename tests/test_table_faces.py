"""Cards as cards at the table (rulepress/table/faces.py): a seat's frames name a face only
for a card it sees, by a key that names no card; the server opens only the keys it made for
the room; a hidden card's place shows its zone's back. And the host's choice to let
spectators see every seat's cards, which leaves the seats' own frames as they were."""
from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import subprocess
import sys

import pytest
from table_client import Client, app_on, close_all, hello, leak_in, night_city, room_of_two, state_of

from rulepress.runtime.views import view
from rulepress.table import limits, rooms
from rulepress.table.faces import LANGS, Faces, back_of, card_kinds, settle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _closed_sockets(monkeypatch):
    monkeypatch.setattr(limits, "MESSAGES_PER_SECOND", 100_000)
    yield
    close_all()


def made_faces(tmp_path) -> Faces:
    """Faces as if made already: each file holds its own name (what was served is then plain)."""
    g = night_city()
    faces = Faces({g.id: g}, {}, str(tmp_path / "faces"))
    folder = faces.folder(g)
    names = set(card_kinds(g)) | {"back"} | {f"back.{d}" for d in g.data["decks"]}
    for lang in LANGS:
        os.makedirs(os.path.join(folder, lang))
        for n in names:
            with open(os.path.join(folder, lang, f"{n}.png"), "wb") as fh:
                fh.write(f"{lang}:{n}".encode())
    open(os.path.join(folder, "done"), "w").close()
    return faces


def start(client, see_all=None):
    body = {"game": "night-city", "players": 2, "name": "Ann"}
    if see_all is not None:
        body["spectators_see_all"] = see_all
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 200, r.text
    host = r.json()
    other = client.post(f"/api/rooms/{host['code']}/join", json={"name": "Bob"}).json()
    a, b = hello(client, host["code"], host["token"]), hello(client, host["code"], other["token"])
    watcher = hello(client, host["code"], watch=True)
    a.table()
    a.send({"type": "host", "action": "start"})
    return host["code"], {"p1": a, "p2": b, None: watcher}


class _FixedDeal:
    """Room seeds of a test's own (a room's deal is otherwise new every run); tokens as ever."""
    token_urlsafe = staticmethod(secrets.token_urlsafe)

    @staticmethod
    def token_hex(n):
        return "5eed" * (n // 2)


def test_a_seat_is_given_faces_only_for_the_cards_it_sees_and_the_server_opens_no_other(tmp_path, monkeypatch):
    monkeypatch.setattr(rooms, "token_source", _FixedDeal)  # (the same game every run)
    faces = made_faces(tmp_path)
    g = night_city()
    kinds = card_kinds(g)
    with Client(app_on(tmp_path / "t.sqlite3", faces=faces)) as client:
        code, socks = start(client)
        room = client.app.state.tables.rooms[code]
        last = {s: sock.table() for s, sock in socks.items()}
        given = {s: {} for s in socks}   # seat -> key -> kind, every key its frames named
        seen = {s: set() for s in socks}  # seat -> card kinds it was ever shown
        pick = random.Random(3)
        for _ in range(120):
            if last["p1"]["status"] != "playing":
                break
            for seat, m in last.items():
                v = m["view"]
                shown = {t["type"] for t in v["things"].values()} & kinds
                seen[seat] |= shown
                assert set(m["faces"]["cards"]) == shown, "a face for a card the seat does not see, or one missing"
                assert set(m["faces"]["backs"]) == {k for k, z in v["zones"].items() if z["hidden"]}
                for kind, key in m["faces"]["cards"].items():
                    assert kind not in key and given[seat].setdefault(key, kind) == kind
                    assert len({k for k, x in given[seat].items() if x == kind}) == 1  # one key per kind
                for zone, key in m["faces"]["backs"].items():
                    given[seat].setdefault(key, back_of(g, zone.split(".", 1)[-1]))
            assert leak_in(g, state_of(client, room), last) is None
            seat = pick.choice(last["p1"]["deciding"])
            mine = last[seat]
            socks[seat].send({"type": "move", "version": mine["version"], "choice": pick.choice(mine["options"])["id"]})
            last = {s: sock.table() for s, sock in socks.items()}
        # every key a seat was given opens that card's face (or that zone's back), in either language
        for seat, keys in given.items():
            for key, name in list(keys.items())[:40]:
                for lang in LANGS:
                    r = client.get(f"/faces/{code}/{lang}/{key}.png")
                    assert r.status_code == 200 and r.content == f"{lang}:{name}".encode()
                    assert r.headers["content-type"] == "image/png"
        # the key of a card a seat never saw is in none of its frames (every frame it was sent
        # counts: a card in sight between two moves, in a frame before the last, was seen)
        for seat, sock in socks.items():
            for m in sock.frames:
                if m["type"] == "table" and m.get("view"):
                    seen[seat] |= {t["type"] for t in m["view"]["things"].values()} & kinds
            text = json.dumps(sock.frames)
            for kind in kinds - seen[seat]:
                assert faces.key(code, kind) not in text, f"{seat} was sent the key of {kind}, which it never saw"
        assert seen["p1"] - seen[None], "a hand the spectator does not see"
        # nothing else opens: a made-up key, another room's code, another language, a name
        key = next(iter(given["p1"]))
        other = client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "Cy"}).json()["code"]
        for url in (f"/faces/{code}/ru/{'0' * 24}.png", f"/faces/{other}/ru/{key}.png", f"/faces/{code}/de/{key}.png",
                    f"/faces/{code}/ru/{next(iter(kinds))}.png", f"/faces/{code}/ru/{key[:-1]}.png",
                    f"/faces/{code}/ru/..%2F..%2Fdone.png", f"/faces/NOSUCH/ru/{key}.png"):
            assert client.get(url).status_code == 404, url
        close_all()


def test_no_faces_until_they_are_made_and_none_without_a_cache(tmp_path):
    g = night_city()
    for faces in (Faces({g.id: g}, {}, str(tmp_path / "empty")), None):
        with Client(app_on(tmp_path / "t.sqlite3", faces=faces)) as client:
            code, socks = start(client)
            assert socks["p1"].table()["faces"] is None
            close_all()


def test_faces_are_made_from_the_games_templates_in_both_languages(tmp_path):
    """Night City's templates and art, its three decks' backs and the game's, with one card of
    each deck and one of none: every kind of face the process makes, for a ninth of the
    game's cards (the table and the browser tests make the faces of every card)."""
    g = night_city()
    tables = json.loads(json.dumps(g.data))
    kept = set()
    for kind in sorted(card_kinds(g)):
        if tables["protos"][kind].get("deck") not in {tables["protos"][k].get("deck") for k in kept}:
            kept.add(kind)
    tables["protos"] = {k: p for k, p in tables["protos"].items() if k in kept or k not in card_kinds(g)}
    assert "falco" in kept and len(kept) == 4
    done = subprocess.run([sys.executable, "-m", "rulepress.table.faces", os.path.join(ROOT, "content", "night-city"),
                           str(tmp_path / "out")], input=json.dumps(tables), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for lang in LANGS:
        made = set(os.listdir(tmp_path / "out" / lang))
        assert made == {f"{k}.png" for k in kept} | {"back.png"} | {f"back.{d}.png" for d in g.data["decks"]}
        with open(tmp_path / "out" / lang / "falco.png", "rb") as fh:
            head = fh.read(24)
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(head[16:20], "big") == 372 and int.from_bytes(head[20:24], "big") == 520
    assert os.path.exists(tmp_path / "out" / "done")
    # a game that cannot be drawn is one line on stderr and exit 1, never a traceback
    bad = subprocess.run([sys.executable, "-m", "rulepress.table.faces", "-", str(tmp_path / "bad")],
                         input="[1, 2", capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    # the step of `nice` it runs at, when set, is a whole number from 0 to 19, or one line and exit 1
    for nice in ("-5", "20", "x", ""):
        wrong = subprocess.run([sys.executable, "-m", "rulepress.table.faces", "-", str(tmp_path / "nice")],
                               input="{}", capture_output=True, text=True, timeout=60,
                               env={**os.environ, "RULEPRESS_FACES_NICE": nice})
        assert wrong.returncode == 1 and wrong.stderr.startswith("RULEPRESS_FACES_NICE is"), (nice, wrong.stderr)
        assert not os.path.exists(tmp_path / "nice")


def test_faces_another_server_finished_first_are_kept_and_an_unfinished_folder_is_replaced(tmp_path):
    """Two servers on one cache make a game's faces at once: the second to finish keeps the
    first's folder (its pages may be reading it) rather than delete and replace it."""
    def made(name, done=True):
        folder = tmp_path / name
        os.makedirs(folder / "en")
        (folder / "en" / "back.png").write_text(name)
        if done:
            (folder / "done").write_text("")
        return str(folder)
    target = str(tmp_path / "night-city-faces")
    os.replace(made("first"), target)
    settle(made("second"), target)
    assert (tmp_path / "night-city-faces" / "en" / "back.png").read_text() == "first"
    os.remove(os.path.join(target, "done"))  # a folder a killed process left unfinished
    settle(made("third"), target)
    assert (tmp_path / "night-city-faces" / "en" / "back.png").read_text() == "third"


def test_a_server_waits_for_the_faces_another_is_making_and_makes_none_itself(tmp_path, monkeypatch):
    """`serve --processes 2`: both servers start with no faces; one makes them, the other
    waits for its lock and keeps what it made."""
    import asyncio
    import fcntl
    from rulepress.table import faces as faces_module
    g = night_city()
    waiting = Faces({g.id: g}, {}, str(tmp_path / "faces"))
    made = []
    monkeypatch.setattr(Faces, "_make_unlocked", lambda self, game: made.append(game.id) or asyncio.sleep(0))
    monkeypatch.setattr(faces_module, "LOCK_POLL", 0.05)
    os.makedirs(tmp_path / "faces")
    other = os.open(str(tmp_path / "faces" / f".{g.id}-{g.hash}.lock"), os.O_RDWR | os.O_CREAT)
    fcntl.flock(other, fcntl.LOCK_EX)  # (the other server, making them)

    async def both():
        mine = asyncio.create_task(waiting.make())
        await asyncio.sleep(0.3)
        assert not mine.done()  # waits while the other makes them
        os.makedirs(waiting.folder(g))
        open(os.path.join(waiting.folder(g), "done"), "w").close()
        os.close(other)  # (made: the lock goes)
        await asyncio.wait_for(mine, 10)
    asyncio.run(both())
    assert made == [] and waiting.ready(g)
    # with nobody else at it, a server makes them itself
    shutil.rmtree(waiting.folder(g))
    alone = Faces({g.id: g}, {}, str(tmp_path / "faces"))
    asyncio.run(alone.make())
    assert made == [g.id]


def test_a_faces_lock_planted_as_a_link_is_refused_and_nothing_is_written_where_it_points(tmp_path):
    import asyncio
    g = night_city()
    os.makedirs(tmp_path / "faces")
    os.symlink(tmp_path / "outside.txt", tmp_path / "faces" / f".{g.id}-{g.hash}.lock")
    said = []
    faces = Faces({g.id: g}, {}, str(tmp_path / "faces"))
    asyncio.run(faces.make(said.append))
    assert not os.path.exists(tmp_path / "outside.txt") and not faces.ready(g)
    assert said == [f"rulepress: no card faces for {g.id}: its lock in the cache cannot be opened "
                    "(Too many levels of symbolic links)"]


def test_spectators_see_every_hand_only_when_the_host_allows_and_seats_never_do(tmp_path):
    g = night_city()
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        assert client.post("/api/rooms", json={"game": "night-city", "players": 2, "name": "A",
                                               "spectators_see_all": "yes"}).status_code == 400
        for see_all in (None, False, True):
            code, socks = start(client, see_all)
            room = client.app.state.tables.rooms[code]
            last = {s: sock.table() for s, sock in socks.items()}
            for m in last.values():
                assert m["spectators"] == ("all" if see_all else "public")
            for seat in ("p1", "p2"):
                got = {**last[seat]["view"], "log": last[seat]["log"]}
                assert json.loads(json.dumps(view(g, state_of(client, room), seat))) == got  # a seat sees its own alone
            hands = {p: last[None]["view"]["zones"][f"{p}.hand"] for p in ("p1", "p2")}
            for p in ("p1", "p2"):
                own = last[p]["view"]["zones"][f"{p}.hand"]["things"]
                assert own
                if see_all:
                    assert hands[p] == {"things": own, "hidden": 0}
                    assert all(last[None]["view"]["things"][t]["type"] == last[p]["view"]["things"][t]["type"] for t in own)
                else:
                    assert hands[p]["things"] == [] and hands[p]["hidden"] == len(own)
            if not see_all:
                assert leak_in(g, state_of(client, room), last) is None
            # the decks stay hidden from everyone
            assert last[None]["view"]["zones"]["deal_deck"]["things"] == []
            assert last[None]["options"] == []
            close_all()
