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
from .runtime.visibility import can_see, handle_of, log_lines, remember, seat_options
from .runtime.views import view
from .naming import catalogue, value_name, zone_label
from .runtime.state import zone_name, zone_owner
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
           "each_hidden": "each of the {n} hidden",
           "dice": "dice: {dice}  (roll {n})", "as_before": "({n} lines as before; s shows them)", "bot": "{player} (bot)",
           "secret": "{who} has made a secret choice", "chooses": "{who} chooses {what}", "chosen": "{who} has chosen",
           "seed": "seed {seed} (rulepress play {game} --seed {seed} plays this game again)", "over": "game over",
           "wins": "wins", "no_winner": "no winner", "pass_to": "pass to {player}", "enter": "{player}: press Enter ",
           "action": "Your action", "choose": "Choose", "number": "type the number of a choice (s shows the table, q quits)",
           "yes": "yes", "no": "no", "supply": "Supply", "of_place": "{zone} ({place})",
           "log_written": "log written to {path}", "log_failed": "the log could not be written to {path} ({why}); here it is:"},
    "ru": {"round": "раунд {n} · первый игрок: {player}", "you": " (вы)", "game": "игра", "hidden": "{n} (скрыто)",
           "each_hidden": "у каждой скрытой ({n})",
           "dice": "кубики: {dice}  (бросок {n})", "as_before": "(без изменений строк: {n}; s покажет их)", "bot": "{player} (бот)",
           "secret": "{who}: тайный выбор сделан", "chooses": "{who} выбирает: {what}", "chosen": "{who}: выбор сделан",
           "seed": "сид {seed} (rulepress play {game} --seed {seed} сыграет эту партию снова)", "over": "конец игры",
           "wins": "победа", "no_winner": "победителя нет", "pass_to": "ход за: {player}", "enter": "{player}: нажмите Enter ",
           "action": "Ваше действие", "choose": "Выберите", "number": "введите номер варианта (s — стол, q — выход)",
           "yes": "да", "no": "нет", "supply": "Запас", "of_place": "{zone} ({place})",
           "log_written": "журнал партии записан в {path}", "log_failed": "журнал партии не удалось записать в {path} ({why}); вот он:"},
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
    """The table as `seat` sees it, one line per player, counter line and zone, in the words
    the online table uses (rulepress/naming.py): no ids, no bookkeeping counters."""
    v = view(game, st, seat)
    said = _Said(catalogue(game), st["players"], lang)
    lines = [_say(lang, "round", n=v["round"], player=_pname(v["first_player"], lang))]
    for p, d in v["players"].items():
        marks = f" [{', '.join(said.mark(m) for m in d['marks'])}]" if d["marks"] else ""
        lines.append(f"{_pname(p, lang)}{_say(lang, 'you') if p == seat else ''}: {said.counters(d['counters'])}{marks}")
    if said.counters(v["counters"]):
        lines.append(_say(lang, "game") + ": " + said.counters(v["counters"]))
    for key, z in v["zones"].items():
        if key in ("players", "removed") or (not z["things"] and not z["hidden"]):  # (removed: out of the game)
            continue
        things = _collapsed(_pname(e, lang) if e in said.seats else game.name(e, lang) for e in z["things"])
        hidden = f"{' + ' if things else ''}{_say(lang, 'hidden', n=z['hidden'])}" if z["hidden"] else ""
        lines.append(f"{said.zone(game, key)}: {things}{hidden}")
        facts = [(f, ", ".join([f"{said.name('counters', k)} {said.value(val)}" for k, val in (f.get("counters") or {}).items()]
                               + [said.mark(m) for m in f.get("marks") or ()])) for f in z.get("facts", ())]
        if len(facts) > 1 and len(facts) == z["hidden"] and len({known for _, known in facts}) == 1:
            lines.append(f"  {_say(lang, 'each_hidden', n=len(facts))}: {facts[0][1]}")  # (a deck whose backs all say the same)
            continue
        for f, known in facts:  # what is known of a hidden thing: "card 2 of Player 1's Hand: Told value 1"
            lines.append(f"  {f['label'].get(lang) or f['label']['en']}: {known}")
    rolled = st.get("rolled")
    if rolled:
        lines.append(_say(lang, "dice", dice=" ".join(str(x) for x in rolled[1:]), n=rolled[0]))
    return lines


