"""Random games of every content, example and test game, compared byte for byte with how
they ended when recorded (state_hash covers the log, the history and every value of the
final state).

    python -m tests.differential --record N FILE   # how games 0..N-1 of every game end now
    python -m tests.differential --check FILE      # whether they still end so

The generated code was checked so against the closures it replaced, on 4,500 games, before
they were removed; tests/games_played.json (GOLDEN, written by `--record 4 tests/games_played.json`)
keeps the first games of each, and tests/test_generated.py plays them again.
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
GOLDEN = os.path.join(ROOT, "tests", "games_played.json")


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


def record(n: int, path: str) -> None:
    out = {f: [list(outcome(Game(json.loads(tables(f))), i)) for i in range(n)] for f in folders()}
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(out.items())) + "\n}\n")


def check(path: str) -> int:
    with open(path, encoding="utf-8") as fh:
        want = json.load(fh)
    total = 0
    for folder, ends in sorted(want.items()):
        game = Game(json.loads(tables(folder)))
        for i, end in enumerate(ends):
            total += 1
            if list(outcome(game, i)) != end:
                print(f"{folder} game {i}: {list(outcome(game, i))}, recorded {end}")
                return 1
    print(f"{total} games end as recorded")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--record"] and len(sys.argv) == 4:
        record(int(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    if sys.argv[1:2] == ["--check"] and len(sys.argv) == 3:
        sys.exit(check(sys.argv[2]))
    sys.exit(__doc__)
