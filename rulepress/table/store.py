"""The tables' store: rooms, seats and move logs in SQLite (WAL).

A room's game is never stored as a state: it is the seed and the move log, replayed by
the deterministic runtime when the room is first asked for after a start (rooms.py). Each
accepted change (a move, a host action, a seat taken) is written whole or not at all,
together with the room's version, and is shown to anyone only once it is on disk
(synchronous=FULL): a server killed at any moment loses no change it showed.

Writes run on a thread of their own, so the server's event loop never waits for the disk.
The changes that arrive while the disk is busy are committed together (each in a savepoint
of its own: one that fails is undone alone), which keeps a busy server at one disk flush
per batch instead of one per move. Seat tokens are kept only as their sha256.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import queue
import sqlite3
import threading
import time
from typing import NamedTuple

BATCH = 256  # changes committed together at most

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


class Store:
    def __init__(self, path: str):
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        writer = self._connect()
        writer.executescript(SCHEMA)
        # read from the event loop's thread (the test client runs that loop in a thread of
        # its own, hence check_same_thread off); written only from the writer thread
        self.db = self._connect()
        self._writes: queue.SimpleQueue = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_all, args=(writer,), name="table-store", daemon=True)
        self._writer.start()

    def _connect(self):
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")  # a change shown to a player survives a power cut
        db.execute("PRAGMA busy_timeout=5000")
        return db

    def close(self) -> None:
        self._writes.put(None)
        self._writer.join(10)
        self.db.close()

    # ---- reading -----------------------------------------------------------------

    def room(self, code: str) -> RoomRow | None:
        row = self.db.execute("SELECT code, game, game_hash, players, options, seed, status, version, game_no, "
                              "created, last_seen FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None:
            return None
        return RoomRow(*row[:4], json.loads(row[4]), *row[5:])

    def seats(self, code: str) -> list[SeatRow]:
        rows = self.db.execute("SELECT seat, name, token_hash, bot, host FROM seats WHERE code = ? ORDER BY seat",
                               (code,)).fetchall()
        return [SeatRow(s, n, t, bool(b), bool(h)) for s, n, t, b, h in rows]

    def moves(self, code: str, game_no: int) -> list[Move]:
        rows = self.db.execute("SELECT seat, choice FROM moves WHERE code = ? AND game_no = ? ORDER BY n",
                               (code, game_no)).fetchall()
        return [Move(*r) for r in rows]

    def count_rooms(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]

    def expired(self, before: float) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT code FROM rooms WHERE last_seen < ?", (before,))]

    # ---- writing: each change whole or not at all, awaited until it is on disk -------

    async def _write(self, change) -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._writes.put((change, loop, done))
        await done

    def _write_all(self, db) -> None:
        while True:
            first = self._writes.get()
            if first is None:
                break
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
            errors = [None] * len(batch)
            try:
                db.execute("BEGIN IMMEDIATE")
                for i, (change, _loop, _done) in enumerate(batch):
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
            for (_change, loop, done), error in zip(batch, errors):
                loop.call_soon_threadsafe(_settle, done, error)
        db.close()

    async def create_room(self, room: RoomRow, host: SeatRow) -> None:
        def change(db):
            db.execute("INSERT INTO rooms VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                       (*room[:4], json.dumps(room.options, sort_keys=True), *room[5:]))
            for i in range(room.players):
                seat = f"p{i + 1}"
                row = host if seat == host.seat else SeatRow(seat, "", None, False, False)
                db.execute("INSERT INTO seats VALUES (?,?,?,?,?,?)", (room.code, *row))
        await self._write(change)

    async def set_seat(self, code: str, version: int, seat: SeatRow) -> None:
        def change(db):
            db.execute("UPDATE seats SET name = ?, token_hash = ?, bot = ?, host = ? WHERE code = ? AND seat = ?",
                       (seat.name, seat.token_hash, seat.bot, seat.host, code, seat.seat))
            db.execute("UPDATE rooms SET version = ? WHERE code = ?", (version, code))
        await self._write(change)

    async def set_status(self, code: str, version: int, status: str, game_no: int) -> None:
        await self._write(lambda db: db.execute("UPDATE rooms SET status = ?, version = ?, game_no = ? WHERE code = ?",
                                                (status, version, game_no, code)))

    async def add_move(self, code: str, version: int, game_no: int, n: int, move: Move, status: str) -> None:
        def change(db):
            db.execute("INSERT INTO moves VALUES (?,?,?,?,?)", (code, game_no, n, move.seat, move.choice))
            db.execute("UPDATE rooms SET version = ?, status = ? WHERE code = ?", (version, status, code))
        await self._write(change)

    async def touch(self, code: str, when: float | None = None) -> None:
        when = time.time() if when is None else when
        await self._write(lambda db: db.execute("UPDATE rooms SET last_seen = ? WHERE code = ?", (when, code)))

    async def delete_room(self, code: str) -> None:
        def change(db):
            for table in ("moves", "seats", "rooms"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        await self._write(change)


def _settle(done, error) -> None:
    if not done.done():
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
