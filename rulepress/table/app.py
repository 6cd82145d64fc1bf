"""The table's web app: pages, the room API and each room's WebSocket (docs/table.md).

Starlette, run by uvicorn (`rulepress serve`). HTTP creates and joins rooms; everything
after that goes over `/ws/CODE`, where the first message says who the socket is (a seat's
token, or a spectator) and every `table` message is made for that seat alone.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import json
import os
import re
import sys
from importlib import resources
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import limits, messages
from .limits import Refused
from .engine import ProcessEngine, ThreadEngine
from .rooms import Tables
from .store import Store, is_postgres

STATIC = str(resources.files(__package__) / "static")
HELLO_SECONDS = 10   # a socket that does not say who it is by then is closed
OUTBOX = 256         # frames waiting for one slow socket before it is dropped
FORBIDDEN = 4403     # close code: a token that opens no seat
UNKNOWN = 4404       # close code: no such room
ELSEWHERE = 4409     # close code: the seat was opened in more tabs than SOCKETS_PER_SEAT
BUSY = 4429          # close code: this address opened or missed too much; try again in a minute


class Conn:
    """One socket at a table. Frames go out through an outbox written by a task of its own, so
    a slow client never holds up the room's other sockets. A `table` (or `peers`) frame
    replaces the one of its kind still waiting, so a page that falls behind gets the table
    as it is now, once, instead of every table it missed: churn cannot pile up work."""

    def __init__(self, ws: WebSocket, seat, token_hash=None, address="?"):
        self.ws, self.seat, self.token_hash, self.address = ws, seat, token_hash, address
        self.outbox: collections.deque | None = collections.deque()
        self.ready = asyncio.Event()
        self.rate = limits.Rate()
        self.writer = None
        self.last_table = None

    def send(self, text: str, kind: str = "") -> None:
        """Queue a frame; `kind` "table" or "peers" replaces a waiting one of its kind,
        "signal" is dropped (never the socket) when the page is far behind."""
        box = self.outbox
        if box is None:
            raise ConnectionError("closed")
        if kind == "table":
            if text == self.last_table:
                return  # (it has this table already: nothing of it changed)
            self.last_table = text
        if kind in ("table", "peers"):
            for i, (k, _t) in enumerate(box):
                if k == kind:
                    del box[i]
                    break
        elif len(box) >= OUTBOX:
            if kind == "signal":
                return
            self.outbox = None  # too far behind: closed, it reconnects and gets the table afresh
            self.ready.set()
            asyncio.get_running_loop().create_task(_quiet_close(self.ws, 1013))
            raise ConnectionError("too slow")
        box.append((kind, text))
        self.ready.set()

    def end(self) -> None:
        """Close after the frames already queued."""
        if self.outbox is not None:
            self.outbox.append(("end", None))
            self.ready.set()

    async def write(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                box = self.outbox
                if box is None:
                    return
                if not box:
                    self.ready.clear()
                    await self.ready.wait()
                    continue
                kind, text = box.popleft()
                if kind == "end":
                    return
                await self.ws.send_text(text)


def broadcast(room) -> None:
    """Every socket of the room gets the table as its seat sees it (made once per seat and
    version: messages.table keeps it), and the seats the list of seats connected."""
    if room.presence_due is not None:  # (this carries the comings and goings too)
        room.presence_due.cancel()
        room.presence_due = None
    connected = room.connected()
    made = {}
    for conn in list(room.sockets):
        if conn.seat not in made:
            made[conn.seat] = messages.table_text(room, conn.seat, connected)
        with contextlib.suppress(ConnectionError):
            conn.send(made[conn.seat], "table")
    if connected != room.peers_sent:
        room.peers_sent = connected
        peers = messages.peers(connected)
        for conn in list(room.sockets):
            if conn.seat is not None:
                with contextlib.suppress(ConnectionError):
                    conn.send(peers, "peers")


def presence(room) -> None:
    """Someone came or went: the room's pages hear of it within PRESENCE_SECONDS, once for all
    the comings and goings of that time (a reconnecting crowd costs one table per page)."""
    if room.presence_due is not None:
        return
    loop = asyncio.get_running_loop()

    async def flush():
        async with room.lock:
            room.presence_due = None
            if room.connected() != room.peers_sent:
                await room.prepare([c.seat for c in list(room.sockets)])
                broadcast(room)

    room.presence_due = loop.call_later(limits.PRESENCE_SECONDS, lambda: loop.create_task(flush()))


# Python's cycle collector walks every object a process holds, each full collection: with 250
# rooms in play a server paused up to 120 ms at a time (600 ms in 15 s), the slowest of its
# moves. A server's own objects (the games' tables) are set aside once loaded, and the
# collector looks again only after this many new objects, not the default 700: a move's
# views are freed as they are sent, and what cycles there are wait a little longer.
YOUNG_OBJECTS = 50_000


def steady_collector() -> None:
    """Set the cycle collector for a server's latency: what is loaded now is never walked
    again (also shared with the processes forked after it, never copied), and collections
    are fewer and shorter (bench/table_load.md)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_OBJECTS, 50, 100)


