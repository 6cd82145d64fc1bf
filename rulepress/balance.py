"""`rulepress balance`: is the game fair, and did a change make it fairer?

`figures(game, results, ...)` reads the per-game results of bot games (runtime/simulate.py
`play_one`) into the figures a designer asks for: win rate by seat and by faction with 95%
intervals and a verdict, the first player's edge, scores, game length, how games ended,
which actions and cards were used. `compare(a, b, results_a, results_b)` sets two such runs
side by side, each difference with its test (rulepress/stats.py). The JSON output is these
dicts; the HTML report (rulepress/balance_html.py) is drawn from them.

Games are seeded by their number ("<seed>:<i>"), so two versions played with the same seed
and agents meet the same dice wherever the content lets them.
"""
from __future__ import annotations

import statistics
from collections import Counter

from .runtime.simulate import cards_of, histogram, jobs_for, run_games, score_bins
from .stats import ALPHA, mann_whitney, two_proportions, wilson

VERSION = 1  # of the JSON output (docs/balance.md)
RARELY = 0.25  # an action or card used in under this share of what the typical one is used: "rarely"
TESTS = ("win rates, first player, endings and card use: two-proportion z test; scores, lengths "
         "and actions per game: Mann-Whitney U (normal approximation); two-sided, significant below "
         f"p = {ALPHA}")


def play(game, n, seed, players, agent, options=None, workers=1, progress=None, backend="local",
         address=None) -> list[dict]:
    """The per-game results of n bot games, in game order: the one place games are played
    (runtime/simulate.run_games: in this process, forked workers or Ray)."""
    return run_games(game, jobs_for(n, seed, players, agent, options), workers=workers, backend=backend,
                     address=address, progress=progress)


def _r(x, digits=4):
    return round(float(x), digits)


def _rate(wins, games) -> dict:
    iv = wilson(wins, games)
    return {"wins": wins, "games": games, "rate": _r(iv.rate), "low": _r(iv.low), "high": _r(iv.high)}


def _spread(values) -> dict:
    if not values:
        return {"mean": 0, "median": 0, "min": 0, "max": 0}
    return {"mean": _r(statistics.fmean(values), 3), "median": _r(statistics.median(values), 3),
            "min": min(values), "max": max(values)}


def _seat_name(p) -> str:
    return f"seat {p[1:]}" if p[:1] == "p" and p[1:].isdigit() else p


def verdict(rates: dict, fair: float, what="seat", name=_seat_name) -> str:
    """The one line on the seats (or factions): the one farthest from fair, by how much, and
    whether its 95% interval leaves room for fair at all."""
    if not rates:
        return "no game finished, so nothing can be said"
    p, s = max(sorted(rates.items()), key=lambda kv: abs(kv[1]["rate"] - fair))
    gap = (s["rate"] - fair) * 100
    half = (s["high"] - s["low"]) * 50
    if s["low"] <= fair <= s["high"]:
        where = (f"within ± {half:.0f} points of it" if round(abs(gap)) == 0 else
                 f"{abs(gap):.0f} ± {half:.0f} points {'above' if gap >= 0 else 'below'} it")
        return f"no {what} wins significantly more or less often than fair ({fair:.0%}); the farthest, {name(p)}, is {where}"
    return (f"{name(p)} wins {abs(gap):.0f} ± {half:.0f} points {'more' if gap > 0 else 'less'} "
            f"often than fair ({fair:.0%})")


def _ending_key(e) -> str:
    return f"{e['by']} at {e['at']}" if e.get("at") else e["by"]


