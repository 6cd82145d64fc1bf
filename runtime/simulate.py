"""Many bot games at once: win rates, scores, lengths and the actions people used.

Game i always gets the seed "<seed>:<i>" and its own agents, so the figures are the same
whatever the number of workers.
"""
from __future__ import annotations

import gc
import signal
import statistics
from collections import Counter
from typing import NamedTuple

from .agents import make, play_out
from .flow import ended, new_game
from .interpreter import GameFault


def play_one(game, i, seed, players, agent, options=None):
    s = f"{seed}:{i}"
    st = new_game(game, players, s, options)
    agents = {p: make(kind, f"{s}:{p}") for p, kind in seat_agents(agent, st["players"]).items()}
    cards = cards_of(game)
    dealt = {x: st["things"][x]["zone"] for x in cards}  # where setup left them
    try:
        decisions = play_out(game, st, agents)
    except (GameFault, RuntimeError) as exc:
        return {"i": i, "error": str(exc)}
    actions = Counter(c for _w, c in st["history"] if c in game.actions or c == "pass")
    chosen = {c for _w, c in st["history"] if c in cards}
    used = sorted({cards[x] for x in cards if x in chosen or st["things"][x]["zone"] != dealt[x]
                   or _in_play(game, dealt[x], st["players"])})
    factions = {}
    if "faction" in game.scoring:
        from .interpreter import Interp
        from .words import label_of
        it = Interp(game, st)
        for p in st["players"]:
            f = it.ev(game.scoring["faction"], {"player": p})
            factions[p] = label_of(game, f).get("en", str(f)) if isinstance(f, str) else str(f)
    by_seat = {p: {"actions": sorted({c for w, c in st["history"] if w == p and c in game.actions}),
                   "cards": sorted({cards[c] for w, c in st["history"] if w == p and c in cards})}
               for p in st["players"]}  # what each seat took and chose: read against its wins
    return {"i": i, "scores": st["scores"], "winners": st["winners"], "rounds": st["round"],
            "decisions": decisions, "actions": dict(actions), "factions": factions,
            "first": st["first"], "ended": _ended(st), "cards": used, "by_seat": by_seat}


def cards_of(game) -> dict:
    """Card id -> its card type: the things the content lists under `cards:`."""
    made = game.cache.cards
    if made is None:
        made = game.cache.cards = {iid: pid for iid, pid, _zone, _up in game.instances
                                          if game.protos[pid].get("section") == "cards"}
    return made


def _in_play(game, zone: str, seats) -> bool:
    """Whether a zone is in play in front of a player (a seat's zone all may see): a card
    setup puts there, like a character sheet, is used from the start. A hand is not."""
    owner, _dot, name = zone.partition(".")
    return bool(name) and owner in seats and game.zones.get(name, {}).get("visibility", "public") == "public"


def _ended(st) -> dict:
    """How the game ended (flow.ended); after `end game`, the content's log line just before
    it, which often says why."""
    how = dict(ended(st) or {"by": "unknown", "at": ""})
    n = how.pop("log", 0)
    before = st["log"][n - 1] if 0 < n <= len(st["log"]) else None
    if before is not None and "to" not in before and "at" in before:
        how["said"] = before.get("unnamed") or before.get("text", "")
    return how


def seat_agents(spec: str, seats) -> dict:
    """`greedy` for every seat, or a mix: `p1=greedy,random` (the bare name is the default)."""
    default, per = "random", {}
    for part in filter(None, (x.strip() for x in spec.split(","))):
        seat, eq, kind = part.partition("=")
        if eq:
            per[seat] = kind
        else:
            default = seat
    return {p: per.get(p, default) for p in seats}


class Job(NamedTuple):
    """One bot game of a run: game `index` gets the seed "<seed>:<index>" and its own agents."""
    index: int
    seed: object
    players: int
    agent: str
    options: dict | None = None


def jobs_for(n: int, seed, players: int, agent: str, options=None) -> list[Job]:
    return [Job(i, seed, players, agent, options) for i in range(n)]


