import functools
import json
import os
import shutil
import signal
import sys
import tempfile

import pytest
from hypothesis import settings

# One module under both names it is imported by: `conftest`, as pytest loads it (and some test
# modules import it), and `tests.conftest`, as others do. Two copies would each compile every
# game again and make a cache folder of their own (the second never removed).
sys.modules.setdefault("conftest", sys.modules[__name__])
sys.modules.setdefault("tests.conftest", sys.modules[__name__])

# The property tests try the same inputs on every run, so a test run's verdict is the code's
# alone (HYPOTHESIS_PROFILE=explore looks for new failing inputs instead).
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# Every cache the tests make goes to a folder of their own, never the user's: set before
# anything is compiled (content_games compiles while tests are collected).
CACHE_DIR = tempfile.mkdtemp(prefix="rulepress-test-cache-")
os.environ["RULEPRESS_CACHE_DIR"] = CACHE_DIR
os.environ.pop("RULEPRESS_NO_CACHE", None)
# A server's faces process runs below the rooms (nice 10); a test that waits for the faces
# would wait out every other test the machine runs meanwhile (55 s instead of 2.5 on a busy
# machine), so here it runs as the tests do.
os.environ["RULEPRESS_FACES_NICE"] = "0"
# The cards' faces (the table servers' faces process, several seconds of WeasyPrint a game) are
# made once a run: pytest-xdist's workers share the run's folder of faces, which the servers
# share as two servers on one cache do (table/faces.py: one makes them, the others wait).
if os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(os.environ.get("RULEPRESS_TEST_FACES", "")):
    os.symlink(os.environ["RULEPRESS_TEST_FACES"], os.path.join(CACHE_DIR, "faces"))
elif not os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["RULEPRESS_TEST_FACES"] = os.path.join(CACHE_DIR, "faces")
    os.makedirs(os.environ["RULEPRESS_TEST_FACES"])

from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime.tables import Game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.cache
def compiled(folder: str) -> str:
    """A game's tables as JSON text, compiled once a session (the repository's games do not
    change while the tests run); each caller gets tables of its own to load."""
    text, _gid, report = compile_game(os.path.join(ROOT, folder))
    assert text is not None, "\n".join(d.text() for d in report.sorted())
    return text


def game_from(folder: str) -> Game:
    """A game's tables: the repository's compiled once a session; a folder a test writes
    (under its tmp_path, perhaps rewritten between two calls) compiled each time."""
    path = os.path.abspath(os.path.join(ROOT, folder))
    if not path.startswith(os.path.join(ROOT, "")):
        text, _gid, report = compile_game(path)
        assert text is not None, "\n".join(d.text() for d in report.sorted())
        return Game(json.loads(text))
    return Game(json.loads(compiled(folder)))


@pytest.fixture(scope="session")
def duel():
    return game_from("tests/games/duel")


@pytest.fixture(scope="session")
def race():
    return game_from("docs/tutorial/race")


@functools.cache
def _content_games() -> tuple:
    base = os.path.join(ROOT, "content")
    out = []
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        folder = os.path.join(base, name)
        if os.path.isfile(os.path.join(folder, "game.yaml")):
            try:
                text = compiled(f"content/{name}")
            except AssertionError as exc:  # a content game that does not compile is a failure, never a skip
                raise pytest.UsageError(f"content/{name} does not compile:\n{exc}") from None
            if json.loads(text)["flow"].get("phases"):
                out.append(name)
    return tuple(out)


def content_games() -> list:
    """The content games that can be played, each compiled once a session (collection asks
    for them in every module that plays them all)."""
    return list(_content_games())


@pytest.fixture(scope="module")
def tables(duel):
    """The duel's tables with one more procedure, of two parameters and no effect."""
    t = dict(duel.data)
    t["procedures"] = dict(t["procedures"], helper={"params": ["p", "n"], "effect": [],
                                                      "text": {"en": "Helper: does a thing", "ru": "Помощник: делает дело"}})
    return t


