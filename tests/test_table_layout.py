"""A game may lay its online table out in game.yaml (`game: table:`, docs/table.md): zones the
table never draws, and where each location sits on a map. Checked like any content (an
unknown zone or place is an error with its position), carried to game.json only where given,
and drawn by the page: the places at their spots, the hidden zones nowhere. Without it the
page is derived from the rules (every other table test)."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from rulepress.compiler.pipeline import compile_game, check_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
MAP = {"watson": [1, 1], "westbrook": [2, 1], "city_center": [3, 1], "heywood": [1, 2], "santo_domingo": [2, 2],
       "pacifica": [3, 2]}


def laid_out(tmp_path, table: str) -> str:
    """Night City with `table` (YAML lines under `game:`) in its manifest; the folder."""
    folder = tmp_path / "night-city"
    shutil.copytree(os.path.join(ROOT, "content", "night-city"), folder, ignore=shutil.ignore_patterns("scenarios"))
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(text.replace("game:\n", "game:\n" + table, 1), encoding="utf-8")
    return str(folder)


TABLE = "  table:\n    hidden: [supply, removed]\n    map:\n" + "".join(f"      {k}: {v}\n" for k, v in MAP.items())


def test_a_layout_is_carried_to_the_tables_only_where_a_game_gives_one(tmp_path):
    text, _gid, report = compile_game(laid_out(tmp_path, TABLE))
    assert text is not None and not report.errors, [d.text() for d in report.sorted()]
    assert json.loads(text)["game"]["table"] == {"hidden": ["supply", "removed"], "map": MAP}
    with open(os.path.join(ROOT, "build", "night-city", "game.json"), encoding="utf-8") as fh:
        assert "table" not in json.load(fh)["game"]  # (the other games' tables stay as they were)


@pytest.mark.parametrize("table, code, says", [
    ("  table:\n    hidden: [suply]\n", "R002", "unknown zone `suply`"),
    ("  table:\n    map: {watsonn: [1, 1]}\n", "R002", "unknown location `watsonn`"),
    ("  table:\n    map: {hand: [1, 1]}\n", "R002", "unknown location `hand`"),
    ("  table:\n    map: {watson: [1, 1], heywood: [1, 1]}\n", "R008", "both at [1, 1]"),
    ("  table:\n    map: {watson: [0, 1]}\n", "S", ""),
    ("  table:\n    map: {watson: [1, 1, 1]}\n", "S", ""),
    ("  table:\n    map: {watson: 3}\n", "S", ""),
    ("  table:\n    where: {watson: [1, 1]}\n", "S", ""),
    ("  table: [supply]\n", "S", ""),
])
def test_a_layout_naming_what_the_game_has_not_is_an_error_with_its_position(tmp_path, table, code, says):
    _model, report = check_game(laid_out(tmp_path, table))
    found = [d for d in report.sorted() if d.severity == "error"]
    assert found, table
    assert any(d.code.startswith(code) and says in d.message for d in found), [d.text() for d in found]
    assert all(d.pos.file.endswith("game.yaml") and d.pos.line > 1 for d in found)


@pytest.mark.skipif(not CHROMIUM, reason="no chromium: `make browser` installs it (apt-get install chromium)")
def test_the_page_draws_the_places_where_the_game_puts_them_and_never_a_hidden_zone(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra: make setup")
    ws_client = pytest.importorskip("websockets.sync.client", reason="websockets is in the table extra")
    from tests.test_table_screens import _play, _post
    folder = laid_out(tmp_path, TABLE)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exe = shutil.which("rulepress", path=os.path.dirname(sys.executable)) or "rulepress"
    proc = subprocess.Popen([exe, "serve", folder, "--port", str(port), "--db", str(tmp_path / "t.sqlite3"), "--no-faces"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if proc.poll() is not None:
                pytest.fail(proc.stderr.read()[-2000:])
            try:
                urllib.request.urlopen(url + "/api/games", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        made = _post(url + "/api/rooms", {"game": "night-city", "players": 2, "name": "Ана"})
        with ws_client.connect(url.replace("http", "ws") + f"/ws/{made['code']}", open_timeout=30) as ws:
            _play(ws, made, 2)
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            try:
                page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                page.goto(f"{url}/r/{made['code']}?lang=ru#t={made['token']}")
                page.wait_for_function("(window.rulepressTable.last || {}).status === 'playing'", timeout=30_000)
                page.wait_for_timeout(300)
                page.screenshot(path=str(tmp_path / "night-city-laid-out.png"))
                if os.environ.get("RULEPRESS_TABLE_SCREENS"):
                    shutil.copy(tmp_path / "night-city-laid-out.png", os.environ["RULEPRESS_TABLE_SCREENS"])
                spots = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#board .map > .zone')]
                    .map((z) => [z.dataset.zone, [+getComputedStyle(z).gridColumnStart, +getComputedStyle(z).gridRowStart]]))""")
                assert spots == MAP
                # each place where the game puts it: a column right of the one before, a row below
                boxes = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#board .map > .zone')]
                    .map((z) => { const r = z.getBoundingClientRect(); return [z.dataset.zone, [r.left, r.top]]; }))""")
                assert boxes["watson"][0] < boxes["westbrook"][0] < boxes["city_center"][0]
                assert boxes["watson"][1] < boxes["heywood"][1]
                assert page.locator('section.zone[data-zone="supply"]').count() == 0
            finally:
                browser.close()
    finally:
        proc.kill()
        proc.wait(10)
