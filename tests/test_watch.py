"""`rulepress watch GAME`: a status line now and after every save; Ctrl-C stops it with 130."""
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import ctrl_c_acted_on

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Watching:
    def __init__(self, cwd, *args):
        self.proc = subprocess.Popen([sys.executable, "-u", "-m", "rulepress", "watch", *args], cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     preexec_fn=ctrl_c_acted_on, env=dict(os.environ, RULEPRESS_CACHE_DIR=os.path.join(cwd, ".cache")))
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(ln) for ln in self.proc.stdout], daemon=True).start()

    def status(self, timeout=30.0) -> tuple[list, str]:
        """The lines up to the next status line, and that line."""
        seen, end = [], time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(end - time.monotonic(), 0.01)).rstrip("\n")
            if "watching (Ctrl-C stops)" in line:
                return seen, line
            seen.append(line)

    def quiet_for(self, seconds) -> bool:
        try:
            self.lines.get(timeout=seconds)
            return False
        except queue.Empty:
            return True

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture()
def game(tmp_path):
    shutil.copytree(os.path.join(ROOT, "tests", "games", "duel"), tmp_path / "duel")
    return tmp_path


def test_builds_then_rechecks_on_save_and_ctrl_c_exits_130(game):
    w = Watching(game, "duel", "-o", "out", "--interval", "0.1")
    try:
        _, line = w.status()
        assert "duel: 0 errors, 0 warnings; built" in line
        assert os.path.isfile(game / "out" / "duel" / "game.json")
        path = game / "duel" / "game.yaml"
        text = path.read_text(encoding="utf-8")
        time.sleep(0.05)
        path.write_text(text.replace("deck: blades, count: 6, attrs: {power: 3}", "deck: bladez, count: 6, attrs: {power: 3}"), encoding="utf-8")
        seen, line = w.status()
        assert "1 error, 0 warnings; not built" in line
        assert any("R002" in s and "bladez" in s for s in seen)
        path.write_text(text, encoding="utf-8")
        _, line = w.status()
        assert "0 errors" in line and "built" in line
    finally:
        code = w.stop()
    assert code == 130


def test_its_own_output_inside_the_game_does_not_wake_it(game):
    w = Watching(game, "duel", "-o", os.path.join("duel", "out"), "--interval", "0.1")
    try:
        _, line = w.status()
        assert "built" in line and os.path.isfile(game / "duel" / "out" / "duel" / "game.json")
        assert w.quiet_for(1.0)
    finally:
        assert w.stop() == 130


def test_no_such_game_is_a_usage_error(game):
    out = subprocess.run([sys.executable, "-m", "rulepress", "watch", "nowhere"], cwd=game, capture_output=True, text=True)
    assert out.returncode == 2 and "no game `nowhere`" in out.stderr and "Traceback" not in out.stderr


def test_a_link_planted_at_an_output_is_said_and_the_watch_goes_on(game, monkeypatch):
    from rulepress.watch import once
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(game / ".cache"))
    (game / "victim.txt").write_text("keep me")
    (game / "build" / "duel").mkdir(parents=True)
    os.symlink(game / "victim.txt", game / "build" / "duel" / "game.json")
    said: list = []
    done = once(str(game / "duel"), str(game / "build"), None, said.append)
    assert done.errors == 1 and (game / "victim.txt").read_text() == "keep me"
    assert any(line.startswith("rulepress: ") and "refusing to write" in line for line in said), said
    assert "not built" in said[-1]


def test_a_folder_linked_outside_the_game_is_not_watched(game):
    from rulepress.watch import snapshot
    os.symlink("/", game / "duel" / "root")
    assert sorted(snapshot(str(game / "duel"))) == [str(game / "duel" / "game.yaml")]


def test_saves_are_seen_through_the_systems_file_events_where_watchfiles_is_installed(tmp_path):
    pytest.importorskip("watchfiles")
    from rulepress.watch import _events
    (tmp_path / "game.yaml").write_text("game: {}\n", encoding="utf-8")
    events = _events(str(tmp_path), [str(tmp_path / "out")])
    assert events is not None
    threading.Timer(0.3, lambda: (tmp_path / "game.yaml").write_text("game: {id: x}\n", encoding="utf-8")).start()
    for _ in range(30):  # (one wake-up a second without events)
        if next(events):
            break
    else:
        pytest.fail("no event for a saved file")


def test_a_folder_linked_anywhere_is_watched_by_looking_not_through_system_events(game):
    pytest.importorskip("watchfiles")
    from rulepress.watch import _events
    os.symlink("/", game / "duel" / "root")
    assert _events(str(game / "duel"), []) is None
