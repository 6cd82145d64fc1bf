"""Pictures a rulebook draws from its tables: the map (locations and their connections) and
the structure of a round (phases, turns, the way back to the next round), laid out by
Graphviz (`dot` and `neato`, from the system's `graphviz` package, driven through the
`graphviz` Python package) and inlined in the HTML book as SVG.

The SVG is the same for the same tables: node ids are positions, not content; the layout's
random start is seeded; the comments Graphviz writes (its version among them) are dropped.
Without Graphviz the pictures are left out, and the build says so once.
"""
from __future__ import annotations

import functools
import re
import shutil
import sys

FONT = "DejaVu Sans"  # (the font the PDF pages are set in: fonts-dejavu-core)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)
_PROLOG = re.compile(r"^.*?(?=<svg)", re.S)
_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether Graphviz can lay pictures out here; says once on stderr when it cannot."""
    try:
        import graphviz  # noqa: F401
    except ImportError:
        print("rulebook pictures left out: the `graphviz` Python package is not installed", file=sys.stderr)
        return False
    if not shutil.which("dot"):
        print("rulebook pictures left out: Graphviz's `dot` is not installed (apt-get install graphviz)", file=sys.stderr)
        return False
    return True


def _label(text) -> str:
    """A content text as a Graphviz label: its escapes (\\N, \\G, \\l) are no content's business."""
    return str(text).replace("\\", "\\\\")


def _svg(graph) -> str:
    """The graph as inline SVG: no XML prolog or comments; it scales to the column it is in."""
    raw = graph.pipe(format="svg").decode("utf-8")
    svg = _COMMENT.sub("", _PROLOG.sub("", raw, count=1))
    m = _SIZE.search(svg)
    if m:  # the drawn size stays as the largest it is shown at; narrower screens scale it down
        svg = svg.replace(m.group(0), f'<svg style="max-width:{m.group(1)}pt;width:100%;height:auto"', 1)
    return svg.strip()


@functools.lru_cache(maxsize=64)
def map_svg(title: str, places: tuple, roads: tuple) -> str | None:
    """The map: places ((id, name), ...) and roads ((a, b, label or ""), ...) between them."""
    if not roads or not available():
        return None
    import graphviz
    g = graphviz.Graph("map", engine="neato", format="svg")
    g.attr(start="7", overlap="false", splines="true", sep="+6", outputorder="edgesfirst",
           fontname=FONT, label=_label(title), labelloc="t", fontsize="13")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="#f4f1ea", color="#555555",
           fontname=FONT, fontsize="12", margin="0.06,0.03")
    g.attr("edge", color="#777777", fontname=FONT, fontsize="10", len="1.0")
    ids = {pid: f"p{i}" for i, (pid, _name) in enumerate(places)}
    for pid, name in places:
        g.node(ids[pid], _label(name))
    for a, b, label in roads:
        g.edge(ids[a], ids[b], label=_label(label)) if label else g.edge(ids[a], ids[b])
    return _svg(g)


def _note(texts, width: int = 36) -> str:
    """Rules as a note's label: each a bullet, wrapped to lines a box can hold (Graphviz does
    not wrap), left-aligned (`\\l` ends a line flush left)."""
    import textwrap
    lines = []
    for text in texts:
        wrapped = textwrap.wrap(str(text), width, break_long_words=False, break_on_hyphens=False) or [str(text)]
        lines += ["• " + wrapped[0]] + ["   " + w for w in wrapped[1:]]
    return "".join(_label(line) + "\\l" for line in lines)


@functools.lru_cache(maxsize=64)
def turn_svg(title: str, steps: tuple, back: str, end: str, notes: tuple = ()) -> str | None:
    """A round as a chain of steps ((name, note), ...) that goes round again (`back`) until the
    game ends (`end`). `notes` are what happens besides the steps: triggers and reactions,
    ((anchor, text), ...), drawn as notes beside the step they belong to (anchor: its index),
    before the first step ("start"), after the last ("end") or beside the whole round ("any")."""
    if not steps or not available():
        return None
    import graphviz
    g = graphviz.Digraph("turn", format="svg")
    g.attr(rankdir="TB", fontname=FONT, label=_label(title), labelloc="t", fontsize="13", nodesep="0.3", ranksep="0.3")
    g.attr("node", shape="box", style="rounded,filled", fillcolor="#f4f1ea", color="#555555",
           fontname=FONT, fontsize="10", margin="0.12,0.06")
    g.attr("edge", color="#555555", fontname=FONT, fontsize="9")
    first, last = "s0", f"s{len(steps) - 1}"
    before = [t for a, t in notes if a == "start"]
    if before:  # (what opens the round stands before its first step)
        g.node("start", _note(before), shape="note", style="filled",
               fillcolor="#ffffff", color="#8a7a5a", fontsize="9")
        g.edge("start", first, style="dashed", color="#8a7a5a")
    for i, (name, note) in enumerate(steps):
        g.node(f"s{i}", _label(f"{name}\n{note}" if note else name))
        if i:
            g.edge(f"s{i - 1}", f"s{i}")
        beside = [t for a, t in notes if a == i]
        if beside:
            with g.subgraph(name=f"beside{i}") as row:
                row.attr(rank="same")
                row.node(f"s{i}")
                row.node(f"n{i}", _note(beside), shape="note", style="filled",
                         fillcolor="#ffffff", color="#8a7a5a", fontsize="9")
            g.edge(f"s{i}", f"n{i}", style="dashed", color="#8a7a5a", arrowhead="none")
    g.node("end", _label(end), shape="box", style="filled", fillcolor="#e8e1d3", fontsize="9")
    if len(steps) == 1:  # (a round of one step loops on its left: the notes stand on its right)
        g.edge(last, first, label=_label(back), style="dashed", tailport="sw", headport="nw")
    else:
        g.edge(last, first, label=_label(back), constraint="false", style="dashed")
    after = [t for a, t in notes if a == "end"]
    if after:
        g.node("after", _note(after), shape="note", style="filled",
               fillcolor="#ffffff", color="#8a7a5a", fontsize="9")
        g.edge(last, "after", style="dashed", color="#8a7a5a")
        g.edge("after", "end", style="dotted")
    else:
        g.edge(last, "end", style="dotted")
    anytime = [t for a, t in notes if a == "any"]
    if anytime:  # (beside the round, tied to no step: it can happen in any of them)
        with g.subgraph(name="anytime") as row:
            row.attr(rank="same")
            row.node(first)
            row.node("any", _note(anytime, 64), shape="note", style="filled",
                     fillcolor="#ffffff", color="#8a7a5a", fontsize="9")
    return _svg(g)
