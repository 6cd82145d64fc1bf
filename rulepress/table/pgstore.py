"""The tables' store in PostgreSQL (psycopg 3), for several server processes sharing rooms.

The same tables, changes and checks as the SQLite store (store.py: each change whole or not
at all, following the room's version or refused as a Conflict), with two more things:

- every change tells the other processes, in the same transaction (NOTIFY on CHANNEL, sent
  only when it commits), which room changed and its new version, and whether it was a move
  alone (the others then read just the new moves: rooms.Tables.catch_up);
- `listen` hears those on a connection of its own, in a thread, and hands each to the server.

A process killed at any moment leaves the database with whole changes only: a change is
shown to a player only once it has committed, so another process serving the room (seats
reconnect to it) plays on from exactly what players saw. Every query is bounded by a
statement timeout; a lost connection is made again at the next change or look.
"""
from __future__ import annotations

import contextlib
import secrets
import threading

import psycopg

from .store import CHANNEL, SCHEMA, Store, _settle_all

CONNECT_SECONDS = 10
STATEMENT_MS = 10_000
LISTEN_POLL = 1.0  # seconds between the listener's looks at whether it should stop (close wakes it at once)

# the SQLite schema's types where PostgreSQL names them otherwise
PG_SCHEMA = SCHEMA.replace(" REAL ", " DOUBLE PRECISION ").replace(" INTEGER ", " BIGINT ")

class _Db:
    """A psycopg connection spoken to in the SQLite store's words: `?` placeholders."""

    def __init__(self, conn):
        self.conn = conn

    def execute(self, sql: str, args: tuple = ()):
        return self.conn.execute(sql.replace("?", "%s"), args)

class PgStore(Store):
    shared = True

    def __init__(self, url: str):
        self.url = url
        self.path = _shown(url)
        with self._connect() as conn:
            with conn.transaction():
                # (two processes starting at once: one makes the tables, the other waits for it)
                conn.execute("SELECT pg_advisory_xact_lock(7162534)")
                for statement in PG_SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
        self._read = self._connect()
        self._read_lock = threading.Lock()
        self._listener = None
        self._closing = threading.Event()
        # close() wakes this store's listener here rather than wait out its poll
        self._stop_channel = f"rulepress_stop_{secrets.token_hex(8)}"
        self._start_writer(None)

    def _connect(self):
        return psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_SECONDS,
                               options=f"-c statement_timeout={STATEMENT_MS}", application_name="rulepress table")

    def close(self) -> None:
        self._closing.set()
        self._writes.put(None)
        self._writer.join(10)
        if self._listener is not None:
            with self._read_lock, contextlib.suppress(psycopg.Error):
                self._read.execute(f"NOTIFY {self._stop_channel}")
            self._listener.join(LISTEN_POLL * 3)
        with self._read_lock:
            self._read.close()

    def _rows(self, sql: str, args: tuple) -> list:
        with self._read_lock:
            for attempt in (0, 1):
                try:
                    return self._read.execute(sql.replace("?", "%s"), args).fetchall()
                except psycopg.OperationalError:
                    if attempt or self._closing.is_set():
                        raise
                    self._read.close()
                    self._read = self._connect()  # (the server restarted, or dropped an idle link)
        raise AssertionError("unreachable")  # pragma: no cover

    def _write_all(self, _db) -> None:
        conn = None
        while (batch := self._batch()) is not None:
            for attempt in range(BATCH_TRIES):
                errors = [None] * len(batch)
                try:
                    if conn is None or conn.closed:
                        conn = self._connect()
                    db = _Db(conn)
                    with conn.transaction():
                        # the batch's rooms locked first, in the order of their codes: another
                        # process's batch takes them in the same order, never the other way round
                        codes = sorted({code for *_, code in batch if code is not None})
                        if codes:
                            conn.execute("SELECT code FROM rooms WHERE code = ANY(%s) ORDER BY code FOR UPDATE", (codes,))
                        for i, (change, *_) in enumerate(batch):
                            try:
                                with conn.transaction():  # a savepoint: this change alone is undone
                                    change(db)
                            except psycopg.OperationalError:
                                raise
                            except Exception as exc:
                                errors[i] = exc
                except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure) as exc:
                    # (a change of rows beyond its room's, taken in another order by another
                    # process: a deadlock) the database undid this one whole: written again
                    errors = [exc] * len(batch)
                    continue
                except Exception as exc:  # the database refused the batch: none of it was written
                    errors = [exc] * len(batch)
                    if conn is not None and (conn.closed or conn.broken):
                        conn = None
                break
            _settle_all(batch, errors)
        if conn is not None:
            conn.close()

    def _notify(self, db, code: str, version: int, move: bool = False) -> None:
        db.execute("SELECT pg_notify(?, ?)", (CHANNEL, f"{code}:{version}{':m' if move else ''}"))

    def listen(self, callback) -> None:
        """Call `callback(payload)` (in a thread of the store's) for every change committed by
        any process, this one's own among them; `callback(None)` after the link was lost and
        made again (changes may have been missed: look at every room)."""
        def run():
            lost = False
            while not self._closing.is_set():
                try:
                    with self._connect() as conn:
                        conn.execute(f"LISTEN {CHANNEL}")
                        conn.execute(f"LISTEN {self._stop_channel}")
                        if lost:
                            callback(None)
                        while not self._closing.is_set():
                            for note in conn.notifies(timeout=LISTEN_POLL, stop_after=BATCH_NOTES):
                                if note.channel != CHANNEL:
                                    break  # (close() is stopping this store)
                                callback(note.payload)
                except psycopg.Error:
                    lost = True
                    self._closing.wait(1.0)  # (the database away: look again in a second)
        self._listener = threading.Thread(target=run, name="table-listen", daemon=True)
        self._listener.start()

BATCH_NOTES = 256
BATCH_TRIES = 3  # a batch undone by a deadlock with another process's is written again, this many times in all

def _shown(url: str) -> str:
    """The URL as it may be printed: without a password."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return "PostgreSQL"
    where = info.get("host") or "localhost"
    return f"PostgreSQL {info.get('dbname') or ''} at {where}".strip()

