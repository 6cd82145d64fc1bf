"""`rulepress coverage`: which rules the scenarios and bot games used, and the reports."""
import json
import os
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from conftest import ROOT, game_from

from rulepress.cli import main
from rulepress.coverage import measure, pragmas, source_lines
from rulepress.coverage_html import page_name, write
from rulepress.runtime.coverage import attach, play, statements
from rulepress.runtime.profile import attach as attach_profile
from rulepress.runtime.simulate import seat_agents, simulate

DUEL = os.path.join(ROOT, "tests", "games", "duel")
RACE = os.path.join(ROOT, "docs", "tutorial", "race")


def _line(folder, text):
    with open(os.path.join(folder, "game.yaml"), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip() == text:
                return n
    raise AssertionError(f"no line `{text}`")


def _duel_copy(tmp_path, edit=None):
    folder = tmp_path / "duel"
    shutil.copytree(DUEL, folder)
    if edit:
        path = folder / "game.yaml"
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return str(folder)


def test_every_statement_of_the_tables_counts_even_when_nothing_ran():
    r = measure(DUEL, games=0)
    n = len({s[1] for s in statements(game_from("tests/games/duel").data)})
    assert r["totals"]["statements"] == n > 15 and r["totals"]["covered"] == 0
    missing = r["files"]["game.yaml"]["missing_lines"]
    assert _line(DUEL, "draw 1 from blades") in missing and _line(DUEL, "pay 1 gold") in missing
    assert set(r["never"]["actions_never_taken"]) == {"arm", "dig", "duel"}
    assert r["never"]["things_never_moved"] is None  # no bot game watched them


def test_runs_are_those_the_profile_counts_and_the_games_are_simulate_s():
    g1, g2 = game_from("tests/games/duel"), game_from("tests/games/duel")
    rec, prof = attach(g1), attach_profile(g2)
    seats = seat_agents("random", ["p1", "p2"])
    for i in range(6):
        play(g1, rec, i, 3, 2, seats)
    plain = simulate(g2, 6, seed=3, players=2)
    ran = {p: c[0] for p, c in rec.runs.items() if c[0]}
    weighed = {p: c[0] + c[1] for p, c in rec.truth.items() if c[0] + c[1]}
    lines = {p: n for p, n in prof.runs.items() if not prof.what[p].endswith("of scoring")}  # not a branch
    assert ran and weighed and {**ran, **weighed} == lines  # a condition's runs: its outcomes
    assert sorted(rec.taken.items()) == sorted(tuple(a) for a in plain["top_actions"] if a[0] != "pass")


def test_branches_count_each_way_of_each_if_condition_and_may():
    r = measure(DUEL, games=8, seed=1)
    points = {(b["line"], b["kind"]): b for b in r["files"]["game.yaml"]["branch_points"]}
    may = points[(_line(DUEL, 'may "Reveal the token?":'), "may")]
    assert [w["label"] for w in may["ways"]] == ["yes chosen", "no chosen"] and all(w["count"] for w in may["ways"])
    arm = [b for b in points.values() if b["what"] == "condition of action arm"][0]
    assert {w["label"] for w in arm["ways"]} == {"true", "false"}
    assert r["totals"]["branches"] == sum(len(b["ways"]) for b in points.values())


def test_a_choice_that_may_be_declined_has_two_ways(tmp_path):
    folder = _duel_copy(tmp_path, lambda t: t.replace(
        "      draw 1 from blades\n",
        "      draw 1 from blades\n      choose c from player.hand or none \"Show a blade?\":\n        log \"a blade is shown\"\n"))
    r = measure(folder, games=6)
    (choose,) = [b for b in r["files"]["game.yaml"]["branch_points"] if b["kind"] == "choose"]
    assert [w["label"] for w in choose["ways"]] == ["an option chosen", "none chosen"]
    assert all(w["count"] for w in choose["ways"])


def test_a_condition_never_false_is_a_partial_branch(tmp_path):
    folder = _duel_copy(tmp_path, lambda t: t.replace("if: count(player.hand) < 3", "if: count(player.hand) < 99"))
    r = measure(folder, games=4)
    f = r["files"]["game.yaml"]
    arm = [b for b in f["branch_points"] if b["what"] == "condition of action arm"][0]
    assert dict((w["label"], bool(w["count"])) for w in arm["ways"]) == {"true": True, "false": False}
    assert arm["line"] in f["partial_lines"]


def test_an_unreachable_pragma_takes_its_lines_out_and_lists_them(tmp_path):
    def edit(t):
        t = t.replace("      pay 1 gold\n", "      pay 1 gold  # coverage: unreachable gold is paid in the cost\n")
        return t.replace("    if: count(player.hand) < 3\n",
                         "    # coverage: unreachable arming is checked by hand\n    if: count(player.hand) < 3\n")
    folder = _duel_copy(tmp_path, edit)
    r = measure(folder, games=0)
    rows = {u["reason"]: u for u in r["unreachable"]}
    assert set(rows) == {"gold is paid in the cost", "arming is checked by hand"}
    assert rows["gold is paid in the cost"]["statements"] == 1
    pay = _line(folder, "pay 1 gold  # coverage: unreachable gold is paid in the cost")
    assert pay in r["files"]["game.yaml"]["excluded_lines"] and pay not in r["files"]["game.yaml"]["missing_lines"]
    base = measure(DUEL, games=0)["totals"]["statements"]
    assert r["totals"]["statements"] == base - 1
    # a line declared unreachable that runs is shown as such
    ran = measure(folder, games=6)
    assert {u["reason"]: u["ran"] for u in ran["unreachable"]}["gold is paid in the cost"] > 0


def test_a_pragma_holds_for_the_lines_indented_under_it():
    lines = ["effect: |", "  if x:  # coverage: unreachable never", "    a", "    b", "  c", "# coverage: unreachable",
             "", "d:", "  e"]
    assert [(u.line, u.last, u.reason) for u in pragmas("f.yaml", lines)] == [(2, 4, "never"), (8, 9, "no reason given")]


def test_source_files_outside_the_game_are_not_read(tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "secret.yaml").write_text("x: 1\n")
    assert source_lines(str(tmp_path / "g"), "../secret.yaml") is None
    assert source_lines(str(tmp_path / "g"), "/etc/passwd") is None


def test_the_command_on_a_game_outside_content_and_the_fail_under_exit():
    out = CliRunner().invoke(main, ["coverage", DUEL, RACE, "-n", "3", "--seed", "2"])
    assert out.exit_code == 0, out.output
    assert "game.yaml" in out.output and "TOTAL" in out.output and "duel" in out.output and "race" in out.output
    low = CliRunner().invoke(main, ["coverage", DUEL, "-n", "0", "--fail-under", "50"])
    assert low.exit_code == 1 and "coverage below 50%: duel" in low.output
    assert CliRunner().invoke(main, ["coverage", DUEL, "-n", "3", "--fail-under", "50"]).exit_code == 0


@pytest.mark.parametrize("args, message", [
    (["--players", "7"], "duel is for 2 to 3 players, not 7"),
    (["--agent", "p1=genius"], "unknown agent `genius`"),
    (["-n", "-3"], "-3"),
    (["--fail-under", "150"], "150"),
])
def test_bad_arguments_are_usage_errors(args, message):
    out = CliRunner().invoke(main, ["coverage", DUEL, *args])
    assert out.exit_code == 2 and message in out.output and "Traceback" not in out.output


def test_a_game_that_does_not_compile_and_an_html_folder_that_is_a_file(tmp_path):
    folder = _duel_copy(tmp_path, lambda t: t.replace("draw 1 from blades", "draw 1 from nowhere_deck"))
    out = CliRunner().invoke(main, ["coverage", folder, "-n", "1", "--json"])
    assert out.exit_code == 1
    (game,) = json.loads(out.output)["games"]
    assert game["compile_errors"] and "game.yaml:" in game["compile_errors"][0]
    (tmp_path / "taken").write_text("")
    out = CliRunner().invoke(main, ["coverage", DUEL, "-n", "1", "--html", str(tmp_path / "taken")])
    assert out.exit_code == 1 and "cannot write the HTML report" in out.output and "Traceback" not in out.output


def test_json_is_versioned_and_deterministic():
    runs = [CliRunner().invoke(main, ["coverage", DUEL, "-n", "4", "--seed", "5", "--json"]) for _ in range(2)]
    assert runs[0].output == runs[1].output
    doc = json.loads(runs[0].output)
    assert doc["version"] == 1 and doc["games"][0]["game"] == "duel"
    g = doc["games"][0]
    assert set(g) >= {"totals", "files", "unreachable", "never", "runs"}
    assert g["runs"]["bot_games"]["player_counts"] == [2, 3]


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.classes, self.open, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "br"):
            self.open.append(tag)
        self.classes.extend(v for k, v in attrs if k == "class")

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


