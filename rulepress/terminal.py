"""`rulepress play`: a terminal table for people and bots in any mix.

The screen shows one seat only what that seat may see (runtime/views.py): a bot's secret
pick is never printed (only that it has chosen; the pick shows when the game reveals it),
what a bot does is printed as the people at the table may know it, and in hot-seat play
a 'pass to Player N' screen clears what the last person saw. Each seat is shown what
changed since its last look; `s` shows the whole table again.
"""
from __future__ import annotations

import json
import random
from collections import Counter

from rich.console import Console
from rich.markup import escape

from .compiler.diagnostics import printable
from .runtime.agents import Seen, make
from .runtime.answers import accept, told
from .runtime.faults import GameFault
from .runtime.flow import IllegalChoice, choices, new_game
from .runtime.match import Match
from .runtime.replay import make_log
from .runtime.visibility import can_see, handle_of, log_lines, seat_options
from .runtime.views import view
from .runtime.words import WORDS, place_label


def printed(text) -> str:
    """Content's text as the terminal prints it: markup escaped, control and bidi
    characters written as escapes (compiler/diagnostics.printable)."""
    return escape(printable(str(text)))


def _bots(spec: str, seed):
    out = {}
    for part in filter(None, (s.strip() for s in spec.split(","))):
        seat, _, kind = part.partition("=")
        out[seat] = make(kind or "random", f"{seed}:{seat}")
    return out


def _label(o, lang):
    lab = o["label"]
    return lab.get(lang) or lab.get("en") or o["id"]


def labels(options, lang) -> list:
    """The options' labels, made distinct: two options never read the same."""
    texts = [_label(o, lang) for o in options]
    seen = Counter(texts)
    n = Counter()
    out = []
    for t in texts:
        if seen[t] > 1:
            n[t] += 1
            t = f"{t} ({n[t]})"
        out.append(t)
    return out


# The terminal's own words in each language it plays in (the game's log lines are the
# state's, written once in English: runtime/words.py).
SAY = {
    "en": {"round": "round {n} · first player {player}", "you": " (you)", "game": "game", "hidden": "{n} hidden",
           "dice": "dice: {dice}  (roll {n})", "as_before": "({n} lines as before; s shows them)", "bot": "{player} (bot)",
           "secret": "{who} has made a secret choice", "chooses": "{who} chooses {what}", "chosen": "{who} has chosen",
           "seed": "seed {seed} (rulepress play {game} --seed {seed} plays this game again)", "over": "game over",
           "wins": "wins", "no_winner": "no winner", "pass_to": "pass to {player}", "enter": "{player}: press Enter ",
           "action": "Your action", "choose": "Choose", "number": "type the number of a choice (s shows the table, q quits)"},
    "ru": {"round": "раунд {n} · первый игрок: {player}", "you": " (вы)", "game": "игра", "hidden": "{n} (скрыто)",
           "dice": "кубики: {dice}  (бросок {n})", "as_before": "(без изменений строк: {n}; s покажет их)", "bot": "{player} (бот)",
           "secret": "{who}: тайный выбор сделан", "chooses": "{who} выбирает: {what}", "chosen": "{who}: выбор сделан",
           "seed": "сид {seed} (rulepress play {game} --seed {seed} сыграет эту партию снова)", "over": "конец игры",
           "wins": "победа", "no_winner": "победителя нет", "pass_to": "ход за: {player}", "enter": "{player}: нажмите Enter ",
           "action": "Ваше действие", "choose": "Выберите", "number": "введите номер варианта (s — стол, q — выход)"},
}


def _say(lang, key, **params) -> str:
    return SAY[lang][key].format(**params)


def _pname(p, lang):
    return WORDS["player"][lang].format(n=p[1:]) if p and p[1:].isdigit() else str(p)


def _collapsed(names) -> str:
    """'Green agent x4, Red agent' for a list of names: identical things counted once."""
    counts = Counter(names)
    return ", ".join(n if c == 1 else f"{n} x{c}" for n, c in counts.items())


