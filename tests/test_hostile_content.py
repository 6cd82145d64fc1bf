"""Hostile content: YAML files, game folders and a game's own templates.

Each case runs the command the way a designer (or a CI job on someone's pull request)
would, and asserts the exit code, one clear error line with its position, and no traceback.
Grouped by input path: files of a game, the game folder itself, templates.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")
LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): (?P<code>[A-Z]\d{3}) (?P<msg>.+)$")
UP_TO_DATE = re.compile(r"^.+: up to date \(\d+ files?\)$")
SUMMARY = re.compile(r"^\d+ games? checked: \d+ errors?, \d+ warnings?$")
CARD = "cards:\n  - id: turbo\n    name: {en: Turbo, ru: Турбо}\n    deck: boosts\n"


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    # `--no-cache` sets RULEPRESS_NO_CACHE in the process: gone again after each test
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "")
    monkeypatch.delenv("RULEPRESS_NO_CACHE")


@pytest.fixture
def game(tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    return folder


def run(*args):
    result = CliRunner().invoke(main, [*map(str, args)])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def diagnostics(result):
    """Every line of the output is a diagnostic or the summary: none is forged or broken."""
    lines = result.stdout.splitlines()
    for line in lines:
        assert LINE.match(line) or SUMMARY.match(line) or line.startswith("wrote ") or UP_TO_DATE.match(line), line
    return [LINE.match(x).groupdict() for x in lines if LINE.match(x)]


def only_error(result, code, file, line=None):
    """Exit 1 and exactly one error: this code, in this file (at this line)."""
    assert result.exit_code == 1, result.output
    errs = [d for d in diagnostics(result) if d["sev"] == "error"]
    assert len(errs) == 1, result.output
    e = errs[0]
    assert e["code"] == code and os.path.basename(e["file"]) == file, result.output
    if line is not None:
        assert int(e["line"]) == line, result.output
    return e["msg"]


def usage_error(result, says):
    assert result.exit_code == 2, result.output
    assert result.stdout == "", result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("rulepress: ") and says in line, line
    return line


def put(folder, name, text):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def built(game, tmp_path):
    out = tmp_path / "out"
    return run("build", game, "-o", out), out


# ---- files of a game that are not files ---------------------------------------------

def test_a_fifo_named_like_content_is_refused_unread(game):
    os.mkfifo(game / "extra.yaml")
    started = time.monotonic()
    msg = only_error(run("validate", game), "Y009", "extra.yaml", 1)
    assert "not a regular file" in msg
    assert time.monotonic() - started < 20


def test_a_link_to_dev_zero_is_refused_unread(game):
    os.symlink("/dev/zero", game / "extra.yaml")
    assert "outside the game folder" in only_error(run("validate", game), "Y009", "extra.yaml", 1)


def test_a_socket_named_like_content_is_refused(game, tmp_path):
    # (a socket's path is short: made in a short folder and linked from the game)
    with socket.socket(socket.AF_UNIX) as s:
        path = os.path.join("/tmp", f"rp-{os.getpid()}.sock")
        s.bind(path)
        try:
            os.symlink(path, game / "extra.yaml")
            only_error(run("validate", game), "Y009", "extra.yaml", 1)
        finally:
            os.unlink(path)


def test_a_file_over_the_bound_is_refused_before_it_is_read(game):
    with open(game / "extra.yaml", "wb") as fh:  # sparse: 17 MiB that take no room
        fh.truncate(17 * 1024 * 1024)
    started = time.monotonic()
    msg = only_error(run("validate", game), "Y008", "extra.yaml", 1)
    assert "limited to 16777216" in msg
    assert time.monotonic() - started < 20


def test_a_fifo_in_a_game_does_not_hang_the_real_command(game, tmp_path):
    os.mkfifo(game / "extra.yaml")
    for command in (["validate", str(game)], ["build", str(game), "-o", str(tmp_path / "out")]):
        done = subprocess.run([RULEPRESS, *command], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, RULEPRESS_CACHE_DIR=str(tmp_path / "cache")))
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stdout + done.stderr
        assert "extra.yaml:1:1: error: Y009" in done.stdout
    assert not (tmp_path / "out").exists()


# ---- the game folder itself ---------------------------------------------------------

def test_a_game_path_that_is_a_link_loop_is_a_usage_error(tmp_path):
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    usage_error(run("validate", tmp_path / "loop"), "loop")


def test_a_game_path_that_is_a_fifo_is_a_usage_error(tmp_path):
    os.mkfifo(tmp_path / "game")
    usage_error(run("validate", tmp_path / "game"), "not a game folder")
    usage_error(run("build", tmp_path / "game", "-o", tmp_path / "out"), "not a game folder")


def test_an_unreadable_game_folder_is_a_usage_error(tmp_path, monkeypatch):
    (tmp_path / "games").mkdir()
    from rulepress.compiler import content

    def refused(path):
        raise PermissionError(13, "Permission denied", path)
    monkeypatch.setattr(content.os, "listdir", refused)  # (the tests may run as root, who reads all)
    usage_error(run("validate", tmp_path / "games"), "Permission denied")


@pytest.mark.skipif(sys.platform != "linux", reason="a file name that is not UTF-8 (macOS refuses them)")
def test_a_game_folder_whose_name_is_not_utf8_is_checked_built_and_cached(game, tmp_path, monkeypatch):
    odd = os.fsdecode(os.fsencode(str(tmp_path)) + b"/g\xff")  # (a lone surrogate, as Python reads such a name)
    os.rename(game, odd)
    shutil.copytree(os.path.join(RACE, "scenarios"), os.path.join(odd, "scenarios"))
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # the second time from the cache
        assert run("validate", odd).exit_code == 0
        assert run("build", odd, "-o", tmp_path / "out").exit_code == 0
        result = run("test", odd)
        assert result.exit_code == 0 and "1 passed, 0 failed" in result.output
    assert run("simulate", odd, "-n", "1").exit_code == 0
    # the PDF printer reads files by URL, and a URL is UTF-8
    usage_error(run("print", odd, "-o", tmp_path / "pdf"), "not a UTF-8 path")


def test_a_folder_link_loop_inside_a_game_is_one_error(game):
    (game / "more").mkdir()
    os.symlink("..", game / "more" / "up")
    only_error(run("validate", game), "Y012", "up", 1)


def test_folders_nested_too_deep_are_one_error(game):
    # (a hundred: a thousand would crash the reader without the bound, and the cleaning of
    # the test's own folder with it)
    deep = game / os.path.join(*["d"] * 100)
    os.makedirs(deep)
    (deep / "extra.yaml").write_text(CARD, encoding="utf-8")
    try:
        msg = only_error(run("validate", game), "Y009", "d")
        assert "nest deeper than 32" in msg
    finally:  # (not left for pytest's own cleaning of old runs, which walks it again)
        shutil.rmtree(game / "d")


# ---- YAML that expands, or holds numbers no game can use ----------------------------

@pytest.mark.parametrize("text", ["!!float \ufeff!!float ", "x: !!float ''\n", "x: !!int ''\n"])
def test_a_tagged_number_of_nothing_is_one_error(game, text):
    put(game, "extra.yaml", text)
    result = run("validate", game)
    assert result.exit_code == 1 and "Y00" in result.output


def test_one_long_text_aliased_hundreds_of_times_is_refused_quickly(game):
    put(game, "extra.yaml", CARD + "    text: {en: &long '" + "x" * 1_000_000 + "', ru: 'y'}\n"
        + "icons: [" + ", ".join(["{id: a, glyph: *long}"] * 300) + "]\n")
    started = time.monotonic()
    msg = only_error(run("validate", game), "Y005", "extra.yaml")
    assert "bytes of text" in msg
    assert time.monotonic() - started < 10


def test_a_text_aliased_a_few_times_is_fine(game):
    put(game, "extra.yaml", CARD + "    text: &t {en: Fast, ru: Быстро}\n"
        "  - id: jet\n    name: {en: Jet, ru: Реактивный}\n    deck: boosts\n    text: *t\n")
    assert run("validate", game).exit_code == 0


@pytest.mark.parametrize("number", ["1000000000000001", "-1000000000000001", "0x38D7EA4C68001",
                                    "1.0e+16", "9" * 5000, "!!int 99999999999999999999"])
def test_a_number_beyond_the_bound_is_an_error_at_its_position(game, number):
    put(game, "extra.yaml", CARD + f"    attrs: {{speed: {number}}}\n")
    msg = only_error(run("validate", game), "Y007", "extra.yaml", 5)
    assert "10^15" in msg


def test_a_number_at_the_bound_is_fine(game):
    put(game, "extra.yaml", CARD + "    attrs: {speed: 1000000000000000, drag: -1000000000000000}\n")
    assert run("validate", game).exit_code == 0


@pytest.mark.parametrize("value", [".nan", ".NaN", ".inf", "-.inf", "+.Inf", "!!float nan", "!!float inf",
                                   "!!float -inf", "1.0e+400", "!!float 1e999"])
def test_nan_and_infinities_are_errors_and_never_reach_game_json(game, tmp_path, value):
    put(game, "extra.yaml", CARD + f"    attrs: {{speed: {value}}}\n")
    only_error(run("validate", game), "Y007", "extra.yaml", 5)
    result, out = built(game, tmp_path)
    assert result.exit_code == 1
    assert not out.exists()


@pytest.mark.parametrize("text", ["~\n", "null\n", "Null\n", "---\n", "--- ~\n", "# note\n~\n"])
def test_a_file_of_only_null_is_the_empty_file_error(game, text):
    put(game, "extra.yaml", text)
    assert "file is empty" in only_error(run("validate", game), "Y003", "extra.yaml", 1)


def test_a_float_tag_on_text_is_an_error_not_a_crash(game):
    put(game, "extra.yaml", CARD + "    attrs: {speed: !!float fast}\n")
    only_error(run("validate", game), "Y007", "extra.yaml", 5)


# ---- ids and messages ------------------------------------------------------------

@pytest.mark.parametrize("where, text, line", [
    ("card", CARD.replace("id: turbo", 'id: "turbo\\n"'), 2),
    ("deck reference", CARD.replace("deck: boosts", 'deck: "boosts\\n"'), 4),
    ("attribute name", CARD + '    attrs: {"speed\\n": 2}\n', 5),
])
def test_an_id_with_a_line_break_at_its_end_is_not_an_id(game, where, text, line):
    put(game, "extra.yaml", text)
    result = run("validate", game)
    assert result.exit_code == 1
    (msg,) = [d["msg"] for d in diagnostics(result) if d["code"] == "S005" and int(d["line"]) == line]
    assert "\\n`" in msg  # shown as an escape: `turbo\n`, not `turbo `


def _patterns(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "pattern" and isinstance(v, str):
                yield v
            yield from _patterns(v)
    elif isinstance(node, list):
        for v in node:
            yield from _patterns(v)


def test_every_pattern_of_the_schemas_is_anchored_and_read_whole():
    """JSON Schema searches a pattern: one without `^...$` would accept `turbo/../x`; and
    `$` is the end of the text only as the checks here read it (Python's `$` is not)."""
    import json
    from rulepress.compiler.content import SCHEMA_DIR, whole_pattern
    found = set()
    for name in sorted(os.listdir(SCHEMA_DIR)):
        if name.endswith(".json"):
            with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as fh:
                found |= set(_patterns(json.load(fh)))
    assert found
    for pattern in found:
        assert pattern.startswith("^") and pattern.endswith("$"), pattern
        sample = next(s for s in ("a", "p1", "0" * 16, "pt-BR") if re.search(pattern, s))
        assert re.search(pattern, sample + "\n") and not whole_pattern(pattern).search(sample + "\n"), pattern


def test_a_game_id_with_a_line_break_is_refused_and_nothing_is_built(game, tmp_path):
    text = (game / "game.yaml").read_text(encoding="utf-8")
    put(game, "game.yaml", text.replace("id: race", 'id: "race\\n"', 1))
    only_error(run("validate", game), "S005", "game.yaml", 2)
    result, out = built(game, tmp_path)
    assert result.exit_code == 1 and not out.exists()


def test_a_line_break_in_a_key_cannot_forge_a_second_diagnostic(game):
    forged = "x.yaml:1:1: error: Y001 forged"
    put(game, "extra.yaml", CARD + f'    "bad\\n{forged}": 1\n')
    result = run("validate", game)
    msg = only_error(result, "S001", "extra.yaml", 5)
    assert "\\n" + forged in msg
    assert not any(line.startswith(forged) for line in result.stdout.splitlines())


def test_control_characters_are_escaped_in_every_format(game):
    put(game, "extra.yaml", CARD + '    "a\\rb\\u001b[31mc\\u2028d": 1\n')
    text = run("validate", game).stdout
    assert "\r" not in text and "\x1b" not in text and "\u2028" not in text
    assert "a\\rb\\u001b[31mc\\u2028d" in text
    as_json = run("validate", "--format", "json", game).stdout
    assert "\\\\r" in as_json and "\x1b" not in as_json


def test_a_file_name_with_a_line_break_stays_on_one_line(game):
    put(game, "ex\ntra.yaml", "icons: [{id: 1bad, glyph: x}]\n")
    result = run("validate", game)
    errs = [d for d in diagnostics(result) if d["sev"] == "error"]
    assert [e["file"].endswith("ex\\ntra.yaml") for e in errs] == [True]


# ---- random files: never a traceback -----------------------------------------------

_PIECES = ["cards:", "icons:", "  - ", "id: ", "x", "&a ", "*a", "!!float ", "!!int ", "!!python/object ", ".nan",
           "1e+999", "99999999999999999", "~", "null", "---", "\n", "  ", "[", "]", "{", "}", ": ", ", ", "'",
           '"', "\\n", "\t", "#", "<<: ", "? ", "|\n", "\x00", "\ufeff", "é"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=200), st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)))