def test_html_shows_each_line_coloured_and_escapes_content(tmp_path):
    folder = _duel_copy(tmp_path, lambda t: t.replace("game:\n", "game:  # <script>alert(1)</script>\n", 1))
    r = measure(folder, games=3)
    r["game"] = "../../evil id"  # a hostile id names no path outside the folder
    out = tmp_path / "html"
    written = write([r], str(out))
    assert sorted(os.path.basename(p) for p in written) == ["game______evil_id.html", "index.html"]
    assert all(os.path.dirname(p) == str(out) for p in written)
    page = (out / "game______evil_id.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;" in page
    parsed = _Page()
    parsed.feed(page)
    assert not parsed.open  # every element closed in order
    assert {"run", "miss"} <= set(parsed.classes) or {"run", "part"} <= set(parsed.classes)
    assert "draw 2 from blades to p.hand" in "".join(parsed.text)


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not _chromium(), reason="no chromium: `make browser` installs it")
def test_html_opens_in_a_browser(tmp_path):
    r = measure(DUEL, games=3)
    write([r], str(tmp_path))
    dom = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                          (tmp_path / f"{page_name('duel')}.html").as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    # the browser built the page: the source table's rows, coloured by what ran
    assert "<table class=\"src\">" in dom and "class=\"run\"" in dom
    assert "draw 2 from blades to p.hand" in dom
    shot = tmp_path / "shot.png"
    subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                    "--window-size=900,700", (tmp_path / "index.html").as_uri()], capture_output=True, timeout=120)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
