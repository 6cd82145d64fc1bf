"""The tables' store: rooms, seats and move logs, in SQLite (WAL; one server process) or in
PostgreSQL (`--db postgresql://...`; several server processes sharing the rooms).

A room's game is never stored as a state: it is the seed and the move log, replayed by
the deterministic runtime when the room is first asked for after a start (rooms.py). Each
accepted change (a move, a host action, a seat taken) is written whole or not at all,
together with the room's version, and is shown to anyone only once it is on disk
(synchronous=FULL): a server killed at any moment loses no change it showed.

Writes run on a thread of their own, so the server's event loop never waits for the disk.
The changes that arrive while the disk is busy are committed together (each in a savepoint
of its own: one that fails is undone alone), which keeps a busy server at one disk flush
per batch instead of one per move. Seat tokens are kept only as their sha256.

Every change names the room's version it follows and is refused (Conflict) when the store
has moved on: two processes playing one room never both write a version. In PostgreSQL each
change also tells every process listening which room changed and its new version
(LISTEN/NOTIFY on CHANNEL), so the process holding a seat's socket catches up and sends it
the table. What is read back is untrusted (another process, or anyone with the database,
wrote it): a row of the wrong shape reads as no room at all (Corrupt).
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import queue
import re
import sqlite3
import threading
import time
from typing import NamedTuple

BATCH = 256  # changes committed together at most
CHANNEL = "rulepress_rooms"  # PostgreSQL's notifications: "CODE:VERSION" of each change ("CODE:VERSION:m": a move)
STATUSES = ("lobby", "playing", "paused", "finished")

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
  code TEXT PRIMARY KEY, game TEXT NOT NULL, game_hash TEXT NOT NULL, players INTEGER NOT NULL,
  options TEXT NOT NULL, seed TEXT NOT NULL, status TEXT NOT NULL, version INTEGER NOT NULL,
  game_no INTEGER NOT NULL, created REAL NOT NULL, last_seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seats (
  code TEXT NOT NULL, seat TEXT NOT NULL, name TEXT NOT NULL, token_hash TEXT, bot INTEGER NOT NULL,
  host INTEGER NOT NULL, PRIMARY KEY (code, seat));
CREATE TABLE IF NOT EXISTS moves (
  code TEXT NOT NULL, game_no INTEGER NOT NULL, n INTEGER NOT NULL, seat TEXT NOT NULL,
  choice TEXT NOT NULL, PRIMARY KEY (code, game_no, n));
"""


class RoomRow(NamedTuple):
    code: str
    game: str
    game_hash: str
    players: int
    options: dict
    seed: str
    status: str
    version: int
    game_no: int
    created: float
    last_seen: float


class SeatRow(NamedTuple):
    seat: str
    name: str
    token_hash: str | None
    bot: bool
    host: bool


class Move(NamedTuple):
    seat: str
    choice: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def default_path() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "rulepress", "tables.sqlite3")


class Conflict(Exception):
    """A change that follows a version of the room the store has moved past (another process
    changed it first): nothing of it was written."""


class Corrupt(ValueError):
    """A stored row of a shape this server never writes."""


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


