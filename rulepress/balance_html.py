"""The balance report as one self-contained HTML file: the figures of rulepress/balance.py
as tables and inline SVG plots.

The plots are matplotlib's (its SVG backend, no display needed), each labelled where it is
drawn rather than through a legend. The same figures give the same bytes: the SVG ids
come from a fixed salt, the date and the creator are left out, and text stays text (no
font is embedded). Everything shown that comes from content is escaped.
"""
from __future__ import annotations

import html
import io
from typing import NamedTuple

from .balance import p_text, player_count

BLUE, ORANGE, GREY, RED = "#3b6ea5", "#d9822b", "#888888", "#c23b22"


class MissingMatplotlib(Exception):
    """matplotlib is not installed: the message says how to get it."""


def _mpl():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ModuleNotFoundError:
        raise MissingMatplotlib("the HTML report needs matplotlib: pip install 'rulepress[balance]'") from None
    matplotlib.rcParams.update({"svg.hashsalt": "rulepress-balance", "svg.fonttype": "none",
                                "font.family": "DejaVu Sans", "font.size": 9, "axes.spines.top": False,
                                "axes.spines.right": False})
    return Figure


def check() -> None:
    """Raises MissingMatplotlib before any game is played, where the report cannot be drawn."""
    _mpl()


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # the XML prolog and doctype have no place inside HTML


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _num(x) -> str:
    """A mean as people read it: three figures at most (23.1, 2.03, 320), never a long tail."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _pct(x) -> str:
    return f"{x:.0%}"


def _height(rows) -> float:
    return 0.9 + 0.32 * max(1, rows)


def _rates_plot(title, rows, fair=None, mark="fair"):
    """rows: (label, rate, low, high): bars with their 95% intervals, each labelled at its end."""
    Figure = _mpl()
    fig = Figure(figsize=(7, _height(len(rows))))
    ax = fig.subplots()
    ys = list(range(len(rows)))[::-1]
    for y, (label, rate, low, high) in zip(ys, rows):
        ax.barh(y, rate, color=BLUE, height=0.6)
        ax.errorbar(rate, y, xerr=[[rate - low], [high - rate]], color="black", capsize=3, lw=1)
        ax.text(min(high + 0.01, 1.02), y, f"{_pct(rate)} ({_pct(low)}–{_pct(high)})", va="center", fontsize=8)
    ax.set_yticks(ys, [r[0] for r in rows])
    ax.set_xlim(0, 1.25)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0%", "25%", "50%", "75%", "100%"])
    if fair is not None:
        ax.axvline(fair, color=RED, ls="--", lw=1)
        ax.text(fair, len(rows) - 0.45, f" {mark} {_pct(fair)}", color=RED, fontsize=8, va="bottom")
    ax.set_title(title, loc="left", fontsize=10)
    return _svg(fig)


def _pairs_plot(title, rows, fmt=_pct, limit=None):
    """rows: (label, a, b, significant): two bars a row, A above B, each named at its end."""
    Figure = _mpl()
    fig = Figure(figsize=(7, _height(len(rows) * 2)))
    ax = fig.subplots()
    top = max([abs(v) for r in rows for v in r[1:3]] + [1e-9]) if limit is None else limit
    ys = list(range(len(rows)))[::-1]
    for y, (label, a, b, sig) in zip(ys, rows):
        ax.barh(y + 0.2, a, color=GREY, height=0.38)
        ax.barh(y - 0.2, b, color=ORANGE if sig else BLUE, height=0.38)
        ax.text(a + top * 0.01, y + 0.2, f"A {fmt(a)}", va="center", fontsize=7)
        ax.text(b + top * 0.01, y - 0.2, f"B {fmt(b)}" + (" significant" if sig else ""), va="center", fontsize=7,
                color=ORANGE if sig else "black")
    ax.set_yticks(ys, [r[0] for r in rows])
    ax.set_xlim(min(0, min([v for r in rows for v in r[1:3]] + [0])), top * 1.35)
    if limit == 1:  # rates
        ax.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0%", "25%", "50%", "75%", "100%"])
    ax.set_title(title, loc="left", fontsize=10)
    return _svg(fig)


def _scores_plot(f):
    """Each seat's scores as a histogram over the same bins, one row a seat."""
    Figure = _mpl()
    seats = list(f["seats"])
    bins = f["score_bins"]
    fig = Figure(figsize=(7, 0.6 + 0.8 * len(seats)))
    axes = fig.subplots(len(seats), 1, sharex=True, squeeze=False)[:, 0]
    xs = [bins["from"] + bins["width"] * k for k in range(bins["count"])]
    for ax, p in zip(axes, seats):
        s = f["seats"][p]["score"]
        # a bin a point stands on its point; a wider bin starts where its first score is
        ax.bar(xs, s["histogram"], width=bins["width"] * 0.9, align="center" if bins["width"] == 1 else "edge",
               color=BLUE)
        ax.set_ylabel(f"seat {p[1:]}", rotation=0, ha="right", va="center")
        ax.set_yticks([])
        ax.text(1.0, 0.8, f"mean {_num(s['mean'])}, median {_num(s['median'])}", transform=ax.transAxes, ha="right",
                fontsize=8)
    axes[0].set_title("Final scores by seat (games per score)", loc="left", fontsize=10)
    axes[-1].set_xlabel("score")
    from matplotlib.ticker import MaxNLocator
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))  # no "0.25" ticks for scores of 0 and 1
    if bins["width"] == 1:
        axes[-1].set_xlim(xs[0] - 1.5, xs[-1] + 1.5)  # a bar a point, with a point of room either side
    return _svg(fig)