def test_any_file_gives_diagnostics_never_a_traceback(game, data):
    path = game / "extra.yaml"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    result = run("validate", "--no-cache", game)
    assert result.exit_code in (0, 1), result.output
    diagnostics(result)


# ---- a game's own templates ------------------------------------------------------

@pytest.mark.parametrize("code", [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.system('touch PWNED') }}",
    "{{ lipsum.__globals__['os'].popen('touch PWNED').read() }}",
    "{{ m.effect.__func__.__globals__ }}",
    "{{ (m|attr('__class__')).__init__.__globals__ }}",
    "{% set x = [].append(1) %}{{ ''.format.__self__.__class__ }}",
    "{{ actions.append(1) }}",
    "{{ L.clear() }}",
])
def test_a_template_that_reaches_for_python_is_refused_at_its_line(game, tmp_path, monkeypatch, code):
    monkeypatch.chdir(tmp_path)
    put(game, "templates/rulebook.md.j2", "# {{ title }}\n\n" + code + "\n")
    result, out = built(game, tmp_path)
    msg = only_error(result, "G007", "rulebook.md.j2", 3)
    assert "may not" in msg or "unsafe" in msg or "template" in msg
    assert not (tmp_path / "PWNED").exists()
    assert not (out / "race").exists()  # nothing written, not even the game's folder


