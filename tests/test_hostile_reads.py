"""Every file a game is made from is read from inside its folder: a template, an include, the
templates folder, a YAML file or folder, a scenario or a picture linked to somewhere else
(/etc/passwd, /proc/self/environ, a file of the user's) is refused at its position, and
nothing of what it holds reaches an output, a diagnostic or the terminal."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from rulepress.cli import main
from rulepress.compiler.source import NotReadable, read_bytes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")
SECRET = "SECRET-7f3a9c"
ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<code>[A-Z]\d{3}) (?P<msg>.+)$")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def game(tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    return folder


@pytest.fixture
def outside(tmp_path):
    """The user's files beside the game: a secret in a file, a YAML file and a templates folder."""
    where = tmp_path / "outside"
    (where / "templates").mkdir(parents=True)
    (where / "secret.txt").write_text(f"{SECRET}: the user's token\n", encoding="utf-8")
    (where / "cards.yaml").write_text(f"# {SECRET}\ncards:\n  - id: stolen\n", encoding="utf-8")
    (where / "templates" / "rulebook.md.j2").write_text(f"# {SECRET}\n", encoding="utf-8")
    (where / "templates" / "part.j2").write_text(f"{SECRET}\n", encoding="utf-8")
    return where


def run(*args):
    result = CliRunner().invoke(main, [*map(str, args)])
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def refused(result, code: str, file: str, says="outside the game folder"):
    """Exit 1, one error of `code` at `file`, saying why; no word of a file outside."""
    assert result.exit_code == 1, result.output
    errors = [m.groupdict() for m in map(ERROR.match, result.output.splitlines()) if m]
    assert [(e["code"], os.path.basename(e["file"])) for e in errors] == [(code, file)], result.output
    assert says in errors[0]["msg"], result.output
    assert SECRET not in result.output and "root:" not in result.output
    return errors[0]


def nothing_leaked(folder):
    for d, _dirs, files in os.walk(folder):
        for name in files:
            with open(os.path.join(d, name), "rb") as fh:
                data = fh.read()
            assert SECRET.encode() not in data and b"root:x:" not in data, name


# ---- templates ---------------------------------------------------------------------

@pytest.mark.parametrize("target", ["/etc/passwd", "SECRET_FILE", "/proc/self/environ"])
def test_a_template_linked_outside_the_game_is_refused(game, tmp_path, outside, target):
    (game / "templates").mkdir()
    os.symlink(outside / "secret.txt" if target == "SECRET_FILE" else target, game / "templates" / "rulebook.md.j2")
    out = tmp_path / "out"
    refused(run("build", game, "-o", out), "G007", "rulebook.md.j2")
    refused(run("validate", "--no-cache", game), "G007", "rulebook.md.j2")
    nothing_leaked(tmp_path / "out") if out.exists() else None


def test_the_environment_never_reaches_a_rulebook_through_the_real_command(game, tmp_path):
    (game / "templates").mkdir()
    os.symlink("/proc/self/environ", game / "templates" / "rulebook.md.j2")
    os.symlink("/proc/self/environ", game / "templates" / "rulebook.html.j2")
    out = tmp_path / "out"
    done = subprocess.run([RULEPRESS, "build", str(game), "-o", str(out)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, RULEPRESS_CACHE_DIR=str(tmp_path / "cache"), API_TOKEN=SECRET))
    assert done.returncode == 1 and SECRET not in done.stdout + done.stderr, done.stdout + done.stderr
    assert "outside the game folder" in done.stdout and "Traceback" not in done.stderr
    nothing_leaked(out) if out.exists() else None


def test_a_linked_templates_folder_is_refused(game, tmp_path, outside):
    os.symlink(outside / "templates", game / "templates")
    refused(run("build", game, "-o", tmp_path / "out"), "G007", "templates", says="folder link that leads outside")
    refused(run("validate", "--no-cache", game), "G007", "templates", says="folder link that leads outside")


def test_a_templates_folder_linked_inside_the_game_is_read(game, tmp_path):
    (game / "shared").mkdir()
    (game / "shared" / "rulebook.md.j2").write_text("# {{ title }}\nshared\n", encoding="utf-8")
    os.symlink("shared", game / "templates")
    result = run("build", game, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "race" / "rulebook.en.md").read_text(encoding="utf-8") == "# Dice Race\nshared\n"


