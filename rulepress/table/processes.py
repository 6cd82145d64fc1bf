"""Several server processes behind one address (`rulepress serve --processes N`).

The parent takes the port, then forks N children that each serve on it (the kernel hands
each new connection to one of them) with a store of their own on the shared PostgreSQL
database. Rooms are not divided among them: a seat's socket may reach any process, which
reads the room from the store and plays it there (rooms.py: every change follows the
store's version of the room, and the others hear of it and catch up). A child that dies
(kill -9, out of memory) takes its sockets with it; the seats reconnect to another, which
has every move anyone saw, and the parent starts a new child in its place.
"""
from __future__ import annotations

import os
import signal
import socket
import sys
import time

RESPAWNS_PER_MINUTE = 10  # a child dying faster than this is a fault, not bad luck: everything stops
STOP_SECONDS = 30


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Told:
    """A child's handler of STOP_SIGNALS until its server takes them over: it only notes the
    signal and calls `then` (the server's own "stop"), never raising in whatever the child
    is doing. (A KeyboardInterrupt raised while the child starts can be lost, in a fork's
    after-fork hooks among others, and the child would then serve on, never stopping.)"""

    def __init__(self):
        self.asked = False
        self.then = None

    def __call__(self, _signum, _frame) -> None:
        self.asked = True
        if self.then is not None:
            self.then()


def listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _name, address = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def run(n: int, sock: socket.socket, serve_one) -> int:
    """Keep `n` children running `serve_one(sock, told)` (told: the child's Told) until Ctrl-C
    or SIGTERM; the exit code."""
    children: dict[int, float] = {}
    deaths: list[float] = []
    stopping = []

    def spawn() -> None:
        # Ctrl-C and SIGTERM held back over the fork: the child's own handler is in place before
        # one reaches it (else the parent's `stop` would run in the child)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        pid = os.fork()
        if pid == 0:  # the child: serves until told to stop, and never returns into the parent's code
            code = 1
            try:
                told = Told()
                for s in STOP_SIGNALS:
                    signal.signal(s, told)
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
                serve_one(sock, told)
                code = 0
            except KeyboardInterrupt:
                code = 0
            except BaseException as exc:  # noqa: BLE001 - one line, as every command says it
                print(f"rulepress: a server process stopped: {type(exc).__name__}: {exc}", file=sys.stderr)
            finally:
                sys.stderr.flush()
                os._exit(code)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        children[pid] = time.monotonic()

    def stop(signum, _frame) -> None:
        stopping.append(signum)
        for pid in children:
            try:
                os.kill(pid, signal.SIGTERM)  # (uvicorn: a graceful stop; a second SIGINT would force it)
            except ProcessLookupError:
                pass

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for _ in range(n):
            spawn()
        while children:
            try:
                pid, _status = os.wait()
            except ChildProcessError:
                break
            except InterruptedError:  # pragma: no cover - (PEP 475 retries; kept for clarity)
                continue
            children.pop(pid, None)
            if stopping:
                continue
            now = time.monotonic()
            deaths[:] = [t for t in deaths if now - t < 60] + [now]
            if len(deaths) > RESPAWNS_PER_MINUTE:
                print(f"rulepress: server processes died {len(deaths)} times in a minute; stopping", file=sys.stderr)
                stop(signal.SIGTERM, None)
                _wait_all(children)
                return 1
            spawn()  # in place of the one that died: its seats have reconnected to the others meanwhile
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    return 130 if stopping and stopping[0] == signal.SIGINT else 0


def _wait_all(children: dict) -> None:
    until = time.monotonic() + STOP_SECONDS
    while children and time.monotonic() < until:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            children.pop(pid, None)
        else:
            time.sleep(0.05)
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
