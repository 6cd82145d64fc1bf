"""What the table accepts from a browser, and how much of it (docs/table.md, "Limits").

Everything a client sends is untrusted: a message, a name, a room code, a game option.
Each check here either returns the value as the server keeps it or raises Refused with the
one line the client is told.
"""
from __future__ import annotations

import re
import secrets
import time

MESSAGE_BYTES = 16 * 1024      # one WebSocket message, or one HTTP request body
MESSAGES_PER_SECOND = 20       # per socket; over it: an error, then the socket is closed (1008)
NAME_CHARS = 32                # a display name
ROOMS_OPEN = 1000              # rooms kept at once; a new one past it is refused
SOCKETS_PER_ROOM = 64          # players' and spectators' sockets together
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud and typed from a screen
CODE_LENGTH = 6
OPTION_TEXT_CHARS = 200


class Refused(Exception):
    """An input refused, with its HTTP status (or WebSocket close code) and a one-line message."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


_CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")


def room_code(text) -> str | None:
    """A room code as typed (any case, spaces around), or None when it cannot be one."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    code = text.strip().upper()
    return code if _CODE.fullmatch(code) else None


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
