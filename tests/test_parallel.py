"""The speed-ups of checking never change its answers: the forked half of the parsing, and
the compiled yes/no schema check in front of the explaining one."""
from __future__ import annotations

import copy
import marshal
import os
import random
import sys

import pytest

from rulepress.compiler import content, parallel
from rulepress.compiler.diagnostics import Report
from rulepress.compiler.pipeline import check_game
from rulepress.compiler.source import load_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from gen_synthetic import generate  # noqa: E402


def squares(part):
    return [x * x for x in part], sum(part)


def test_two_processes_give_what_one_gives():
    items = list(range(parallel.MIN_ITEMS + 101))
    results, extras = parallel.in_two(squares, items)
    assert results == [x * x for x in items]
    assert sum(extras) == sum(items)


def test_a_child_sends_its_parts_as_it_makes_them():
    def parts():
        yield {"a": [1, 2]}
        yield "second"
    next_part = parallel.start_parts(parts)
    if next_part is None:
        pytest.skip("no second core here")
    assert next_part() == {"a": [1, 2]}
    assert next_part() == "second"
    assert next_part() is None  # no more
    next_part.finish()


def test_a_child_that_fails_midway_keeps_what_it_sent():
    def parts():
        yield 1
        raise RuntimeError("the child breaks")
    next_part = parallel.start_parts(parts)
    if next_part is None:
        pytest.skip("no second core here")
    assert next_part() == 1
    assert next_part() is None


def test_a_listening_child_hears_what_it_is_sent():
    def parts(heard):
        yield "ready"
        got = heard()
        yield [x * 2 for x in got]
        yield heard()  # nothing more was sent
    child = parallel.start_parts(parts, listens=True)
    if child is None:
        pytest.skip("no second core here")
    assert child() == "ready"
    child.send([1, 2, 3])
    assert child() == [2, 4, 6]
    child.finish()


def test_a_child_that_is_gone_is_sent_nothing_without_a_word():
    child = parallel.start_parts(lambda heard: iter(()), listens=True)
    if child is None:
        pytest.skip("no second core here")
    child.send(list(range(1_000_000)))  # more than a pipe holds, and nobody reads it
    assert child() is None
    child.finish()


def test_two_items_can_go_side_by_side():
    parent = os.getpid()
    where = parallel.in_two(lambda part: ([os.getpid() != parent for _ in part], None), ["en", "ru"], min_items=2)[0]
    assert where == [False, parallel.cores() > 1]


def test_a_child_that_fails_only_costs_time():
    parent = os.getpid()

    def fragile(part):
        if os.getpid() != parent:
            raise RuntimeError("the child breaks")
        return squares(part)
    items = list(range(parallel.MIN_ITEMS + 1))
    results, extras = parallel.in_two(fragile, items)
    assert results == [x * x for x in items]
    assert sum(extras) == sum(items)


@pytest.fixture
def broken_game(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
    folder = generate(str(tmp_path / "synthetic"), cards=600, files=3, seed=5)
    for name, old, new in (("cards_000.yaml", "gain", "gian"), ("cards_001.yaml", "fame", "fmae"),
                           ("cards_002.yaml", "coins", "coins coins")):
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text.replace(old, new, 3))
    return folder


def test_forked_parsing_reports_what_one_process_reports(broken_game, monkeypatch):
    both = [d.text() for d in check_game(broken_game)[1].sorted()]
    monkeypatch.setenv("RULEPRESS_JOBS", "1")
    assert parallel.cores() == 1
    one = [d.text() for d in check_game(broken_game)[1].sorted()]
    assert len([d for d in one if ": error: D" in d]) >= 3
    assert both == one


def test_effects_checked_in_two_processes_report_what_one_process_reports(broken_game, monkeypatch):
    from rulepress.compiler import model
    monkeypatch.setattr(model, "CHECK_IN_TWO", 2)  # any game is big enough
    started = []
    real = parallel.start
    monkeypatch.setattr(parallel, "start", lambda work: started.append(1) or real(work))
    m, report = check_game(broken_game)
    both = [d.text() for d in report.sorted()]
    assert len(started) >= 2 or parallel.cores() < 2  # the parse and the checks
    monkeypatch.setenv("RULEPRESS_JOBS", "1")
    m1, report1 = check_game(broken_game)
    assert len([d for d in both if "unknown" in d]) >= 2
    assert both == [d.text() for d in report1.sorted()]
    assert m.calls == m1.calls and m.calls


