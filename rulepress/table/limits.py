"""What the table accepts from a browser, and how much of it (docs/table.md, "Limits").

Everything a client sends is untrusted: a message, a name, a room code, a game option.
Each check here either returns the value as the server keeps it or raises Refused with the
one line the client is told.
"""
from __future__ import annotations

import hashlib
import mmap
import multiprocessing
import re
import secrets
import struct
import time

MESSAGE_BYTES = 16 * 1024      # one WebSocket message, or one HTTP request body
MESSAGES_PER_SECOND = 20       # per socket; over it: an error, then the socket is closed (1008)
NAME_CHARS = 32                # a display name
ROOMS_OPEN = 1000              # rooms kept at once; a new one past it is refused
ROOMS_PER_ADDRESS = 10         # rooms one address keeps open at once
SPECTATORS_PER_ROOM = 48       # spectators' sockets; a seat's own sockets never count here
SPECTATORS_PER_ADDRESS = 4     # one address's spectator sockets at one room
SOCKETS_PER_SEAT = 4           # tabs of one seat; a fifth closes the oldest (4409)
SIGNALS_PER_SECOND = 10        # a seat's voice signalling; over it the signal is dropped, nobody closed
PRESENCE_SECONDS = 0.25        # comings and goings reach the room's pages at most this often
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud and typed from a screen
CODE_LENGTH = 8                # 31^8 codes: with every room open, one guess in 850 million finds one
CODE_LENGTHS = (6, 8)          # (rooms made when codes had six characters still open)

# Budgets of one address: (at once, then so many a minute). A "miss" is a room code that
# opens no room or a token that opens no seat: ten a minute from one address find one of a
# thousand open rooms in 31^8 / 1000 / (10 * 60 * 24 * 365) = 160 years on average.
CREATES = (10, 2)
JOINS = (20, 10)
SOCKET_OPENS = (30, 60)        # spectators' sockets and hellos that open no seat
MISSES = (10, 10)
BUDGETS = {"create": CREATES, "join": JOINS, "open": SOCKET_OPENS, "miss": MISSES}
OPTION_TEXT_CHARS = 200


class Refused(Exception):
    """An input refused, with its HTTP status (or WebSocket close code) and a one-line message."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


_CODE = re.compile(f"[{CODE_ALPHABET}]{{{min(CODE_LENGTHS)},{max(CODE_LENGTHS)}}}")


def room_code(text) -> str | None:
    """A room code as typed (any case, spaces around), or None when it cannot be one."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    code = text.strip().upper()
    return code if _CODE.fullmatch(code) and len(code) in CODE_LENGTHS else None


def display_name(text) -> str:
    if not isinstance(text, str):
        raise Refused("a display name is a text")
    name = " ".join(text.split())  # no newlines, tabs or runs of spaces
    if not name:
        raise Refused("a display name is needed")
    if len(name) > NAME_CHARS:
        raise Refused(f"a display name of at most {NAME_CHARS} characters")
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069
           for c in name):
        raise Refused("a display name without control characters")
    return name


def game_options(game, given) -> dict:
    """A room's game options: each a known option, its value of its default's kind."""
    if given is None:
        return {}
    if not isinstance(given, dict) or len(given) > 100:
        raise Refused("options are an object of option names and values")
    out = {}
    for name, value in given.items():
        if name not in game.options:
            raise Refused(f"{game.id} has no option `{str(name)[:40]}`")
        default = game.options[name]
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, (int, float)):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
                and abs(value) < 1e12
        else:
            ok = isinstance(value, str) and len(value) <= OPTION_TEXT_CHARS
        if not ok:
            raise Refused(f"option `{name}`: a value like its default {default!r}")
        out[name] = value
    return out


class Rate:
    """At most `per_second` events in any second (a sliding window of their times)."""

    def __init__(self, per_second: int | None = None, clock=time.monotonic):
        self.per_second = MESSAGES_PER_SECOND if per_second is None else per_second
        self.clock, self.times = clock, []

    def allow(self) -> bool:
        now = self.clock()
        self.times = [t for t in self.times if now - t < 1.0]
        if len(self.times) >= self.per_second:
            return False
        self.times.append(now)
        return True


