"""Scenario files are content too: each is checked against schemas/scenario.json (an
unknown key is an error with did-you-mean) and its setup, run, steps and expectations
with the same checker as the game's effects, before any of it runs.

The format is described in docs/scenarios.md; rulepress/scenario.py runs what passes here.
"""
from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import re

from .content import SCHEMA_DIR, _report_schema_error
from .diagnostics import Pos, Report, did_you_mean
from .dsl import DslError, parse, parse_expr
from .source import PList, PMap, PStr, load_file

MAX_SCENARIOS = 10_000  # files in one folder: a bound on the work, far above any real game
_EXPECT_NAMES = ("scores", "winners")  # what an expectation may read once the game is over


def scenario_files(folder: str) -> list[str]:
    """The scenario files of a folder of scenarios, in name order."""
    return sorted(glob.glob(os.path.join(folder, "*.yaml")))[:MAX_SCENARIOS]


@functools.lru_cache(maxsize=None)
def _validator():
    import jsonschema  # only a folder with scenarios pays for it
    with open(os.path.join(SCHEMA_DIR, "scenario.json"), encoding="utf-8") as fh:
        return jsonschema.Draft7Validator(json.load(fh))


def check_folder(game_folder: str, model=None, scenarios_dir=None) -> Report:
    """Every scenario file of a game (its scenarios/ folder, or `scenarios_dir`) checked;
    the findings are kept (see _kept) while the game's files and the scenarios stay the same."""
    report = Report()
    files = scenario_files(scenarios_dir or os.path.join(game_folder, "scenarios"))
    if not files:
        return report
    key = _inputs_key(game_folder, files) if model is None else None
    kept = _kept(game_folder, key)
    if kept is not None:
        return kept
    if model is None:
        model = checked_model(game_folder)
        if model is None:
            return report  # the game's own errors say why
    for f in files:
        check_file(model, f, report)
    _keep(game_folder, key, report)
    return report


def _inputs_key(game_folder, files):
    """What the findings follow from: the checker, the game's files and the scenarios, byte
    for byte, and the folder they are shown from. None when the cache is off."""
    from .cache import _hash, checker_version, enabled
    from .content import yaml_files
    if not enabled():
        return None
    walk = Report()
    h = hashlib.sha1(f"{checker_version()}\n{_hash(__file__)}\n{os.getcwd()}\n".encode())  # (this checker too)
    for path in yaml_files(game_folder, walk) + ["--"] + files:
        h.update(os.fsencode(f"{path}\0{_hash(path) if path != '--' else ''}\n"))
    return None if walk.items else h.hexdigest()


def _kept_path(game_folder):
    from .cache import cache_dir
    name = hashlib.sha1(os.fsencode(os.path.abspath(game_folder))).hexdigest()
    return os.path.join(cache_dir(), "scenarios", name + ".json")


def _kept(game_folder, key):
    """The findings kept for exactly these inputs, or None."""
    if key is None:
        return None
    from .cache import _report
    try:
        with open(_kept_path(game_folder), encoding="utf-8") as fh:
            got = json.load(fh)
        if got.get("key") != key:
            return None
        return _report(tuple(d) for d in got["diags"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None  # none kept, or not of our making: check again


def _keep(game_folder, key, report):
    if key is None:
        return
    from .cache import _plain
    path = _kept_path(game_folder)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"key": key, "diags": [_plain(d) for d in report.items]}, fh)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs time


def checked_model(game_folder: str):
    """The model of a game, loaded as a build loads it (its own findings are not wanted here)."""
    from .content import load_game
    from .model import build_model
    scratch = Report()
    src = load_game(game_folder, scratch, check=False)
    if not src.docs:
        return None
    model = build_model(src, scratch, check=False)
    return None if scratch.errors else model


