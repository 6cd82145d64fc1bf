"""Hostile arguments to every command: each is refused before any work, with exit 2 and
one line `rulepress: ...` naming what is wrong; never a traceback. Ctrl-C ends any command
with 130 and leaves no process behind. `schema --editor` keeps every setting it finds."""
from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ctrl_c_acted_on, rulepress, one_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")


@pytest.fixture
def places(tmp_path):
    """A file, a folder, and a path under the file (which nothing can create)."""
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-folder").mkdir()
    return {"FILE": str(tmp_path / "a-file"), "DIR": str(tmp_path / "a-folder"),
            "UNDER_FILE": str(tmp_path / "a-file" / "x"), "NOWHERE": str(tmp_path / "no" / "such" / "log.json")}


BAD = [
    # (arguments, what the one line must say)
    (["simulate", DUEL, "-n", "0"], r"'-n'.*0 is not in the range"),
    (["simulate", DUEL, "-n", "-5"], r"'-n'"),
    (["simulate", DUEL, "-n", "lots"], r"'-n'.*not a valid integer"),
    (["simulate", DUEL, "-n", "10000000000"], r"'-n'"),
    (["simulate", DUEL, "--players", "99"], r"--players: duel is for 2 to 3 players, not 99"),
    (["simulate", DUEL, "--players", "1"], r"--players: duel is for 2 to 3 players, not 1"),
    (["simulate", DUEL, "--players", "-1"], r"--players"),
    (["simulate", DUEL, "--workers", "0"], r"--workers must be from 1 to \d+"),
    (["simulate", DUEL, "--workers", "1000"], r"--workers must be from 1 to \d+ .*not 1000"),
    (["simulate", DUEL, "--agent", "bogus"], r"--agent: unknown agent `bogus`; agents: first, greedy, mcts, random"),
    (["simulate", DUEL, "--agent", "p9=greedy"], r"--agent: no seat `p9` in a 2-player game"),
    (["simulate", DUEL, "--agent", "p1=bogus,random"], r"unknown agent `bogus`"),
    (["simulate", DUEL, "--players", "3", "--agent", "p4=first"], r"no seat `p4` in a 3-player game"),
    (["simulate", DUEL, "--seed", "x"], r"'--seed'"),
    (["simulate", DUEL, "--agent", ""], r"--agent: name an agent: first, greedy, mcts, random"),
    (["simulate", DUEL, "--agent", "random,greedy"], r"--agent: `random` and `greedy` both name the agent of the other seats"),
    (["simulate", DUEL, "--agent", "p1=greedy,p1=first"], r"--agent: seat `p1` is given twice"),
    (["simulate", DUEL, "--backend", "spark"], r"'--backend'.*'spark' is not one of 'local', 'ray'"),
    (["simulate", DUEL, "--address", "127.0.0.1:6379"], r"--address is the Ray cluster's: give it with --backend ray"),
    (["simulate", DUEL, "--backend", "ray", "--workers", "1000"], r"--workers must be from 1 to \d+ .*not 1000"),
    (["simulate", DUEL, "--backend", "ray", "--workers", "0"], r"--workers must be from 1 to \d+"),
    (["simulate", DUEL, "--backend", "ray", "--address", "127.0.0.1:1", "--workers", "5000"],
     r"--workers must be from 1 to 4096 on a Ray cluster, not 5000"),
    (["simulate", DUEL, "--backend", "ray", "--address", "head"], r"--address: HOST:PORT of a Ray cluster's head"),
    (["simulate", DUEL, "--backend", "ray", "--address", "head:99999"], r"--address: HOST:PORT .*not `head:99999`"),
    (["simulate", DUEL, "--backend", "ray", "--address", "-h:1; rm -rf /"], r"--address: HOST:PORT"),
    (["simulate", DUEL, "--backend", "ray", "--address", "x" * 5000 + ":1"], r"--address: HOST:PORT .*not `x{80}`$"),
    (["simulate", DUEL, "--backend", "ray", "--address", "127.0.0.1:1"],
     r"--address: nothing answers at 127.0.0.1:1 \(.*\); a cluster's head is started with `ray start --head`"),
    (["simulate", DUEL, "--backend", "ray", "--profile"], r"--profile times the games in this process: it is for --backend local"),
    # the search bot's budget: playouts or milliseconds, a whole number within bounds
    (["simulate", DUEL, "--agent", "mcts:abc"], r"--agent: `abc` is not a budget: give playouts \(mcts:200\) or milliseconds \(mcts:50ms\)"),
    (["simulate", DUEL, "--agent", "p1=mcts:,random"], r"--agent: `` is not a budget"),
    (["simulate", DUEL, "--agent", "p1=mcts:0"], r"--agent: a budget of 1 to 100000 playouts, not 0"),
    (["simulate", DUEL, "--agent", "mcts:-5"], r"--agent: `-5` is not a budget"),
    (["simulate", DUEL, "--agent", "mcts:1e9"], r"--agent: `1e9` is not a budget"),
    (["simulate", DUEL, "--agent", "mcts:99999999999999999999"], r"--agent: `9+` is not a budget"),
    (["simulate", DUEL, "--agent", "mcts:700000ms"], r"--agent: a budget of 1 to 600000 ms, not 700000"),
    (["simulate", DUEL, "--agent", "mcts:5s"], r"--agent: `5s` is not a budget"),
    (["simulate", DUEL, "--agent", "mcts:200:7"], r"--agent: `7` is not a rollout: give random or greedy \(mcts:20:greedy\), or a depth, depth0 to depth16"),
    (["simulate", DUEL, "--agent", "mcts:20:greedy:greedy"], r"--agent: `greedy` after `greedy`: one rollout at most"),
    (["simulate", DUEL, "--agent", "mcts:20:depth1:depth2"], r"--agent: `depth2` after `depth1`: one depth at most"),
    (["simulate", DUEL, "--agent", "mcts:20:depth17"], r"--agent: `depth17` is not a rollout depth: give depth0 to depth16"),
    (["simulate", DUEL, "--agent", "p1=mcts:20:depth,random"], r"--agent: `depth` is not a rollout depth"),
    (["simulate", DUEL, "--agent", "mcts:20:" + "g" * 5000], r"--agent: `g{20}` is not a rollout"),
    (["simulate", DUEL, "--agent", "mcts:abc:greedy"], r"--agent: `abc:greedy` is not a budget"),
    (["simulate", DUEL, "--agent", "greedy:200"], r"--agent: agent `greedy` takes no budget \(`greedy:200`\); only mcts does"),
    (["simulate", DUEL, "--agent", "mcts:\u0661\u0662"], r"--agent: `.*` is not a budget"),
    (["play", DUEL, "--bots", "p2=mcts:abc"], r"--bots: `abc` is not a budget"),
    (["coverage", DUEL, "--agent", "p1=mcts:0"], r"a budget of 1 to 100000 playouts, not 0"),
    (["simulate", "no-such-game"], r"no game `no-such-game`"),
    (["simulate", DUEL, "--frobnicate"], r"No such option"),
    (["simulate"], r"no game given, and this folder is not a game"),
    (["play", DUEL, "--players", "99"], r"--players: duel is for 2 to 3 players"),
    (["play", DUEL, "--bots", "p9"], r"--bots: no seat `p9`"),
    (["play", DUEL, "--bots", "p2=bogus"], r"--bots: unknown agent `bogus`"),
    (["play", DUEL, "--log", "NOWHERE"], r"--log: the folder .* does not exist"),
    (["play", DUEL, "--log", "DIR"], r"--log: .* is a folder, not a file"),
    (["play", DUEL, "--log", "UNDER_FILE"], r"--log: the folder .*a-file does not exist"),
    (["play", DUEL, "--lang", "xx"], r"'--lang'"),
    (["play", DUEL, "--bots", "p1,p1=greedy"], r"--bots: seat `p1` is given twice"),
    # a seed is printed back: a huge one took minutes to print
    (["play", DUEL, "--bots", "p1,p2", "--seed", "x" * 20_000], r"--seed: a seed of at most 100 characters, not 20000"),
    (["secrets", DUEL, "--seed", "x" * 101], r"--seed: a seed of at most 100 characters"),
    (["coverage", DUEL, "--seed", "x" * 101], r"--seed: a seed of at most 100 characters"),
    (["play", "no-such-game"], r"no game `no-such-game`"),
    (["replay", "NOWHERE"], r"'LOG'.*does not exist"),
    (["replay", "DIR"], r"'LOG'.*is a directory"),
    (["build", DUEL, "-o", "FILE"], r"--out: .*a-file is not a folder"),
    (["build", DUEL, "-o", "UNDER_FILE"], r"--out: .* lies under .*a-file, which is not a folder"),
    (["build", "NOWHERE"], r"no such file or folder|does not exist|no such"),
    (["validate", DUEL, "--format", "xml"], r"'--format'"),
    (["validate", "NOWHERE"], r"no such"),
    (["test", "NOWHERE"], r"no such"),
    (["print", DUEL, "--changed-since=--output=/tmp/x"], r"--changed-since: .* is not a git revision name"),
    (["print", DUEL, "--changed-since", "a..b"], r"--changed-since"),
    (["print", DUEL, "-o", "FILE"], r"--out: .* is not a folder"),
    (["print", DUEL, "--paper", "b5"], r"'--paper'"),
    (["watch", DUEL, "-o", "FILE"], r"--out: .*a-file is not a folder"),
    (["watch", DUEL, "--print", "UNDER_FILE"], r"--print: .* lies under .*a-file, which is not a folder"),
    (["explain", "Z999"], r"unknown code Z999"),
    (["schema", "--editr"], r"No such option"),
    (["frobnicate"], r"No such command"),
]