@pytest.mark.parametrize("code, says", [
    ("{% for i in range(10**9) %}x{% endfor %}", "too large"),
    ("{% for i in range(200000) %}x{% endfor %}", "Range too big"),
    ("{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}", "ranges go past"),
    ("{{ 'x' * 10**9 }}", "repeating"),
    ("{{ [0] * 10**9 }}", "repeating"),
    ("{{ 'x'|center(10**9) }}", "too large"),
    ("{{ 'x'|indent(width=10**9) }}", "too large"),
    ("{{ 'x'.ljust(10**9) }}", "too large"),
    ("{{ (10**100)**100 }}", "too large"),
])
def test_a_template_cannot_build_something_huge(game, tmp_path, code, says):
    put(game, "templates/rulebook.md.j2", "# {{ title }}\n" + code + "\n")
    started = time.monotonic()
    result, _out = built(game, tmp_path)
    assert says in only_error(result, "G007", "rulebook.md.j2", 2)
    assert time.monotonic() - started < 30


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
@pytest.mark.parametrize("code", [
    "{% set s = 'x' * 1000000 %}{% for i in range(400) %}{{ s }}{% endfor %}",
    # every number and range within bounds, but loops of loops of text: terabytes uncapped
    "{% set s = 'x' * 1000000 %}{% macro m() %}{% for i in range(100000) %}{% for j in range(99) %}{{ s }}"
    "{% endfor %}{% endfor %}{% endmacro %}{{ m() }}",
])
def test_a_template_whose_text_outgrows_its_memory_is_an_error(game, tmp_path, monkeypatch, code):
    from rulepress.compiler import memory
    monkeypatch.setattr(memory, "MAX_TEMPLATE_MEMORY", 200 << 20, raising=False)  # (the real cap is 1 GiB)
    put(game, "templates/rulebook.md.j2", "# {{ title }}\n" + code + "\n")
    result, out = built(game, tmp_path)
    assert "grows past the memory" in only_error(result, "G007", "rulebook.md.j2")
    assert not (out / "race").exists()
    import resource
    assert resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY  # given back after the render