def ending_words(game, by: str, said: str = "") -> str:
    """How a game ended, in words: the end condition as the rulebook says it, the last round,
    or the line the content logged before its `end game`."""
    flow = game.data.get("flow") or {}
    if by == "end condition" and flow.get("end") is not None:
        words = (flow.get("end_text") or {}).get("en", "")  # the content's own words first
        if not words:
            from .compiler.render import expr_text  # the rulebook's words for the condition
            try:
                words = expr_text(flow["end"], game.data, "en")
            except Exception:  # a courtesy: the position says it otherwise
                words = ""
        if words:
            return f"the end condition: {words[:1].lower()}{words[1:]}"
    if by == "last round":
        name = (flow.get("round_name") or {}).get("en") or "round"
        return f"after the last {name.lower()} ({name.lower()} {flow.get('rounds')})"
    if by == "end game":
        return f"`end game`: {said}" if said else "an `end game` statement"
    return by


def _win_when(ok, seats, has) -> dict:
    """A seat's win rate in the games where `has(game, seat)` and in the others, each with
    its interval: whether taking an action or playing a card goes with winning (not that it
    causes it: a seat ahead may simply have more to spend)."""
    won, games = Counter(), Counter()
    for r in ok:
        for p in seats:
            side = bool(has(r, p))
            games[side] += 1
            won[side] += p in r["winners"]
    return {"with": _rate(won[True], games[True]), "without": _rate(won[False], games[False])}


def _usage_flags(rows, measure) -> None:
    """Marks each row `never` (0) or `rarely` (under RARELY of the median of the others)."""
    used = sorted(measure(r) for r in rows if measure(r) > 0)
    typical = statistics.median(used) if used else 0
    for r in rows:
        m = measure(r)
        r["flag"] = "never" if m == 0 else "rarely" if m < RARELY * typical else ""


def figures(game, results, n, seed, players, agent, options=None) -> dict:
    """Every figure of the report for one version of a game."""
    ok = [r for r in results if "error" not in r]
    seats = [f"p{i + 1}" for i in range(players)]
    games = len(ok)
    wins = Counter(w for r in ok for w in r["winners"])
    rates = {p: _rate(wins[p], games) for p in seats}
    fair = _r(sum(wins.values()) / (games * players)) if games else 0.0
    # every game won by all or by none: a cooperative game, whose seats cannot be unfair to each other
    cooperative = bool(ok) and all(len(r["winners"]) in (0, players) for r in ok)
    bins = score_bins([r["scores"][p] for r in ok for p in seats])
    for p in seats:
        sc = [r["scores"][p] for r in ok]
        rates[p]["score"] = dict(_spread(sc), histogram=histogram(sc, bins))
    first_wins = sum(1 for r in ok if r["first"] in r["winners"])
    first = dict(_rate(first_wins, games), fair=fair)
    played, won = Counter(), Counter()
    for r in ok:
        for p, f in r.get("factions", {}).items():
            played[f] += 1
            won[f] += p in r["winners"]
    factions = {f: _rate(won[f], played[f]) for f in sorted(played)}
    endings = {}
    for r in ok:
        e = r["ended"]
        row = endings.setdefault(_ending_key(e), {"by": e["by"], "at": e.get("at", ""), "games": 0, "said": Counter()})
        row["games"] += 1
        if e.get("said"):
            row["said"][e["said"]] += 1
    ended = []
    for key, row in sorted(endings.items(), key=lambda kv: (-kv[1]["games"], kv[0])):
        said = min(row["said"].items(), key=lambda kv: (-kv[1], kv[0]))[0] if row["said"] else ""
        ended.append({"key": key, "by": row["by"], "at": row["at"], "said": said, "games": row["games"],
                      "words": ending_words(game, row["by"], said),
                      "share": _r(row["games"] / games) if games else 0.0})
    actions = []
    for aid in sorted(game.actions):
        taken = [r["actions"].get(aid, 0) for r in ok]
        actions.append({"id": aid, "name": _name(game, aid), "taken": sum(taken),
                        "per_game": _r(statistics.fmean(taken), 3) if taken else 0.0,
                        "games": sum(1 for t in taken if t),
                        "wins": _win_when(ok, seats, lambda r, p, a=aid: a in r.get("by_seat", {}).get(p, {}).get("actions", ()))})
    _usage_flags(actions, lambda a: a["taken"])
    card_games = Counter(c for r in ok for c in r.get("cards", ()))
    cards = []
    for pid in sorted(set(cards_of(game).values())):
        cards.append({"id": pid, "name": _name(game, pid), "kind": game.protos[pid]["kind"],
                      "games": card_games[pid], "share": _r(card_games[pid] / games) if games else 0.0,
                      "wins": _win_when(ok, seats, lambda r, p, c=pid: c in r.get("by_seat", {}).get(p, {}).get("cards", ()))})
    _usage_flags(cards, lambda c: c["games"])
    rounds = [r["rounds"] for r in ok]
    decisions = [r["decisions"] for r in ok]
    out = {
        "game": game.id, "name": _title(game), "content_hash": game.hash, "games": n, "finished": games, "seed": seed,
        "players": players, "agent": agent,
        "errors": [{"game": r["i"], "error": r["error"]} for r in results if "error" in r],
        "cooperative": cooperative, "fair": fair, "seats": rates,
        "verdict": (f"cooperative: every game is won by all seats or by none; the players win {rates[seats[0]]['rate']:.0%}"
                    if cooperative else verdict(rates, fair)),
        "no_winner": sum(1 for r in ok if not r["winners"]),
        "first_player": first, "factions": factions, "score_bins": bins,
        "faction_verdict": verdict(factions, fair, "faction", str) if factions and not cooperative else "",
        "length": {"rounds": dict(_spread(rounds), histogram=_counts(rounds)),
                   "decisions": dict(_spread(decisions), histogram=_counts(decisions))},
        "ended": ended, "actions": actions, "cards": cards,
    }
    if options:
        out["options"] = dict(options)
    return out


