"""Benchmarks of the compiler on a synthetic game of 10,000 cards in 100 files.

    python bench/run.py [--runs N] [--cards N] [--files N]    (or: make bench)

Prints the machine and a yardstick of its speed at that moment (again at the end), then the
median (and range) of N runs of:
  validate, cold           `rulepress validate` with an empty cache (and with RULEPRESS_JOBS=1, which
                           keeps older revisions to one process)
  validate, one file edited `rulepress validate` after one number in one file changed
  validate, one file touched  the same after a write of the same bytes
  check-jsonschema         the same files against schemas/content-file.json
  build                    `rulepress build` (game.json and rulebooks), the first after a validate
  build, nothing changed   `rulepress build` again when nothing changed since the last build
  build, cold              `rulepress build` with an empty cache
Each is a separate process, as a designer runs it: wall time and CPU time (user+sys).
The re-validation is also timed inside one process, without interpreter start-up.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.dirname(sys.executable)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from gen_synthetic import generate  # noqa: E402


def content_games(ids=()):
    """(id, tables as JSON text) of each game of content/ asked for, all of them by default;
    one that does not compile is said on a line of its own and left out."""
    from rulepress.compiler.pipeline import compile_game
    root = os.path.join(ROOT, "content")
    for gid in ids or sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "game.yaml"))):
        text, _g, rep = compile_game(os.path.join(root, gid))
        if text is None:
            print(f"{gid:<20} does not compile ({len(rep.errors)} errors)")
            continue
        yield gid, text


def machine() -> str:
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"CPU: {model}; cores: {os.cpu_count()}; Python {platform.python_version()} "
            f"({platform.python_implementation()}, {_build()}); {platform.system()} {platform.release()}; load average {load}")


def _build() -> str:
    """Which interpreter ran (a venv's own): an optimised build such as Debian's plays games
    markedly faster than a plain one built from source, as pyenv's is by default."""
    return getattr(sys, "_base_executable", sys.executable)


def yardstick() -> str:
    """How fast this machine runs Python right now: the median of 5 runs of a fixed workload
    (dicts, ints, a loop; no I/O). Its speed drifts a lot within an hour on shared hosts, so
    figures taken at different times compare only with this beside them."""
    def work():
        d = {}
        for i in range(200_000):
            k = i % 997
            d[k] = d.get(k, 0) + i
        return d
    times = []
    for _ in range(5):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return f"yardstick {statistics.median(times) * 1000:.1f} ms (a fixed Python workload: lower is a faster moment)"


def timed(cmd, env) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return wall, cpu, proc.returncode


def report(name, samples) -> None:
    walls, cpus = [s[0] for s in samples], [s[1] for s in samples]
    print(f"{name:<30} median {statistics.median(walls):7.3f} s wall  {statistics.median(cpus):7.3f} s CPU"
          f"   (wall {min(walls):.3f}-{max(walls):.3f}, n={len(samples)})", flush=True)


def edit(path, _n=0) -> None:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    marker = "      gain "
    i = text.index(marker) + len(marker)
    j = i
    while text[j].isdigit():
        j += 1
    current = int(text[i:j] or 0)
    with open(path, "w", encoding="utf-8") as fh:  # always a different number: a real edit
        fh.write(text[:i] + str(current % 9 + 1) + text[j:])


def in_process_revalidate(game, cache_dir, runs) -> list:
    """Edit-and-validate inside one interpreter: the cost of the check itself."""
    os.environ["RULEPRESS_CACHE_DIR"] = cache_dir
    from rulepress.compiler.cache import validate_game
    validate_game(game)
    out = []
    target = os.path.join(game, sorted(f for f in os.listdir(game) if f.startswith("cards_"))[len(os.listdir(game)) // 2])
    for n in range(runs):
        edit(target, n + 3)
        c0, w0 = time.process_time(), time.perf_counter()
        validate_game(game)
        out.append((time.perf_counter() - w0, time.process_time() - c0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="compiler benchmarks on a synthetic game")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cards", type=int, default=10_000)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--skip", default="", help="comma-separated: cold,edit,touch,jsonschema,build,rebuild,buildcold")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    work = tempfile.mkdtemp(prefix="rulepress-bench-")
    try:
        game = generate(os.path.join(work, "synthetic"), a.cards, a.files)
        files = sorted(os.path.join(game, f) for f in os.listdir(game) if f.endswith(".yaml"))
        print(machine())
        print(yardstick())
        print(f"game: {a.cards} cards in {len(files)} files, "
              f"{sum(os.path.getsize(f) for f in files) / 1e6:.1f} MB; {a.runs} runs each\n", flush=True)
        rp = [os.path.join(BIN, "rulepress")]
        base = dict(os.environ)

        def env_with(cache):
            return {**base, "RULEPRESS_CACHE_DIR": cache}

        if "cold" not in skip:
            samples = []
            for n in range(a.runs):
                cache = os.path.join(work, f"cold{n}")
                samples.append(timed(rp + ["validate", game], env_with(cache)))
                assert samples[-1][2] == 0, "the synthetic game must validate cleanly"
            report("validate, cold", samples)
            samples = [timed(rp + ["validate", game], {**env_with(os.path.join(work, f"one{n}")), "RULEPRESS_JOBS": "1"})
                       for n in range(a.runs)]
            report("  the same, on one core", samples)
        warm = os.path.join(work, "warm")
        timed(rp + ["validate", game], env_with(warm))
        target = files[len(files) // 2]
        if "edit" not in skip:
            samples = []
            for n in range(a.runs):
                edit(target, n)
                samples.append(timed(rp + ["validate", game], env_with(warm)))
            report("validate, one file edited", samples)
            report("  the same, in one process", in_process_revalidate(game, warm, a.runs))
        if "touch" not in skip:
            samples = []
            for _n in range(a.runs):
                with open(target, "rb") as fh:
                    data = fh.read()
                with open(target, "wb") as fh:
                    fh.write(data)
                samples.append(timed(rp + ["validate", game], env_with(warm)))
            report("validate, one file touched", samples)
        if "jsonschema" not in skip:
            cj = os.path.join(BIN, "check-jsonschema")
            if not os.path.exists(cj):
                print("check-jsonschema is not installed: pip install -e '.[bench]'")
            else:
                schemas = os.path.join(ROOT, "schemas")
                cmd = [cj, "--schemafile", os.path.join(schemas, "content-file.json"),
                       "--base-uri", "file://" + schemas + "/", *files]
                samples = [timed(cmd, base) for _ in range(a.runs)]
                assert samples[0][2] == 0, "check-jsonschema must accept the synthetic game"
                report("check-jsonschema", samples)
        out = os.path.join(work, "build")
        if "build" not in skip:
            samples = []
            for n in range(a.runs):  # each the first build after a validate: a copy of the validated cache
                cache = os.path.join(work, f"bv{n}")
                shutil.copytree(warm, cache)
                samples.append(timed(rp + ["build", game, "-o", os.path.join(work, f"build{n}")], env_with(cache)))
            report("build (after validate)", samples)
        if "rebuild" not in skip:
            timed(rp + ["build", game, "-o", out], env_with(warm))
            report("build, nothing changed", [timed(rp + ["build", game, "-o", out], env_with(warm)) for _ in range(a.runs)])
        if "buildcold" not in skip:
            report("build, cold", [timed(rp + ["build", game, "-o", out], env_with(os.path.join(work, f"bc{n}")))
                                   for n in range(a.runs)])
        print("\n" + machine().split("; ")[-1] + "; " + yardstick())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
