"""A game's template has a budget of CPU time: loops over loops of a list set once, or one
call that makes a vast text, end with one G007 error at the template's line instead of
minutes of work; in the main thread and in any other (the editor's), and the clock is
given back after every render."""
from __future__ import annotations

import os
import re
import shutil
import signal
import threading
import time

import pytest
from click.testing import CliRunner

from rulepress.cli import main
from rulepress.compiler import rulebook
from rulepress.compiler.cpubudget import TimeUp, cpu_budget

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<code>G007) (?P<msg>.+)$")

BOMBS = {
    "nested loops": "{% set r = range(3000) %}\n{% for a in r %}{% for b in r %}{% for c in r %}x{% endfor %}{% endfor %}{% endfor %}",
    "lipsum": "\n{{ lipsum(1000000) }}",
    "a loop over a long list": "{% set r = range(99999)|list %}\n{% for a in r %}{% for b in r %}{{ a }}{% endfor %}{% endfor %}",
    "a sort of a sort": "{% set r = range(99999)|list %}\n{% for a in r %}{{ r|sort|first }}{% endfor %}",
}


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    # (the real budget is longer: the work is the same; a race rulebook renders in a twentieth of this)
    monkeypatch.setattr(rulebook, "MAX_TEMPLATE_SECONDS", 0.3)


@pytest.fixture
def game(tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    (folder / "templates").mkdir()
    return folder


@pytest.mark.parametrize("bomb", sorted(BOMBS))
def test_a_template_that_works_for_minutes_is_stopped_at_its_line(game, tmp_path, bomb):
    (game / "templates" / "rulebook.md.j2").write_text("# {{ title }}\n" + BOMBS[bomb] + "\n", encoding="utf-8")
    started = time.monotonic()
    result = CliRunner().invoke(main, ["build", str(game), "-o", str(tmp_path / "out")])
    assert time.monotonic() - started < 30
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    (error,) = [m for m in map(ERROR.match, result.output.splitlines()) if m]
    assert os.path.basename(error["file"]) == "rulebook.md.j2" and error["line"] == "3", result.output
    assert "seconds of CPU time" in error["msg"]
    assert not (tmp_path / "out" / "race").exists()
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)


def test_a_card_template_that_works_for_minutes_is_stopped_too(game, tmp_path):
    pytest.importorskip("weasyprint")
    (game / "templates" / "card.html.j2").write_text("{% set text_height = 40 %}\n" + BOMBS["lipsum"] + "\n",
                                                     encoding="utf-8")
    started = time.monotonic()
    result = CliRunner().invoke(main, ["print", str(game), "-o", str(tmp_path / "pdf")])
    assert time.monotonic() - started < 60
    assert result.exit_code == 1 and "seconds of CPU time" in result.output, result.output
    assert "card.html.j2:3:1: error: G007" in result.output


def test_a_render_outside_the_main_thread_is_stopped_too(game):
    (game / "templates" / "rulebook.md.j2").write_text(BOMBS["nested loops"] + "\n", encoding="utf-8")
    env = rulebook.environment(str(game))
    caught = []

    def render():
        try:
            rulebook.rendered(env, "rulebook.md.j2", {})
        except rulebook.TemplateRefused as exc:
            caught.append(exc)
    worker = threading.Thread(target=render)
    started = time.monotonic()
    worker.start()
    worker.join(60)
    assert not worker.is_alive() and time.monotonic() - started < 30
    (refusal,) = caught
    assert refusal.pos.line == 2 and "seconds of CPU time" in refusal.message


def test_a_template_within_its_budget_renders_and_leaves_no_clock_running(game, tmp_path):
    (game / "templates" / "rulebook.md.j2").write_text("# {{ title }}\n{% for a in range(1000) %}.{% endfor %}\n",
                                                       encoding="utf-8")
    result = CliRunner().invoke(main, ["build", str(game), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGPROF) in (signal.SIG_DFL, signal.SIG_IGN, None)


def test_a_budget_inside_a_budget_leaves_the_outer_one_running():
    with pytest.raises(TimeUp):
        with cpu_budget(0.3):
            with cpu_budget(5):
                pass
            assert 0 < signal.getitimer(signal.ITIMER_PROF)[0] <= 0.33
            while True:
                pass