def _counts(values) -> list:
    """[value, how many games had it] for each value seen, in order."""
    return [[v, c] for v, c in sorted(Counter(values).items())]


def player_count(n) -> str:
    """"1 player", "2 players"."""
    return f"{n} player{'' if n == 1 else 's'}"


def _title(game) -> str:
    """The game's name as the rulebook prints it (English where it has English)."""
    names = game.data["game"].get("name") or {}
    return names.get("en") or next(iter(names.values()), game.id)


def _name(game, tid) -> str:
    from .runtime.words import label_of
    return label_of(game, tid).get("en", tid)


def _diff(a, b, test, digits=4) -> dict:
    return {"a": a, "b": b, "difference": _r(b - a, digits), "statistic": _r(test.statistic, 4),
            "p": float(f"{test.p:.3g}"), "significant": test.significant}


def compare(a: dict, b: dict, results_a, results_b) -> dict:
    """Each figure of a and b side by side: the difference (b - a) and its test."""
    ok_a = [r for r in results_a if "error" not in r]
    ok_b = [r for r in results_b if "error" not in r]
    na, nb = a["finished"], b["finished"]
    names = {x["id"]: x.get("name") for x in a["actions"] + a["cards"] + b["actions"] + b["cards"]}

    def rates(ra, rb):
        return _diff(ra["rate"], rb["rate"], two_proportions(rb["wins"], rb["games"], ra["wins"], ra["games"]))

    seats = {p: rates(a["seats"][p], b["seats"][p]) for p in a["seats"] if p in b["seats"]}
    factions = {f: rates(a["factions"][f], b["factions"][f]) for f in a["factions"] if f in b["factions"]}
    scores = {p: _diff(a["seats"][p]["score"]["mean"], b["seats"][p]["score"]["mean"],
                       mann_whitney([r["scores"][p] for r in ok_b], [r["scores"][p] for r in ok_a]), 3)
              for p in seats}
    length = {k: _diff(a["length"][k]["mean"], b["length"][k]["mean"],
                       mann_whitney([r[k] for r in ok_b], [r[k] for r in ok_a]), 3) for k in ("rounds", "decisions")}
    ea = {e["key"]: e for e in a["ended"]}
    eb = {e["key"]: e for e in b["ended"]}
    ended = {}
    for k in sorted(set(ea) | set(eb)):
        ga, gb = ea.get(k, {}).get("games", 0), eb.get(k, {}).get("games", 0)
        ended[k] = _diff(_r(ga / na) if na else 0.0, _r(gb / nb) if nb else 0.0, two_proportions(gb, nb, ga, na))
        ended[k]["label"] = (eb.get(k) or ea.get(k)).get("words") or k
    actions = {}
    for aid in sorted({x["id"] for x in a["actions"]} | {x["id"] for x in b["actions"]}):
        ta = [r["actions"].get(aid, 0) for r in ok_a]
        tb = [r["actions"].get(aid, 0) for r in ok_b]
        actions[aid] = _diff(_r(statistics.fmean(ta), 3) if ta else 0.0, _r(statistics.fmean(tb), 3) if tb else 0.0,
                             mann_whitney(tb, ta), 3)
        actions[aid]["label"] = names.get(aid) or aid
    ca = {c["id"]: c["games"] for c in a["cards"]}
    cb = {c["id"]: c["games"] for c in b["cards"]}
    cards = {c: dict(_diff(_r(ca.get(c, 0) / na) if na else 0.0, _r(cb.get(c, 0) / nb) if nb else 0.0,
                           two_proportions(cb.get(c, 0), nb, ca.get(c, 0), na)), label=names.get(c) or c)
             for c in sorted(set(ca) | set(cb))}
    fa, fb = a["first_player"], b["first_player"]
    out = {"seats": seats, "factions": factions, "first_player": rates(fa, fb), "scores": scores,
           "length": length, "ended": ended, "actions": actions, "cards": cards, "tests": TESTS}
    tested = holm([out["first_player"]] + [d for k in ("seats", "factions", "scores", "length", "ended", "actions", "cards")
                                            for d in out[k].values()])
    out["significant"] = _significant_lines(out)
    out["tested"] = tested
    return out


