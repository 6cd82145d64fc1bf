"""Bot games on Ray: on a cluster already running (`address`), or on a Ray started here for
one run with as many CPUs as workers.

Each worker is an actor that builds the game from its tables once and then plays chunks of
game indexes; the driver keeps every actor two chunks ahead, so none waits for the next one.
Chunks shrink as the games run out, down to one game: the workers finish together instead
of one of them idle while another plays out a chunk taken long before.
Ray is imported only here, and only when a run asks for it: it is an optional extra.
A Ray started here runs as Ray starts by default: its own processes (raylet, GCS, agents, log
monitor) take under 2% of a core while games run (bench/ray_scaling.py), too little to turn
any of them off for.
"""
from __future__ import annotations

import logging
import os
import tempfile
from collections import deque
from contextlib import contextmanager

SHARE = 4  # a chunk is at most a 1/SHARE of a worker's share of the games left
CHUNK_MOST = 25  # games in one chunk at most: a game takes milliseconds, a call to an actor about one,
# and the progress bar moves chunk by chunk
AHEAD = 2  # chunks given to each actor at once: one played, the next already there


class ClusterError(Exception):
    """Ray cannot be used as asked: not installed, no cluster at the address, too few CPUs there,
    or a worker that failed. The message is one line."""


def ray_module():
    try:
        import ray
    except ImportError:
        raise ClusterError("ray is not installed: pip install 'rulepress[ray]'") from None
    return ray


class GameWorker:
    """A Ray worker of one run: the game built once from its tables, then chunks of its games."""

    def __init__(self, data, play):
        import signal
        # Ctrl-C reaches the terminal's whole process group: the driver alone answers it,
        # ending these actors, rather than each worker failing its chunk with a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        from .tables import Game
        self.game = Game(data)
        self.play = play

    def play_chunk(self, jobs):
        return [(job[0], self.play(self.game, *job)) for job in jobs]


def chunks(jobs, workers: int) -> list:
    """The jobs in chunks, in order, each a SHARE-th of a worker's share of those left after
    it (CHUNK_MOST at most, one at least): a worker that started late, or was slowed by
    others' work, has only small chunks left to finish when the others run out."""
    out, k = [], 0
    while k < len(jobs):  # bounded: each chunk takes at least one job
        size = max(1, min(CHUNK_MOST, (len(jobs) - k) // (workers * SHARE)))
        out.append(jobs[k:k + size])
        k += size
    return out


def play_on_ray(data: dict, jobs: list, workers: int, address, play, done) -> None:
    """Plays `jobs` on `workers` actors; `done(pairs)` gets each chunk's (index, result) pairs
    as it finishes. Whatever ends the run (the last game, a failure, Ctrl-C), the actors are
    killed, which cancels what they were playing, and a Ray started here is shut down."""
    ray = ray_module()
    started = _connect(ray, address, workers)
    actors = []
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < workers:  # an actor waiting for a CPU that never comes is a run that never ends
            where = f"at {address}" if address else "this process joined"
            raise ClusterError(f"the Ray cluster {where} has {cpus} CPUs, fewer than the {workers} workers asked")
        worker = ray.remote(num_cpus=1)(GameWorker)
        tables = ray.put(data)
        actors = [worker.remote(tables, play) for _ in range(workers)]
        waiting = deque(chunks(jobs, workers))
        running = {}

        def give(actor):
            if waiting:
                running[actor.play_chunk.remote(waiting.popleft())] = actor

        for actor in actors:
            for _ in range(AHEAD):
                give(actor)
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            actor = running.pop(ready[0])
            done(ray.get(ready[0]))
            give(actor)
    except ray.exceptions.RayError as exc:
        first = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
        raise ClusterError(f"a Ray worker failed: {first[0][:300]}") from None
    finally:
        for actor in actors:
            ray.kill(actor)
        if started:
            ray.shutdown()


def _connect(ray, address, workers: int) -> bool:
    """Joins the cluster at `address`, or starts a Ray of `workers` CPUs here (address None).
    True when this call started it (and so the run shuts it down); a Ray this process already
    joined is used as it is."""
    if ray.is_initialized():
        return False
    quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address is None:
        # "local": a Ray of its own even where RAY_ADDRESS names a cluster
        ray.init(address="local", num_cpus=workers, include_dashboard=False, **quiet)
        return True
    with _stderr_kept() as said:
        try:
            ray.init(address=address, **quiet)
        except ConnectionError as exc:
            said.seek(0)
            raise ClusterError(_refusal(address, exc, said.read().decode("utf-8", "replace"))) from None
    return True


def _refusal(address, exc, said: str) -> str:
    if "Unauthenticated" in said or "InvalidAuthToken" in said:
        # Ray sends this machine's token to an address given by hand only when told to
        return (f"the Ray cluster at {address} wants its token: set RAY_AUTH_MODE=token, with the token "
                "(`ray get-auth-token` on the head) in RAY_AUTH_TOKEN or ~/.ray/auth_token")
    return f"no Ray cluster at {address}: {(str(exc).strip().splitlines() or ['no answer'])[0][:200]}"


@contextmanager
def _stderr_kept():
    """Ray's core writes each failed try to join a cluster to the process's stderr itself, a
    line a second for twenty seconds: kept aside here, it becomes the one line a refusal is."""
    saved = os.dup(2)
    with tempfile.TemporaryFile() as kept:
        os.dup2(kept.fileno(), 2)
        try:
            yield kept
        finally:
            os.dup2(saved, 2)
            os.close(saved)