# ---- the order tests are handed to pytest-xdist's workers ---------------------------------
#
# `make test` runs a worker more than the cores: each worker is handed a test (or a group of tests, below) at a
# time, in the order collected, as it runs short of work. With two cores a test of a minute
# handed out last keeps one worker busy alone to the end, so the longest go first, longest
# first; the rest keep the order they were collected in. Seconds of CPU (the test's process
# and those it waited for) measured one test at a time (`pytest -n 0`), more for a test that
# waits on a browser or a server; a test missing here is only handed out in its turn, and the
# numbers never choose which tests run. A name is a test's id up to `[` (every case of a
# parametrized test) or with its case.
LONGEST = {
    "tests/test_table_screens.py::test_every_content_games_table_is_pictured_and_the_russian_page_has_no_raw_ids": 30,
    "tests/test_print.py::test_every_game_prints_a_rulebook_and_its_cards": 10,  # (prints for the group "pdfs")
    "tests/test_wheel.py::test_the_wheel_holds_one_package_with_its_data_and_nothing_made": 7,  # (builds and installs)
    "tests/test_wheel.py::test_every_command_works_on_a_game_outside_the_repository": 13,
    "tests/test_search.py::test_mcts_beats_random_head_to_head[android]": 9.5,
    "tests/test_search.py::test_mcts_beats_random_head_to_head[study-in-emerald]": 9,
    "tests/test_table_browser.py::test_two_seats_play_to_a_gunfight_and_each_sees_only_its_own_hand": 9,
    "tests/test_table_faces.py::test_faces_are_made_from_the_games_templates_in_both_languages": 8,
    "tests/test_table_browser.py::test_two_seats_see_each_other_on_camera": 7,
    "tests/test_cluster.py::test_a_cluster_started_with_ray_start_plays_the_games_played_here": 20,  # (waits on Ray's start)
    "tests/test_table_server.py::test_a_room_is_made_joined_and_played_to_its_end_with_nothing_leaking": 6,
    "tests/test_hostile_cli.py::test_ctrl_c_stops_simulate_with_130_reports_the_games_finished_and_leaves_no_process": 4,
    "tests/test_schema_check.py::test_the_fast_schema_check_agrees_with_the_explaining_one": 5,
    "tests/test_balance.py::test_each_content_game_has_a_report_with_its_plots": 5,
    "tests/test_secrets.py::test_a_whole_random_game_of_each_content_game_leaks_nothing": 2.5,
    "tests/test_secrets.py::test_a_whole_random_game_of_each_content_game_leaks_nothing[android-3]": 4.7,
    "tests/test_secrets.py::test_a_whole_random_game_of_each_content_game_leaks_nothing[study-in-emerald-3]": 4.5,
    "tests/test_secrets.py::test_a_whole_random_game_of_each_content_game_leaks_nothing[android-5]": 2,
    "tests/test_secrets.py::test_a_whole_random_game_of_each_content_game_leaks_nothing[study-in-emerald-2]": 1.3,
    "tests/test_secrets.py::test_a_whole_random_game_of_each_content_game_leaks_nothing[android-2]": 1.3,
    "tests/test_bench.py::test_the_plain_python_love_letter_plays_the_example_games_rules": 4.5,
    "tests/test_cards.py::test_no_content_card_is_too_long_or_holds_a_character_no_font_draws": 2,  # (with the group "faces")
    "tests/test_cards.py::test_every_card_text_fits_its_face_at_a_readable_size_when_laid_out": 1.5,
    "tests/test_cards.py::test_no_face_is_more_than_40_percent_empty_on_the_rendered_page": 1.5,
    "tests/test_progress.py::test_a_long_run_shows_games_done_speed_and_time_left_then_the_report_alone": 3.7,
    "tests/test_hostile_output.py::test_any_game_id_builds_inside_out_or_not_at_all": 3.7,
    "tests/test_views.py::test_views_of_every_content_game_hide_what_they_must": 3,
    "tests/test_search.py::test_the_worlds_a_search_leaves_are_let_go": 3.4,
    "tests/test_search.py::test_mcts_beats_random_head_to_head[night-city]": 3.2,
    "tests/test_bench.py::test_the_differential_benchmark_gives_every_game_the_same_digest_when_played_again": 3.1,
    "tests/test_secrets.py::test_the_greedy_bot_guesses_a_hidden_card_no_better_than_its_view_allows": 2.7,
}