def _mutations(doc, rng, n):
    """Copies of a loaded file with one value changed to something of another type,
    a key added or a key removed."""
    def spots(node, path):
        yield path
        if isinstance(node, dict):
            for k, v in node.items():
                yield from spots(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from spots(v, path + [i])
    places = list(spots(doc, []))[1:]
    for _ in range(n):
        d = copy.deepcopy(doc)
        path = rng.choice(places)
        parent = d
        for p in path[:-1]:
            parent = parent[p]
        how = rng.randrange(4)
        if how == 0:
            parent[path[-1]] = rng.choice([7, -1, 2.5, True, None, "x", "Bad Id", [], {}, [1, "a"], {"en": 1}])
        elif how == 1 and isinstance(parent, dict):
            del parent[path[-1]]
        elif how == 2 and isinstance(parent[path[-1]], dict):
            parent[path[-1]][rng.choice(["idd", "extra", "en", "count", "of"])] = rng.choice(["x", 0, []])
        else:
            parent[path[-1]] = rng.choice(["", 0, 1001, "a b"])
        yield d


def test_the_fast_schema_check_agrees_with_the_explaining_one():
    rng = random.Random(11)
    games = os.path.join(ROOT, "content")
    files = sorted(os.path.join(dp, f) for dp, _d, fs in os.walk(games) for f in fs
                   if f.endswith(".yaml") and os.sep + "scenarios" + os.sep not in dp + os.sep)
    checked = invalid = disagreements = 0
    for path in files:
        doc = load_file(path, path, Report())
        assert content._valid(doc), path
        for bad in _mutations(doc, rng, 12):
            errors = list(content._validator().iter_errors(bad))
            checked += 1
            invalid += bool(errors)
            if content._valid(bad) != (not errors):
                disagreements += 1
    assert checked > 400 and 50 < invalid < checked - 50
    assert disagreements == 0


def test_loading_in_two_processes_reports_what_one_process_reports(broken_game, monkeypatch):
    from rulepress.compiler import cache
    # the child's share (the last file) also gets mistakes of YAML and of the schema
    path = os.path.join(broken_game, "cards_002.yaml")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace("deck: market", "deck: market\n    deck: market", 1)
                 .replace("deck: market", "dekc: market", 2).replace("power: 3", "power: 03", 1))
    monkeypatch.setattr(content, "AHEAD_BYTES", 0)  # any game is big enough
    started = []
    real = parallel.start_parts
    monkeypatch.setattr(parallel, "start_parts", lambda parts: started.append(1) or real(parts))
    ahead = [d.text() for d in cache.validate_game(broken_game).sorted()]
    assert started or parallel.cores() < 2
    monkeypatch.setenv("RULEPRESS_JOBS", "1")
    one = [d.text() for d in cache.validate_game(broken_game).sorted()]
    assert len([d for d in one if ": error: D" in d]) >= 3
    assert {"Y011", "S001", "Y102"} <= {d.split(": ")[2].split()[0] for d in one if "cards_002" in d}
    assert ahead == one


def test_a_child_that_cannot_load_its_share_only_costs_time(broken_game, monkeypatch):
    from rulepress.compiler import cache
    monkeypatch.setattr(content, "AHEAD_BYTES", 0)
    def nothing():  # the child sent nothing
        return None
    nothing.finish = lambda: None
    monkeypatch.setattr(parallel, "start_parts", lambda parts: nothing)
    ahead = [d.text() for d in cache.validate_game(broken_game).sorted()]
    monkeypatch.setenv("RULEPRESS_JOBS", "1")
    assert ahead == [d.text() for d in cache.validate_game(broken_game).sorted()]


def test_games_loaded_in_two_compile_to_the_same_bytes(tmp_path, monkeypatch):
    from rulepress.compiler.pipeline import compile_game
    folder = generate(str(tmp_path / "synthetic"), cards=600, files=3, seed=9)
    monkeypatch.setattr(content, "AHEAD_BYTES", 0)
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "a"))
    ahead = compile_game(folder)[0]
    monkeypatch.setenv("RULEPRESS_JOBS", "1")
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "b"))
    assert ahead is not None and compile_game(folder)[0] == ahead


def _same(a, b, path="") -> None:
    """Equal values of equal types, with equal positions all the way down."""
    assert type(a) is type(b) and a == b, path
    for attr in ("pos", "key_pos", "val_pos", "item_pos", "origin_line", "origin_col", "block"):
        assert getattr(a, attr, None) == getattr(b, attr, None), (path, attr)
    if isinstance(a, dict):
        for k in a:
            key = next(x for x in b if x == k)
            _same(k, key, f"{path}.{k}(key)")
            _same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]")


