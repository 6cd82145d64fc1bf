"""Cards as cards at the table: the faces `rulepress print` renders (the game's card
templates, its art, the text fitted as on paper), one PNG per card and language, and the
backs of its decks, made once per game by a process of their own (WeasyPrint and pdftoppm:
seconds of CPU that must not hold up a room) and kept in a cache folder under the game's
content hash.

What a page may ask for is decided by its frames. A seat's `table` message names a face
only for a card in its view, by a key made for the room (an HMAC of the room's code and the
card's kind under the server's secret); a hidden card has no key in any frame, and its
place shows the back of its zone (a deck's own back where the zone is that deck, else the
game's), keyed by the zone. The server answers a key only if it made it, so it serves a seat
no face it was not shown, and a URL names no card: a key for a kind is the same wherever
that kind lies, and a back says only which zone it is for.

`python -m rulepress.table.faces FOLDER OUT` is the process: the game's tables on stdin,
its content folder (templates, art; `-` for the built-in templates), the folder to fill.
"""
from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

RENDERER = 2     # how faces are made: a change here makes every cache folder afresh
DPI = 150        # a face 372 px wide: sharp at the table, readable when held up (zoomed)
LANGS = ("en", "ru")
NICE = 10  # how much lower the faces process runs than its server (RULEPRESS_FACES_NICE)
LOCK_POLL = 0.5  # seconds between looks at whether another process still makes a game's faces
MAKE_SECONDS = 900  # one game's faces, both languages, on a busy machine (a bound, never met)
KEY_CHARS = 24   # hex digits of a face's key: 96 bits, never guessed


def default_cache() -> str:
    """Where faces are kept between runs: beside the compiler's cache where RULEPRESS_CACHE_DIR
    moves it (the tests' own folder, say), else the user's cache folder."""
    moved = os.environ.get("RULEPRESS_CACHE_DIR")
    if moved:
        return os.path.join(moved, "faces")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rulepress", "faces")


def settle(work: str, target: str) -> None:
    """Put faces just made (`work`) in their place in the cache. Where another process (a
    second server on the same cache) finished the same faces meanwhile, theirs are kept and
    ours dropped: its pages may be reading them, and they are the same pictures."""
    if os.path.isfile(os.path.join(target, "done")):
        return
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(target)  # (a folder left unfinished)
    try:
        os.replace(work, target)
    except OSError:
        if not os.path.isfile(os.path.join(target, "done")):
            raise  # (not another process finishing first)


def card_kinds(game) -> frozenset:
    """The kinds of thing that are cards (they have a printed face)."""
    return frozenset(k for k, p in (game.data.get("protos") or {}).items() if p.get("section") == "cards")


def back_of(game, zone: str) -> str | None:
    """The back a zone's hidden cards show: its deck's where the zone is a deck, else the
    game's one back where all its cards are of one deck, else the game's own. Read from the
    zone's name alone: never from the cards in it."""
    decks = game.data.get("decks") or {}
    if zone in decks:
        return f"back.{zone}"
    if zone in (game.data.get("pools") or {}):
        return None  # (tokens drawn from a bag: no card back)
    used = {p.get("deck") for k, p in (game.data.get("protos") or {}).items() if p.get("section") == "cards"}
    if len(used) == 1 and next(iter(used)) in decks:
        return f"back.{next(iter(used))}"
    return "back"


SEEN_KEPT = 20_000  # views' faces kept (for_kinds)


