"""`rulepress coverage --html DIR`: each content file line by line, green where every
statement of the line ran, red where none did, amber where some did or a branch way was
never taken, grey where declared unreachable; with the runs of each line.

Everything shown comes from content and is escaped. Files are written only inside DIR,
under names made from the game's id with anything but lower-case letters, digits, `-` and `_`
replaced, and never through nor over a link found there (compiler/writing.py).
"""
from __future__ import annotations

import html
import re

from .compiler.writing import make_output_folder, path_in, put
from .coverage import source_lines

_STYLE = """
body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}
td,th{padding:2px 8px;text-align:left;vertical-align:top}
th{background:#eee}
.src td{font-family:monospace;white-space:pre;padding:0 8px}
.src td.n,.src td.r{text-align:right;color:#777}
tr.run td.t{background:#d7f5d7} tr.miss td.t{background:#f8d0d0}
tr.part td.t{background:#fbe7b5} tr.skip td.t{background:#e4e4e4;color:#666}
.note{font-family:sans-serif;font-size:90%;color:#7a4a00}
"""


def page_name(game_id) -> str:
    name = re.sub(r"[^a-z0-9_-]", "_", str(game_id).lower())[:100]
    return name if name[:1].isalnum() else "game" + name


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def write(results, out_dir) -> list[str]:
    """index.html and a page per game in out_dir; returns the paths written."""
    make_output_folder(out_dir)
    written, rows, used = [], [], set()
    for r in results:
        name = page_name(r["game"])
        while name in used or name == "index":  # two games of one id stay two pages
            name += "_"
        used.add(name)
        path = path_in(out_dir, name + ".html")
        put(path, game_page(r).encode("utf-8"))  # (never through nor over a link planted in out_dir)
        written.append(path)
        tot = r.get("totals")
        rows.append(f"<tr><td><a href='{_e(name)}.html'>{_e(r['game'])}</a></td>"
                    + (f"<td>{tot['statements']}</td><td>{tot['covered']}</td><td>{tot['percent']:.1f}%</td>"
                       f"<td>{tot['branches_covered']}/{tot['branches']}</td>" if tot else
                       "<td colspan=4>does not compile</td>") + "</tr>")
    index = path_in(out_dir, "index.html")
    put(index, _doc("Rules coverage", "<h1>Rules coverage</h1><table><tr><th>game</th><th>statements</th>"
                      "<th>covered</th><th>cover</th><th>branch ways</th></tr>" + "".join(rows) + "</table>").encode("utf-8"))
    written.append(index)
    return written


def _doc(title, body) -> str:
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<style>{_STYLE}</style></head><body>{body}</body></html>\n")


def game_page(r) -> str:
    if "compile_errors" in r:
        return _doc(r["game"], f"<h1>{_e(r['game'])}</h1><p>does not compile:</p><pre>"
                    + _e("\n".join(r["compile_errors"])) + "</pre>")
    parts = [f"<h1>{_e(r['game'])}</h1>", _summary(r), _never(r)]
    for file, info in r["files"].items():
        parts.append(_file(r, file, info))
    return _doc(f"{r['game']}: rules coverage", "".join(parts))


def _summary(r) -> str:
    runs = r["runs"]
    b = runs["bot_games"]
    rows = "".join(
        f"<tr><td><a href='#{_anchor(f)}'>{_e(f)}</a></td><td>{s['statements']}</td>"
        f"<td>{s['statements'] - s['covered']}</td><td>{s['branches_covered']}/{s['branches']}</td>"
        f"<td>{s['percent']:.0f}%</td><td>{_e(s['missing'])}</td></tr>" for f, s in r["files"].items())
    tot = r["totals"]
    rows += (f"<tr><th>TOTAL</th><th>{tot['statements']}</th><th>{tot['statements'] - tot['covered']}</th>"
             f"<th>{tot['branches_covered']}/{tot['branches']}</th><th>{tot['percent']:.1f}%</th><th></th></tr>")
    return (f"<p>{runs['scenarios']['passed']} scenarios passed, {len(runs['scenarios']['failed'])} failed; "
            f"{b['per_player_count']} {_e(b['agent'])} bot games for each of "
            f"{_e(', '.join(map(str, b['player_counts'])))} players, seed {_e(b['seed'])}; "
            f"{len(b['errors'])} stopped on an error.</p>"
            "<table><tr><th>file</th><th>stmts</th><th>miss</th><th>branch ways</th><th>cover</th>"
            f"<th>missing</th></tr>{rows}</table>")


def _never(r) -> str:
    out = []
    if r["unreachable"]:
        out.append("<h2>Declared unreachable</h2><ul>" + "".join(
            f"<li>{_e(u['file'])}:{u['line']}-{u['last_line']} ({u['statements']} statements): {_e(u['reason'])}"
            + (f" <b>but it ran {u['ran']} times</b>" if u["ran"] else "") + "</li>" for u in r["unreachable"]) + "</ul>")
    nv = r["never"]
    items = [(k.replace("_", " "), v) for k, v in nv.items() if isinstance(v, list) and v]
    items += [(f"{kind} never moved", xs) for kind, xs in (nv.get("things_never_moved") or {}).items()]
    if items:
        out.append("<h2>Never moved</h2><ul>" + "".join(
            f"<li>{_e(label)} ({len(xs)}): {_e(', '.join(xs))}</li>" for label, xs in items) + "</ul>")
    return "".join(out)


def _anchor(file) -> str:
    return "f-" + re.sub(r"[^A-Za-z0-9_-]", "_", file)


def _file(r, file, info) -> str:
    lines = source_lines(r["folder"], file) or []
    per_line = info["lines"]
    skipped = set(info["excluded_lines"])
    notes, weighed = {}, {}  # line -> its branch ways never taken; line -> whether any way was
    for b in info["branch_points"]:
        never = [w["label"] for w in b["ways"] if not w["count"]]
        if never:
            notes.setdefault(b["line"], []).append(f"{b['what']}: never {', '.join(never)}")
        weighed[b["line"]] = weighed.get(b["line"], False) or len(never) < len(b["ways"])
    rows = []
    for n, text in enumerate(lines, 1):
        s = per_line.get(str(n))
        cls, runs = "", ""
        if n in skipped:
            cls = "skip"
        elif s:
            runs = str(s["runs"])
            cls = "miss" if s["missed"] == s["statements"] else "part" if s["missed"] or n in notes else "run"
        elif n in weighed:  # a condition alone on its line (an action's `if:`)
            cls = "run" if n not in notes else "part" if weighed[n] else "miss"
        note = "".join(f"<div class='note'>{_e(x)}</div>" for x in notes.get(n, ()))
        rows.append(f"<tr class='{cls}' id='{_anchor(file)}-{n}'><td class='n'>{n}</td><td class='r'>{runs}</td>"
                    f"<td class='t'>{_e(text)}{note}</td></tr>")
    return (f"<h2 id='{_anchor(file)}'>{_e(file)}: {info['percent']:.0f}% of {info['statements']} statements</h2>"
            f"<table class='src'>{''.join(rows)}</table>")
