"""A long run of bot games shows a bar on the terminal: games done, games a second, time left.
The bar is on stderr, and it is not there under --json nor where stderr is not a terminal."""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")


def simulate_on_a_terminal(*args, command="simulate") -> tuple[int, str, str]:
    """A command (simulate of the duel) with its stderr on a terminal (a pseudo-terminal read
    here) and its stdout on a pipe: (exit code, stdout, all the terminal was sent)."""
    main, sub = pty.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    proc = subprocess.Popen([RULEPRESS, command, DUEL, *args], stdout=subprocess.PIPE, stderr=sub,
                            cwd=ROOT, env=env)
    os.close(sub)
    got = {main: b"", proc.stdout.fileno(): b""}
    open_ends, deadline = set(got), time.monotonic() + 120
    try:
        while open_ends and time.monotonic() < deadline:
            ready, _, _ = select.select(list(open_ends), [], [], 1)
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # a terminal whose other end closed: the command has ended
                    chunk = b""
                got[fd] += chunk
                if not chunk:
                    open_ends.discard(fd)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    out, screen = got[proc.stdout.fileno()], re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", got[main])
    return proc.wait(), out.decode(), screen.decode(errors="replace")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
def test_a_long_run_shows_games_done_speed_and_time_left_then_the_report_alone():
    code, out, screen = simulate_on_a_terminal("-n", "3000", "--seed", "1")
    assert code == 0, screen
    assert re.search(r"duel .*\d+/3000 .*\d+\.\d games/s time left \d+:\d\d:\d\d", screen), screen[-500:]
    assert "games/s" not in out and "duel: 3000/3000 games finished" in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
def test_coverage_shows_the_bar_of_its_bot_games_with_their_number_once_the_game_is_read():
    code, out, screen = simulate_on_a_terminal("-n", "1500", "--players", "2", command="coverage")
    assert code == 0, screen
    assert re.search(r"duel .*\d+/1500 .*games/s time left \d+:\d\d:\d\d", screen), screen[-500:]
    assert "games/s" not in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
def test_json_has_no_bar_even_on_a_terminal():
    code, out, screen = simulate_on_a_terminal("-n", "300", "--json")
    assert code == 0
    assert screen == ""
    assert json.loads(out)["finished"] == 300


def test_no_bar_where_stderr_is_not_a_terminal():
    done = subprocess.run([RULEPRESS, "simulate", DUEL, "-n", "300"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stderr == ""
