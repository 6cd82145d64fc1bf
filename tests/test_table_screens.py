"""Screenshots of every content game's table (a seat at 1280×800 and at 375 px, a spectator,
the OBS page at 1920×1080), in English and Russian, with a scan of the Russian page's text.

The pictures go to $RULEPRESS_TABLE_SCREENS (docs/table-screens/ when refreshed for the
docs), else to the test's temporary folder: the suite keeps them as artifacts, a person
looks at them. Each game is played a few moves in (the seat's own moves first, then bots)
so there is something on the table.

The cards' faces of Night City are made by the server's faces process, as a player's are
(and as test_table_browser's, which share them); the other games' are stand-ins of a face's
size, plain PNGs the page lays out as it lays out any face, for the seconds of WeasyPrint and
pdftoppm the real ones cost (45 s of CPU, most of this test's), unless the pictures are
refreshed for the docs ($RULEPRESS_TABLE_SCREENS), when every game's are made."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from rulepress.runtime.tables import Game
from rulepress.table.faces import DPI, LANGS, Faces, card_kinds, default_cache
from tests.conftest import game_from

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
GAMES = ("night-city", "android", "arkham-horror", "study-in-emerald")
pytestmark = pytest.mark.skipif(not CHROMIUM, reason="no chromium: `make browser` installs it (apt-get install chromium)")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra: make setup")
websockets = pytest.importorskip("websockets.sync.client", reason="websockets is in the table extra")

MOVES = 12  # moves into the game before the pictures (the seat's, the bots')
REAL_FACES = ("night-city",)  # the games whose faces the faces process makes on every run


def _plain_png(w: int, h: int) -> bytes:
    """A light grey PNG of w×h pixels."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = (b"\0" + b"\xe8" * w) * h  # (each row: filter 0, then one grey byte a pixel)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _stand_in_faces(faces: Faces, game: Game) -> None:
    """The game's faces folder filled as the faces process fills it, each face a plain PNG of
    a poker card's size at the faces' resolution: what the page is handed and lays out."""
    folder = faces.folder(game)
    if faces.ready(game):
        return
    face = _plain_png(round(63 / 25.4 * DPI), round(88 / 25.4 * DPI))
    names = set(card_kinds(game)) | {"back"} | {f"back.{d}" for d in game.data.get("decks") or {}}
    for lang in LANGS:
        os.makedirs(os.path.join(folder, lang), exist_ok=True)
        for name in names:
            with open(os.path.join(folder, lang, f"{name}.png"), "wb") as fh:
                fh.write(face)
    open(os.path.join(folder, "done"), "w").close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = shutil.which("rulepress", path=os.path.dirname(sys.executable)) or "rulepress"
    games = [os.path.join(ROOT, "build", g) for g in GAMES if os.path.exists(os.path.join(ROOT, "build", g, "game.json"))]
    loaded = {g.id: g for g in (Game.load(os.path.join(p, "game.json")) for p in games)}
    faces = Faces(loaded, {}, default_cache())
    if not os.environ.get("RULEPRESS_TABLE_SCREENS"):
        for g in loaded.values():
            if g.id not in REAL_FACES:
                _stand_in_faces(faces, g)  # (before the server starts: it makes what is not there)
    proc = subprocess.Popen([exe, "serve", *games, "--port", str(port), "--db", str(tmp_path_factory.mktemp("db") / "t.sqlite3"),
                             "--faces", default_cache(), "--no-address-limits"],  # (three rooms a game, all from here)
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if proc.poll() is not None:
            pytest.fail(proc.stderr.read()[-2000:])
        try:
            urllib.request.urlopen(url + "/api/games", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    # the cards' faces: made by the server in the background the first time, then kept
    deadline = time.monotonic() + 900
    while not all(faces.ready(g) for g in loaded.values()):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail("no card faces within 900 s")
        time.sleep(1)
    yield url, [os.path.basename(g) for g in games]
    proc.kill()
    proc.wait(10)


def _post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    return json.loads(urllib.request.urlopen(req, timeout=30).read())


def _room_in_play(url: str, game: str, see_all: bool = False, most: bool = False):
    """A room of the game's fewest players (`most`: its most): seat p1 a person (its token),
    the others bots, played MOVES moves in by p1 picking at random and the bots."""
    games = {g["id"]: g for g in json.loads(urllib.request.urlopen(url + "/api/games").read())}
    players = games[game]["players"]["max"] if most else max(2, games[game]["players"]["min"])
    made = _post(url + "/api/rooms", {"game": game, "players": players, "name": "Ана", "spectators_see_all": see_all})
    with websockets.connect(url.replace("http", "ws") + f"/ws/{made['code']}", open_timeout=30) as ws:
        _play(ws, made, players)
    return made


class _Paced:
    """A socket that sends at most 15 messages in any 1.2 s, under the server's 20 a second
    (a room of eight players sends 21 in all), waiting only where that many were sent."""

    def __init__(self, ws):
        self.ws, self.sent = ws, []

    def send(self, text: str) -> None:
        now = time.monotonic()
        self.sent = [t for t in self.sent if now - t < 1.2]
        if len(self.sent) >= 15:
            time.sleep(1.2 - (now - self.sent[0]))
        self.sent.append(time.monotonic())
        self.ws.send(text)

    def recv(self, timeout):
        return self.ws.recv(timeout)


def _play(ws, made, players):
    ws = _Paced(ws)
    ws.send(json.dumps({"type": "hello", "token": made["token"]}))
    last = json.loads(ws.recv(30))
    for i in range(2, players + 1):
        ws.send(json.dumps({"type": "host", "action": "bot", "seat": f"p{i}"}))
        last = _next_table(ws)
    ws.send(json.dumps({"type": "host", "action": "start"}))
    last = _next_table(ws)
    rng = random.Random(5)
    for _ in range(MOVES):
        if last["status"] != "playing" or not last["options"]:
            break
        ws.send(json.dumps({"type": "move", "version": last["version"], "choice": rng.choice(last["options"])["id"]}))
        last = _next_table(ws)


def _next_table(ws):
    for _ in range(50):
        m = json.loads(ws.recv(30))
        if m["type"] == "table":
            return m
    raise AssertionError("no table")


# Gaps of the content, not of the page (the game names no Russian word for them): each
# fixed in the game's YAML comes off this list.
KNOWN = {"android": {"discard"}}  # a zone `discard` without a `name`


def _latin_in_russian_text(game: str) -> set:
    """The Latin words a game's own Russian text uses (its proper names: "XBD", "Wyldside")."""
    with open(os.path.join(ROOT, "build", game, "game.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    out, todo = set(), [data]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if isinstance(x.get("ru"), str):
                out.update(re.findall(r"\b[A-Za-z]{3,}\b", x["ru"]))
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return out


# Words of the engine or of the interface left in English on the Russian page (a raw id has
# an underscore or is a seat id; an English word is a run of Latin letters the page does not
# allow: the game's own proper names in Latin are listed by the game's Russian text itself).
RAW_ID = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b|\bp[1-9]\b")


def test_every_content_games_table_is_pictured_and_the_russian_page_has_no_raw_ids(server, tmp_path):
    url, games = server
    out = os.environ.get("RULEPRESS_TABLE_SCREENS") or str(tmp_path)
    os.makedirs(out, exist_ok=True)
    problems, english, bookkeeping, fit, faceless = {}, {}, {}, {}, []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        page = browser.new_page()
        try:
            for game in games:
                made = _room_in_play(url, game)
                code, token = made["code"], made["token"]
                everything = _room_in_play(url, game, see_all=True)["code"]
                crowded_room = _room_in_play(url, game, most=True)
                crowded = crowded_room["code"]
                shots = [("seat", f"/r/{code}?lang=ru#t={token}", 1280, 800),
                         ("seat-en", f"/r/{code}?lang=en#t={token}", 1280, 800),
                         ("phone", f"/r/{code}?lang=ru#t={token}", 375, 812),
                         ("spectator", f"/watch/{code}?lang=ru", 1280, 800),
                         ("obs", f"/obs/{code}?lang=ru", 1920, 1080),
                         ("spectator-all", f"/watch/{everything}?lang=ru", 1280, 800),
                         ("obs-most", f"/obs/{crowded}?lang=ru", 1920, 1080),
                         ("seat-most", f"/r/{crowded}?lang=ru#t={crowded_room['token']}", 1280, 800)]
                for kind, path, w, h in shots:
                    # one page for them all: a browser context made for each costs 0.5 s of CPU
                    # (the pages keep nothing the next one reads but the room's own seat token)
                    page.set_viewport_size({"width": w, "height": h})
                    page.goto("about:blank")
                    page.goto(url + path)
                    page.wait_for_function("(window.rulepressTable.last || {}).status", timeout=30_000)
                    page.wait_for_timeout(300)
                    page.wait_for_function("[...document.images].every((i) => i.complete)", timeout=30_000)
                    page.screenshot(path=os.path.join(out, f"{game}-{kind}.png"), full_page=False)
                    if kind in ("seat", "seat-en", "spectator", "obs", "obs-most", "seat-most"):
                        # the window never scrolls; Night City's board fits it whole (the hand and log may
                        # scroll), and so does every game's on a stream, with its most players too
                        sizes = page.evaluate("""() => { const b = document.getElementById('board-panel');
                            return [document.scrollingElement.scrollHeight, innerHeight, b.scrollHeight, b.clientHeight]; }""")
                        whole = game == "night-city" and kind.startswith("seat") or kind.startswith("obs")
                        if sizes[0] > sizes[1] or whole and sizes[2] > sizes[3] + 1:
                            fit[f"{game} {kind}"] = sizes
                        if not page.evaluate("document.querySelectorAll('#board img.face, #hand img.face').length"):
                            faceless.append(f"{game} {kind}")
                    if kind in ("seat", "spectator"):
                        text = page.inner_text("body")
                        raw = sorted({text[max(0, x.start() - 30):x.end() + 10].replace("\n", " | ")
                                      for x in RAW_ID.finditer(text)})
                        if raw:
                            problems[f"{game} {kind}"] = raw[:20]
                        # English words outside what the game itself says (its log lines, prompts
                        # and options too: tests/test_table_words.py reads more of them)
                        latin = page.evaluate("""() => {
                            const body = document.body.cloneNode(true);
                            for (const e of body.querySelectorAll("script")) e.remove();
                            return (body.innerText.match(/\\b[A-Za-z]{3,}\\b/g) || []).filter((w) => w !== "OBS");
                        }""")
                        # a counter the game marks internal is bookkeeping: never a badge, nor on a
                        # piece (an investigator on the map: "Round arrested -9")
                        shown = page.evaluate("""() => [...document.querySelectorAll('.badge')].map((b) => b.dataset.counter)""")
                        counters = game_from(f"content/{game}").counters
                        internal = {c for c, d in counters.items() if d.get("internal")}
                        # (a piece's counters by the names the page prints)
                        named = {n: c for c in internal for n in (counters[c].get("name") or {}).values()}
                        shown += [named[n] for n in page.evaluate(
                            "() => [...document.querySelectorAll('.counters dt')].map((d) => d.textContent)") if n in named]
                        if internal & set(shown):
                            bookkeeping[f"{game} {kind}"] = sorted(internal & set(shown))
                        latin = set(latin) - _latin_in_russian_text(game) - {code} - KNOWN.get(game, set())
                        if latin:
                            english[f"{game} {kind}"] = sorted(latin)[:20]
        finally:
            browser.close()
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)
    assert not english, json.dumps(english, ensure_ascii=False, indent=1)
    assert not bookkeeping, bookkeeping
    assert not fit, f"pages that scroll [page, window, board, board shown]: {fit}"
    assert not faceless, f"no card shown with its printed face: {faceless}"