def test_an_include_of_a_linked_file_is_refused_at_the_include(game, tmp_path, outside):
    (game / "templates").mkdir()
    (game / "templates" / "rulebook.md.j2").write_text("# {{ title }}\n\n{% include 'part.j2' %}\n", encoding="utf-8")
    os.symlink(outside / "templates" / "part.j2", game / "templates" / "part.j2")
    e = refused(run("build", game, "-o", tmp_path / "out"), "G007", "part.j2")
    assert e["line"] == "1"


@pytest.mark.parametrize("name", ["/etc/passwd", "../../../../etc/passwd", "/proc/self/environ"])
def test_an_include_of_a_path_names_it_and_says_what_may_be_included(game, tmp_path, name):
    (game / "templates").mkdir()
    (game / "templates" / "rulebook.md.j2").write_text(f"# {{{{ title }}}}\n\n{{% include '{name}' %}}\n", encoding="utf-8")
    e = refused(run("build", game, "-o", tmp_path / "out"), "G007", "rulebook.md.j2",
                says="a template includes, imports or extends only the files of the game's templates/ folder")
    assert e["line"] == "3" and "no template '" in e["msg"]


def test_a_template_linked_inside_the_game_still_renders(game, tmp_path):
    (game / "templates").mkdir()
    (game / "templates" / "mine.md").write_text("# {{ title }}\nmine\n", encoding="utf-8")
    os.symlink("mine.md", game / "templates" / "rulebook.md.j2")
    result = run("build", game, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "race" / "rulebook.en.md").read_text(encoding="utf-8") == "# Dice Race\nmine\n"


def test_a_card_template_linked_outside_stops_print(game, tmp_path, outside):
    pytest.importorskip("weasyprint")
    (game / "templates").mkdir()
    os.symlink("/proc/self/environ", game / "templates" / "card.html.j2")
    result = run("print", game, "-o", tmp_path / "pdf")
    assert result.exit_code == 1 and "outside the game folder" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1
    nothing_leaked(tmp_path / "pdf") if (tmp_path / "pdf").exists() else None


# ---- content and scenario files -------------------------------------------------------

def test_a_yaml_file_linked_outside_is_refused_without_a_word_of_it(game, outside):
    os.symlink(outside / "cards.yaml", game / "extra.yaml")
    e = refused(run("validate", "--no-cache", game), "Y009", "extra.yaml")
    assert e["line"] == "1"


def test_a_yaml_file_linked_outside_is_refused_by_the_editors_cache_too(game, outside):
    os.symlink(outside / "cards.yaml", game / "extra.yaml")
    run("validate", game)  # (a first check keeps what it found)
    refused(run("validate", game), "Y009", "extra.yaml")


def test_a_linked_folder_outside_is_refused_at_the_link_unwalked(game, outside):
    os.symlink(outside, game / "more")
    e = refused(run("validate", "--no-cache", game), "Y009", "more")
    assert "folder link" in e["msg"]


@pytest.mark.parametrize("where", ["more", "art", "templates"])
def test_a_folder_linked_to_the_root_is_not_walked(game, tmp_path, where):
    started = time.monotonic()
    os.symlink("/", game / where)
    result = run("build", game, "-o", tmp_path / "out")
    assert time.monotonic() - started < 30
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "outside the game folder" in result.output


def test_a_yaml_file_linked_inside_the_game_is_read(game):
    (game / "parts").mkdir()
    (game / "parts" / "extra.yaml").write_text("cards:\n  - id: turbo\n    name: {en: Turbo, ru: Турбо}\n    deck: boosts\n",
                                               encoding="utf-8")
    os.symlink(os.path.join("parts", "extra.yaml"), game / "linked.yaml")
    result = run("validate", "--no-cache", game)
    assert "outside the game folder" not in result.output


def test_a_scenario_linked_outside_is_refused(game, outside):
    (game / "scenarios").mkdir()
    (outside / "s.yaml").write_text(f"# {SECRET}\nscenario:\n  name: stolen\n", encoding="utf-8")
    os.symlink(outside / "s.yaml", game / "scenarios" / "s.yaml")
    result = run("test", game)
    assert result.exit_code == 1 and "outside the game folder" in result.output, result.output
    assert SECRET not in result.output


