"""The online table's game work of one move, in one process: the move played, and each
seat's part of its new `table` message made where the game is, carried as a worker's
answer is (pickled) and finished as the server sends it (who is connected added).

    .venv/bin/python bench/table_views.py [GAME.json] [--moves 400] [--seats 4]

Prints CPU milliseconds a move: the move, and the seats' messages. Without the network,
the store and the event loop, this is the part of a move's server CPU that grows with the
seats (bench/table_load.py measures the whole, under load).
"""
from __future__ import annotations

import argparse
import os
import pickle
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine, yardstick  # noqa: E402

from rulepress.runtime.tables import Game  # noqa: E402
from rulepress.table import engine, messages  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", nargs="?", default=os.path.join(ROOT, "build", "night-city", "game.json"))
    ap.add_argument("--moves", type=int, default=400)
    ap.add_argument("--seats", type=int, default=4)
    a = ap.parse_args()
    game = Game.load(a.game)
    print(f"machine: {machine()}")
    print(yardstick())
    work = engine.Games({game.id: game})
    seats = [f"p{i + 1}" for i in range(a.seats)]
    meta = {"game": game.id, "version": 1, "status": "playing", "players": a.seats,
            "hosts": {s: s == "p1" for s in seats}, "see_all": False}
    connected = [{"seat": s, "name": s, "connected": True, "bot": False, "host": s == "p1"} for s in seats]
    rng = random.Random(1)
    games, played, t_move, t_parts = 0, 0, 0.0, 0.0
    work.op_load("BENCH", game.id, a.seats, f"bench:{games}", {}, [])
    while played < a.moves:
        live = work.live["BENCH"]
        s = engine.summary(live[0], live[1])
        if s["pending"] is None:
            games += 1
            work.op_load("BENCH", game.id, a.seats, f"bench:{games}", {}, [])
            continue
        seat = s["pending"]["waiting"][0]
        offered = messages._seat_part(engine._Snapshot("BENCH", live[0], live[1], meta), seat)["options"]
        choice = rng.choice(offered)["id"]
        began = time.process_time()
        work.op_apply("BENCH", seat, work.op_accept("BENCH", seat, choice))
        moved = time.process_time()
        parts = pickle.loads(pickle.dumps(work.op_parts("BENCH", dict(meta, version=played + 2), seats)))
        for part in parts.values():  # (messages.keep and table_text, without a room)
            part.text + ',"faces":null,"seats":' + messages.dumps(connected) + "}"
        t_move += moved - began
        t_parts += time.process_time() - moved
        played += 1
    print(f"{game.id}, {a.seats} seats, {played} moves: the move {t_move / played * 1000:.2f} ms, "
          f"its {a.seats} seats' messages {t_parts / played * 1000:.2f} ms (CPU a move)")
    print(yardstick())


if __name__ == "__main__":
    main()
