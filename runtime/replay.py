"""A game is its seed plus its choices: logs that replay to the same final state.

A log read from a file is untrusted: it is read only up to a size, checked against
schemas/replay.json (docs/replay.md), and names its game by id only; the caller finds that
game among the games it was given, never at a path the log writes.
"""
from __future__ import annotations

import functools
import importlib.resources
import itertools
import json
import os
import re
import stat

from .flow import IllegalChoice, apply, new_game, state_hash
from .interpreter import GameFault

LOG_FORMAT = 1
MAX_LOG_BYTES = 32 * 2**20  # a million choices fit in half of it


class ReplayError(Exception):
    pass


def make_log(game, st, players, seed, options=None, first=None) -> dict:
    return {"format": LOG_FORMAT, "game": game.id, "version": game.version, "content_hash": game.hash,
            "players": players, "seed": seed, "options": options or {}, "first": first,
            "choices": [list(c) for c in st["history"]], "final_hash": state_hash(st)}


def replay(game, log: dict) -> dict:
    if log.get("format") != LOG_FORMAT:
        raise ReplayError(f"log format {log.get('format')} is not supported (expected {LOG_FORMAT})")
    if log.get("game") != game.id:
        raise ReplayError(f"this log is of `{log.get('game')}`, not `{game.id}`")
    if log.get("content_hash") != game.hash:
        raise ReplayError(f"this log was recorded with another version of {game.id} "
                          f"(version {log.get('version')}, content {log.get('content_hash')}); the game is now "
                          f"version {game.version}, content {game.hash}: its rules may differ, so it cannot be replayed")
    unknown = sorted(set(log.get("options") or {}) - set(game.options))
    if unknown:
        raise ReplayError(f"{game.id} has no option `{unknown[0]}`")
    try:
        st = new_game(game, log["players"], log["seed"], log.get("options"), first=log.get("first"))
    except IllegalChoice as exc:
        raise ReplayError(f"the game cannot start as the log says: {exc}") from None
    for n, (seat, choice) in enumerate(log["choices"], 1):
        try:
            apply(game, st, choice, seat)
        except IllegalChoice as exc:
            raise ReplayError(f"choice {n} ({seat}: {choice}) is not legal on replay: {exc}") from None
        except (GameFault, RuntimeError) as exc:
            raise ReplayError(f"choice {n} ({seat}: {choice}) stopped the game: {_short(exc, 300)}") from None
    return st


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema
    text = importlib.resources.files(__package__.rpartition(".")[0] + ".schemas").joinpath("replay.json").read_text("utf-8")
    # A whole number is written whole: JSON Schema would take 2.0 for the integer 2.
    whole = jsonschema.Draft7Validator.TYPE_CHECKER.redefine("integer", lambda _checker, x: type(x) is int)
    validator = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": _pattern}, type_checker=whole)
    return validator(json.loads(text))


def _pattern(validator, pattern, instance, schema):
    """`pattern` as the schema means it: its `$` is the end of the text. Python's `$` also
    matches before a final line break: `duel` and a line break would pass for the id `duel`."""
    from jsonschema import ValidationError
    if validator.is_type(instance, "string") and not re.search(pattern.removesuffix("$") + r"\Z", instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _short(text: str, limit=120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _no_constant(name):
    raise ValueError(f"{name} is not a number a log holds")


def read_log(path: str) -> dict:
    """The log in file `path`, checked against schemas/replay.json; ReplayError (one line) if it is not one."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a pipe or a device could be read forever
            raise ReplayError(f"{path}: not a file")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        raise ReplayError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_LOG_BYTES:
        raise ReplayError(f"{path}: larger than {MAX_LOG_BYTES // 2**20} MiB, more than any game log holds")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: byte {exc.start} is not UTF-8: not a game log") from None
    try:
        log = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path}:{exc.lineno}:{exc.colno}: not a game log: not JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:
        raise ReplayError(f"{path}: not a game log ({_short(exc) or 'nested too deep'})") from None
    try:
        errors = list(itertools.islice(_validator().iter_errors(log), 100))  # a million wrong choices: the first few
    except RecursionError:
        raise ReplayError(f"{path}: not a game log (nested too deep)") from None
    if errors:
        err = min(errors, key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
        where = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p))
                        for i, p in enumerate(err.absolute_path)) or "the log"
        raise ReplayError(f"{path}: not a game log: {where}: {_short(err.message)} (see docs/replay.md)")
    return log


def check_log(game, log: dict) -> str:
    """Replay `log` (from read_log) on `game`: the line saying its final state matches.
    ReplayError if it does not, or if the log recorded no final state to compare."""
    st = replay(game, log)
    h = state_hash(st)
    n = len(log["choices"])
    if not log.get("final_hash"):
        raise ReplayError(f"the log has no final hash: nothing to compare (replayed {n} choices of {game.id}, "
                          f"final state {h})")
    if h != log["final_hash"]:
        raise ReplayError(f"replay ended in state {h}, but the log recorded {log['final_hash']}")
    return f"replayed {n} choices of {game.id}: final state {h} matches"