class Faces:
    """The faces of the games served: made in the background once, then files to serve."""

    def __init__(self, games: dict, sources: dict | None, cache: str | None, secret: bytes | None = None):
        self.games = games
        self.sources = sources or {}   # game id -> its content folder (templates, art), or None
        self.cache = cache             # None: no faces (the table shows cards by their names)
        # several server processes behind one address share RULEPRESS_TABLE_SECRET, so that a
        # key one made opens a face on another
        given = os.environ.get("RULEPRESS_TABLE_SECRET", "")
        self.secret = secret or (hashlib.sha256(given.encode()).digest() if given else secrets.token_bytes(32))
        self._ready: set = set()
        self._keys: dict = {}   # code -> {name: key} for every face and back of its game
        self._seen: dict = {}   # (code, kinds in a view, zones hiding things) -> for_kinds
        self.proc = None

    def folder(self, game) -> str:
        return os.path.join(self.cache, f"{game.id}-{game.hash}-r{RENDERER}")

    def ready(self, game) -> bool:
        if game.id in self._ready:
            return True
        if self.cache and os.path.isfile(os.path.join(self.folder(game), "done")):
            self._ready.add(game.id)
            return True
        return False

    # ---- keys: what a frame names and a request brings back ---------------------------

    def key(self, code: str, name: str) -> str:
        return hmac.new(self.secret, f"{code}\0{name}".encode("utf-8"), hashlib.sha256).hexdigest()[:KEY_CHARS]

    def for_kinds(self, code: str, game, kinds, hidden_zones) -> str:
        """The keys of a view's faces as the JSON text a table carries, from the kinds of thing
        in it and the zones holding what the seat may not see (messages.Part.sees): {kind: key}
        for the cards, {zone: key} for the backs of those zones; null while none are made.
        Made once for what a room's seats see (a view's kinds change seldom from move to move;
        each key is a keyed hash)."""
        if not self.ready(game):
            return "null"
        seen = (code, tuple(kinds), tuple(hidden_zones))
        made = self._seen.get(seen)
        if made is None:
            if len(self._seen) > SEEN_KEPT:  # (a bound: made again when next asked for)
                self._seen.clear()
            keys = self._keys_of(code, game)
            faces = {k: keys[k] for k in kinds if k in keys}
            backs = {}
            for key in hidden_zones:
                back = back_of(game, key.split(".", 1)[1] if "." in key else key)
                if back is not None:
                    backs[key] = keys[back]
            made = self._seen[seen] = json.dumps({"cards": faces, "backs": backs}, separators=(",", ":"))
        return made

    def file(self, code: str, game, lang: str, key: str) -> str | None:
        """The PNG a key made for this room opens, in `lang`; None for any other key."""
        if lang not in LANGS or not self.ready(game) or len(key) != KEY_CHARS:
            return None
        name = next((n for n, k in self._keys_of(code, game).items() if hmac.compare_digest(k, key)), None)
        if name is None:
            return None
        path = os.path.join(self.folder(game), lang, f"{name}.png")
        return path if os.path.isfile(path) else None

    def _keys_of(self, code: str, game) -> dict:
        """{name: key} for every face and back a room's pages may be given, made once a room."""
        keys = self._keys.get(code)
        if keys is None:
            if len(self._keys) > 5000:  # (a bound: keys are made again when asked for)
                self._keys.clear()
            every = set(card_kinds(game)) | {"back"} | {f"back.{d}" for d in game.data.get("decks") or {}}
            keys = self._keys[code] = {n: self.key(code, n) for n in sorted(every)}
        return keys

    # ---- making them ---------------------------------------------------------------------

    async def make(self, say=None) -> None:
        """Make the faces of every game that has none in the cache yet, one game at a time,
        each in a process of its own at a low priority."""
        if not self.cache:
            return
        for gid in sorted(self.games):
            game = self.games[gid]
            if self.ready(game):
                continue
            try:
                await self._make_one(game)
            except Exception as exc:  # noqa: BLE001 - no faces: the table shows the cards' names
                if say:
                    say(f"rulepress: no card faces for {gid}: {str(exc)[:200]}")

    async def _make_one(self, game) -> None:
        os.makedirs(self.cache, exist_ok=True)
        # one maker at a time for a game's faces in a cache: a second server (`serve
        # --processes 2`) waits for the first's and keeps them rather than make them again
        # (a lock planted as a link to a file elsewhere is refused, never created or opened there)
        try:
            lock = os.open(os.path.join(self.cache, f".{game.id}-{game.hash}.lock"),
                           os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise RuntimeError(f"its lock in the cache cannot be opened ({exc.strerror})") from None
        try:
            deadline = time.monotonic() + MAKE_SECONDS
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("another process has been making them too long") from None
                    await asyncio.sleep(LOCK_POLL)
            if not self.ready(game):
                await self._make_unlocked(game)
        finally:
            os.close(lock)  # (the lock goes with it, as it does with a process killed)

    async def _make_unlocked(self, game) -> None:
        target = self.folder(game)
        work = tempfile.mkdtemp(prefix=f".{game.id}-", dir=self.cache)
        try:
            source = self.sources.get(game.id) or "-"
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "rulepress.table.faces", source, work,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
            try:
                _out, err = await asyncio.wait_for(self.proc.communicate(json.dumps(game.data).encode("utf-8")),
                                                   MAKE_SECONDS)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                await self.proc.wait()
                raise
            if self.proc.returncode != 0:
                raise RuntimeError(err.decode("utf-8", "replace").strip().splitlines()[-1:] or "it failed")
            settle(work, target)
            self._ready.add(game.id)
            # the same game's faces made the way an older version made them are not wanted again
            stale = f"{game.id}-{game.hash}-r"
            for old in os.listdir(self.cache):
                if old.startswith(stale) and old != os.path.basename(target):
                    shutil.rmtree(os.path.join(self.cache, old), ignore_errors=True)
        finally:
            self.proc = None
            shutil.rmtree(work, ignore_errors=True)

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()


def render(tables: dict, folder: str | None, out: str) -> None:
    """Every card's face and every deck's back, in each language, as <out>/<lang>/<name>.png
    (a card by its kind, a back as `back.<deck>`, the game's own back as `back`), then
    <out>/done."""
    from ..compiler.cards import CardSize, BLEED, _hue, render_cards
    from ..compiler.fitting import fitted_faces
    from ..compiler.printing import _pdf
    from ..compiler.render import text_of
    from ..compiler.writing import folder_in, put

    size = CardSize(63.0, 88.0)
    px = lambda mm: round(mm / 25.4 * DPI)  # noqa: E731
    base = folder or os.path.join(out, "-")  # (no game folder: nothing of the user's is read)
    game_name = text_of((tables.get("game") or {}).get("name"), "en", "")
    for lang in LANGS:
        target = folder_in(out, lang)
        faces = fitted_faces(tables, lang, folder, None, size)
        distinct = list({f["id"]: f for f in faces}.values())
        if not distinct:
            continue
        pages = [(distinct[0]["id"], render_cards(tables, lang, "a4", folder, size=size, layout="single", faces=distinct))]
        first = {}
        for f in distinct:
            first.setdefault(f["deck_id"], f)
        for deck, d in (tables.get("decks") or {}).items():
            # (a deck no card names as its own still has a back: its name on its colour)
            f = first.get(deck) or dict(distinct[0], hue=_hue(deck),
                                        back=text_of(d.get("back"), lang) or text_of(d.get("name"), lang, deck))
            pages.append((f"back.{deck}", render_cards(tables, lang, "a4", folder, size=size, layout="back", faces=[f])))
        name = text_of((tables.get("game") or {}).get("name"), lang, game_name)
        own = dict(distinct[0], back=name, hue=_hue(str((tables.get("game") or {}).get("id", ""))))
        pages.append(("back", render_cards(tables, lang, "a4", folder, size=size, layout="back", faces=[own])))
        ids = [f["id"] for f in distinct]
        with tempfile.TemporaryDirectory() as tmp:
            for n, (what, html_text) in enumerate(pages):
                pdf = _pdf(html_text, base, os.path.join(tmp, f"{n}.pdf"))
                bleed = what == ids[0]  # the faces' pages carry their bleed; a back is trimmed
                crop = ["-x", str(px(BLEED)), "-y", str(px(BLEED))] if bleed else []
                done = subprocess.run(["pdftoppm", "-png", "-r", str(DPI), *crop, "-W", str(px(size.w)),
                                       "-H", str(px(size.h)), pdf, os.path.join(tmp, f"{n}-p")],
                                      capture_output=True, check=False, timeout=600)
                if done.returncode != 0:
                    raise RuntimeError(f"pdftoppm: {done.stderr.decode(errors='replace').strip()[:200]}")
                made = sorted(p for p in os.listdir(tmp) if p.startswith(f"{n}-p") and p.endswith(".png"))
                names = ids if bleed else [what]
                for page, cid in zip(made, names):
                    with open(os.path.join(tmp, page), "rb") as fh:
                        put(os.path.join(target, f"{cid}.png"), fh.read())
    put(os.path.join(out, "done"), b"")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m rulepress.table.faces FOLDER|- OUT < game.json", file=sys.stderr)
        return 2
    nice = os.environ.get("RULEPRESS_FACES_NICE", str(NICE))
    if not (nice.isdigit() and int(nice) <= 19):
        print(f"RULEPRESS_FACES_NICE is {nice[:20]!r}: a whole number from 0 to 19", file=sys.stderr)
        return 1
    with contextlib.suppress(OSError, AttributeError):
        os.nice(int(nice))  # (a background job: the rooms come first)
    folder = None if argv[0] == "-" else argv[0]
    try:
        tables = json.load(sys.stdin)
        render(tables, folder, argv[1])
    except Exception as exc:  # noqa: BLE001 - one line for the server's log, never a traceback
        print(f"{type(exc).__name__}: {str(exc)[:300]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