# Tests one worker runs together, for what they share that is costly to make: a test's name
# (as above) or a module's path -> its group, the group of each case its own. The faces
# test_cards fits are made once a worker; the PDFs test_print reads and the wheel test_wheel
# installs are made once a run, under a lock that a second worker asking meanwhile would only
# wait on. A module whose fixture starts processes that live as long as the module (a browser
# and a table server, Ray, a PostgreSQL cluster) is one unit: split over two workers its
# fixture was made on each, and lived on, browsers and all, while hundreds of other tests ran.
TOGETHER = {
    "tests/test_table_browser.py": "browser table",
    "tests/test_cluster.py": "ray",
    "tests/test_table_shared.py": "postgres shared",
    "tests/test_hostile_store.py": "postgres store",
    "tests/test_cards.py::test_no_content_card_is_too_long_or_holds_a_character_no_font_draws": "faces",
    "tests/test_cards.py::test_every_card_text_fits_its_face_at_a_readable_size_when_laid_out": "faces",
    "tests/test_cards.py::test_no_face_is_more_than_40_percent_empty_on_the_rendered_page": "faces",
    "tests/test_print.py::test_every_game_prints_a_rulebook_and_its_cards": "pdfs",
    "tests/test_print.py::test_rulebook_pages_are_a4_and_none_is_blank": "pdfs",
    "tests/test_print.py::test_card_sheets_hold_nine_cards_a_page_with_a_back_for_each_front": "pdfs",
    "tests/test_print.py::test_backs_line_up_with_fronts_when_printed_on_both_sides": "pdfs",
    "tests/test_wheel.py::test_the_wheel_holds_one_package_with_its_data_and_nothing_made": "wheel",
    "tests/test_wheel.py::test_every_command_works_on_a_game_outside_the_repository": "wheel",
}


def _named(table: dict, nodeid: str):
    return table.get(nodeid, table.get(nodeid.split("[")[0], table.get(nodeid.split("::")[0])))


def work_unit(nodeid: str) -> str:
    """What one worker is handed at once: the test's group (and case), or the test alone."""
    group = _named(TOGETHER, nodeid)
    if group is None:
        return nodeid
    if nodeid.split("::")[0] in TOGETHER:
        return group  # (a module's tests, every case with them)
    return group + ("[" + nodeid.split("[", 1)[1] if "[" in nodeid else "")


@pytest.hookimpl(trylast=True)  # (after any selection: the order of what runs)
def pytest_collection_modifyitems(config, items):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # one process: the order collected keeps each module's fixtures made once
    units: dict = {}  # unit -> its tests, in the order collected
    for item in items:
        units.setdefault(work_unit(item.nodeid), []).append(item)
    ordered = sorted(units.values(), key=lambda unit: -sum(_named(LONGEST, i.nodeid) or 0 for i in unit))  # (stable)
    items[:] = [item for unit in ordered for item in unit]


@pytest.hookimpl(optionalhook=True)  # (a hook of pytest-xdist's: none where it is missing)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's `load` made to hand out work_unit()s in the order collected (xdist's own
    `loadgroup` reads marks that pytest 9.2 no longer passes on: pytest-xdist issue 1386)."""
    if config.getvalue("dist") != "load":
        return None  # (another --dist asked for: xdist's own)
    from xdist.scheduler import LoadScopeScheduling

    class Units(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return work_unit(nodeid)

    config.option.loadscopereorder = False  # (the collected order is the one wanted)
    return Units(config, log)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(CACHE_DIR, ignore_errors=True)


def rulepress(capsys, monkeypatch, *args):
    """The console script's entry point in this process: (exit code, stdout, stderr)."""
    from rulepress.cli import run
    monkeypatch.setattr(sys, "argv", ["rulepress", *map(str, args)])
    with pytest.raises(SystemExit) as ended:
        run()
    out = capsys.readouterr()
    return ended.value.code, out.out, out.err


def ctrl_c_acted_on():
    """`preexec_fn` of a child a test interrupts as Ctrl-C does: SIGINT back to its default,
    for a suite started with it ignored (`make test &` in a script: its children inherit that,
    and a Python started so never raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_line(err: str) -> str:
    """A refusal: exactly one line, `rulepress: ...`, no traceback."""
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("rulepress: "), err
    assert "Traceback" not in err
    return lines[0]
