"""`rulepress play`: a terminal table for people and bots in any mix."""
from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from .agents import make
from .flow import IllegalChoice, apply, choices, new_game
from .replay import make_log
from .views import view


def _bots(spec: str, seed):
    out = {}
    for part in filter(None, (s.strip() for s in spec.split(","))):
        seat, _, kind = part.partition("=")
        out[seat] = make(kind or "random", f"{seed}:{seat}")
    return out


def _label(o, lang):
    lab = o["label"]
    return lab.get(lang) or lab.get("en") or o["id"]


def show(con, game, st, seat, lang):
    v = view(game, st, seat)
    con.rule(f"{game.id} · {v['seat']} · round {v['round']} · first player {v['first_player']}")
    t = Table("player", "counters", "marks")
    for p, d in v["players"].items():
        t.add_row(p, ", ".join(f"{k} {val}" for k, val in d["counters"].items()), ", ".join(d["marks"]))
    con.print(t)
    if v["counters"]:
        con.print("game: " + ", ".join(f"{k} {val}" for k, val in v["counters"].items()))
    for key, z in v["zones"].items():
        if key in ("players",) or (not z["things"] and not z["hidden"]):
            continue
        names = [game.name(e, lang) for e in z["things"]]
        hidden = f" + {z['hidden']} hidden" if z["hidden"] else ""
        con.print(f"[dim]{key}[/dim]: {', '.join(names)}{hidden}")
    for entry in v["log"][-8:]:
        con.print(f"[dim]· {entry['text']}[/dim]")


def play(game, players, seed, bots, lang, log_path, input_fn=input):
    con = Console()
    st = new_game(game, players, seed)
    agents = _bots(bots, seed)
    while st["pending"] is not None:
        d = st["pending"]
        seat = next(p for p in d["who"] if p not in d["collected"]) if d["kind"] == "secret" else d["who"]
        opts = choices(game, st, seat)
        if seat in agents:
            choice = agents[seat].choose(game, st, seat, opts)
            con.print(f"[cyan]{seat} (bot) chooses {next(_label(o, lang) for o in opts if o['id'] == choice)}[/cyan]")
        else:
            show(con, game, st, seat, lang)
            asked = d.get("prompt") or {}
            fallback = {"en": ("Your action", "Choose"), "ru": ("Ваше действие", "Выберите")}[lang]
            prompt = asked.get(lang) or asked.get("en") or fallback[0 if d["kind"] == "action" else 1]
            con.print(f"[bold]{seat}: {prompt}[/bold]")
            for i, o in enumerate(opts, 1):
                con.print(f"  {i}. {_label(o, lang)}")
            try:
                raw = input_fn("> ").strip()
            except EOFError:
                return
            if raw in ("q", "quit"):
                return
            if not raw.isdigit() or not 1 <= int(raw) <= len(opts):
                con.print("[red]type the number of a choice (q to quit)[/red]")
                continue
            choice = opts[int(raw) - 1]["id"]
        try:
            apply(game, st, choice, seat)
        except IllegalChoice as exc:
            con.print(f"[red]{exc}[/red]")
    con.rule("game over")
    for p in st["players"]:
        con.print(f"{p}: {st['scores'][p]}" + ("  [bold]wins[/bold]" if p in st["winners"] else ""))
    if not st["winners"]:
        con.print("no winner")
    if log_path:
        log = json.dumps(make_log(game, st, players, seed), indent=1)
        try:
            with open(log_path, "w", encoding="utf-8") as fh:
                fh.write(log)
        except OSError as exc:  # checked before the game, yet gone since: the game is not lost
            con.print(f"the log could not be written to {log_path} ({exc.strerror}); here it is:", markup=False)
            print(log)
            return
        con.print(f"log written to {log_path}", markup=False)