def test_a_scenario_that_is_a_fifo_is_refused_unread(game):
    (game / "scenarios").mkdir()
    os.mkfifo(game / "scenarios" / "s.yaml")
    result = run("test", game)
    assert result.exit_code == 1 and "not a regular file" in result.output, result.output


# ---- the one reader ---------------------------------------------------------------------

def test_the_reader_refuses_what_leaves_its_folder_and_reads_what_does_not(tmp_path, outside):
    folder = tmp_path / "g"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.yaml").write_bytes(b"a: 1\n")
    os.symlink(outside / "secret.txt", folder / "s.txt")
    os.symlink(folder / "sub" / "a.yaml", folder / "b.yaml")
    assert read_bytes(str(folder / "b.yaml"), within=str(folder)) == b"a: 1\n"
    for path in (folder / "s.txt", folder / "sub" / ".." / ".." / "outside" / "secret.txt", "/etc/passwd"):
        with pytest.raises(NotReadable, match="outside the game folder") as refusal:
            read_bytes(str(path), within=str(folder))
        assert SECRET not in str(refusal.value)


# ---- what a printed page fetches -------------------------------------------------------

def test_a_printed_page_fetches_only_regular_files_inside_the_game(game, outside):
    pytest.importorskip("weasyprint")
    from rulepress.compiler.pagefiles import game_files
    (game / "art").mkdir(exist_ok=True)
    (game / "art" / "style.css").write_text("p { color: red }\n", encoding="utf-8")
    os.symlink(outside / "secret.txt", game / "art" / "linked.css")
    os.mkfifo(game / "art" / "pipe.css")
    fetcher = game_files(str(game))
    response = fetcher.fetch((game / "art" / "style.css").as_uri())
    assert response.read() == b"p { color: red }\n"
    for url in ((game / "art" / "linked.css").as_uri(), (game / "art" / "pipe.css").as_uri(), "file:///etc/passwd",
                "file:///proc/self/environ", (game / "art" / ".." / ".." / "outside" / "secret.txt").as_uri()):
        with pytest.raises(ValueError, match="not a file of the game") as refusal:
            fetcher.fetch(url)
        assert SECRET not in str(refusal.value)
    with pytest.raises(ValueError):
        fetcher.fetch("http://example.invalid/x.css")


def test_measuring_a_card_fetches_nothing_a_printed_page_may_not(game, outside):
    """The fit lays each face out before it is printed: what it loads is what a printed page
    may, never a server's answer or a file outside the game."""
    pytest.importorskip("weasyprint")
    import http.server
    import json
    import threading
    from rulepress.compiler.fitting import fitted_faces
    from rulepress.compiler.pipeline import compile_game
    asked = []

    class Server(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/css")
            self.end_headers()
            self.wfile.write(b"p { font-size: 90pt }\n")

        def log_message(self, *args):
            pass
    server = http.server.HTTPServer(("127.0.0.1", 0), Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (game / "templates").mkdir(exist_ok=True)
        (game / "templates" / "card.html.j2").write_text(
            f'<link rel="stylesheet" href="http://127.0.0.1:{server.server_port}/x.css">'
            f'<img src="{(outside / "secret.txt").as_uri()}"><p>{{{{ c.name }}}}</p>{{{{ c.fit_end }}}}\n',
            encoding="utf-8")
        text, _gid, report = compile_game(str(game))
        assert text is not None, [d.text() for d in report.sorted()]
        faces = fitted_faces(json.loads(text), "en", str(game))
    finally:
        server.shutdown()
    assert faces and asked == []


def test_a_worked_example_linked_outside_never_reaches_the_rulebook(game, tmp_path, outside):
    (game / "scenarios").mkdir()
    (outside / "ex.yaml").write_text(
        "scenario:\n  name: stolen\n  example:\n"
        + "".join(f"    {part}: {{en: '{SECRET}', ru: '{SECRET}'}}\n" for part in ("title", "setup", "happens", "result")),
        encoding="utf-8")
    os.symlink(outside / "ex.yaml", game / "scenarios" / "ex.yaml")
    run("build", game, "-o", tmp_path / "out")
    nothing_leaked(tmp_path / "out")