def table_lines(game, st, seat, lang) -> list:
    """The table as `seat` sees it, one line per player, counter line and zone."""
    v = view(game, st, seat)
    lines = [_say(lang, "round", n=v["round"], player=_pname(v["first_player"], lang))]
    for p, d in v["players"].items():
        cs = ", ".join(f"{_counter_name(game, k, lang)} {val}" for k, val in d["counters"].items())
        marks = f" [{', '.join(d['marks'])}]" if d["marks"] else ""
        lines.append(f"{_pname(p, lang)}{_say(lang, 'you') if p == seat else ''}: {cs}{marks}")
    if v["counters"]:
        lines.append(_say(lang, "game") + ": " + ", ".join(f"{_counter_name(game, k, lang)} {val}" for k, val in v["counters"].items()))
    for key, z in v["zones"].items():
        if key == "players" or (not z["things"] and not z["hidden"]):
            continue
        names = _collapsed(game.name(e, lang) for e in z["things"])
        hidden = f"{' + ' if names else ''}{_say(lang, 'hidden', n=z['hidden'])}" if z["hidden"] else ""
        lines.append(f"{_zone_label(game, key, lang)}: {names}{hidden}")
        for f in z.get("facts", ()):  # what is known of a hidden thing: "card 2 of Player 1's Hand: Told value 1"
            said = [f"{_counter_name(game, k, lang)} {val}" for k, val in (f.get("counters") or {}).items()] + list(f.get("marks") or ())
            lines.append(f"  {f['label'].get(lang) or f['label']['en']}: {', '.join(said)}")
    rolled = st.get("rolled")
    if rolled:
        lines.append(_say(lang, "dice", dice=" ".join(str(x) for x in rolled[1:]), n=rolled[0]))
    return lines


def _counter_name(game, c, lang):
    n = game.counters.get(c, {}).get("name") or {}
    return n.get(lang) or n.get("en") or c


def _zone_label(game, key, lang):
    return place_label(game, key).get(lang) or key


class Table:
    """What has been printed to each seat, so the next look shows only what changed."""

    def __init__(self, con, game, st, lang):
        self.con, self.game, self.st, self.lang = con, game, st, lang
        self.shown = {}  # seat -> the lines it saw last
        self.logged = {}  # seat -> how many log lines it has read

    def look(self, seat, everything=False):
        lines = table_lines(self.game, self.st, seat, self.lang)
        before = set() if everything else set(self.shown.get(seat, ()))
        self.con.rule(f"{printed(self.game.id)} · {_pname(seat, self.lang)}")
        changed = [ln for ln in lines if ln not in before]
        for ln in changed:
            self.con.print(printed(ln))
        if before and len(changed) < len(lines):
            self.con.print(f"[dim]{_say(self.lang, 'as_before', n=len(lines) - len(changed))}[/dim]")
        self.shown[seat] = lines
        read = self.logged.get(seat, 0)
        log = view(self.game, self.st, seat)["log"]  # the lines at these places in the state's log
        new = [entry for i, entry in zip(log_lines(self.st, seat), log) if i >= read]
        for entry in new[-12:]:
            self.con.print(f"[dim]· {printed(_line(entry, self.lang))}[/dim]")
        self.logged[seat] = len(self.st["log"])


def _line(entry, lang) -> str:
    """A log line in the table's language: its Russian where the game wrote one."""
    return entry.get("ru") or entry["text"] if lang == "ru" else entry["text"]


def _bot_move(game, st, seat, choice, secret, watcher, lang) -> str:
    """What the people at the table may know of a bot's choice (`secret`: one of a secret pick)."""
    who = _say(lang, "bot", player=_pname(seat, lang))
    if secret:
        return _say(lang, "secret", who=who)
    if choice in st["things"] and choice not in st["players"] and not can_see(game, st, choice, watcher):
        return _say(lang, "chooses", who=who, what=_label(handle_of(game, st, choice), lang))
    opts = seat_options(game, st, watcher, choices(game, st, seat))
    for o, text in zip(opts, labels(opts, lang)):
        if o["id"] == choice:
            return _say(lang, "chooses", who=who, what=text)
    return _say(lang, "chosen", who=who)