def create_app(games: dict, db_path: str, expire_hours: float = 72, sweep_seconds: float | None = None,
               clock=None, address_limits: bool = True, workers: int = 0, faces=None,
               shared_budgets=None) -> Starlette:
    """The table's app. `workers`: game work in that many worker processes (engine.py;
    `rulepress serve`), 0 on a thread of each room's own in this process. `faces`: a
    faces.Faces that makes and serves the cards' pictures (None: cards by name).
    `shared_budgets`: a limits.SharedBudgets made before the server processes were forked,
    that they count every address's budgets in (None: this process counts its own)."""
    # (worker processes are forked first, before the store's threads exist)
    engine = ProcessEngine(games, workers) if workers else ThreadEngine(games)
    store = open_store(db_path)
    tables = Tables(games, store, engine=engine, **({"clock": clock} if clock else {}), faces=faces)
    budgets = {name: shared_budgets[name] if shared_budgets is not None else limits.Budget(limit)
               for name, limit in limits.BUDGETS.items()}

    def who(request):
        """The address limits are counted for (None: no limits by address, `--no-address-limits`)."""
        return _address(request) if address_limits else None

    async def sweep():
        every = sweep_seconds or max(1.0, min(600.0, expire_hours * 3600 / 10))
        while True:
            await asyncio.sleep(every)
            with contextlib.suppress(Exception):
                # a room with someone at it is seen now: after a crash it is kept for the whole
                # expiry from here, not from when its seats connected
                for room in list(tables.rooms.values()):
                    if room.sockets:
                        await tables.touch(room)
                await tables.expire(expire_hours)

    def changed_elsewhere(payload) -> None:
        """A change committed to a shared store (by any process, this one too): the rooms
        this process holds catch up, and their sockets get the new table. The payload is
        untrusted (anyone with the database can NOTIFY): anything but CODE:VERSION[:m] is
        ignored, and a note of a move alone only says which moves to read from the store."""
        if payload is None:  # the link was lost: any room may have changed meanwhile
            codes = list(tables.rooms)
            for room in tables.rooms.values():
                room.noted = None
        else:
            said = _NOTE.fullmatch(payload) if isinstance(payload, str) and len(payload) <= 40 else None
            room = tables.rooms.get(said[1]) if said else None
            if room is None or 0 < int(said[2]) <= room.version:  # (0: deleted; else changed unless already seen)
                return
            codes = [room.code]
            if said[3]:  # a move alone: the catch-up may read just the moves
                room.noted = max(room.noted, int(said[2])) if room.noted is not None else None
            else:
                room.noted = None
        for code in codes:
            room = tables.rooms.get(code)
            if room is None:
                continue
            if not room.sockets:  # nobody here to tell: read again when next asked for
                tables.rooms.pop(code, None)
                room.close()
            elif not room.catching:
                room.catching = True
                asyncio.get_running_loop().create_task(catch_up(room))

    async def catch_up(room) -> None:
        async with room.lock:
            room.catching = False
            moves_to, room.noted = room.noted, 0
            if await tables.catch_up(room, moves_to):
                # (the bots after a move are run by the process that made it: not raced here)
                await refresh(room, bots=not room.by_moves)

    async def refresh(room, bots: bool = True) -> None:
        """The room's sockets after it changed elsewhere: its new table, or closed when the
        store no longer serves it."""
        if room.gone:
            tables.rooms.pop(room.code, None)
            for conn in list(room.sockets):
                room.sockets.discard(conn)
                with contextlib.suppress(ConnectionError):
                    conn.send(messages.error("this room is no longer served"))
                asyncio.get_running_loop().create_task(_drain_and_close(conn, UNKNOWN))
            room.close()
            return
        if bots and room.waits_on_bots():
            await tables.run_bots(room)  # (the process that ran them stopped halfway)
        await room.prepare([c.seat for c in list(room.sockets)])
        broadcast(room)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        loop = asyncio.get_running_loop()
        store.listen(lambda payload: loop.call_soon_threadsafe(changed_elsewhere, payload))
        task = asyncio.create_task(sweep())
        making = asyncio.create_task(faces.make(_say)) if faces is not None else None
        try:
            yield
        finally:
            task.cancel()
            if making is not None:  # (the process making faces ends with the server)
                faces.stop()
                making.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(making, 10)
            for room in list(tables.rooms.values()):
                room.close()
            engine.close()
            store.close()

    def page(name: str) -> Response:
        with open(os.path.join(STATIC, name), encoding="utf-8") as fh:
            return HTMLResponse(fh.read(), headers=_PAGE_HEADERS)

    def not_found(message="There is no room with this code. It may have expired.", status=404) -> Response:
        html = _NOT_FOUND.replace("{message}", _escape(message))
        return HTMLResponse(html, status_code=status, headers=_PAGE_HEADERS)

    async def find(code, address):
        """The room of a code, counting a code that opens none against its address (MISSES)."""
        if not budgets["miss"].allows(address):
            raise Refused(_TOO_MANY_MISSES, 429)
        room = await tables.get(code)
        if room is None:
            budgets["miss"].take(address)
            raise Refused("no room with this code", 404)
        return room

    async def lobby(request: Request):
        return page("lobby.html")

    async def play_page(request: Request):
        try:
            await find(request.path_params["code"], who(request))
        except Refused as exc:
            return not_found(*(() if exc.status == 404 else (str(exc), exc.status)))
        return page("table.html")

    async def game_list(request: Request):
        out = []
        for g in sorted(games.values(), key=lambda g: g.id):
            info = g.data["game"]
            out.append({"id": g.id, "title": info.get("name") or {"en": g.id},
                        "players": {"min": g.players_min, "max": g.players_max},
                        "options": g.options, "option_texts": info.get("option_texts") or {}})
        return JSONResponse(out)

    async def create_room(request: Request):
        address = who(request)
        try:
            _check_origin(request.headers)
            body = await _body(request)
            if not budgets["create"].allows(address):
                raise Refused("too many rooms made from this address; try again in a few minutes", 429)
            j = await tables.create(body.get("game"), body.get("players"), body.get("options"), body.get("name"),
                                    address, body.get("spectators_see_all", False))
            budgets["create"].take(address)
        except Refused as exc:
            return _refusal(exc)
        return JSONResponse({"code": j.room.code, "seat": j.seat, "token": j.token, "host": True,
                             "url": f"/r/{j.room.code}"})

    async def join_room(request: Request):
        address = who(request)
        try:
            _check_origin(request.headers)
            body = await _body(request)
            if not budgets["join"].allows(address):
                raise Refused("too many joins from this address; try again in a minute", 429)
            room = await find(request.path_params["code"], address)
            j = await tables.join(room.code, body.get("name"))
            budgets["join"].take(address)
        except Refused as exc:
            return _refusal(exc)
        async with j.room.lock:
            await j.room.prepare([c.seat for c in list(j.room.sockets)])
            broadcast(j.room)
        return JSONResponse({"code": j.room.code, "seat": j.seat, "token": j.token, "host": False,
                             "url": f"/r/{j.room.code}"})

    async def face(request: Request):
        """A card's face or a zone's back, by a key a frame of this room named (faces.py)."""
        try:
            room = await find(request.path_params["code"], who(request))
        except Refused as exc:
            return Response(status_code=exc.status)
        path = faces.file(room.code, room.game, request.path_params["lang"], request.path_params["key"]) \
            if faces is not None else None
        if path is None:
            return Response(status_code=404)
        return FileResponse(path, media_type="image/png", headers={
            "Cache-Control": "private, max-age=86400", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer"})

    async def socket(ws: WebSocket):
        address = who(ws)
        if not _same_origin(ws.headers):  # another site's page opening a socket in its visitor's name
            await ws.close(FORBIDDEN)
            return
        await ws.accept()
        try:
            room = await find(ws.path_params["code"], address)
        except Refused as exc:
            await _close(ws, str(exc), UNKNOWN if exc.status == 404 else BUSY)
            return
        try:
            hello = messages.parse(await asyncio.wait_for(_text(ws), HELLO_SECONDS))
            if hello.type != "hello":
                raise Refused('the first message is {"type": "hello", ...}')
            if hello.fields.get("watch"):
                seat = None
            elif not budgets["miss"].allows(address):
                raise Refused(_TOO_MANY_MISSES, BUSY)
            else:
                try:
                    seat = room.seat_of(hello.fields.get("token"))
                except Refused:
                    budgets["miss"].take(address)
                    raise
        except (asyncio.TimeoutError, WebSocketDisconnect):
            await _close(ws, "say hello first", 1008)
            return
        except Refused as exc:
            await _close(ws, str(exc), exc.status if exc.status >= 4000 else FORBIDDEN if exc.status == 403 else 1008)
            return
        if seat is None:  # a spectator: bounded per room and per address; seats never count here
            watching = [c for c in room.sockets if c.seat is None]
            if not budgets["open"].take(address):
                await _close(ws, "too many sockets opened from this address; try again in a minute", BUSY)
                return
            if len(watching) >= limits.SPECTATORS_PER_ROOM \
                    or address is not None and sum(c.address == address for c in watching) >= limits.SPECTATORS_PER_ADDRESS:
                await _close(ws, "this table has as many spectators as it takes", 1013)
                return
        conn = Conn(ws, seat, room.seats[seat].token_hash if seat is not None else None, address)
        conn.writer = asyncio.create_task(conn.write())
        async with room.lock:
            if seat is not None:  # a seat always gets in: its oldest tab past the bound makes way
                mine = [c for c in room.sockets if c.seat == seat]
                for old in mine[:max(0, len(mine) - limits.SOCKETS_PER_SEAT + 1)]:
                    room.sockets.discard(old)
                    with contextlib.suppress(ConnectionError):
                        old.send(messages.error("this seat was opened in another tab"))
                    asyncio.get_running_loop().create_task(_drain_and_close(old, ELSEWHERE))
            if store.shared and await tables.catch_up(room):  # (changed elsewhere since it was read)
                if room.gone:
                    room.sockets.add(conn)
                    await refresh(room)
                    return
            room.sockets.add(conn)
            if seat is not None:
                await tables.touch(room)
                if room.waits_on_bots():
                    await tables.run_bots(room)  # (a process stopped while its bots played: they go on)
            await room.prepare([seat])
            conn.send(messages.names(room.game), "names")  # (once a socket: no table carries names)
            conn.send(messages.table_text(room, seat, room.connected()), "table")
            if seat is not None:
                conn.send(messages.peers(room.connected()), "peers")  # (the others hear of it below)
                presence(room)
        try:
            await _serve(ws, conn, room)
        finally:
            async with room.lock:
                if conn in room.sockets:
                    room.sockets.discard(conn)
                    if seat is not None:
                        await tables.touch(room)
                        presence(room)
            conn.end()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(conn.writer, 5)

    async def _serve(ws: WebSocket, conn: Conn, room) -> None:
        while True:
            try:
                text = await _text(ws)
            except WebSocketDisconnect:
                return
            except Refused as exc:  # a binary frame: counted like any other below
                text = exc
            if conn.outbox is None:
                return
            if not conn.rate.allow():
                conn.send(messages.error(f"more than {limits.MESSAGES_PER_SECOND} messages a second"))
                await _drain_and_close(conn, 1008)
                return
            try:
                if isinstance(text, Refused):
                    raise text
                msg = messages.parse(text)
            except Refused as exc:
                conn.send(messages.error(str(exc)))
                if exc.status == 1009:
                    await _drain_and_close(conn, 1009)
                    return
                continue
            if conn.seat is not None and room.seats[conn.seat].token_hash != conn.token_hash:
                conn.send(messages.error("this seat was freed by the host"))
                await _drain_and_close(conn, FORBIDDEN)
                return
            await handle(conn, room, msg)
            if conn.outbox is None:
                return

    async def handle(conn: Conn, room, msg) -> None:
        if msg.type == "ping":
            conn.send(messages.dumps({"type": "pong"}))
        elif msg.type == "hello":
            conn.send(messages.error("hello is said once, first"))
        elif conn.seat is None:
            conn.send(messages.error("spectators watch; they do not play"))
        elif msg.type == "signal":
            to = msg.fields["to"]
            if to not in room.seats or to == conn.seat:
                conn.send(messages.error("signal: no such other seat"))
                return
            # per seat, whatever its tabs: over the rate a signal is dropped with a word to its
            # sender; the seat it was for is never closed for it
            rate = room.signal_rates.setdefault(conn.seat, limits.Rate(limits.SIGNALS_PER_SECOND))
            if not rate.allow():
                conn.send(messages.error(f"more than {limits.SIGNALS_PER_SECOND} signals a second; this one was dropped"))
                return
            frame = messages.dumps({"type": "signal", "from": conn.seat, "data": msg.fields["data"]})
            for other in list(room.sockets):
                if other.seat == to:
                    with contextlib.suppress(ConnectionError):
                        other.send(frame, "signal")
        else:
            async with room.lock:
                if msg.type == "move":
                    out = await tables.move(room, conn.seat, msg.fields["version"], msg.fields["choice"])
                else:
                    freed = room.seats.get(msg.fields.get("seat"))
                    out = await tables.host(room, conn.seat, msg.fields["action"], msg.fields.get("seat"))
                    if out.changed and msg.fields["action"] == "free" and freed is not None:
                        for other in list(room.sockets):
                            if other.seat == freed.seat:
                                room.sockets.discard(other)
                                with contextlib.suppress(ConnectionError):
                                    # its voice page hangs up on every call (static/voice.js)
                                    other.send(messages.dumps({"type": "peers", "seats": [], "freed": True}))
                                    other.send(messages.error("this seat was freed by the host"))
                                asyncio.get_running_loop().create_task(_drain_and_close(other, FORBIDDEN))
                if out.stale:
                    conn.send(messages.dumps({"type": "refused", "message": "the table has already changed"}))
                    conn.last_table = None  # (sent again after the refusal, even if unchanged)
                    await room.prepare([conn.seat])
                    conn.send(messages.table_text(room, conn.seat, room.connected()), "table")
                elif out.error:
                    conn.send(messages.error(out.error))
                else:
                    # the seats' views of the new table are made where the game is, too
                    await room.prepare([c.seat for c in list(room.sockets)])
                    broadcast(room)

    routes = [
        Route("/", lobby),
        Route("/api/games", game_list),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
        Route("/r/{code}", play_page),
        Route("/watch/{code}", play_page),
        Route("/obs/{code}", play_page),
        Route("/faces/{code}/{lang}/{key}.png", face),
        WebSocketRoute("/ws/{code}", socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.tables = tables
    return app


def open_store(db: str):
    """The store named by `--db`: a PostgreSQL URL (pgstore.py, psycopg imported only then),
    else an SQLite file."""
    if is_postgres(db):
        from .pgstore import PgStore
        return PgStore(db)
    return Store(db)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def _text(ws: WebSocket) -> str:
    msg = await ws.receive()
    if msg["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(msg.get("code", 1000))
    if msg.get("text") is None:
        raise Refused("messages are JSON text frames")
    return msg["text"]


async def _quiet_close(ws: WebSocket, code: int) -> None:
    with contextlib.suppress(Exception):
        await ws.close(code)


async def _close(ws: WebSocket, message: str, code: int) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(messages.error(message))
        await ws.close(code)


async def _drain_and_close(conn: Conn, code: int) -> None:
    """Close after the frames already queued (the error saying why among them) are sent."""
    if conn.outbox is not None:
        conn.end()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(conn.writer), 5)
    conn.outbox = None
    conn.ready.set()
    with contextlib.suppress(Exception):
        await conn.ws.close(code)


async def _body(request: Request) -> dict:
    """A request's JSON object, read no further than the size limit."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limits.MESSAGE_BYTES):
        raise Refused(f"a request of at most {limits.MESSAGE_BYTES // 1024} KiB", 413)
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limits.MESSAGE_BYTES:
            raise Refused(f"a request of at most {limits.MESSAGE_BYTES // 1024} KiB", 413)
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks).decode("utf-8"), parse_constant=messages._no_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused("the request is a JSON object") from None
    if not isinstance(data, dict):
        raise Refused("the request is a JSON object")
    return data


def _address(request) -> str:
    """Who is asking, as far as limits go: the peer's address (behind a proxy, the proxy's:
    run the table's own port open to players, or give the proxy limits of its own)."""
    return request.client.host if request.client else "?"


def _same_origin(headers) -> bool:
    """A browser names the page a request comes from; another site's is refused. A client
    that is no browser names none and has no visitor to act for."""
    origin = headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == (headers.get("host") or "").lower()


def _check_origin(headers) -> None:
    if not _same_origin(headers):
        raise Refused("requests come from the table's own pages", 403)


_NOTE = re.compile(r"([0-9A-Z]{4,12}):([0-9]{1,15})(:m)?", re.ASCII)
_TOO_MANY_MISSES = "too many codes or links that open nothing; try again in a minute"


def _refusal(exc: Refused) -> JSONResponse:
    return JSONResponse({"error": str(exc)}, status_code=exc.status if 400 <= exc.status < 600 else 400)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_PAGE_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                 "Referrer-Policy": "no-referrer"}

_NOT_FOUND = """<!doctype html><html><head><meta charset="utf-8"><title>No such room</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/static/table.css">
</head><body><main class="notfound"><h1>404</h1><p id="notfound">{message}</p><p><a href="/">Lobby / Лобби</a></p></main></body></html>
"""
