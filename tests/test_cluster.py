"""Bot games on Ray: the same games, byte for byte in the JSON report, as on this machine's
own processes, whatever the number of workers (runtime/cluster.py)."""
from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import game_from
from rulepress.runtime.simulate import Job, Stopped, play_one, run_games, simulate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")
BIN = os.path.dirname(sys.executable)

ray = pytest.importorskip("ray", reason="Ray is not installed here (pip install 'rulepress[ray]')")


@pytest.fixture(scope="module")
def local_ray():
    """A Ray of two CPUs on this machine, as `ray start --head --num-cpus 2` would make:
    run_games joins the Ray this process has already joined."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


def report(game, n, **how) -> str:
    return json.dumps(simulate(game, n, seed=4, players=2, **how), indent=1, sort_keys=True)


def test_ray_plays_the_games_the_local_backend_plays_byte_for_byte(duel, local_ray):
    local = report(duel, 40)
    assert report(duel, 40, workers=2) == local
    assert report(duel, 40, backend="ray", workers=2) == local
    assert report(duel, 40, backend="ray", workers=1) == local


def test_a_content_game_on_ray_is_the_game_played_here(local_ray):
    game = game_from("content/study-in-emerald")
    here = json.dumps(simulate(game, 8, seed="lab", players=3), sort_keys=True)
    assert json.dumps(simulate(game, 8, seed="lab", players=3, backend="ray", workers=2), sort_keys=True) == here


def test_run_games_gives_results_in_index_order_and_counts_them_as_they_finish(duel, local_ray):
    jobs = [Job(i, "order", 2, "random") for i in range(30)]
    told = []
    results = run_games(duel, jobs, workers=2, backend="ray", progress=told.append)
    assert [r["i"] for r in results] == list(range(30))
    assert sum(told) == 30 and len(told) > 2  # chunk by chunk, not once at the end
    assert results == [play_one(duel, *job) for job in jobs]


def test_the_ray_workers_are_gone_after_a_run(duel, local_ray):
    run_games(duel, [Job(i, 1, 2, "random") for i in range(4)], workers=2, backend="ray")
    # the run's actors hold a CPU each while they live: both CPUs are free again (Ray is told
    # of killed actors a moment later)
    deadline = time.monotonic() + 20
    while ray.available_resources().get("CPU") != 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray.available_resources().get("CPU") == 2


def test_stopped_keeps_the_games_finished_in_index_order():
    stop = Stopped([{"i": 0}, {"i": 3}], 10)
    assert isinstance(stop, KeyboardInterrupt)  # a caller that does not report it still exits as on Ctrl-C
    assert str(stop) == "stopped after 2 of 10 games"


def _session(sid: int) -> list[int]:
    """Processes of session sid (Linux /proc): a head and every process it started."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                out.append(int(d))
    return out


@pytest.fixture(scope="module")
def head():
    """A Ray cluster's head on this machine's loopback, as `ray start --head` makes one:
    (its address, the environment that carries its token). Ended with all it started."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    proc = subprocess.Popen([os.path.join(BIN, "ray"), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
                             "--node-ip-address=127.0.0.1", "--include-dashboard=false", "--disable-usage-stats"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not any(b"raylet" in _name(p) for p in _session(proc.pid)):
            time.sleep(0.5)
        time.sleep(3)  # the raylet registers with the head
        yield f"127.0.0.1:{port}", env
    finally:
        for _ in range(3):  # what it started may start more while it goes: until none is left
            for pid in _session(proc.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
        proc.wait()


def _name(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def cluster_run(address, env, *args):
    return subprocess.run([os.path.join(BIN, "rulepress"), "simulate", DUEL, "-n", "30", "--seed", "2", "--json",
                           "--backend", "ray", "--address", address, *args],
                          capture_output=True, text=True, env=env, timeout=180)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_cluster_started_with_ray_start_plays_the_games_played_here(head):
    address, env = head
    here = subprocess.run([os.path.join(BIN, "rulepress"), "simulate", DUEL, "-n", "30", "--seed", "2", "--json"],
                          capture_output=True, text=True, check=True).stdout
    there = cluster_run(address, {**env, "RAY_AUTH_MODE": "token"}, "--workers", "2")
    assert there.returncode == 0, there.stderr
    assert there.stdout == here
    # an actor waits for a CPU that never comes: refused before a game starts
    many = cluster_run(address, {**env, "RAY_AUTH_MODE": "token"}, "--workers", "3")
    assert many.returncode == 1 and many.stdout == ""
    assert many.stderr.strip() == f"rulepress: the Ray cluster at {address} has 2 CPUs, fewer than the 3 workers asked"
    # Ray sends its token to an address given by hand only when told to: one line says how
    untold = cluster_run(address, env, "--workers", "2")
    assert untold.returncode == 1 and untold.stdout == ""
    assert untold.stderr.strip().splitlines() == [
        f"rulepress: the Ray cluster at {address} wants its token: set RAY_AUTH_MODE=token, with the token "
        "(`ray get-auth-token` on the head) in RAY_AUTH_TOKEN or ~/.ray/auth_token"]


def test_forked_workers_of_a_process_that_joined_ray_end_quietly(capfd, duel, local_ray):
    # Ray's handler of SIGTERM, forked along, printed a stack dump as the pool ended each worker
    assert len(run_games(duel, [Job(i, 1, 2, "random") for i in range(6)], workers=2)) == 6
    time.sleep(0.5)
    assert "SIGTERM" not in capfd.readouterr().err


def test_more_workers_than_the_joined_ray_has_cpus_is_refused_not_waited_for(duel, local_ray):
    from rulepress.runtime.cluster import ClusterError
    with pytest.raises(ClusterError, match=r"^the Ray cluster this process joined has 2 CPUs, fewer than the 3 workers asked$"):
        run_games(duel, [Job(i, 1, 2, "random") for i in range(6)], workers=3, backend="ray")


def test_balance_on_ray_reports_what_it_reports_here(duel, local_ray):
    """`balance --backend ray` plays through run_games as simulate does: the same figures."""
    from rulepress.balance import figures, play
    here = figures(duel, play(duel, 24, "b", 2, "random"), 24, "b", 2, "random")
    there = figures(duel, play(duel, 24, "b", 2, "random", workers=2, backend="ray"), 24, "b", 2, "random")
    assert json.dumps(there, sort_keys=True) == json.dumps(here, sort_keys=True)


def test_chunks_shrink_to_one_game_so_the_workers_finish_together():
    """A worker that runs dry waits for the others' last chunks: those are a game each, while
    the first are large, so a run makes few calls to its actors."""
    from rulepress.runtime.cluster import CHUNK_MOST, chunks
    jobs = [Job(i, 1, 2, "random") for i in range(200)]
    parts = chunks(jobs, 2)
    assert [job for part in parts for job in part] == jobs
    sizes = [len(part) for part in parts]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == CHUNK_MOST
    assert sizes[-4:] == [1, 1, 1, 1]  # the last game of each worker and the one given it ahead
    assert len(parts) < 50
    assert [len(part) for part in chunks(jobs[:3], 4)] == [1, 1, 1]