def _length_plot(f):
    Figure = _mpl()
    from matplotlib.ticker import MaxNLocator
    fig = Figure(figsize=(7, 2.2))
    axes = fig.subplots(1, 2)
    for ax, key, what in zip(axes, ("rounds", "decisions"), ("rounds", "decisions")):
        hist = f["length"][key]["histogram"]
        if hist:
            lo, hi = hist[0][0], hist[-1][0]
            # a bar a value where there are few values, else 20 bins: spikes say nothing
            edges = [lo - 0.5 + k for k in range(hi - lo + 2)] if hi - lo < 30 else \
                [lo + (hi - lo) * k / 20 for k in range(21)]
            ax.hist([v for v, _c in hist], bins=edges, weights=[c for _v, c in hist], color=BLUE, rwidth=0.9)
            if hi - lo < 30:
                ax.set_xlim(lo - 3, hi + 3)  # room around a game length every game had
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        ax.set_yticks([])
        s = f["length"][key]
        ax.set_title(f"{what}: mean {_num(s['mean'])} ({s['min']}–{s['max']})", loc="left", fontsize=9)
    return _svg(fig)


def _bars_plot(title, rows, fmt, row_height=0.32):
    """rows: (label, value, flag): one bar each, flagged ones red with the flag written
    (a flag may be any note, such as what the content said)."""
    Figure = _mpl()
    fig = Figure(figsize=(7, 0.9 + row_height * max(1, len(rows))))
    ax = fig.subplots()
    top = max([r[1] for r in rows] + [1e-9])
    ys = list(range(len(rows)))[::-1]
    for y, (label, value, flag) in zip(ys, rows):
        ax.barh(y, value, color=RED if flag and isinstance(flag, str) else BLUE, height=0.6)
        note = flag if isinstance(flag, str) else flag.text
        ax.text(value + top * 0.01, y, fmt(value) + (f"  {note}" if note else ""), va="center", fontsize=7,
                color=RED if flag and isinstance(flag, str) else "black")
    ax.set_yticks(ys, [r[0] for r in rows], fontsize=7 if row_height >= 0.3 else 6)
    ax.set_xlim(0, top * 1.3)
    ax.set_xticks([])
    ax.set_title(title, loc="left", fontsize=10)
    return _svg(fig)


