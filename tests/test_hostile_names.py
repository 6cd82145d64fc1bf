"""Property: whatever a game's names, texts, numbers and file names are, building and playing
it runs no code, and it plays as the same game would with tame names.

The names come from what could fool a code generator: Python keywords, dunders, the names the
generated code itself uses (`it`, `env`, `_v1`, `x0`…), texts with quotes, backslashes and
bidi controls ending in a payload that would set a flag and create a file if it ever ran as
Python, file names with braces and format specs. (Lone surrogates are not here: YAML refuses
them, tests/test_hostile_content.py.)
"""
from __future__ import annotations

import ast
import builtins
import json
import keyword
import os
import re
import shutil

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rulepress.compiler.names import BUILTIN_NAMES, FUNCTIONS
from rulepress.compiler.pipeline import compile_game
from rulepress.runtime import pysource
from rulepress.runtime.agents import make, play_out
from rulepress.runtime.flow import new_game
from rulepress.runtime.tables import Game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
with open(os.path.join(ROOT, "compiler", "dsl.lark"), encoding="utf-8") as _fh:
    WORDS = {w.lower() for w in re.findall(r'"([A-Za-z_]+)"', _fh.read())}  # the language's own words
TAKEN = WORDS | set(BUILTIN_NAMES) | set(FUNCTIONS) | {"true", "false", "none", "this", "position", "score", "hand",
                                                       "boosts", "nitro", "oil", "roll", "boost", "draw_boost", "race",
                                                       "card", "speed", "sneak"}
SENTINEL = "/tmp/rulepress-hostile-names-ran"
PAYLOADS = [
    "');__import__('builtins').__dict__.__setitem__('rulepress_pwned', 1);('",
    "'+__import__('os').system('touch " + SENTINEL + "')+'",
    "\\'; import os; os.system('touch " + SENTINEL + "') #",
]
NAMES = (keyword.kwlist + ["__class__", "__import__", "__builtins__", "__dict__", "__init__", "_"]
         + ["it", "env", "things", "r", "num", "spent", "bound", "GameFault", "STEP_BUDGET", "LoopStop", "Text",
            "list", "sum", "len", "print", "exec", "eval", "open", "type", "str"]
         + ["_v1", "_x2", "_b3", "_env4", "_p5_x", "_k6", "x0", "x1", "x2", "v0_c", "a0", "a1", "env1", "K0", "N1",
            "every_0", "by_1", "index_2", "params3"])
name = (st.sampled_from(NAMES) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)).filter(
    lambda n: n.lower() not in TAKEN)
# a DSL text: anything but its own quote, a line break and braces (`{x}` is a value, `}}` a brace)
text = st.text(st.sampled_from(list("'\\`$%:;()#ab\u202e\u2066\u200f\u00e9\u0416 ")), max_size=8).flatmap(
    lambda t: st.sampled_from(PAYLOADS).map(lambda p: t + p))
# a YAML text (an action's name): any character YAML reads, braces and line breaks too
label = st.text(st.sampled_from(list("{}'\"\\\n:>!%#ab\u202e\u2028\u0416 ")), max_size=10)
file_name = st.text(st.sampled_from(list("{}'\"\\:>!%$()[] ab9\u202e\n")), max_size=10).map(lambda t: "a" + t + ".yaml")


def effect(n, s, number) -> str:
    a, b, c, d, e, f, g = n
    deep = "0"
    for _ in range(22):  # deeper than one line of generated code holds: split into a function
        deep = f"({e} - {e} + {deep})"
    return "\n".join([
        f"let {a} = {number}",
        f"for each {b} in [1, 2]:",
        f"  for each {c} in [{b}]:",
        f"    for each {d} in [{c}]:",
        f"      for each {e} in [{d}]:",
        f"        gain count([{f} for {f} in every card where {f}.speed > {e} and \"{s}\" != \"{s}x\"]) + {deep} score",
        f"if \"{s}\" == \"{s}\":",
        f"  log \"\u27e8{s}\u27e9\"",
        f"gain count([{g} for {g} in [{a}, \"{s}\"] where {g} != none]) + {a} - {a} score",
    ])


def sneak(n, s, number, title) -> str:
    body = "\n".join("      " + line for line in effect(n, s, number).split("\n"))
    return (f"actions:\n  - id: sneak\n    name: {{en: {json.dumps(chr(0x27e8) + title + chr(0x27e9))}, ru: Sneak}}\n"
            f"    effect: |\n{body}\n")


def played(tmp, folder, fname, yaml_text):
    game = os.path.join(tmp, folder)
    shutil.copytree(RACE, game, ignore=shutil.ignore_patterns("scenarios"))
    with open(os.path.join(game, fname), "w", encoding="utf-8") as fh:
        fh.write(yaml_text)
    text, _gid, report = compile_game(game)
    assert text is not None, [d.text() for d in report.sorted()]
    tables = Game(json.loads(text))
    module = ast.parse(pysource.source(tables))
    for node in ast.walk(module):  # the code names only its own names and the fixed few
        if isinstance(node, ast.Name):
            assert node.id in pysource._FIXED or pysource._MADE.fullmatch(node.id), node.id
    ends = []
    for seed in ("a", "b"):
        st_ = new_game(tables, 2, seed)
        play_out(tables, st_, {p: make("random", f"{seed}{p}") for p in st_["players"]}, max_decisions=400)
        ends.append(json.dumps({k: v for k, v in st_.items() if k not in ("content_hash", "task")}, sort_keys=True))
    return ends


def _escaped(t) -> str:
    return json.dumps(t)[1:-1]  # (JSON escapes each character alone: a text's escape is a part of the whole's)


@settings(max_examples=6, deadline=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(n=st.lists(name, min_size=7, max_size=7, unique_by=str.lower), s=text, number=st.integers(-10 ** 6, 10 ** 6),
       title=label, fname=file_name)
def test_hostile_names_build_play_the_same_game_and_run_nothing(tmp_path, n, s, number, title, fname):
    tmp = str(tmp_path / f"case-{os.urandom(4).hex()}")
    hostile = played(tmp, "hostile", fname, sneak(n, s, number, title))
    tame = played(tmp, "tame", "atame.yaml", sneak([f"tame{i}" for i in range(7)], "TAME", number, "TITLE"))
    assert "rulepress_pwned" not in vars(builtins) and not os.path.exists(SENTINEL)
    for h, t in zip(hostile, tame):
        h = h.replace(_escaped("\u27e8" + s + "\u27e9"), _escaped("\u27e8TAME\u27e9"))
        h = h.replace(_escaped("\u27e8" + title + "\u27e9"), _escaped("\u27e8TITLE\u27e9"))
        h = h.replace(_escaped(f"{fname}:"), _escaped("atame.yaml:"))  # (where a log line was written)
        assert h == t