class Stopped(KeyboardInterrupt):
    """Ctrl-C during a run: the results of the games finished by then come along (in index
    order), for the caller to report; `summary` is simulate()'s summary of them."""

    def __init__(self, results: list, total: int, summary: dict | None = None):
        super().__init__(f"stopped after {len(results)} of {total} games")
        self.results, self.total, self.summary = results, total, summary


BACKENDS = ("local", "ray")


def run_games(game, jobs, *, workers=1, backend="local", address=None, progress=None, play=play_one) -> list:
    """Plays `jobs` and returns each game's result in index order: the same, byte for byte,
    whichever backend and however many workers, since a game is its job alone.

    backend "local": in this process, or in `workers` processes forked from it;
    "ray": on `workers` Ray workers, of the cluster at `address` or of a Ray started for this
    run (see cluster.py). `progress(k)` is told as k more games finish. `play(game, *job)`
    plays one game (a function of a module, so that Ray can send it by name).
    Ctrl-C ends the workers and raises Stopped with the games finished."""
    if backend not in BACKENDS:
        raise ValueError(f"no backend `{backend}`; backends: {', '.join(BACKENDS)}")
    jobs = [Job(*j) for j in jobs]
    if workers < 1:
        raise ValueError(f"a run needs at least one worker, not {workers}")
    if backend == "ray" and game.cache.profile is not None:
        raise ValueError("a profile times the games played in this process: it is for the local backend")
    if not jobs:
        return []
    finished = []

    def done(pairs):
        finished.extend(pairs)
        if progress is not None:
            progress(len(pairs))

    try:
        if backend == "ray":
            from .cluster import play_on_ray
            play_on_ray(game.data, jobs, min(workers, len(jobs)), address, play, done)
        elif workers > 1 and len(jobs) > 1 and game.cache.profile is None:
            _play_forked(game, jobs, min(workers, len(jobs)), play, done)
        else:  # a profile reads clocks in this process: its games are played here
            prof = game.cache.profile
            for job in jobs:
                done([(job.index, play(game, *job) if prof is None else prof.timed(lambda: play(game, *job)))])
    except KeyboardInterrupt:
        raise Stopped(_in_order(finished), len(jobs)) from None
    return _in_order(finished)


def _in_order(pairs) -> list:
    return [r for _i, r in sorted(pairs, key=lambda pair: pair[0])]


def _play_forked(game, jobs, workers, play, done) -> None:
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    # Forked workers start with this very game (a forked pool's initializer arguments are
    # inherited, not sent): its generated code and what it has worked out so far come along
    # instead of being built again in every worker. The collector is told to leave what
    # exists now alone, so the workers do not copy every page of it just by looking at it.
    gc.freeze()
    try:
        # Leaving the block terminates the pool: on Ctrl-C too, so no worker outlives the run.
        with ctx.Pool(workers, initializer=_init_worker, initargs=(game,)) as pool:
            for pair in pool.imap_unordered(_work_shared, [(play, job) for job in jobs], chunksize=1):
                done([pair])
    finally:
        gc.unfreeze()


def simulate(game, n, seed=0, players=None, workers=1, agent="random", progress=None, options=None,
             backend="local", address=None) -> dict:
    """`options`: game options set for every game (name -> value; the others keep their defaults).
    `progress`, `backend`, `address`: as run_games'. Ctrl-C raises Stopped with the summary
    of the games finished."""
    if n < 1 or workers < 1:
        raise ValueError(f"simulate needs at least one game and one worker, not {n} and {workers}")
    players = players or game.players_min
    jobs = jobs_for(n, seed, players, agent, options)
    try:
        results = run_games(game, jobs, workers=workers, backend=backend, address=address, progress=progress)
    except Stopped as stop:
        stop.summary = _summary(game, stop.results, n, seed, players, agent, options)
        stop.summary["stopped_after"] = len(stop.results)
        raise
    return _summary(game, results, n, seed, players, agent, options)


