"""Android: what the balance games do besides who wins them.

    .venv/bin/python bench/android_figures.py [-n N] [--seed S] [--players P] [--agent A] [--jsonl FILE]

Plays the same games as `rulepress balance content/android` with the same -n, --seed, --players
and --agent (game i has the seed "S:i" and its agents "S:i:<seat>"; the loop is play_out's), and
reads each game's course and final state: whether a murderer was convicted (the `murderer`
counter) and by what margin, each character's wins against fair with a 95% interval, which
significant locations were used (the location a detective stands at when taking "Use the
location") and entered, which organisations a line reaches at the end, the suspects killed.
`rulepress balance` gives the same win rates from the same games; this adds what the figures
of content/android/COVERAGE.md ("How it plays") need.
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
from rulepress.runtime import visibility  # noqa: E402
from rulepress.runtime.agents import ask, make  # noqa: E402
from rulepress.runtime.flow import new_game  # noqa: E402
from rulepress.runtime.match import Match  # noqa: E402
from rulepress.runtime.simulate import seat_agents  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402
from rulepress.stats import wilson  # noqa: E402


def play(game, i, seed, players, agent) -> dict:
    s = f"{seed}:{i}"
    st = new_game(game, players, s, None)
    agents = {p: make(kind, f"{s}:{p}") for p, kind in seat_agents(agent, st["players"]).items()}
    det = {p: st["things"][p]["counters"]["det"] for p in st["players"]}
    uses, entered = [], {st["things"][d]["zone"] for d in det.values()}
    m = Match(game, st)
    if any(getattr(a, "remembers", False) for a in agents.values()):  # as runtime.agents.play_out
        visibility.remember(st)
    while st["pending"] is not None:
        dec = m.decision
        for p in dec.waiting:
            if st["pending"] is not dec.raw:
                break
            c = ask(game, st, agents[p], p, dec.options_for(p))
            if c == "use_location":
                uses.append(st["things"][det[p]]["zone"])
            m.apply(p, c)
            entered.update(st["things"][d]["zone"] for d in det.values())  # (the state's dicts are replaced as it changes)
    th = st["things"]
    return {"i": i, "det": det, "winners": st["winners"], "scores": st["scores"],
            "murderer": st["game_counters"].get("murderer"), "margin": st["game_counters"].get("margin"),
            "uses": uses, "entered": sorted(entered),
            "orgs": sorted(k for k, v in th.items() if v["zone"] == "organisations" and v["counters"].get("lines")),
            "dead": sorted(k for k, v in th.items() if v["zone"] == "lineup" and "dead" in v.get("marks", {})),
            "leads": sum(th[p]["counters"].get("leads_followed", 0) for p in det),
            "filed": sum(th[p]["counters"].get("evidence_filed", 0) for p in det)}


def pct(k, n) -> str:
    w = wilson(k, n)
    return f"{k}/{n} ({100 * w.rate:.0f}%, {100 * w.low:.0f}-{100 * w.high:.0f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--agent", default="mcts:10")
    ap.add_argument("--first", type=int, default=0, help="start at game FIRST (to add games to a run)")
    ap.add_argument("--jsonl", help="also write each game's record here, a line each")
    ap.add_argument("--game", default=os.path.join(ROOT, "content", "android"))
    a = ap.parse_args()
    text, _gid, report = compile_game(a.game)
    if text is None:
        sys.exit("\n".join(d.text() for d in report.sorted()))
    game = Game(json.loads(text))
    significant = [k for k in game.locations if game.attrs_of.get(k, {}).get("significant")]
    games = []
    out = open(a.jsonl, "w") if a.jsonl else None
    for i in range(a.first, a.first + a.n):
        r = play(game, i, a.seed, a.players, a.agent)
        games.append(r)
        if out:
            out.write(json.dumps(r) + "\n")
            out.flush()
        print(f"game {i}: murderer {r['murderer']}, winners {[r['det'][p] for p in r['winners']]}", file=sys.stderr, flush=True)
    n = len(games)
    print(f"{a.players} players, {a.agent}, seed {a.seed}, {n} games")
    print(f"  a murderer convicted: {pct(sum(1 for r in games if r['murderer']), n)}; margins "
          + ", ".join(f"{k}: {v}" for k, v in sorted(Counter(r['margin'] for r in games).items())))
    fair = sum(len(r["winners"]) for r in games) / (n * a.players)
    seats, wins = Counter(), Counter()
    for r in games:
        for p, d in r["det"].items():
            seats[d] += 1
            wins[d] += p in r["winners"]
    print(f"  wins by character (fair {100 * fair:.0f}%): " + "; ".join(f"{d} {pct(wins[d], seats[d])}" for d in sorted(seats)))
    used = Counter(l for r in games for l in set(r["uses"]))
    print("  significant locations used (games): " + ", ".join(f"{k} {v}" for k, v in sorted(used.items())))
    print("  never used: " + (", ".join(l for l in significant if not used[l]) or "none"))
    print("  never entered: " + (", ".join(sorted(set(game.locations) - {l for r in games for l in r["entered"]})) or "none"))
    orgs = Counter(o for r in games for o in r["orgs"])
    print("  organisations a line reaches (games): " + (", ".join(f"{k} {v}" for k, v in sorted(orgs.items())) or "none"))
    print(f"  suspects killed: {sum(len(r['dead']) for r in games)}; leads followed a game: {sum(r['leads'] for r in games) / n:.1f}"
          f", of them filed as evidence: {sum(r.get('filed', 0) for r in games) / n:.1f}")


if __name__ == "__main__":
    main()
