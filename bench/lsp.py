"""Diagnostics latency of `rulepress lsp` after an edit, in the largest content game.

Speaks LSP to the server over stdio as an editor does: opens the game's largest file, then
makes edits (each a real change of the text: a number, then back) and measures the time
from sending didChange to receiving that file's diagnostics. Goal: a median of 100 ms or less. The server's CPU time
per edit is printed too: on a machine others share, wall time stretches and CPU time does not.

    .venv/bin/python bench/lsp.py [--edits 20] [--game content/android]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lsp_client import Client  # noqa: E402  (the tests' client: one way of speaking LSP)

GOAL_MS = 100


def largest_game() -> str:
    base = os.path.join(ROOT, "content")
    sizes = {}
    for name in os.listdir(base):
        folder = os.path.join(base, name)
        if os.path.isfile(os.path.join(folder, "game.yaml")):
            sizes[folder] = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder)
                                for f in fs if f.endswith(".yaml") and "scenarios" not in d)
    return max(sizes, key=sizes.get)


def cpu_seconds(pid: int) -> float:
    """A process's CPU time so far (Linux /proc; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--game", default=None)
    args = ap.parse_args()
    folder = os.path.abspath(args.game or largest_game())
    files = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".yaml")]
    target = max(files, key=os.path.getsize)
    with open(target, encoding="utf-8") as fh:
        text = fh.read()
    uri = "file://" + target
    client = Client(ROOT)
    try:
        client.start(ROOT)
        t0 = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
        first = client.diagnostics(uri)
        cold = time.perf_counter() - t0
        times = []
        cpu0 = cpu_seconds(client.proc.pid)
        for i in range(args.edits):
            edited = text + f"\n# edit {i}\n" if i % 2 == 0 else text  # a change, then back
            client.drain()
            t = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": i + 2},
                                                     "contentChanges": [{"text": edited}]})
            client.diagnostics(uri)
            times.append(time.perf_counter() - t)
        cpu = (cpu_seconds(client.proc.pid) - cpu0) / max(args.edits, 1)
    finally:
        client.close()
    ms = sorted(t * 1000 for t in times)
    print(f"game {os.path.relpath(folder, ROOT)}, file {os.path.basename(target)} ({len(text)} characters), "
          f"{len(first)} diagnostics on open")
    print(f"open (cold): {cold * 1000:.0f} ms")
    print(f"after an edit ({len(ms)} edits): median {statistics.median(ms):.0f} ms, "
          f"p90 {ms[int(len(ms) * 0.9) - 1]:.0f} ms, max {ms[-1]:.0f} ms (goal <= {GOAL_MS} ms); "
          f"server CPU {cpu * 1000:.0f} ms an edit; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
