"""How the games of Arkham Horror end: the investigators' win path and what woke the Ancient One.

    .venv/bin/python bench/arkham_paths.py [-n N] [--seed S] [--players P] [--agent A]

Plays the same games as `rulepress balance content/arkham-horror` with the same -n, --seed,
--players and --agent (game i has the seed "S:i" and its agents "S:i:<seat>"), and counts
the content's own log lines in each: how the investigators won (the last gate closed, six
Elder Signs, the Ancient One banished), what awakened it (too many gates, Arkham overrun,
no gate tokens, an empty cup, else the doom track), and the gates closed and sealed a game.
`--step` plays them decision by decision instead, so searching agents keep no memory of what
they saw (other games, same seeds). `rulepress balance` gives the win rate with its interval;
this says which way the games go
(content/arkham-horror/COVERAGE.md, "How it plays").
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime.agents import make, play_out, step  # noqa: E402
from rulepress.runtime.flow import new_game  # noqa: E402
from rulepress.runtime.simulate import seat_agents  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

WINS = {"The last gate is closed": "last gate closed", "Six Elder Signs": "six Elder Signs",
        "The Ancient One is banished": "final battle"}
AWAKENINGS = {"Too many gates are open": "too many gates", "Arkham is overrun by monsters": "overrun",
              "No gate tokens are left": "no gate tokens", "The monster cup is empty": "empty cup"}


def lines(st):
    for e in st["log"]:
        t = e.get("text") if isinstance(e, dict) else None
        yield (t.get("en", "") if isinstance(t, dict) else str(t or ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--agent", default="greedy")
    ap.add_argument("--game", default=os.path.join(ROOT, "content", "arkham-horror"))
    ap.add_argument("--step", action="store_true",
                    help="play decision by decision (runtime.agents.step), so searching agents keep no memory of what they saw")
    a = ap.parse_args()
    text, _gid, report = compile_game(a.game)
    if text is None:
        sys.exit("\n".join(d.text() for d in report.sorted()))
    game = Game(json.loads(text))
    paths, awake, closed, sealed, rounds = Counter(), Counter(), 0, 0, 0
    for i in range(a.n):
        s = f"{a.seed}:{i}"
        st = new_game(game, a.players, s, None)
        agents = {p: make(kind, f"{s}:{p}") for p, kind in seat_agents(a.agent, st["players"]).items()}
        if a.step:
            while st["pending"] is not None:
                step(game, st, agents)
        else:
            play_out(game, st, agents)
        said = list(lines(st))
        win = next((w for k, w in WINS.items() if any(x.startswith(k) for x in said)), None)
        paths[win or "the Ancient One wins"] += 1
        if any(x.startswith("The Ancient One awakens") for x in said):
            awake[next((w for k, w in AWAKENINGS.items() if k in said), "doom track full")] += 1
        closed += sum(x == "A gate is closed" for x in said)
        sealed += sum(x == "A gate is sealed" for x in said)
        rounds += st["round"]
        print(f"game {i}: {win or 'lost'}, {st['round']} rounds", file=sys.stderr, flush=True)
    won = a.n - paths["the Ancient One wins"]
    print(f"{a.players} players, {a.agent}, seed {a.seed}, {a.n} games: the investigators win {won} "
          f"({100 * won / a.n:.0f}%)")
    print("  endings: " + ", ".join(f"{k} {v}" for k, v in paths.most_common()))
    print("  awakened by: " + (", ".join(f"{k} {v}" for k, v in awake.most_common()) or "never"))
    print(f"  a game: {closed / a.n:.2f} gates closed, {sealed / a.n:.2f} sealed, {rounds / a.n:.1f} rounds")


if __name__ == "__main__":
    main()