class Store:
    """The SQLite store. `shared` is False: one process owns the file's rooms."""

    shared = False

    def __init__(self, path: str):
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        writer = self._connect()
        writer.executescript(SCHEMA)
        # read from the event loop's thread (the test client runs that loop in a thread of
        # its own, hence check_same_thread off); written only from the writer thread
        self.db = self._connect()
        self._start_writer(writer)

    def _connect(self):
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # a change shown to a player survives a power cut
        db.execute("PRAGMA busy_timeout=5000")
        return db

    def _start_writer(self, writer) -> None:
        self._writes: queue.SimpleQueue = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_all, args=(writer,), name="table-store", daemon=True)
        self._writer.start()

    def close(self) -> None:
        self._writes.put(None)
        self._writer.join(10)
        self.db.close()

    def listen(self, callback) -> None:
        """Changes made by other processes: none share an SQLite store."""

    # ---- reading: rows as this server wrote them, or Corrupt / None ---------------

    def _rows(self, sql: str, args: tuple) -> list:
        return self.db.execute(sql, args).fetchall()

    def room(self, code: str) -> RoomRow | None:
        rows = self._rows("SELECT code, game, game_hash, players, options, seed, status, version, game_no, "
                          "created, last_seen FROM rooms WHERE code = ?", (code,))
        return room_row(rows[0]) if rows else None

    def version(self, code: str) -> int | None:
        """The room's stored version (None: no such room): one look, before a move."""
        rows = self._rows("SELECT version FROM rooms WHERE code = ?", (code,))
        return rows[0][0] if rows and _whole(rows[0][0]) else None

    def seats(self, code: str) -> list[SeatRow]:
        rows = self._rows("SELECT seat, name, token_hash, bot, host FROM seats WHERE code = ? ORDER BY seat", (code,))
        return [seat_row(r) for r in rows[:MAX_SEATS + 1]]

    def moves(self, code: str, game_no: int, start: int = 0) -> list[Move]:
        """The moves of a game from its `start`th on, in order; Corrupt where they skip one."""
        rows = self._rows("SELECT n, seat, choice FROM moves WHERE code = ? AND game_no = ? AND n >= ? ORDER BY n",
                          (code, game_no, start))
        out = []
        for i, (n, seat, choice) in enumerate(rows):
            if n != start + i or not _text(seat, 8) or not _text(choice, CHOICE_CHARS):
                raise Corrupt(f"room {code}: stored move {start + i} is not one this server wrote")
            out.append(Move(seat, choice))
        return out

    def count_rooms(self) -> int:
        return self._rows("SELECT COUNT(*) FROM rooms", ())[0][0]

    def expired(self, before: float) -> list[str]:
        return [r[0] for r in self._rows("SELECT code FROM rooms WHERE last_seen < ?", (before,))
                if isinstance(r[0], str)]

    # ---- writing: each change whole or not at all, awaited until it is on disk -------

    async def _write(self, change, code: str | None = None) -> None:
        """`change` written in the next batch; `code`: the room it changes (PgStore locks the
        rooms of a batch first, in one order, so that two processes' batches never deadlock)."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._writes.put((change, loop, done, code))
        await done

    def _batch(self) -> list | None:
        first = self._writes.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < BATCH:
            try:
                item = self._writes.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._writes.put(None)  # (ends the loop after this batch)
                break
            batch.append(item)
        return batch

    def _write_all(self, db) -> None:
        while (batch := self._batch()) is not None:
            errors = [None] * len(batch)
            try:
                db.execute("BEGIN IMMEDIATE")
                for i, (change, *_) in enumerate(batch):
                    db.execute("SAVEPOINT change")
                    try:
                        change(db)
                        db.execute("RELEASE change")
                    except Exception as exc:  # this change alone is undone
                        db.execute("ROLLBACK TO change")
                        db.execute("RELEASE change")
                        errors[i] = exc
                db.execute("COMMIT")
            except Exception as exc:  # the disk refused the batch: none of it was written
                if db.in_transaction:
                    db.execute("ROLLBACK")
                errors = [exc] * len(batch)
            _settle_all(batch, errors)
        db.close()

    def _notify(self, db, code: str, version: int, move: bool = False) -> None:
        """Tell the other processes (PgStore); alone on its file, nobody to tell. `move`: the
        change was a move alone (the others then read only the moves)."""

    def _bump(self, db, code: str, version: int, sets: str = "", args: tuple = (), move: bool = False) -> None:
        """The room's version from version - 1 to version, with `sets` beside; Conflict when
        the store holds another version (a change made elsewhere first)."""
        cur = db.execute(f"UPDATE rooms SET version = ?{sets} WHERE code = ? AND version = ?",
                         (version, *args, code, version - 1))
        if cur.rowcount != 1:
            raise Conflict(code)
        self._notify(db, code, version, move)

    async def create_room(self, room: RoomRow, host: SeatRow) -> None:
        def change(db):
            db.execute("INSERT INTO rooms VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                       (*room[:4], json.dumps(room.options, sort_keys=True), *room[5:]))
            for i in range(room.players):
                seat = f"p{i + 1}"
                row = host if seat == host.seat else SeatRow(seat, "", None, False, False)
                db.execute("INSERT INTO seats VALUES (?,?,?,?,?,?)", (room.code, *row[:3], int(row.bot), int(row.host)))
        await self._write(change, room.code)

    async def set_seat(self, code: str, version: int, seat: SeatRow) -> None:
        def change(db):
            self._bump(db, code, version)
            db.execute("UPDATE seats SET name = ?, token_hash = ?, bot = ?, host = ? WHERE code = ? AND seat = ?",
                       (seat.name, seat.token_hash, int(seat.bot), int(seat.host), code, seat.seat))
        await self._write(change, code)

    async def set_status(self, code: str, version: int, status: str, game_no: int) -> None:
        await self._write(lambda db: self._bump(db, code, version, ", status = ?, game_no = ?", (status, game_no)), code)

    async def add_move(self, code: str, version: int, game_no: int, n: int, move: Move, status: str) -> None:
        def change(db):
            self._bump(db, code, version, ", status = ?", (status,), move=True)
            db.execute("INSERT INTO moves VALUES (?,?,?,?,?)", (code, game_no, n, move.seat, move.choice))
        await self._write(change, code)

    async def touch(self, code: str, when: float | None = None) -> None:
        when = time.time() if when is None else when
        await self._write(lambda db: db.execute("UPDATE rooms SET last_seen = ? WHERE code = ?", (when, code)), code)

    async def delete_room(self, code: str) -> None:
        def change(db):
            for table in ("moves", "seats", "rooms"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
            self._notify(db, code, 0)
        await self._write(change, code)


# ---- rows read back: each field of the kind and size this server writes ---------------

MAX_SEATS = 64
CHOICE_CHARS = 1000  # (a canonical choice as stored: a client may send 200 characters)
_CODE = re.compile(r"[0-9A-Z]{4,12}")
_SEAT = re.compile(r"p[0-9]{1,2}")
_HASH = re.compile(r"[0-9a-f]{64}")


def _whole(x, top=2**53) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < top


def _text(x, chars: int) -> bool:
    return isinstance(x, str) and 0 < len(x) <= chars


def _time(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def room_row(row) -> RoomRow | None:
    """A stored room as the server keeps it, or None (never served) where any field is not
    one this server writes."""
    try:
        code, game, game_hash, players, options, seed, status, version, game_no, created, last_seen = row
    except (TypeError, ValueError):
        return None
    if not (isinstance(code, str) and _CODE.fullmatch(code) and _text(game, 200) and _text(game_hash, 200)
            and _whole(players, MAX_SEATS + 1) and players >= 1 and _text(seed, 100) and status in STATUSES
            and _whole(version) and _whole(game_no) and _time(created) and _time(last_seen)
            and _text(options, 16 * 1024)):
        return None
    try:
        options = json.loads(options, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(options, dict):
        return None
    return RoomRow(code, game, game_hash, players, options, seed, status, version, game_no, float(created),
                   float(last_seen))


def seat_row(row) -> SeatRow:
    try:
        seat, name, token, bot, host = row
    except (TypeError, ValueError):
        raise Corrupt("a stored seat is not one this server wrote") from None
    if not (isinstance(seat, str) and _SEAT.fullmatch(seat) and isinstance(name, str) and len(name) <= 64
            and (token is None or isinstance(token, str) and _HASH.fullmatch(token))
            and bot in (0, 1) and host in (0, 1)):
        raise Corrupt("a stored seat is not one this server wrote")
    return SeatRow(seat, name, token, bool(bot), bool(host))


def _no_constant(word):
    raise ValueError(word)


def _settle_all(batch, errors) -> None:
    for (_change, loop, done, _code), error in zip(batch, errors):
        loop.call_soon_threadsafe(_settle, done, error)


def _settle(done, error) -> None:
    if not done.done():
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