@pytest.mark.parametrize("text, says", [
    ("line\n{% for x in %}\n", "syntax"),
    ("{{ no_such_value.x }}\n", "undefined"),
    ("{% include '../../../../etc/passwd' %}\n", "passwd"),
    ("{{ 1 / 0 }}\n", "ZeroDivisionError"),
])
def test_a_broken_template_is_an_error_with_its_path(game, tmp_path, text, says):
    put(game, "templates/rulebook.md.j2", text)
    result, _out = built(game, tmp_path)
    assert says in only_error(result, "G007", "rulebook.md.j2")


def test_validate_and_print_find_what_would_stop_build(game, tmp_path):
    """A template that does not parse validated clean and printed (print reads only the HTML
    rulebook): both now stop at it, as build does."""
    put(game, "templates/rulebook.md.j2", "# {{ title }}\n{% for x in %}\n")
    only_error(run("validate", "--no-cache", game), "G007", "rulebook.md.j2", 2)
    printed = run("print", game, "-o", tmp_path / "print")
    assert printed.exit_code == 1 and "rulebook.md.j2:2:1: error: G007" in printed.output
    assert len(printed.output.strip().splitlines()) == 1 and not (tmp_path / "print").exists()


def test_a_template_that_is_a_fifo_is_refused_unread(game, tmp_path):
    (game / "templates").mkdir()
    os.mkfifo(game / "templates" / "rulebook.md.j2")
    result, _out = built(game, tmp_path)
    assert "not a regular file" in only_error(result, "G007", "rulebook.md.j2", 1)
    assert "not a regular file" in only_error(run("validate", "--no-cache", game), "G007", "rulebook.md.j2", 1)