class _Said:
    """A view's ids in a language's words, as the online table says them (table.js: counterValue,
    worthShowing): a seat by its name, a thing or place by its name, yes and no in words; a
    counter that is the rules' bookkeeping, or has no value worth a word, is left out."""

    def __init__(self, names: dict, seats: list, lang: str):
        self.names, self.seats, self.lang = names, set(seats), lang

    def name(self, table: str, key) -> str:
        n = self.names[table].get(key) or {}
        return n.get(self.lang) or n.get("en") or str(key)

    def value(self, v) -> str:
        if v is None:
            return "–"
        if type(v) is bool:
            return SAY[self.lang]["yes" if v else "no"]
        if isinstance(v, str):
            if v in self.seats:
                return _pname(v, self.lang)
            named = value_name(self.names, v)
            if named is not None:
                return named.get(self.lang) or named.get("en") or v
        return str(v)

    def worth(self, c, v) -> bool:
        if c in self.names["internal"] or v is None or v is False or isinstance(v, (list, dict)):
            return False
        if isinstance(v, str):
            return v in self.seats or value_name(self.names, v) is not None
        return not (isinstance(v, (int, float)) and v < 0)

    def counters(self, cs: dict) -> str:
        return ", ".join(f"{self.name('counters', c)} {self.value(v)}" for c, v in cs.items() if self.worth(c, v))

    def mark(self, m) -> str:
        return self.name("marks", m)

    def zone(self, game, key) -> str:
        """A zone's title: its name, whose it is (a player's hand, a place's stack) where it
        is someone's or something's."""
        owner, name = zone_owner(key), zone_name(key)
        if owner is None:
            if name == "supply" and "ru" not in (zone_label(self.names, name) or {}):
                return SAY[self.lang]["supply"]  # (the engine's own zone: no name in the game)
            return self._zone_name(name)
        if owner in self.seats:
            return place_label(game, key).get(self.lang) or place_label(game, key)["en"]
        return SAY[self.lang]["of_place"].format(zone=self._zone_name(name), place=game.name(owner, self.lang))

    def _zone_name(self, name) -> str:
        n = zone_label(self.names, name) or {}
        return n.get(self.lang) or n.get("en") or name


def _title(game, lang) -> str:
    n = game.data["game"].get("name") or {}
    return n.get(lang) or n.get("en") or game.id if isinstance(n, dict) else str(n)


class Table:
    """What has been printed to each seat, so the next look shows only what changed."""

    def __init__(self, con, game, st, lang):
        self.con, self.game, self.st, self.lang = con, game, st, lang
        self.shown = {}  # seat -> the lines it saw last
        self.logged = {}  # seat -> how many log lines it has read

    def look(self, seat, everything=False):
        lines = table_lines(self.game, self.st, seat, self.lang)
        before = set() if everything else set(self.shown.get(seat, ()))
        self.con.rule(f"{printed(_title(self.game, self.lang))} · {_pname(seat, self.lang)}")
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
            con.print(_say(lang, "log_failed", path=log_path, why=exc.strerror), markup=False)
            print(log)
            return st
        con.print(_say(lang, "log_written", path=log_path), markup=False)
    return st


def _turns(game, st, con, agents, people, watcher, lang, input_fn) -> bool:
    """The game's decisions, each by a bot or a person at the keyboard, to the end
    (True) or until someone quits (False). A person picks by number among the options as
    offered; whatever is picked goes through runtime/answers.accept like a move at the
    online table, so a refusal is said in the words that name nothing hidden."""
    table = Table(con, game, st, lang)
    last = None
    m = Match(game, st)
    if any(getattr(a, "remembers", False) for a in agents.values()):
        remember(st)
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
