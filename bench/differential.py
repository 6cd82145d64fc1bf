"""Whether two checkouts of rulepress play the same games, byte for byte.

    .venv/bin/python bench/differential.py OTHER_CHECKOUT [--games N]

Plays N seeded games of every content game and example game with random bots in this
checkout and, through its own Python (OTHER_CHECKOUT/.venv/bin/python), in the other, and
compares for every game its final state hash, its log and its choices. A change meant to be
invisible to players (a faster flow, another way of running the IR) must show none.
Run with --digests, it prints this checkout's digests as JSON (what the other side runs).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = ("content/android", "content/arkham-horror", "content/night-city", "content/study-in-emerald",
         "docs/examples/love-letter", "docs/examples/coup")


def digests(root, games: int) -> dict:
    """game -> one digest a seeded game: its state hash, log and history. The rulepress imported
    is the one installed in the Python running this (each checkout's venv has its own)."""
    from rulepress.compiler.pipeline import compile_game
    from rulepress.runtime.agents import RandomAgent, play_out
    from rulepress.runtime.flow import new_game, state_hash
    from rulepress.runtime.tables import Game
    out = {}
    for path in GAMES:
        text, _g, rep = compile_game(os.path.join(root, path))
        if text is None:
            raise SystemExit(f"{path} does not compile ({len(rep.errors)} errors)")
        game = Game(json.loads(text))
        rows = []
        for i in range(games):
            players = game.players_min + i % (game.players_max - game.players_min + 1)
            s = f"differential:{i}"
            st = new_game(game, players, s)
            play_out(game, st, {p: RandomAgent(f"{s}:{p}") for p in st["players"]})
            played = json.dumps([st["log"], st["history"]], sort_keys=True, default=str)
            rows.append(state_hash(st) + hashlib.sha256(played.encode()).hexdigest()[:16])
        out[path] = rows
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("other", nargs="?")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--digests", metavar="ROOT", help="print the digests of the games of checkout ROOT")
    a = ap.parse_args()
    if a.digests:
        print(json.dumps(digests(a.digests, a.games)))
        return
    if not a.other:
        ap.error("say which checkout to compare with")
    mine = digests(os.path.dirname(HERE), a.games)
    other = os.path.abspath(a.other)
    theirs = json.loads(subprocess.run(
        [os.path.join(other, ".venv", "bin", "python"), os.path.abspath(__file__), "--digests", other, "--games", str(a.games)],
        capture_output=True, text=True, check=True, cwd=other).stdout)
    differ = 0
    for path in GAMES:
        bad = [i for i, (x, y) in enumerate(zip(mine[path], theirs[path])) if x != y]
        differ += len(bad)
        print(f"{path:<28} {len(mine[path])} games, {len(bad)} differ" + (f" (first: game {bad[0]})" if bad else ""))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
