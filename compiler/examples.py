"""Worked examples for the rulebook, from the game's scenarios.

A scenario (scenarios/*.yaml) that carries `example:` is printed in the rulebook as an
example box: a title, the situation, what happens and the result, in the players' words as
the scenario gives them. `rulepress test` plays the same scenario on the game's tables, so
an example in the book is one that the rules, as the runtime plays them, bear out.
"""
from __future__ import annotations

import glob
import os

import yaml

from .source import NotReadable, read_bytes

PARTS = ("title", "setup", "happens", "result")
MAX_SCENARIO_BYTES = 512 * 1024
MAX_SCENARIOS = 10_000  # (as scenarios.py reads a folder)


def scenario_folder(game_folder: str | None) -> str | None:
    if not game_folder:
        return None
    folder = os.path.join(game_folder, "scenarios")
    return folder if os.path.isdir(folder) else None


def examples(game_folder: str | None) -> list[dict]:
    """The examples of a game's scenarios, in file name order: {file, part: text, ...}. A file
    that cannot be read or is no scenario gives none (`rulepress validate` reports it)."""
    folder = scenario_folder(game_folder)
    if folder is None:
        return []
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*.yaml")))[:MAX_SCENARIOS]:
        try:
            doc = yaml.safe_load(read_bytes(path, MAX_SCENARIO_BYTES, within=game_folder))
        except (NotReadable, yaml.YAMLError, UnicodeDecodeError):
            continue
        sc = doc.get("scenario") if isinstance(doc, dict) else None
        ex = sc.get("example") if isinstance(sc, dict) else None
        if isinstance(ex, dict):
            out.append({"file": os.path.basename(path), **{k: ex.get(k) for k in PARTS}})
    return out
