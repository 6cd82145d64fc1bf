"""Time the effect parser alone, and compare its answers with another revision's.

    python bench/parse.py [GAME ...] [--runs N] [--against REV] [--fuzz N] [--profile]

Collects every effect text the checker parses in the given game folders (default: the
synthetic game in bench/out/synthetic, see gen_synthetic.py), with the position mapping
the checker gives it, then parses them all N times in one process and prints the median
time per effect (CPU time); each pass starts with no statement parsed yet. Import and parser set-up are timed separately.

--against REV parses the same texts (plus --fuzz N mutated ones, which mostly fail) with
the parser (compiler/dsl.py, grammar.py or lalr.py, dsl.lark) as it is at git revision REV and reports every
difference in IR or in error (code, position, message).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

t0 = time.perf_counter()
from rulepress.compiler import dsl  # noqa: E402
T_IMPORT = time.perf_counter() - t0


def collect(folders):
    """(how, text, where) of every effect the checker parses in these folders; `how` is
    "parse" for statements, "parse_expr" for an expression alone."""
    from rulepress.compiler import model
    from rulepress.compiler.pipeline import check_game
    seen = []
    real = model.parse, model.parse_expr
    model.parse = lambda text, where, *met: seen.append(("parse", text, where)) or real[0](text, where, *met)
    model.parse_expr = lambda text, where, *met: seen.append(("parse_expr", text, where)) or real[1](text, where, *met)
    jobs, os.environ["RULEPRESS_JOBS"] = os.environ.get("RULEPRESS_JOBS"), "1"  # every parse here
    try:
        for f in folders:
            check_game(f)
    finally:
        model.parse, model.parse_expr = real
        if jobs is None:
            del os.environ["RULEPRESS_JOBS"]
        else:
            os.environ["RULEPRESS_JOBS"] = jobs
    return seen


def outcome(mod, how, text, where):
    try:
        return ("ir", getattr(mod, how)(text, where))
    except mod.DslError as exc:
        return ("error", tuple(exc.pos), exc.code, exc.message)


def load_revision(rev):
    """The parser of another revision (compiler/dsl.py with what it imports of the package),
    as the package _rulepress_ref."""
    tmp = os.path.join(tempfile.mkdtemp(prefix="dsl-"), "_rulepress_ref")
    os.makedirs(tmp)
    for name in ("__init__.py", "diagnostics.py", "dsl.py", "grammar.py", "lalr.py", "dsl.lark"):
        got = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:compiler/{name}"], capture_output=True)
        if got.returncode == 0:  # (each revision has one of grammar.py and lalr.py, or neither)
            with open(os.path.join(tmp, name), "wb") as fh:
                fh.write(got.stdout)
    sys.path.insert(0, os.path.dirname(tmp))
    return importlib.import_module("_rulepress_ref.dsl")


ALPHABET = list("abcdefghijklmnopqrstuvwxyz_ 0123456789()[]{}.,:=<>!+-*/%\"'#\n\t") + [
    "if ", "else:", "for each ", "let ", "gain ", " in ", " from ", "\n  ", "\n    ", "choose ", " where ",
    "not ", " and ", "repeat ", " times:", "é", "\u0000", "\r\n", " face up", " under the deck", "elif x:",
    " until end of turn", " or none", "up to 2 ", "\n", ":", "otherwise:", "may:", " secretly chooses "]


def mutate(rng, text):
    for _ in range(rng.randint(1, 4)):
        i = rng.randint(0, len(text))
        j = rng.randint(i, min(len(text), i + 6))
        kind = rng.choice(["delete", "insert", "duplicate", "swap"])
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + rng.choice(ALPHABET) + text[i:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + text[j:] + text[i:j]
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games", nargs="*", default=[os.path.join(HERE, "out", "synthetic")])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--against")
    ap.add_argument("--fuzz", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()

    setup = []
    t0 = time.perf_counter()
    from rulepress.compiler import grammar  # Lark, loaded where a statement is new
    setup.append(f"import rulepress.compiler.grammar: {(time.perf_counter() - t0) * 1000:.1f} ms")
    t0 = time.perf_counter()
    grammar.parser()
    setup.append(f"parser(): {(time.perf_counter() - t0) * 1000:.1f} ms")
    print(f"import rulepress.compiler.dsl: {T_IMPORT * 1000:.1f} ms; " + "; ".join(setup))

    effects = collect(args.games)
    print(f"{len(effects)} effects")
    if args.profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
        for how, text, where in effects:
            outcome(dsl, how, text, where)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    times = []
    for _ in range(args.runs):
        getattr(dsl, "_PIECES", {}).clear()  # each pass as a new process: every statement new
        t0 = time.process_time()
        for how, text, where in effects:
            outcome(dsl, how, text, where)
        times.append(time.process_time() - t0)
    med = statistics.median(times)
    print(f"parse: {med:.3f} s per pass (min {min(times):.3f}), {med / len(effects) * 1e6:.1f} us per effect")

    if args.against:
        ref = load_revision(args.against)
        if hasattr(ref, "sources"):  # files named in IR positions as the checker named them here
            ref.sources(dsl._SOURCES)
        rng = random.Random(args.seed)
        cases = list(effects)
        for _ in range(args.fuzz):
            how, text, where = rng.choice(effects)
            cases.append((how, mutate(rng, text), where))
        bad = 0
        nerr = 0
        for how, text, where in cases:
            a, b = outcome(ref, how, text, where), outcome(dsl, how, text, where)
            nerr += a[0] == "error"
            if a != b:
                bad += 1
                if bad <= 10:
                    print("DIFF", repr(text), "\n  was:", a, "\n  now:", b)
        print(f"compared {len(cases)} texts ({nerr} errors) with {args.against}: {bad} differ")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