def test_a_harmless_template_of_the_game_still_renders(game, tmp_path):
    put(game, "templates/rulebook.md.j2", "# {{ title }}\n{% for a in actions %}- {{ a.name }}\n{% endfor %}"
        "{{ 'ab'|center(6) }}|{{ '-' * 3 }}|{{ range(3)|list }}|{{ 2 ** 10 }}|{{ '%s'|format(7) }}\n")
    result, out = built(game, tmp_path)
    assert result.exit_code == 0, result.output
    text = (out / "race" / "rulebook.en.md").read_text(encoding="utf-8")
    assert text.startswith("# Dice Race\n") and "  ab  |---|[0, 1, 2]|1024|7\n" in text


def test_a_game_with_templates_builds_the_built_in_ones_as_before(game, tmp_path):
    """The sandbox changes nothing for templates that behave: the built-in rulebook renders the
    same inside it as outside."""
    plain, out = built(game, tmp_path)
    before = {p.name: p.read_bytes() for p in (out / "race").iterdir()}
    put(game, "templates/unused.css", "/* nothing */\n")
    result = run("build", "--no-cache", game, "-o", tmp_path / "again")
    assert result.exit_code == 0, result.output
    assert {p.name: p.read_bytes() for p in (tmp_path / "again" / "race").iterdir()} == before