def check_file(model, path: str, report: Report):
    """Check one scenario file; returns its `scenario:` map (or None if it has none)."""
    shown = os.path.relpath(path)
    doc = load_file(path, shown, report, within=os.path.dirname(path) or ".")  # (its folder of scenarios)
    if doc is None:
        return None
    if not isinstance(doc, PMap) or "scenario" not in doc:
        report.error(getattr(doc, "pos", Pos(shown, 1, 1)), "S010", "a scenario file holds one map, `scenario:` (see docs/scenarios.md)")
        return None
    for key in doc:
        if key != "scenario":
            report.error(doc.key_pos.get(key, doc.pos), "S001", f"unknown key `{key}`: a scenario file holds one map, `scenario:`"
                                                               f"{did_you_mean(key, ['scenario'])}")
    whole = PMap(scenario=doc["scenario"])
    whole.pos, whole.key_pos, whole.val_pos = doc.pos, doc.key_pos, doc.val_pos
    for err in _validator().iter_errors(whole):
        _report_schema_error(err, whole, shown, report)
    sc = doc["scenario"]
    if isinstance(sc, PMap):
        _Texts(model, report, sc).check()
    return sc


class _Texts:
    """The DSL texts of one scenario, checked against the game's model."""

    def __init__(self, model, report, sc):
        self.m, self.report, self.sc = model, report, sc

    def check(self):
        from .lint import marks_set
        sc, m = self.sc, self.m
        self.marks = marks_set(m)  # a scenario's own `mark` statements count too
        self.variants(sc.get("variants"))
        opts = set((m.game.get("options") or {}).keys())
        for k in (sc.get("options") or {}) if isinstance(sc.get("options"), PMap) else ():
            if k not in opts:
                self.report.error(sc["options"].key_pos.get(k, sc.pos), "S011",
                                  f"unknown option `{k}`{did_you_mean(k, opts) or '; the game has ' + (', '.join(sorted(opts)) or 'none')}")
        for key in ("setup", "run"):
            if isinstance(sc.get(key), str):
                self.text(sc[key], sc, key, statements=True)
        steps = sc.get("steps")
        if isinstance(steps, PList):
            for i, step in enumerate(steps):
                if isinstance(step, PMap) and "expect" in step:
                    self.expectations(step["expect"], step, "expect")
                if isinstance(step, PMap):
                    self.sees(step)
        self.sees(sc)
        if isinstance(sc.get("expect"), PList):
            self.expectations(sc["expect"], sc, "expect")

    def sees(self, node):
        """`sees:` / `does_not_see:` name seats, and things, zones and counters of things (S012)."""
        for key in ("sees", "does_not_see"):
            spec = node.get(key)
            if not isinstance(spec, PMap):
                continue
            for seat, items in spec.items():
                if seat not in self.seats():
                    self.report.error(spec.key_pos.get(seat, spec.pos), "S012", f"no seat `{seat}` in this game{did_you_mean(str(seat), self.seats())}")
                for j, item in enumerate(items if isinstance(items, PList) else [items]):
                    if not isinstance(item, str):
                        continue
                    problem = self.seen_item(str(item))
                    if problem:
                        p = items.item_pos[j] if isinstance(items, PList) else spec.val_pos.get(seat, spec.pos)
                        self.report.error(p, "S012", f"`{item}`: {problem}")

    def seen_item(self, item):
        """Why `item` is not something a seat can be said to see (None: it is)."""
        m = self.m
        zones = set(m.zones_of) | set(m.by_section["pools"]) | set(m.by_section["decks"])
        locations = m.by_section.get("locations") or {}
        def place(text):
            owner, dot, zone = text.partition(".")  # p1.hand, graveyard.encounters: an owner's
            if dot:
                return (owner in self.seats() or owner in self.copies() or owner in locations) and zone in zones
            return text in zones or text in locations
        where, dot, counter = item.rpartition(".")
        if dot and counter in m.by_section["counters"] and (where in self.copies() or where in self.seats() or re.match(r".+#\d+$", where) and place(where.rpartition("#")[0])):
            return None
        if item in self.copies() or place(item):
            return None
        return ("not a thing, a zone (p1.hand) or a counter of a thing or a player (THING.counter, p1.hand#2.counter, p2.money)"
                + did_you_mean(item, sorted(self.copies() | zones)))

    def expectations(self, value, node, key):
        if isinstance(value, str):
            self.text(value, node, key, statements=False)
        elif isinstance(value, PList):
            for j, text in enumerate(value):
                if isinstance(text, str):
                    self.text(text, value, j, statements=False)

    def where(self, text, node, key):
        if isinstance(text, PStr):
            return text.at
        if isinstance(key, int):
            p = node.item_pos[key] if hasattr(node, "item_pos") else node.pos
        else:
            p = node.val_pos.get(key, node.pos)
        return lambda line, col: Pos(p.file, p.line, p.col + col - 1)

    def text(self, text, node, key, statements):
        from .lint import lint_scenario_text
        from .model import _Checker
        where = self.where(text, node, key)
        try:
            ir = parse(str(text), where) if statements else parse_expr(str(text), where)
        except DslError as exc:
            self.report.error(exc.pos, exc.code, exc.message)
            return
        added = {v["add"] for v in self.sc.get("variants") or () if isinstance(v, PMap) and isinstance(v.get("add"), str)}
        bound = {"player"} | self.seats() | added | (set() if statements else set(_EXPECT_NAMES))
        ck = _Checker(self.m, self.report, bound)
        if statements:
            ck.block(ir, bound)
        else:
            ck.expr(ir, bound)
        lint_scenario_text(self.m, self.report, ir, statements, self.marks, self.copies())

    def seats(self):
        """p1, p2, ...: the seats a game of the most players has (a scenario names them)."""
        most = ((self.m.game.get("players") or {}) if hasattr(self.m.game.get("players"), "get") else {}).get("max", 8)
        return {f"p{i + 1}" for i in range(most if isinstance(most, int) and 0 < most <= 100 else 8)}

    def copies(self):
        """Every thing's id in play, copies named `id#n` (see codegen), and this scenario's additions."""
        got = getattr(self, "_copies", None)
        if got is None:
            got = self._copies = set()
            for sec in ("cards", "pieces", "tokens"):
                for iid, d in (self.m.by_section.get(sec) or {}).items():
                    n = d.get("count", 1) if hasattr(d, "get") else 1
                    got.add(iid)
                    if isinstance(n, int) and n > 1:
                        got.update(f"{iid}#{i + 1}" for i in range(min(n, 10_000)))
            for v in self.sc.get("variants") or ():
                if isinstance(v, PMap) and isinstance(v.get("add"), str):
                    got.add(v["add"])
        return got

    def variants(self, variants):
        if not isinstance(variants, PList):
            return
        m = self.m
        things = {iid for sec in ("cards", "pieces", "locations", "tokens") for iid in (m.by_section.get(sec) or {})}
        for v in variants:
            if not isinstance(v, PMap):
                continue
            if ("thing" in v) == ("add" in v) or ("add" in v) != ("like" in v) or ("at" in v and "add" not in v):
                self.report.error(v.pos, "S002", "a variant is `{thing: ID, attrs: {...}}` (other attributes on a thing) "
                                                 "or `{add: NEW_ID, like: ID, attrs: {...}, at: PLACE}` (one thing more)")
                continue
            for key in ("thing", "like"):
                iid = v.get(key)
                if isinstance(iid, str) and iid not in things:
                    self.report.error(v.val_pos.get(key, v.pos), "R002", f"unknown thing `{iid}`{did_you_mean(iid, things)}")
                elif key == "like" and isinstance(iid, str) and iid in (m.by_section.get("locations") or {}):
                    self.report.error(v.val_pos.get(key, v.pos), "R002", f"`{iid}` is a location: an added thing is made like "
                                                                         "a card, piece or token (the map is the game's)")
            new = v.get("add")
            if isinstance(new, str) and new in m.ids:
                self.report.error(v.val_pos.get("add", v.pos), "R001", f"id `{new}` is already used by the game: an added thing needs an id of its own")
            at = v.get("at")
            seat = re.match(r"p(\d+)\.", at) if isinstance(at, str) else None
            zone = at.split(".", 1)[1] if seat else at  # p1.hand: a seat's
            if seat and f"p{seat.group(1)}" not in self.seats():
                self.report.error(v.val_pos.get("at", v.pos), "R002", f"no seat `p{seat.group(1)}` in this game")
                continue
            places = set(m.zones_of) | set(m.by_section.get("locations") or {}) | set(m.by_section["pools"]) | {"supply", "removed"}
            if isinstance(at, str) and zone not in places:
                self.report.error(v.val_pos.get("at", v.pos), "R002", f"unknown place `{at}`{did_you_mean(at, places)}")
            attrs = v.get("attrs")
            if isinstance(attrs, PMap):
                for k in attrs:
                    if k not in m.attr_types:
                        self.report.error(attrs.key_pos.get(k, v.pos), "D014",
                                          f"unknown attribute `{k}`: a variant prints other values of the attributes things have"
                                          f"{did_you_mean(k, m.attr_types)}")

