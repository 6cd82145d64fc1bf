"""How a whole run uses memory."""
from __future__ import annotations

import contextlib
import gc
import os
import sys


@contextlib.contextmanager
def no_collection():
    """Loading and building make millions of small objects and no garbage cycles worth
    finding while they run: collecting as they go only costs."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # Within a command the collector stays off: the process ends soon, and turned on
        # again it would walk every object made meanwhile (a tenth of a second or more for
        # a big game) at the first allocation, before the report is printed.
        if was_enabled and not _SPARING:
            gc.enable()


# Freeing a big game's model object by object takes a tenth of a second or more, and a
# command ends right after it has reported. Within the command itself (see exit), what
# a check or a build made is kept here and dropped with the process; anywhere else
# (tests, a program that imports rulepress) `spare` keeps nothing.
_SPARED: list = []
_SPARING = False


def spare(*things) -> None:
    """Leave these for the end of the process to drop, where the process ends soon."""
    if _SPARING:
        _SPARED.extend(things)


def serving() -> None:
    """For a command that runs until it is stopped (a language server, a watch): what each
    round makes is freed as usual, and the collector runs between rounds."""
    global _SPARING
    _SPARING = False
    _SPARED.clear()
    gc.enable()


def command(main) -> None:
    """Run a command-line entry point, then end the process without freeing what it made:
    its output flushed, its exit code kept (what sys.exit was given)."""
    global _SPARING
    _SPARING = True
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    if code is None:
        code = 0
    elif not isinstance(code, int):  # sys.exit("message"): shown, and the code is 1
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