def test_a_loaded_file_handed_over_as_plain_data_is_the_same_file():
    import marshal
    from rulepress.compiler.source import decode, encode
    games = os.path.join(ROOT, "content")
    files = sorted(os.path.join(dp, f) for dp, _d, fs in os.walk(games) for f in fs if f.endswith(".yaml"))
    assert len(files) > 20
    for path in files:
        doc = load_file(path, path, Report())
        _same(doc, decode(marshal.loads(marshal.dumps(encode(doc))), path), path)


@pytest.fixture
def checked(tmp_path, monkeypatch):
    """A game checked by validate, which loaded a share of its files in a second process."""
    from rulepress.compiler import cache
    if parallel.cores() < 2:
        pytest.skip("one core: nothing is loaded in a second process")
    folder = generate(str(tmp_path / "synthetic"), cards=600, files=4, seed=9)
    monkeypatch.setattr(content, "AHEAD_BYTES", 0)
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "a"))
    assert not cache.validate_game(folder).errors
    return folder


def test_a_build_after_validate_rebuilds_the_files_the_check_loaded_in_two(checked, tmp_path, monkeypatch):
    from rulepress.compiler import cache, source
    from rulepress.compiler.pipeline import compile_game
    folder = checked
    kept = cache.loaded_files(folder)
    assert kept and len(kept) < len(os.listdir(folder))  # the child's share, as it sent it
    for shown, value in kept.items():
        _same(load_file(os.path.join(folder, os.path.basename(shown)), shown, Report()), source.decode(value, shown), shown)
    # a build rebuilds them instead of loading their YAML, and writes what a build from nothing writes
    loaded = []
    real = source.load_file
    monkeypatch.setattr(source, "load_file", lambda path, shown, rep: loaded.append(shown) or real(path, shown, rep))
    monkeypatch.setattr(content, "load_file", source.load_file)
    built = compile_game(folder)[0]
    assert loaded and not set(loaded) & set(kept)
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "b"))
    assert built == compile_game(folder)[0]


def test_a_kept_file_that_changed_or_a_broken_keep_is_loaded_again(checked, tmp_path, monkeypatch):
    from rulepress.compiler import cache
    folder = checked
    kept = cache.loaded_files(folder)
    changed = sorted(kept)[0]
    with open(os.path.join(folder, os.path.basename(changed)), "a", encoding="utf-8") as fh:
        fh.write("\n# a comment\n")
    assert set(cache.loaded_files(folder)) == set(kept) - {changed}
    path = os.path.join(cache._Store(folder).dir, "loaded.bin")
    with open(path, "r+b") as fh:
        fh.truncate(100)
    assert cache.loaded_files(folder) == {}
    # plain data of another shape: each such file is loaded from its YAML
    from rulepress.compiler.pipeline import compile_game
    assert not cache.validate_game(folder).errors  # (a build then takes the files from the keep)
    with open(path, "wb") as fh:
        fh.write(marshal.dumps({"version": cache.checker_version(),
                                "files": {s: (cache._hash(os.path.join(folder, os.path.basename(s))), bad)
                                          for s, bad in zip(sorted(kept), [(9, 9), "text", None, (1, 2), (0,)] * 9)}}))
    assert len(cache.loaded_files(folder)) == len(kept)
    built = compile_game(folder)[0]
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "b"))
    assert built is not None and built == compile_game(folder)[0]


def test_an_unknown_icon_is_found_in_the_files_of_either_process(broken_game, monkeypatch):
    """A file whose text has no `[` cannot hold an icon, and is not walked for one; an escape
    that spells `[` counts as one, in the files of this process and of the loading child."""
    import re
    from rulepress.compiler import cache
    for name, icons in (("cards_000.yaml", "\\x5bnope]"), ("cards_002.yaml", "[tiem] \\x5bnope]")):
        path = os.path.join(broken_game, name)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        assert "[" not in text and "\\" not in text
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(re.sub(r"name: \{en: Card (\d+),", lambda m: f'name: {{en: "Card {m[1]} {icons}",', text, count=1))
    monkeypatch.setattr(content, "AHEAD_BYTES", 0)  # the last files are the child's
    ahead = [d.text() for d in cache.validate_game(broken_game).sorted()]
    monkeypatch.setenv("RULEPRESS_JOBS", "1")
    one = [d.text() for d in cache.validate_game(broken_game).sorted()]
    icons = [d for d in one if "R010" in d]
    assert [d.split(":")[0].rsplit("/", 1)[-1] for d in icons] == ["cards_000.yaml", "cards_002.yaml", "cards_002.yaml"], icons
    assert ahead == one