_STYLE = """
body{font-family:DejaVu Sans,sans-serif;margin:1.5em auto;max-width:60em;color:#222;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 10px;text-align:left}
th{background:#f0f0f0}td.n{text-align:right}.verdict{font-size:1.15em;font-weight:bold}
.sig{color:#b35900;font-weight:bold}.flag{color:#c23b22}.note{color:#555;font-size:90%}
figure{margin:.5em 0}svg{max-width:100%;height:auto}
"""


def _wins_table(rows, kind, verb) -> str:
    """A seat's win rate in the games it took an action (chose a card) and in the others,
    with 95% intervals: a tie between taking and winning, not a cause."""
    def rate(x):
        return f"{x['rate']:.0%} ({x['low']:.0%}–{x['high']:.0%}), {x['games']} seat-games" if x["games"] else "–"
    body = [[r["name"] or r["id"], rate(r["wins"]["with"]), rate(r["wins"]["without"])] for r in rows if "wins" in r]
    if not body:
        return ""
    return (f"<p class='note'>A seat's win rate in the games where it {verb} the {kind} and in the others, with "
            "95% intervals: what goes with winning, not what causes it.</p>"
            + _table([kind, f"win rate when {verb}", f"win rate when not {verb}"], body))


def _table(head, rows) -> str:
    h = "".join(f"<th>{_e(x)}</th>" for x in head)
    body = "".join("<tr>" + "".join(c if isinstance(c, Raw) else f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{h}</tr>{body}</table>"


class Raw(str):
    """A cell already in HTML (made here from escaped parts)."""


def _run_line(f) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in sorted((f.get("options") or {}).items()))
    return (f"{f['finished']} of {f['games']} games finished; {player_count(f['players'])}; agents: {f['agent']}; "
            f"seed {f['seed']}" + (f"; options {opts}" if opts else ""))


def _ended_label(e) -> str:
    words = e.get("words") or e["by"]
    return f"{words} ({e['at']})" if e.get("at") and e["by"] != "last round" else words


def _cut(text, n) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


class Note(NamedTuple):
    """A bar's note that is not a warning (black, the bar blue)."""
    text: str


def _single(f, coverage=None) -> list[str]:
    parts = [f"<p class='verdict'>{_e(f['verdict'][:1].upper() + f['verdict'][1:])}.</p>",
             f"<p class='note'>{_e(_run_line(f))}. Intervals are 95% (Wilson); “fair” is the share of wins "
             f"a seat would have if seats did not matter.</p>"]
    for e in f["errors"][:5]:
        parts.append(f"<p class='flag'>game {e['game']} stopped: {_e(e['error'])}</p>")
    parts.append("<h2>Win rate</h2>" if f["cooperative"] else "<h2>Win rate by seat</h2>")
    seat_rows = [(f"seat {p[1:]}", s["rate"], s["low"], s["high"]) for p, s in f["seats"].items()]
    if f["cooperative"]:  # every seat's rate is the team's: no seat can be above or below it
        team = [("players",) + seat_rows[0][1:]]
        parts.append(f"<figure>{_rates_plot('Win rate of the players together', team)}</figure>")
    else:
        parts.append(f"<figure>{_rates_plot('Win rate by seat', seat_rows, f['fair'])}</figure>")
    if f["cooperative"]:  # all win or none: who went first, and "no winner", say nothing more
        if f["no_winner"]:
            parts.append(f"<p>The players lost {f['no_winner']} of {f['finished']} games together.</p>")
    else:
        fp = f["first_player"]
        fair_note = "inside" if fp["low"] <= fp["fair"] <= fp["high"] else "outside"
        parts.append(f"<p>First player (whoever the game made first) wins {_pct(fp['rate'])} "
                     f"({_pct(fp['low'])}–{_pct(fp['high'])}) of {fp['games']} games; fair is {_pct(fp['fair'])}, "
                     f"{fair_note} the interval.</p>")
        if f["no_winner"]:
            parts.append(f"<p>{f['no_winner']} game{' ' if f['no_winner'] == 1 else 's '}had no winner.</p>")
    if f["factions"]:
        parts.append("<h2>Win rate by faction or character</h2>")
        rows = [(name, s["rate"], s["low"], s["high"]) for name, s in f["factions"].items()]
        if f.get("faction_verdict"):
            parts.append(f"<p class='verdict'>{_e(f['faction_verdict'][:1].upper() + f['faction_verdict'][1:])}.</p>")
        parts.append(f"<figure>{_rates_plot('Win rate by faction', rows, f['fair'], 'all games' if f['cooperative'] else 'fair')}</figure>")
        parts.append(_table(["faction", "games", "wins", "win rate", "95% interval"],
                            [[n, s["games"], s["wins"], _pct(s["rate"]), f"{_pct(s['low'])}–{_pct(s['high'])}"]
                             for n, s in f["factions"].items()]))
    parts.append("<h2>Scores</h2>")
    parts.append(f"<figure>{_scores_plot(f)}</figure>")
    parts.append("<h2>Game length</h2>")
    parts.append(f"<figure>{_length_plot(f)}</figure>")
    parts.append("<h2>How games ended</h2>")
    rows = [(_cut(_ended_label(e), 70), e["games"], Note(f"“{_cut(e['said'], 60)}”" if e.get("said") and e["by"] != "end game" else ""))
            for e in f["ended"]]
    if rows:
        parts.append(f"<figure>{_bars_plot('Games ended by', rows, lambda v: f'{v} games')}</figure>")
    if f["actions"]:  # (a game whose every choice is in its effects has no actions to chart)
        parts.append("<h2>Actions</h2><p class='note'>Flagged: never taken, or taken under a quarter as often "
                     "as the typical action.</p>")
        ordered = sorted(f["actions"], key=lambda a: (-a["per_game"], a["id"]))
        rows = [(_cut(a["name"] or a["id"], 50), a["per_game"], a["flag"]) for a in ordered]
        parts.append(f"<figure>{_bars_plot('Times taken per game', rows, _num)}</figure>")
        parts.append(_wins_table(ordered, "action", "taken"))
    if f["cards"]:
        parts.append("<h2>Cards</h2><p class='note'>A card is used in a game when one of its copies was chosen "
                     "or left the place setup put it, or setup put it in play in front of a player. Flagged: never used, or used in under a quarter of the "
                     "games the typical card is.</p>")
        ordered = sorted(f["cards"], key=lambda c: (-c["share"], c["id"]))
        rows = [(_cut(c["name"], 40), c["share"], c["flag"]) for c in ordered]
        parts.append(f"<figure>{_bars_plot('Share of games a card was used in', rows, _pct, 0.2)}</figure>")
        parts.append(_wins_table(ordered, "card", "chosen"))
    if coverage:
        parts.append("<h2>Content coverage</h2>")
        parts.append(_coverage(coverage))
    return parts


def _coverage(c) -> str:
    if "compile_errors" in c:
        return "<p>The game does not compile, so nothing was measured.</p>"
    t = c["totals"]
    lines = [f"<p>{t['covered']} of {t['statements']} statements ran ({t['percent']:.1f}%), "
             f"{t['branches_covered']} of {t['branches']} branch ways were taken, in the scenarios and "
             f"{c['runs']['bot_games']['per_player_count']} bot games (rulepress coverage).</p>"]
    nv = c["never"]
    for key, label in (("actions_never_taken", "Actions never taken"), ("triggers_never_fired", "Triggers never fired"),
                       ("locations_never_entered", "Locations never entered")):
        if nv.get(key):
            xs = nv[key]
            lines.append(f"<p>{label} ({len(xs)}): {_e(', '.join(xs[:20]))}{' …' if len(xs) > 20 else ''}</p>")
    return "".join(lines)


def _compare(a, b, c, names) -> list[str]:
    sig = c["significant"]
    head = (f"{len(sig)} significant difference{'s' if len(sig) != 1 else ''} of {c['tested']} figures tested"
            if sig else f"No significant difference in {c['tested']} figures tested")
    parts = [f"<p class='verdict'>{_e(head)}.</p>",
             f"<p class='note'>A: {_e(names[0])}; B: {_e(names[1])}. Both played with the same seeds and agents. "
             f"Tests: {_e(c['tests'])}. Among many figures some 1 in 20 differ at this level by chance "
             f"alone.</p>"]
    if sig:
        parts.append("<ul>" + "".join(f"<li class='sig'>{_e(x)}</li>" for x in sig) + "</ul>")
    parts.append(f"<p>A: {_e(a['verdict'])}.<br>B: {_e(b['verdict'])}.</p>")

    def table(rows, kind, fmt):
        return _table([kind, "A", "B", "B − A", "p value (Holm)", ""],
                      [[d.get("label") or k, fmt(d["a"]), fmt(d["b"]), fmt(d["difference"]) if fmt is not _pct else
                        f"{d['difference'] * 100:+.0f} points", f"{p_text(d['p'])} ({p_text(d.get('p_holm', d['p']))})",
                        Raw("<td class='sig'>significant</td>" if d["significant"] else "<td></td>")]
                       for k, d in rows.items()])

    parts.append("<h2>Win rate by seat</h2>")
    rows = [(f"seat {p[1:]}", d["a"], d["b"], d["significant"]) for p, d in c["seats"].items()]
    parts.append(f"<figure>{_pairs_plot('Win rate by seat: A (grey) and B', rows, limit=1)}</figure>")
    parts.append(table(c["seats"], "seat", _pct))
    fp = c["first_player"]
    parts.append(f"<p>First player wins: A {_pct(fp['a'])}, B {_pct(fp['b'])} ({p_text(fp['p'])}"
                 f"{', significant' if fp['significant'] else ''}).</p>")
    if c["factions"]:
        parts.append("<h2>Win rate by faction or character</h2>")
        rows = [(k, d["a"], d["b"], d["significant"]) for k, d in c["factions"].items()]
        parts.append(f"<figure>{_pairs_plot('Win rate by faction: A (grey) and B', rows, limit=1)}</figure>")
        parts.append(table(c["factions"], "faction", _pct))
    parts.append("<h2>Mean score by seat</h2>")
    rows = [(f"seat {p[1:]}", d["a"], d["b"], d["significant"]) for p, d in c["scores"].items()]
    parts.append(f"<figure>{_pairs_plot('Mean score: A (grey) and B', rows, fmt=_num)}</figure>")
    parts.append(table(c["scores"], "seat", _num))
    parts.append("<h2>Game length</h2>")
    parts.append(table(c["length"], "per game", _num))
    parts.append("<h2>How games ended</h2>")
    parts.append(table(c["ended"], "ended by", _pct))
    parts.append("<h2>Actions taken per game</h2>")
    rows = [(d.get("label") or k, d["a"], d["b"], d["significant"]) for k, d in c["actions"].items()]
    if rows:  # (a game without actions has no chart of them)
        parts.append(f"<figure>{_pairs_plot('Actions per game: A (grey) and B', rows, fmt=_num)}</figure>")
    parts.append(table(c["actions"], "action", _num))
    if c["cards"]:
        parts.append("<h2>Share of games each card was used in</h2>")
        parts.append(table(c["cards"], "card", _pct))
    return parts


def page(result: dict) -> str:
    """The HTML of a `balance` result: one run, or two compared (see rulepress/balance.py)."""
    _mpl()
    if "compare" in result:
        a, b = result["a"], result["b"]
        title = f"Balance: {a.get('name', a['game'])}, A against B, {player_count(a['players'])}"
        body = _compare(a, b, result["compare"], result["names"])
        body.append("<h1>A in detail</h1>")
        body += _single(a)
        body.append("<h1>B in detail</h1>")
        body += _single(b)
    else:
        title = f"Balance: {result.get('name', result['game'])}, {player_count(result['players'])}"
        body = _single(result, result.get("coverage"))
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{_e(title)}</h1>" + "\n".join(body) + "</body></html>\n")
