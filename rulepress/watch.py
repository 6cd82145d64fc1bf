"""`rulepress watch GAME`: validate, build and (optionally) print again on every save.

The loop a designer lives in: save, glance at one status line, play. Saves are seen by the
system's own file events through `watchfiles` where it is installed (it comes with the
table's extra), else by polling the files' sizes and modification times (no dependency, any
file system); either way a change counts once the files' stamps differ from the last build's.
The validation cache makes a re-check after one edit cost about that edit.
"""
from __future__ import annotations

import os
import time
from typing import Callable, NamedTuple

MAX_FILES = 10_000   # files looked at in one game folder: a folder of more is not a game
SETTLE = 0.05        # an editor writes a file in steps: wait this long for the last one


class Stamp(NamedTuple):
    """What a file looks like from outside: it changed when this does."""
    mtime_ns: int
    size: int


def snapshot(folder: str, skip=()) -> dict[str, Stamp]:
    """Every file a build reads (content, scenarios, templates), by path, up to MAX_FILES;
    not those below the folders `skip` (where the build writes: it would wake itself)."""
    out: dict[str, Stamp] = {}
    stack, seen = [folder], {os.path.realpath(s) for s in skip}
    top = os.path.join(os.path.realpath(folder), "")
    while stack and len(out) < MAX_FILES:
        d = stack.pop()
        real = os.path.realpath(d)
        if real in seen or not os.path.join(real, "").startswith(top):  # (a link out: the build reads nothing there)
            continue
        seen.add(real)
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            if e.name.startswith(".") or len(out) >= MAX_FILES:
                continue
            try:
                if e.is_dir():
                    stack.append(e.path)
                elif e.is_file():
                    st = e.stat()
                    out[e.path] = Stamp(st.st_mtime_ns, st.st_size)
            except OSError:
                continue
    return out


class Round(NamedTuple):
    """One pass of the loop: what it found and what it wrote."""
    errors: int
    warnings: int
    written: int
    seconds: float


def once(folder: str, out: str, print_out: str | None, echo: Callable[[str], None]) -> Round:
    """Validate, then build (and print) when there is no error; the diagnostics, then a status line."""
    from .compiler.validation import validate_game
    from .compiler.memory import no_collection
    from .compiler.pipeline import build
    start = time.perf_counter()
    with no_collection():
        report = validate_game(folder)
    for d in report.sorted():
        echo(d.text())
    written, refused = [], 0
    if not report.errors:
        try:
            written, built = build([folder], out)
            for d in built.errors:  # (validate found none: a build problem of its own)
                echo(d.text())
            if print_out and not built.errors:
                from .compiler.printing import PrintError, print_game
                try:
                    written += print_game(folder, ("en",), "a4", None, print_out)
                except PrintError as exc:
                    echo(f"rulepress: {exc}")
        except OSError as exc:  # (a link planted where an output goes: said, and the watch goes on)
            where = f"{exc.filename}: " if exc.filename else ""
            echo(f"rulepress: {where}{exc.strerror or exc}".replace("\n", "\\n"))
            refused = 1
    done = Round(len(report.errors) + refused, len(report.warnings), len(written), time.perf_counter() - start)
    echo(status(folder, done))
    return done


def status(folder: str, r: Round) -> str:
    name = os.path.basename(os.path.normpath(folder))
    clock = time.strftime("%H:%M:%S")
    found = f"{r.errors} error{'s' * (r.errors != 1)}, {r.warnings} warning{'s' * (r.warnings != 1)}"
    outcome = f"built {r.written} file{'s' * (r.written != 1)}" if not r.errors else "not built"
    return f"[{clock}] {name}: {found}; {outcome} in {r.seconds:.2f}s; watching (Ctrl-C stops)"


def _folder_link(folder: str) -> bool:
    """Whether a folder below this one is a link (looked at up to MAX_FILES entries)."""
    stack, looked = [folder], 0
    while stack and looked < MAX_FILES:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for e in entries:
            looked += 1
            try:
                if e.is_symlink() and os.path.isdir(e.path):
                    return True
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
            except OSError:
                continue
    return False


def _events(folder: str, skip):
    """An iterator that yields whenever a file under the folder changes (not below `skip`,
    not a hidden one), from the system's file events; None without watchfiles."""
    try:
        import watchfiles
    except ImportError:
        return None
    if _folder_link(folder):
        return None  # the system's watcher would follow a linked folder (to / say) and watch all of it
    skipped = [os.path.realpath(x) for x in skip]

    def wanted(_change, path: str) -> bool:
        real = os.path.realpath(path)
        if any(real == s or real.startswith(s + os.sep) for s in skipped):
            return False
        return not any(part.startswith(".") for part in os.path.relpath(path, folder).split(os.sep))
    try:
        # (a wake-up every second without events too: the stamps are compared then as well, so
        # a save made before the watcher started is not waited on forever)
        return iter(watchfiles.watch(folder, watch_filter=wanted, debounce=int(SETTLE * 1000), raise_interrupt=True,
                                     rust_timeout=1000, yield_on_timeout=True))
    except (OSError, RuntimeError):  # a file system without events: poll
        return None


def watch(folder: str, out: str, print_out: str | None, interval: float,
          echo: Callable[[str], None], rounds: int | None = None) -> None:
    """Run `once` now and after every change to the folder's files; `rounds` bounds it (tests)."""
    skip = [out] + ([print_out] if print_out else [])
    events = _events(folder, skip)
    seen = snapshot(folder, skip)
    done = 0
    while True:
        once(folder, out, print_out, echo)
        done += 1
        if rounds is not None and done >= rounds:
            return
        while True:
            if events is not None and snapshot(folder, skip) == seen:
                try:
                    next(events)
                except (StopIteration, OSError, RuntimeError):  # the watcher gave up: poll from here on
                    events = None
            if events is None:
                time.sleep(interval)
            now = snapshot(folder, skip)
            if now != seen:
                time.sleep(SETTLE)
                seen = snapshot(folder, skip)
                break
