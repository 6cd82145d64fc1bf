"""The table's web app: pages, the room API and each room's WebSocket (docs/table.md).

Starlette, run by uvicorn (`rulepress serve`). HTTP creates and joins rooms; everything
after that goes over `/ws/CODE`, where the first message says who the socket is (a seat's
token, or a spectator) and every `table` message is made for that seat alone.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
from importlib import resources

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from . import limits, messages
from .limits import Refused
from .rooms import Tables
from .store import Store

STATIC = str(resources.files(__package__) / "static")
HELLO_SECONDS = 10   # a socket that does not say who it is by then is closed
OUTBOX = 256         # frames waiting for one slow socket before it is dropped
FORBIDDEN = 4403     # close code: a token that opens no seat
UNKNOWN = 4404       # close code: no such room


class Conn:
    """One socket at a table. Frames go out through a queue written by a task of its own, so
    a slow client never holds up the room's other sockets."""

    def __init__(self, ws: WebSocket, seat, token_hash=None):
        self.ws, self.seat, self.token_hash = ws, seat, token_hash
        self.outbox: asyncio.Queue = asyncio.Queue(OUTBOX)
        self.rate = limits.Rate()
        self.writer = None

    def send(self, text: str) -> None:
        if self.outbox is None:
            raise ConnectionError("closed")
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:  # too far behind: closed, it reconnects and gets the table afresh
            self.outbox = None
            if self.writer is not None:
                self.writer.cancel()
            asyncio.get_running_loop().create_task(_quiet_close(self.ws, 1013))
            raise ConnectionError("too slow") from None

    async def write(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                text = await self.outbox.get()
                if text is None:
                    return
                await self.ws.send_text(text)


def broadcast(room) -> None:
    """Every socket of the room gets the table as its seat sees it (made once per seat)."""
    connected = room.connected()
    made = {}
    for conn in list(room.sockets):
        if conn.seat not in made:
            made[conn.seat] = messages.dumps(messages.table(room, conn.seat, connected))
        with contextlib.suppress(ConnectionError):
            conn.send(made[conn.seat])
    peers = messages.dumps({"type": "peers", "seats": sorted(connected, key=lambda s: int(s[1:]))})
    for conn in list(room.sockets):
        if conn.seat is not None:
            with contextlib.suppress(ConnectionError):
                conn.send(peers)


def create_app(games: dict, db_path: str, expire_hours: float = 72, sweep_seconds: float | None = None,
               clock=None) -> Starlette:
    store = Store(db_path)
    tables = Tables(games, store, **({"clock": clock} if clock else {}))

    async def sweep():
        every = sweep_seconds or max(1.0, min(600.0, expire_hours * 3600 / 10))
        while True:
            await asyncio.sleep(every)
            with contextlib.suppress(Exception):
                await tables.expire(expire_hours)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.create_task(sweep())
        try:
            yield
        finally:
            task.cancel()
            store.close()

    def page(name: str) -> Response:
        with open(os.path.join(STATIC, name), encoding="utf-8") as fh:
            return HTMLResponse(fh.read(), headers=_PAGE_HEADERS)

    def not_found(message="There is no room with this code. It may have expired.") -> Response:
        html = _NOT_FOUND.replace("{message}", _escape(message))
        return HTMLResponse(html, status_code=404, headers=_PAGE_HEADERS)

    async def lobby(request: Request):
        return page("lobby.html")

    async def play_page(request: Request):
        if tables.get(request.path_params["code"]) is None:
            return not_found()
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
        try:
            body = await _body(request)
            j = await tables.create(body.get("game"), body.get("players"), body.get("options"), body.get("name"))
        except Refused as exc:
            return _refusal(exc)
        return JSONResponse({"code": j.room.code, "seat": j.seat, "token": j.token, "host": True,
                             "url": f"/r/{j.room.code}"})

    async def join_room(request: Request):
        try:
            body = await _body(request)
            j = await tables.join(request.path_params["code"], body.get("name"))
        except Refused as exc:
            return _refusal(exc)
        broadcast(j.room)
        return JSONResponse({"code": j.room.code, "seat": j.seat, "token": j.token, "host": False,
                             "url": f"/r/{j.room.code}"})

    async def socket(ws: WebSocket):
        await ws.accept()
        room = tables.get(ws.path_params["code"])
        if room is None:
            await _close(ws, "no room with this code", UNKNOWN)
            return
        try:
            hello = messages.parse(await asyncio.wait_for(_text(ws), HELLO_SECONDS))
            if hello.type != "hello":
                raise Refused('the first message is {"type": "hello", ...}')
            seat = None if hello.fields.get("watch") else room.seat_of(hello.fields.get("token"))
        except (asyncio.TimeoutError, WebSocketDisconnect):
            await _close(ws, "say hello first", 1008)
            return
        except Refused as exc:
            await _close(ws, str(exc), FORBIDDEN if exc.status == 403 else 1008)
            return
        if len(room.sockets) >= limits.SOCKETS_PER_ROOM:
            await _close(ws, "this table has too many sockets open", 1013)
            return
        conn = Conn(ws, seat, room.seats[seat].token_hash if seat is not None else None)
        conn.writer = asyncio.create_task(conn.write())
        async with room.lock:
            room.sockets.add(conn)
            await tables.touch(room)
            broadcast(room)
        try:
            await _serve(ws, conn, room)
        finally:
            async with room.lock:
                room.sockets.discard(conn)
                await tables.touch(room)
                broadcast(room)
            if conn.outbox is not None:
                with contextlib.suppress(asyncio.QueueFull):
                    conn.outbox.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.writer, 5)

    async def _serve(ws: WebSocket, conn: Conn, room) -> None:
        while True:
            try:
                text = await _text(ws)
            except WebSocketDisconnect:
                return
            except Refused as exc:  # a binary frame: counted like any other below
                text = exc
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
            frame = messages.dumps({"type": "signal", "from": conn.seat, "data": msg.fields["data"]})
            for other in list(room.sockets):
                if other.seat == to:
                    with contextlib.suppress(ConnectionError):
                        other.send(frame)
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
                                other.send(messages.error("this seat was freed by the host"))
                                await _drain_and_close(other, FORBIDDEN)
                                room.sockets.discard(other)
                if out.stale:
                    conn.send(messages.dumps({"type": "refused", "message": "the table has already changed"}))
                    conn.send(messages.dumps(messages.table(room, conn.seat, room.connected())))
                elif out.error:
                    conn.send(messages.error(out.error))
                else:
                    broadcast(room)

    routes = [
        Route("/", lobby),
        Route("/api/games", game_list),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
        Route("/r/{code}", play_page),
        Route("/watch/{code}", play_page),
        Route("/obs/{code}", play_page),
        WebSocketRoute("/ws/{code}", socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.tables = tables
    return app


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
        with contextlib.suppress(asyncio.QueueFull):
            conn.outbox.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.writer, 5)
    conn.outbox = None
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
