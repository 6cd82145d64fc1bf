"""Part of a big piece of work done by a second process, where the machine has a second core.

A big game's files, effects and rulebooks are many parts, each independent of the others.
`in_two(batch, items)` forks once; the child runs `batch` on every other item and sends
back what it made (plain data), while the parent does the rest. `start_parts` runs any
work in a child that sends its results as it makes them (a share of the files loaded, see
content.load_game). Whatever goes wrong on the child's side (no fork on this system, a
crash, data that cannot be sent) only means the parent does that part too: the answer
never depends on the second process.
"""
from __future__ import annotations

import contextlib
import functools
import marshal
import os
import sys

MIN_ITEMS = 400  # below this a fork costs more than it saves (a few hundred effects)


def cores() -> int:
    """Cores this process may use; RULEPRESS_JOBS=1 keeps all the work in one process."""
    jobs = os.environ.get("RULEPRESS_JOBS", "")
    if jobs.isdigit() and int(jobs) > 0:
        return int(jobs)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return cores() > 1 and hasattr(os, "fork") and sys.platform.startswith("linux")


def start(work):
    """Run `work()` in a forked child, which sends back what it gives (plain data).
    Returns a function that waits for it and gives that value, or None if the child failed;
    None instead of the function where there is no second core or no fork."""
    next_part = start_parts(lambda: iter((work(),)))
    if next_part is None:
        return None

    def collect():
        try:
            return next_part()
        finally:
            next_part.finish()
    return collect


def start_parts(parts, listens: bool = False):
    """Run `parts()`, which yields plain data, in a forked child that sends each value as soon
    as it is made. Returns `next_part()`, which waits for the next value and gives it (None
    once the child failed or had no more), with `next_part.finish()` to end the child when no
    more is wanted; None instead of the function where there is no second core or no fork.

    A child that `listens` also hears from this process: it runs `parts(heard)`, where
    `heard()` waits for the next value sent by `next_part.send(value)` (None once this side
    sent nothing more or failed). A side that reads before it writes never waits on the other."""
    if not can_fork():
        return None
    read, write = _pipe()
    back = _pipe() if listens else None
    try:
        pid = os.fork()
    except OSError:
        for fd in (read, write, *(back or ())):
            os.close(fd)
        return None
    if pid == 0:  # the child: each value as one message (its length, then it), then gone without cleanup
        os.close(read)
        code = 1
        try:
            if back:
                os.close(back[1])
                heard = functools.partial(_heard, os.fdopen(back[0], "rb"))
            with os.fdopen(write, "wb") as out:
                for value in (parts(heard) if back else parts()):
                    _send(out, value)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    inp = os.fdopen(read, "rb")
    to_child = None
    if back:
        os.close(back[0])
        to_child = os.fdopen(back[1], "wb")
    done = []

    def finish():
        if not done:
            done.append(1)
            inp.close()  # a child still writing stops here instead of waiting for a reader
            if to_child is not None:
                with contextlib.suppress(OSError):
                    to_child.close()
            os.waitpid(pid, 0)

    def next_part():
        if done:
            return None
        got = _receive(inp)
        if got is _NOTHING:
            finish()  # the child failed, or has sent all it had
            return None
        return got

    def send(value) -> None:
        """A value for the listening child; lost without a word if the child is gone."""
        if to_child is None or done:
            return
        try:
            _send(to_child, value)
        except OSError:  # (a broken pipe: the child stopped early)
            pass
    next_part.finish = finish
    next_part.send = send
    return next_part


_NOTHING = object()
PIPE_BYTES = 1 << 20  # megabytes go through: fewer, bigger writes, fewer waits for the reader


def _pipe():
    read, write = os.pipe()
    try:
        import fcntl
        fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass  # the system's size, then
    return read, write


def _send(out, value) -> None:
    data = _pack(value)
    out.write(len(data).to_bytes(8, "little") + data)
    out.flush()


def _heard(inp):
    got = _receive(inp)
    return None if got is _NOTHING else got


def _receive(inp):
    """The next message's value; _NOTHING at the end of the pipe or on a broken message."""
    try:
        head = inp.read(8)
        size = int.from_bytes(head, "little") if len(head) == 8 else -1
        data = inp.read(size) if size >= 0 else b""
    except (OSError, ValueError):
        return _NOTHING
    if size < 0 or len(data) < size:
        return _NOTHING
    return _unpack(data)


def in_two(batch, items: list, min_items: int = MIN_ITEMS) -> tuple[list, list]:
    """`batch(part)` gives `(results, extra)`, one result per item of the part, all plain
    data (lists, dicts, text, numbers). Returns the results in the order of `items` and
    the extras of each part that ran: the odd-numbered items are a forked child's part.
    Fewer than `min_items` items, one core, or no safe fork (Linux has it): all here."""
    items = list(items)
    theirs = items[1::2]
    collect = start(lambda: batch(theirs)) if len(items) >= max(2, min_items) else None
    if collect is None:
        results, extra = batch(items)
        return results, [extra]
    try:
        mine, mine_extra = batch(items[0::2])
    finally:
        got = collect()  # on an error here, the child is still waited for
    if not (isinstance(got, (tuple, list)) and len(got) == 2 and isinstance(got[0], list) and len(got[0]) == len(theirs)):
        got = batch(theirs)
    out = [None] * len(items)
    out[0::2], out[1::2] = mine, got[0]
    return out, [mine_extra, got[1]]


def _pack(value) -> bytes:
    try:
        return b"m" + marshal.dumps(value)
    except ValueError:  # subclasses of str or list: pickle knows them
        import pickle
        return b"p" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(data: bytes):
    try:
        if data[:1] == b"m":
            return marshal.loads(data[1:])
    except (EOFError, ValueError, TypeError):
        return None
    if data[:1] != b"p":
        return None
    import pickle  # (only for what marshal cannot carry)
    try:
        return pickle.loads(data[1:])  # noqa: S301 - written by our own child a moment ago
    except (EOFError, ValueError, TypeError, pickle.UnpicklingError):
        return None
