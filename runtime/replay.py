"""A game is its seed plus its choices: logs that replay to the same final state."""
from __future__ import annotations

import json

from .flow import IllegalChoice, apply, new_game, state_hash

LOG_FORMAT = 1


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
    st = new_game(game, log["players"], log["seed"], log.get("options"), first=log.get("first"))
    for n, (seat, choice) in enumerate(log["choices"], 1):
        try:
            apply(game, st, choice, seat)
        except IllegalChoice as exc:
            raise ReplayError(f"choice {n} ({seat}: {choice}) is not legal on replay: {exc}") from None
    return st


def replay_file(path, load_game) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            log = json.load(fh)
    except (OSError, ValueError) as exc:
        raise ReplayError(f"{path}: not a readable game log ({exc})") from None
    game = load_game(log.get("game", ""))
    st = replay(game, log)
    h = state_hash(st)
    if log.get("final_hash") and h != log["final_hash"]:
        raise ReplayError(f"replay ended in state {h}, but the log recorded {log['final_hash']}")
    return f"replayed {len(log['choices'])} choices of {game.id}: final state {h} matches"
