"""The tables' store: rooms, seats and move logs in SQLite (WAL).

A room's game is never stored as a state: it is the seed and the move log, replayed by
the deterministic runtime when the room is first asked for after a start (rooms.py). Each
accepted change (a move, a host action, a seat taken) is one transaction that also moves
the room's version on, so a server killed at any moment leaves either the whole change or
none of it. Seat tokens are kept only as their sha256.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from typing import NamedTuple

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
        # one connection, used only from the server's event loop (the test client runs that
        # loop in a thread of its own, hence check_same_thread off)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # an accepted move survives a power cut
        self.db.execute("PRAGMA foreign_keys=OFF")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def _tx(self):
        return _Transaction(self.db)

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

    # ---- writing: each a transaction of its own ------------------------------------

    def create_room(self, room: RoomRow, host: SeatRow) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO rooms VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                       (*room[:4], json.dumps(room.options, sort_keys=True), *room[5:]))
            for i in range(room.players):
                seat = f"p{i + 1}"
                row = host if seat == host.seat else SeatRow(seat, "", None, False, False)
                db.execute("INSERT INTO seats VALUES (?,?,?,?,?,?)", (room.code, *row))

    def set_seat(self, code: str, version: int, seat: SeatRow) -> None:
        with self._tx() as db:
            db.execute("UPDATE seats SET name = ?, token_hash = ?, bot = ?, host = ? WHERE code = ? AND seat = ?",
                       (seat.name, seat.token_hash, seat.bot, seat.host, code, seat.seat))
            db.execute("UPDATE rooms SET version = ? WHERE code = ?", (version, code))

    def set_status(self, code: str, version: int, status: str, game_no: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE rooms SET status = ?, version = ?, game_no = ? WHERE code = ?",
                       (status, version, game_no, code))

    def add_move(self, code: str, version: int, game_no: int, n: int, move: Move, status: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO moves VALUES (?,?,?,?,?)", (code, game_no, n, move.seat, move.choice))
            db.execute("UPDATE rooms SET version = ?, status = ? WHERE code = ?", (version, status, code))

    def touch(self, code: str, when: float | None = None) -> None:
        with self._tx() as db:
            db.execute("UPDATE rooms SET last_seen = ? WHERE code = ?", (time.time() if when is None else when, code))

    def delete_room(self, code: str) -> None:
        with self._tx() as db:
            for table in ("moves", "seats", "rooms"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any error: never half a change."""

    def __init__(self, db):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, exc, tb):
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
        return False