class Budget:
    """What each address may still do: `burst` at once, given back at `per_minute` (a token
    bucket per address). Addresses are forgotten once their bucket is full again, and the
    table of them is bounded: past `keys` addresses, the fullest are dropped first."""

    def __init__(self, limit: tuple, clock=time.monotonic, keys: int = 20_000):
        self.burst, self.per_minute = limit
        self.clock, self.keys = clock, keys
        self.left: dict = {}  # address -> (tokens, when counted)

    def _now_left(self, key, now) -> float:
        tokens, then = self.left.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - then) * self.per_minute / 60)

    def allows(self, key) -> bool:
        """Whether `key` has a token now, without spending it (None: no address, no limit)."""
        return key is None or self._now_left(key, self.clock()) >= 1

    def take(self, key) -> bool:
        if key is None:
            return True
        now = self.clock()
        tokens = self._now_left(key, now)
        if tokens < 1:
            return False
        if len(self.left) >= self.keys and key not in self.left:
            self._forget(now)
        self.left[key] = (tokens - 1, now)
        return True

    def _forget(self, now) -> None:
        full = [k for k in self.left if self._now_left(k, now) >= self.burst]
        for k in full:
            del self.left[k]
        if len(self.left) >= self.keys:  # a flood of addresses: the fullest half goes
            ranked = sorted(self.left, key=lambda k: -self._now_left(k, now))
            for k in ranked[:len(ranked) // 2 + 1]:
                del self.left[k]


class SharedBudgets:
    """The budgets of every address (`CREATES`, `JOINS`, ...), kept in memory that the server
    processes forked after it share (`rulepress serve --processes N`), so that behind N
    processes an address may do no more than behind one.

    Each budget is a table of a fixed size in an anonymous shared map: a slot is an address's
    hash, its tokens and when they were counted, found by a bounded probe. An address whose
    bucket is full again frees its slot; where a probe finds no free one, the fullest bucket
    in it is dropped (as `Budget` drops the fullest). One lock, shared too, around each look-up.
    """

    SLOTS = 1 << 15   # per budget: room for the 20,000 addresses `Budget` keeps
    PROBE = 32        # slots looked at for one address, at most
    _SLOT = struct.Struct("<Qdd")  # hash (0: empty), tokens, when counted

    def __init__(self, limits: dict, clock=time.monotonic):
        self.names = list(limits)
        self.limits = [limits[n] for n in self.names]
        self.clock = clock  # (CLOCK_MONOTONIC: one clock for every process of the machine)
        self.map = mmap.mmap(-1, len(self.names) * self.SLOTS * self._SLOT.size)
        self.lock = multiprocessing.get_context("fork").Lock()

    def __getitem__(self, name) -> "_SharedBudget":
        return _SharedBudget(self, self.names.index(name))


class _SharedBudget:
    """One budget of a SharedBudgets, with Budget's `allows` and `take`."""

    def __init__(self, table: SharedBudgets, which: int):
        self.table, self.which = table, which
        self.burst, self.per_minute = table.limits[which]

    def _key(self, key) -> int:
        return int.from_bytes(hashlib.blake2b(str(key).encode("utf-8", "replace"), digest_size=8).digest(), "little") or 1

    def _left(self, tokens, then, now) -> float:
        return min(self.burst, tokens + (now - then) * self.per_minute / 60)

    def _find(self, h, now):
        """(slot offset, tokens now) of the address hashed `h`; the slot is its own, a free
        one, or the fullest probed (dropped for it)."""
        t = self.table
        size, base = t._SLOT.size, self.which * t.SLOTS
        first = h % t.SLOTS
        free = fullest = None
        for i in range(t.PROBE):
            off = (base + (first + i) % t.SLOTS) * size
            k, tokens, then = t._SLOT.unpack_from(t.map, off)
            if k == h:
                return off, self._left(tokens, then, now)
            left = self.burst if k == 0 else self._left(tokens, then, now)
            if free is None and left >= self.burst:  # empty, or full again: forgotten
                free = off
            if fullest is None or left > fullest[1]:
                fullest = (off, left)
        return (free if free is not None else fullest[0]), self.burst

    def allows(self, key) -> bool:
        if key is None:
            return True
        now = self.table.clock()
        with self.table.lock:
            return self._find(self._key(key), now)[1] >= 1

    def take(self, key) -> bool:
        if key is None:
            return True
        h, now = self._key(key), self.table.clock()
        with self.table.lock:
            off, tokens = self._find(h, now)
            if tokens < 1:
                return False
            self.table._SLOT.pack_into(self.table.map, off, h, tokens - 1, now)
        return True