def holm(diffs: list) -> int:
    """Holm's correction over every difference compared at once: each gets `p_holm`, and is
    significant only when that is under ALPHA, so that among many figures a few do not pass
    by chance alone. Returns how many were compared."""
    m = len(diffs)
    running = 0.0
    for i, d in enumerate(sorted(diffs, key=lambda d: d["p"])):
        running = max(running, min(1.0, (m - i) * d["p"]))
        d["p_holm"] = float(f"{running:.3g}")
        d["significant"] = bool(d["significant"]) and running < ALPHA
    return m


def p_text(p) -> str:
    return "p < 0.0001" if p < 0.0001 else f"p = {p:.2g}"


def _significant_lines(c) -> list[str]:
    """The significant differences in words, win rates first."""
    lines = []

    def pts(d):
        return f"{d['a']:.0%} -> {d['b']:.0%} ({d['difference'] * 100:+.0f} points, {p_text(d['p'])})"

    def num(d):
        return f"{d['a']:g} -> {d['b']:g} ({d['difference']:+g}, {p_text(d['p'])})"

    said = [  # (the differences of one figure, how one of them is said), win rates first
        (c["seats"], lambda k, d: f"{_seat_name(k)} win rate {pts(d)}"),
        (c["factions"], lambda k, d: f"{k} win rate {pts(d)}"),
        ({"first player": c["first_player"]}, lambda k, d: f"{k} win rate {pts(d)}"),
        (c["scores"], lambda k, d: f"{_seat_name(k)} mean score {num(d)}"),
        (c["length"], lambda k, d: f"{k} per game {num(d)}"),
        (c["ended"], lambda k, d: f"games ended by {d.get('label') or k} {pts(d)}"),
        (c["actions"], lambda k, d: f"action {d.get('label') or k} taken per game {num(d)}"),
        (c["cards"], lambda k, d: f"card {d.get('label') or k} used in {pts(d)} of games"),
    ]
    for differences, line in said:
        lines += [line(k, d) for k, d in differences.items() if d["significant"]]
    return lines
