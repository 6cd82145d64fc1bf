"""Bot games on Ray: the same games, byte for byte in the JSON report, as on this machine's
own processes, whatever the number of workers (runtime/cluster.py)."""
from __future__ import annotations

import json
import time

import pytest

from conftest import game_from
from rulepress.runtime.simulate import Job, Stopped, play_one, run_games, simulate

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
