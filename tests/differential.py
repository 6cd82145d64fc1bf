"""Random games played twice, each with its own Game, compared byte for byte (state_hash
covers the log, the history and every value of the final state).

`python -m tests.differential N` plays N games of every content, example and test game
with the generated code and with the closures it replaces, and tells the first difference.
"""
from __future__ import annotations

import json
import os
import sys

from rulepress.compiler.pipeline import compile_game
from rulepress.runtime.agents import make, play_out
from rulepress.runtime.flow import new_game, state_hash
from rulepress.runtime.interpreter import GameFault
from rulepress.runtime.tables import Game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def folders() -> list[str]:
    out = []
    for base in ("content", "docs/examples", "tests/games"):
        for name in sorted(os.listdir(os.path.join(ROOT, base))):
            if os.path.isfile(os.path.join(ROOT, base, name, "game.yaml")):
                out.append(f"{base}/{name}")
    return out


def tables(folder: str) -> str:
    text, _gid, report = compile_game(os.path.join(ROOT, folder))
    assert text is not None, "\n".join(d.text() for d in report.sorted())
    return text


def outcome(game, i: int, seed: str = "diff"):
    """Game i of a game: its seat count cycles through the allowed ones; random bots."""
    lo, hi = max(1, game.players_min), game.players_max
    players = lo + i % (hi - lo + 1)
    s = f"{seed}:{i}"
    st = new_game(game, players, s)
    agents = {p: make("random", f"{s}:{p}") for p in st["players"]}
    try:
        play_out(game, st, agents, max_decisions=20_000)
        error = None
    except (GameFault, RuntimeError) as exc:
        error = str(exc)
    return state_hash(st), error


def main(n: int) -> int:
    total = 0
    for folder in folders():
        text = tables(folder)
        new, old = Game(json.loads(text)), Game(json.loads(text))
        old.generated = False
        for i in range(n):
            a, b = outcome(new, i), outcome(old, i)
            total += 1
            if a != b:
                print(f"{folder} game {i}: generated {a} closures {b}")
                return 1
        print(f"{folder}: {n} games alike", flush=True)
    print(f"{total} games alike")
    return 0


GOLDEN = os.path.join(ROOT, "tests", "games_played.json")
GOLDEN_GAMES = 4  # games of each game recorded


def record() -> None:
    """tests/games_played.json: how the first games of every game end, as played now."""
    out = {}
    for folder in folders():
        game = Game(json.loads(tables(folder)))
        game.generated = os.environ.get("RULEPRESS_CLOSURES") is None
        out[folder] = [list(outcome(game, i)) for i in range(GOLDEN_GAMES)]
    with open(GOLDEN, "w", encoding="utf-8") as fh:
        fh.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(out.items())) + "\n}\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        record()
        sys.exit(0)
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20))