def play(game, players, seed, bots, lang, log_path, input_fn=input, con=None, write=None):
    """Play at the terminal; returns the final state (or the state when someone quit).
    `write(path, bytes)` writes the log (the command line's is compiler/writing.put_chosen,
    which never writes through nor over a link)."""
    con = con or Console()
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    con.print(_say(lang, "seed", seed=printed(seed), game=printed(game.id)))
    st, watcher = None, None
    try:
        st = new_game(game, players, seed)
        agents = _bots(bots, seed)
        people = [p for p in st["players"] if p not in agents]
        watcher = people[0] if len(people) == 1 else None  # whom bots' moves are printed for
        if not _turns(game, st, con, agents, people, watcher, lang, input_fn):
            return st
    except GameFault as exc:  # the game cannot go on: said as the seat watching may read it, for the command to print
        raise GameFault(exc.pos, told(game, st, watcher, exc.message)) from None
    con.rule(_say(lang, "over"))
    for entry in view(game, st, watcher)["log"][-3:]:
        con.print(f"[dim]· {printed(_line(entry, lang))}[/dim]")
    for p in st["players"]:
        con.print(f"{_pname(p, lang)}: {st['scores'][p]}" + (f"  [bold]{_say(lang, 'wins')}[/bold]" if p in st["winners"] else ""))
    if not st["winners"]:
        con.print(_say(lang, "no_winner"))
    if log_path:
        log = json.dumps(make_log(game, st, players, seed), indent=1)
        try:
            if write is not None:
                write(log_path, log.encode("utf-8"))
            else:
                with open(log_path, "w", encoding="utf-8") as fh:
                    fh.write(log)
        except OSError as exc:  # checked before the game, yet gone since: the game is not lost
            con.print(f"the log could not be written to {log_path} ({exc.strerror}); here it is:", markup=False)
            print(log)
            return st
        con.print(f"log written to {log_path}", markup=False)
    return st


def _turns(game, st, con, agents, people, watcher, lang, input_fn) -> bool:
    """The game's decisions, each by a bot or a person at the keyboard, to the end
    (True) or until someone quits (False). A person picks by number among the options as
    offered; whatever is picked goes through runtime/answers.accept like a move at the
    online table, so a refusal is said in the words that name nothing hidden."""
    table = Table(con, game, st, lang)
    last = None
    m = Match(game, st)
    while not m.is_over:
        dec = m.decision
        seat = dec.next_seat(prefer=agents)  # at a secret pick bots pick first: nothing they pick is printed
        opts = m.legal(seat)
        if seat in agents:
            offered = seat_options(game, st, seat, opts)
            choice = accept(game, st, seat, agents[seat].choose(game, Seen(game, st, seat), seat, offered))
            con.print(f"[cyan]{printed(_bot_move(game, st, seat, choice, dec.simultaneous, watcher, lang))}[/cyan]")
        else:
            if len(people) > 1 and seat != last:
                con.clear()
                con.rule(_say(lang, "pass_to", player=_pname(seat, lang)))
                try:
                    input_fn(_say(lang, "enter", player=_pname(seat, lang)))
                except EOFError:
                    return False
                con.clear()
            last = seat
            table.look(seat)
            offered = seat_options(game, st, seat, opts)
            asked = dec.prompt or {}
            prompt = asked.get(lang) or asked.get("en") or _say(lang, "action" if dec.turn else "choose")
            con.print(f"[bold]{_pname(seat, lang)}: {printed(prompt)}[/bold]")
            for i, text in enumerate(labels(offered, lang), 1):
                con.print(f"  {i}. {printed(text)}")
            try:
                raw = input_fn("> ").strip()
            except EOFError:
                return False
            if raw in ("q", "quit"):
                return False
            if raw == "s":
                table.look(seat, everything=True)
                continue
            # (only ASCII digits read as a number: `²` is a digit to isdigit(), not to int())
            number = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else 0
            if not 1 <= number <= len(offered):
                con.print(f"[red]{_say(lang, 'number')}[/red]")
                continue
            try:
                choice = accept(game, st, seat, offered[number - 1]["id"])
            except IllegalChoice as exc:
                con.print(f"[red]{printed(exc)}[/red]")
                continue
        m.apply(seat, choice)
    return True