def _summary(game, results, n, seed, players, agent, options) -> dict:
    out = summarise(game, results, n, seed, players, agent)
    if options:  # said only when set, so a run without them reports as it always did
        out["options"] = dict(options)
    prof = game.cache.profile
    if prof is not None:
        out["profile"] = {"lines": prof.rows(n), "in_lines": prof.share_in_lines(),
                          "building": round(prof.building / (prof.total or 1), 4)}
    return out


def _init_worker(game):
    # Ctrl-C reaches every process of the terminal's group: the parent alone answers it,
    # ending the pool (and so these workers) without a traceback from each of them.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The pool ends its workers with SIGTERM: they end quietly even where the parent had
    # joined Ray, whose handler (forked along) prints a stack dump for it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _work_shared.game = game  # this worker process's one game, for the jobs it is sent


def _work_shared(args):
    play, job = args
    return job.index, play(_work_shared.game, *job)


def summarise(game, results, n, seed, players, agent) -> dict:
    results = sorted(results, key=lambda r: r["i"])
    ok = [r for r in results if "error" not in r]
    errors = [r for r in results if "error" in r]
    seats = [f"p{i + 1}" for i in range(players)]
    wins = Counter()
    ties = 0
    for r in ok:
        for w in r["winners"]:
            wins[w] += 1
        if not r["winners"] or len(r["winners"]) > 1:
            ties += 1
    per_seat = {}
    bins = score_bins([r["scores"][p] for r in ok for p in seats])
    for p in seats:
        sc = [r["scores"][p] for r in ok]
        per_seat[p] = {"win_rate": round(wins[p] / len(ok), 4) if ok else 0,
                       "score_mean": round(statistics.fmean(sc), 3) if sc else 0,
                       "score_median": statistics.median(sc) if sc else 0,
                       "score_min": min(sc) if sc else 0, "score_max": max(sc) if sc else 0,
                       "score_histogram": histogram(sc, bins)}
    actions = Counter()
    for r in ok:
        actions.update(r["actions"])
    played, won = Counter(), Counter()
    for r in ok:
        for p, f in r.get("factions", {}).items():
            played[f] += 1
            won[f] += p in r["winners"]
    factions = {f: {"games": played[f], "win_rate": round(won[f] / played[f], 4)} for f in sorted(played)}
    rounds = [r["rounds"] for r in ok]
    decisions = [r["decisions"] for r in ok]
    return {
        "game": game.id, "games": n, "seed": seed, "players": players, "agent": agent,
        "finished": len(ok), "errors": [{"game": r["i"], "error": r["error"]} for r in errors],
        "no_winner_or_shared": ties, "seats": per_seat, "score_bins": bins, "factions": factions,
        "rounds": {"mean": round(statistics.fmean(rounds), 3) if rounds else 0, "min": min(rounds, default=0), "max": max(rounds, default=0)},
        "decisions": {"mean": round(statistics.fmean(decisions), 3) if decisions else 0, "max": max(decisions, default=0)},
        "top_actions": [[a, c] for a, c in sorted(actions.items(), key=lambda kv: (-kv[1], kv[0]))[:10]],
    }


def score_bins(scores) -> dict:
    """The bins every seat's scores are counted in, from the lowest score to the highest:
    a bin a point where there are at most 12 points, else 12 bins of equal width."""
    lo, hi = (min(scores), max(scores)) if scores else (0, 0)
    if all(float(x).is_integer() for x in scores) and hi - lo < 12:
        return {"from": lo, "to": hi, "count": int(hi - lo) + 1, "width": 1}
    return {"from": lo, "to": hi, "count": 12, "width": (hi - lo) / 12}


def histogram(scores, bins) -> list:
    """How many of the scores fall in each of the bins (see score_bins)."""
    lo, k, width = bins["from"], bins["count"], bins["width"]
    out = [0] * k
    for x in scores:
        out[min(k - 1, int((x - lo) / width))] += 1
    return out