# ---- the search bot's section (bot:) -----------------------------------------------

@pytest.mark.parametrize("text, code, line, says", [
    # a term reading a name nothing declares: never silently worth nothing
    ("bot:\n  terms:\n    - {value: player.position + nonsense, weight: 1}\n", "D013", 3, "unknown name `nonsense`"),
    ("bot:\n  terms:\n    - {value: 'gain 1 score', weight: 1}\n", None, 3, ""),  # an effect, not an expression
    ("bot:\n  terms:\n    - {value: player.position}\n", None, 3, "weight"),
    ("bot:\n  terms:\n    - {value: player.position, weight: heavy}\n", None, 3, "heavy"),
    ("bot:\n  terms:\n    - {value: player.position, weight: .nan}\n", None, 3, ""),
    ("bot:\n  cooperative: sometimes\n", None, 2, "sometimes"),
    ("bot:\n  rollout: deep\n", None, 2, "rollout"),
    ("bot:\n  terms: lots\n", None, 2, "lots"),
    ("bot:\n  terms:\n" + "    - {value: 1, weight: 1}\n" * 101, "S006", 3, "bot.terms: 101 entries, at most 100"),
    ("bot: [1, 2]\n", None, 1, ""),
])
def test_a_bad_bot_section_is_one_error_at_its_line(game, text, code, line, says):
    put(game, "bot.yaml", text)
    result = run("validate", game)
    msg = only_error(result, code, "bot.yaml", line) if code else None
    if code is None:
        assert result.exit_code == 1, result.output
        errs = [d for d in diagnostics(result) if d["sev"] == "error"]
        assert errs and all(os.path.basename(e["file"]) == "bot.yaml" for e in errs), result.output
        assert int(errs[0]["line"]) == line, result.output
        msg = errs[0]["msg"]
    assert says in msg, msg


def test_a_second_bot_section_is_an_error_and_a_good_one_is_built(game, tmp_path):
    put(game, "bot.yaml", "bot:\n  cooperative: false\n  terms:\n    - {value: player.position * 2, weight: 0.5}\n")
    result, out = built(game, tmp_path)
    assert result.exit_code == 0, result.output
    import json
    tables = json.loads((out / "race" / "game.json").read_text())
    assert tables["bot"]["cooperative"] is False and tables["bot"]["terms"][0]["weight"] == 0.5
    put(game, "more.yaml", "bot:\n  cooperative: true\n")
    only_error(run("validate", game), "G004", "more.yaml", 1)


def test_names_chained_or_looping_without_end_do_not_stop_the_player_aids():
    """The player aids follow `faction:` through names, `let`s and procedure arguments: a chain
    of thousands of names, names bound to each other in a loop, and procedures that pass a
    value round in a circle end the search (a bounded one), with what was found."""
    from rulepress.compiler.factions import factions
    from rulepress.compiler.printing import game_tables
    t = game_tables(os.path.join(ROOT, "content", "night-city"))
    pos = "x.yaml:1:1"
    chain = [["let", pos, "a0", ["name", pos, "a1"]], ["let", pos, "a1", ["name", pos, "a0"]]]
    chain += [["let", pos, f"b{i}", ["name", pos, f"b{i - 1}"]] for i in range(1, 5000)]
    chain += [["set", pos, ["attr", pos, ["name", pos, "p"], "gang"], ["name", pos, "b4999"]],
              ["set", pos, ["attr", pos, ["name", pos, "p"], "gang"], ["name", pos, "a0"]],
              ["do", pos, ["call", pos, "loop_b", [["name", pos, "p"], ["name", pos, "g"]]]]]
    procs = dict(t["procedures"], loop_a={"params": ["p", "g"], "effect": chain},
                 loop_b={"params": ["p", "g"], "effect": [
                     ["set", pos, ["attr", pos, ["name", pos, "p"], "gang"], ["name", pos, "g"]],
                     ["do", pos, ["call", pos, "loop_a", [["name", pos, "p"], ["name", pos, "g"]]]]]})
    assert sorted(factions(dict(t, procedures=procs))) == sorted(k for k, p in t["protos"].items() if p.get("kind") == "gang")