@pytest.mark.parametrize("args,says", BAD, ids=[" ".join(a[0:1] + [x.replace(DUEL, "duel")[:40] for x in a[1:]]) for a, _ in BAD])
def test_a_bad_argument_is_one_line_and_exit_2_before_any_work(capsys, monkeypatch, places, tmp_path, args, says):
    monkeypatch.chdir(tmp_path)  # nothing may be written here: no work starts
    args = [places.get(a, a) for a in args]
    code, out, err = rulepress(capsys, monkeypatch, *args)
    line = one_line(err)
    assert code == 2, (code, out, err)
    assert re.search(says, line), line
    assert sorted(os.listdir(tmp_path)) == ["a-file", "a-folder"]


def test_backend_ray_without_ray_installed_says_how_to_install_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # what the import system finds where Ray is not installed
    code, out, err = rulepress(capsys, monkeypatch, "simulate", DUEL, "--backend", "ray")
    assert (code, out) == (2, "")
    assert one_line(err) == "rulepress: ray is not installed: pip install 'rulepress[ray]'"


def test_a_ray_client_address_without_ray_s_client_says_how_to_install_it(capsys, monkeypatch):
    pytest.importorskip("ray", reason="Ray is not installed here (pip install 'rulepress[ray]')")
    monkeypatch.setitem(sys.modules, "grpc", None)
    code, out, err = rulepress(capsys, monkeypatch, "simulate", DUEL, "--backend", "ray", "--address", "ray://127.0.0.1:1")
    assert (code, out) == (2, "")
    assert one_line(err) == "rulepress: --address ray://...: Ray's client is not installed: pip install 'ray[client]'"


@pytest.mark.parametrize("command", ["validate", "build", "test", "coverage"])
def test_a_file_outside_any_game_is_no_game_and_its_neighbours_are_not_read(capsys, monkeypatch, tmp_path, command):
    shutil.copytree(DUEL, tmp_path / "duel")
    (tmp_path / "notes.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    code, out, err = rulepress(capsys, monkeypatch, command, "notes.txt")
    assert code == 2 and out == "", (code, out, err)
    assert one_line(err) == "rulepress: notes.txt: not a game folder (nor a file in one)"
    assert sorted(os.listdir(tmp_path)) == ["duel", "notes.txt"]


@pytest.mark.parametrize("command", ["simulate", "play", "secrets"])
def test_a_game_json_of_another_format_is_one_usage_line(capsys, monkeypatch, tmp_path, command):
    (tmp_path / "game.json").write_text('{"format": 99}')
    code, _out, err = rulepress(capsys, monkeypatch, command, tmp_path / "game.json")
    assert code == 2 and "game tables have format 99" in one_line(err) and "rulepress build" in err


@pytest.mark.parametrize("agent", ["greedy", "first", "p1=greedy,random"])
def test_coverage_plays_its_bot_games_with_any_agent(capsys, monkeypatch, tmp_path, agent):
    monkeypatch.chdir(tmp_path)
    code, out, err = rulepress(capsys, monkeypatch, "coverage", DUEL, "-n", "2", "--agent", agent, "--json")
    assert code == 0 and "Traceback" not in err, err
    (game,) = json.loads(out)["games"]
    bots = game["runs"]["bot_games"]
    assert bots["agent"] == agent and bots["errors"] == [] and game["totals"]["covered"] > 0


def test_a_file_of_a_game_stands_for_its_game(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, out, _err = rulepress(capsys, monkeypatch, "validate", os.path.join(DUEL, "game.yaml"))
    assert code == 0 and "1 game checked: 0 errors" in out


def test_a_path_with_a_line_break_is_still_one_line(capsys, monkeypatch, tmp_path):
    code, _out, err = rulepress(capsys, monkeypatch, "play", DUEL, "--log", tmp_path / "a\nb" / "log.json")
    assert code == 2 and "a\\nb" in one_line(err)


def test_the_command_with_no_arguments_shows_its_help(capsys, monkeypatch):
    code, _out, err = rulepress(capsys, monkeypatch)
    assert code == 2 and err.startswith("Usage: rulepress") and "Traceback" not in err


def test_an_output_folder_the_system_refuses_is_one_usage_line(capsys, monkeypatch, tmp_path):
    blocked = tmp_path / "ro"
    blocked.mkdir()
    monkeypatch.setattr(os, "makedirs", _refuse)
    code, _out, err = rulepress(capsys, monkeypatch, "build", DUEL, "-o", blocked / "out")
    assert code == 2 and "Permission denied" in one_line(err)


def _refuse(path, *a, **k):
    raise PermissionError(13, "Permission denied", str(path))


def test_simulate_starts_no_more_workers_than_games(duel):
    from rulepress.runtime.simulate import simulate
    with pytest.raises(ValueError):
        simulate(duel, 0)
    assert simulate(duel, 1, workers=2, players=2)["finished"] == 1


def test_a_game_played_to_its_end_is_logged_and_replays(capsys, monkeypatch, tmp_path):
    log = tmp_path / "game.log.json"
    code, out, err = rulepress(capsys, monkeypatch, "play", DUEL, "--bots", "p1,p2", "--log", log, "--seed", "3")
    assert code in (0, None), err
    assert "log written to" in out
    code, out, err = rulepress(capsys, monkeypatch, "replay", log, "--game", DUEL)
    assert code in (0, None), err
    assert re.fullmatch(r"replayed \d+ choices of duel: final state [0-9a-f]{16} matches\n", out)


def test_a_log_that_cannot_be_written_after_the_game_is_printed_instead(duel, tmp_path, capsys):
    from rulepress.terminal import play
    gone = tmp_path / "gone"
    gone.mkdir()
    log = gone / "game.json"
    gone.rmdir()  # the folder was there when the game started, and is not when it ends
    play(duel, 2, 5, "p1,p2", "en", str(log))
    out = capsys.readouterr().out
    assert "could not be written" in out
    assert json.loads(out[out.index("\n{") + 1:])["game"] == "duel"


def test_github_annotations_escape_their_properties_and_data(capsys, monkeypatch, tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    (folder / "odd,name:1.yaml").write_text("procedures:\n  - id: p\n    effect: jump 3 position\n")
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    code, out, _err = rulepress(capsys, monkeypatch, "validate", folder, "--format", "github")
    assert code == 1
    notes = [x for x in out.splitlines() if x.startswith("::error")]
    assert len(notes) == 1, out
    m = re.fullmatch(r"::error file=([^,:]+),line=(\d+),col=(\d+),title=(D\d{3})::(.+)", notes[0])
    assert m, notes[0]
    assert m.group(1).endswith("/race/odd%2Cname%3A1.yaml")
    assert "unknown statement `jump`" in m.group(5)


def test_github_data_and_property_escaping():
    from rulepress.cli import _gh_data, _gh_property
    assert _gh_data("100% sure\r\nnext: a, b") == "100%25 sure%0D%0Anext: a, b"
    assert _gh_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


# ---- Ctrl-C ----------------------------------------------------------------------------

def _session(sid: int) -> list[str]:
    """Processes still in session sid (Linux /proc), by name: Ray's workers have process
    groups of their own, but stay in the session of the command that started them."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    name, fields = fh.read().split("(", 1)[1].rsplit(")", 1)
            except OSError:
                continue
            fields = fields.split()
            if int(fields[3]) == sid and fields[0] != "Z":
                out.append(name)
    return out


def _ray():
    return pytest.importorskip("ray", reason="Ray is not installed here (pip install 'rulepress[ray]')")


STOPPED = [(["--workers", "1"], 1), (["--workers", "2"], 3), (["--workers", "2", "--json"], 3),
           (["--backend", "ray", "--workers", "2"], "GameWorker")]


def _cpu_seconds(pid: int) -> float:
    """CPU time a process has used (user and system), from /proc: a measure of work done
    that a busy machine does not stretch."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _session_pids(sid: int) -> list[int]:
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


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("options,under_way", STOPPED, ids=[" ".join(o) for o, _ in STOPPED])
def test_ctrl_c_stops_simulate_with_130_reports_the_games_finished_and_leaves_no_process(options, under_way):
    """Ctrl-C comes once games have finished, whatever the machine's load: seen on the
    progress bar (stderr is a terminal here), or under --json (no bar) once the processes
    that play have each used a second of CPU time (hundreds of games of the duel)."""
    import pty
    if "ray" in options:
        _ray()
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "160"}
    proc = subprocess.Popen([RULEPRESS, "simulate", DUEL, "-n", "100000", *options],
                            stdout=subprocess.PIPE, stderr=slave, text=True, start_new_session=True, cwd=ROOT, env=env,
                            preexec_fn=ctrl_c_acted_on)
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
            if "--json" in options:
                players = [p for p in _session_pids(proc.pid) if p != proc.pid]
                if len(players) >= 2 and all(_cpu_seconds(p) > 1 for p in players):
                    break
            elif re.search(r"\b[1-9]\d*/100000\b", _ANSI.sub("", seen.decode("utf-8", "replace"))):
                break
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal does: to every process of the group
        out, _ = proc.communicate(timeout=60)
        while True:  # what is left of stderr
            ready, _, _ = select.select([master], [], [], 0.5)
            try:
                chunk = os.read(master, 65536) if ready else b""
            except OSError:
                chunk = b""
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    err = _ANSI.sub("", seen.decode("utf-8", "replace"))
    assert proc.returncode == 130, err
    assert "Traceback" not in out + err
    last = err.strip().splitlines()[-1]
    found = re.fullmatch(r"rulepress: stopped after (\d+) of 100000 games", last)
    assert found, err
    played = int(found[1])
    assert 0 < played < 100000
    if "--json" in options:
        report = json.loads(out)
        assert report["stopped_after"] == played == report["finished"] + len(report["errors"])
        assert sum(report["seats"]["p1"]["score_histogram"]) == report["finished"]
    else:
        assert re.search(rf"duel: \d+/100000 games finished", out), out
    deadline = time.monotonic() + 20
    while _session(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session(proc.pid) == []


def _read_until(proc, marker: bytes, seconds: float = 60) -> bytes:
    """What the command printed up to `marker`; fails (never waits forever) when it does not come."""
    seen, deadline = b"", time.monotonic() + seconds
    while marker not in seen:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no {marker!r} within {seconds}s: {seen[-300:]!r}"
        chunk = os.read(proc.stdout.fileno(), 4096)
        assert chunk, proc.stderr.read()
        seen += chunk
    return seen


# Two people at one table see a pass screen first; one person and a bot see the action prompt.
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("bots,prompt", [("p2", b"> "), ("", b"press Enter")], ids=["action prompt", "pass screen"])
def test_ctrl_c_at_the_play_prompt_ends_with_130(bots, prompt):
    proc = subprocess.Popen([RULEPRESS, "play", DUEL, "--seed", "1", "--bots", bots], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, cwd=ROOT,
                            preexec_fn=ctrl_c_acted_on)
    try:
        _read_until(proc, prompt)  # the prompt waits for a person
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert b"Traceback" not in out + err and err.strip().splitlines()[-1] == b"rulepress: interrupted"


@pytest.mark.parametrize("typed", ["9" * 5000, "\u00b2", "\u0663", "-1", "0", "1e9", "\udcff"])
def test_anything_typed_at_the_play_prompt_is_asked_again(typed):
    text = typed.encode("utf-8", "surrogateescape") + b"\nq\n"
    got = subprocess.run([RULEPRESS, "play", DUEL, "--seed", "1", "--bots", "p2"], input=text,
                         capture_output=True, timeout=60, cwd=ROOT)
    assert got.returncode == 0 and b"Traceback" not in got.stderr, got.stderr[-2000:]
    assert b"type the number of a choice" in got.stdout


@pytest.mark.parametrize("sent", [b"Content-Length: 99999999999\r\n\r\n{}", b"X" * 20_000_000],
                         ids=["a message of 100 GB announced", "a header line of 20 MB"])
def test_the_language_server_ends_on_a_message_no_editor_sends(sent):
    pytest.importorskip("pygls")
    got = subprocess.run([RULEPRESS, "lsp"], input=sent, capture_output=True, timeout=60, cwd=ROOT)
    assert got.returncode == 0 and b"Traceback" not in got.stderr and b"MemoryError" not in got.stderr, got.stderr[-2000:]


def test_a_closed_pipe_ends_quietly(tmp_path):
    proc = subprocess.Popen(f"'{RULEPRESS}' explain | head -c 10", shell=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    out, err = proc.communicate(timeout=60)
    assert len(out) == 10 and "Traceback" not in err and "Exception" not in err


# ---- schema --editor -----------------------------------------------------------------

SETTINGS = """{
  // the font I like
  "editor.fontSize": 14, /* keep this */
  "files.exclude": {"**/.git": true, "**/node_modules": true,},
  "a.url": "http://example.com//not-a-comment /* nor this */",
  "quote": "a \\"quoted\\" // word",
  "yaml.schemas": {
    "https://json.schemastore.org/github-workflow.json": ".github/workflows/*.yml",
    "schemas/content-file.json": ["content/**/*.yaml"],
  },
  "list": [1, 2, 3,],
}
"""


def _settings(tmp_path):
    from rulepress.editor import _parse
    text = (tmp_path / ".vscode" / "settings.json").read_text()
    return text, {m.key: m.value for m in _parse(text).members}


def test_editor_keeps_every_setting_comment_and_trailing_comma(capsys, monkeypatch, tmp_path):
    from rulepress.compiler.content import SCHEMA_DIR
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(SETTINGS)
    code, out, err = rulepress(capsys, monkeypatch, "schema", "--editor")
    assert code in (0, None), err
    assert "wrote .vscode/settings.json" in out
    text, got = _settings(tmp_path)
    assert "// the font I like" in text and "/* keep this */" in text
    assert got["editor.fontSize"] == 14 and got["files.exclude"] == {"**/.git": True, "**/node_modules": True}
    assert got["a.url"] == "http://example.com//not-a-comment /* nor this */"
    assert got["quote"] == 'a "quoted" // word' and got["list"] == [1, 2, 3]
    schemas = got["yaml.schemas"]
    assert schemas["https://json.schemastore.org/github-workflow.json"] == ".github/workflows/*.yml"
    assert "schemas/content-file.json" not in schemas  # the relative entry an older version wrote
    content = next(k for k in schemas if k.endswith("/content-file.json"))
    assert content.startswith("file:///") and os.path.samefile(content[len("file://"):], os.path.join(SCHEMA_DIR, "content-file.json"))
    assert "**/*.yaml" in schemas[content] and "!**/scenarios/**" in schemas[content]
    assert any(k.endswith("/scenario.json") and "**/scenarios/*.yaml" in v for k, v in schemas.items())
    assert (tmp_path / ".vscode" / "settings.json.bak").read_text() == SETTINGS
    code, out, _ = rulepress(capsys, monkeypatch, "schema", "--editor")
    assert code in (0, None) and "already" in out and _settings(tmp_path)[0] == text


def test_editor_makes_the_settings_where_there_are_none(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, _out, err = rulepress(capsys, monkeypatch, "schema", "--editor")
    assert code in (0, None), err
    assert set(json.loads((tmp_path / ".vscode" / "settings.json").read_text())) == {"yaml.schemas"}


@pytest.mark.parametrize("text,why", [
    ('{"a": 1 /* never closed', "comment that never ends"),
    ('{"a": 1, "a": 2}', "set twice"),
    ('{"a": nope}', "is not JSON"),
    ('["not", "an", "object"]', "not an object"),
    ('{"a": 1}}', "more after"),
    ('{"a": "line\nbreak"}', "does not end on its line"),
    ('{"yaml.schemas": "x"}', "yaml.schemas is not an object"),
    ('{"a": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deep"),
    ('{"a": 1' + "0" * 5000 + "}", "cannot hold"),
])
def test_editor_writes_nothing_it_cannot_read_with_certainty(capsys, monkeypatch, tmp_path, text, why):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".vscode").mkdir()
    path = tmp_path / ".vscode" / "settings.json"
    path.write_text(text)
    code, out, err = rulepress(capsys, monkeypatch, "schema", "--editor")
    assert code == 1
    line = one_line(err)
    assert why in line and "left as it was" in line
    assert out.startswith('"yaml.schemas": {') and "content-file.json" in out
    assert path.read_text() == text and not (tmp_path / ".vscode" / "settings.json.bak").exists()


@pytest.mark.skipif(sys.platform.startswith("win"), reason="SIGINT")
def test_serve_ends_with_130_on_ctrl_c(tmp_path):
    import socket
    pytest.importorskip("uvicorn")
    with socket.socket() as s:  # (a free port: the server checks it before it listens)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rulepress_bin = os.path.join(os.path.dirname(sys.executable), "rulepress")
    duel = os.path.join(os.path.dirname(os.path.abspath(__file__)), "games", "duel")
    server = subprocess.Popen([rulepress_bin, "serve", duel, "--port", str(port), "--db", str(tmp_path / "t.db")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_acted_on,
                              env=dict(os.environ, RULEPRESS_CACHE_DIR=str(tmp_path / "cache")))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        server.send_signal(signal.SIGINT)
        _out, err = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err


def test_a_log_file_that_is_a_link_is_a_usage_error_before_the_game(capsys, monkeypatch, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "game.log.json").symlink_to(victim)
    code, out, err = rulepress(capsys, monkeypatch, "play", DUEL, "--bots", "p1,p2", "--log",
                               tmp_path / "game.log.json", "--seed", "3")
    assert code == 2 and "is a link" in one_line(err) and out == ""
    assert victim.read_text() == "keep me"


def test_a_link_planted_at_the_log_during_the_game_is_not_written_through(duel, tmp_path, capsys):
    from rulepress.compiler.writing import put_chosen
    from rulepress.terminal import play
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    log = tmp_path / "game.log.json"
    log.symlink_to(victim)  # (planted after the arguments were checked)
    play(duel, 2, 5, "p1,p2", "en", str(log), write=put_chosen)
    out = capsys.readouterr().out
    assert "could not be written" in out and "refusing to write" in out
    assert victim.read_text() == "keep me" and log.is_symlink()
