"""`rulepress secrets`: a canary scan for secrets that leave their seat.

Random bots play; at every decision every seat's view (its options and log lines
included), the options its bot is handed, and the spectator's view are searched for
anything of a thing hidden from that seat: its id, its prototype, its name (unless a thing
of the same name is in sight, or was as the log line saying it was written; or the name is
that of a rule, place or counter, or of a kind of card the line names as a kind), and
counters marked hidden that the seat may not read. The first leak is reported with its
path through the view and the content line that wrote it.

Besides the engine's own rules of who sees what, the scan holds each view to what the
designer declared (`declared_leak`): a thing lying in a zone whose `visibility` names who
sees it (`owner`, `others`, a list of seats, `hidden`) reaches no other seat, whatever an
effect `show`ed, so a game that shows players their own hidden hands is caught. A card's
name said in a log line is no news to a seat that saw a card of that name at the last
decision (`log "{p} uses Chopsticks"` as the Chopsticks on the table go back to a hand).
"""
from __future__ import annotations

import json
import re
import weakref
from typing import NamedTuple

from .runtime.agents import RandomAgent, step
from .runtime.answers import accept
from .runtime.decision import Decision, IllegalChoice
from .runtime.flow import new_game
from .runtime.interpreter import GameFault
from .runtime.visibility import HANDLE, can_see, counter_visible, hidden_from, log_lines, offers_kinds, seat_options, zone_sight
from .runtime.views import view

MAX_DECISIONS = 3000  # per game scanned: a game that goes on longer is scanned that far


class Leak(NamedTuple):
    seat: str            # the seat that learns too much ("spectator" for a spectator)
    path: str            # where in what it is handed, e.g. view(p2).decision.options[0].id
    what: str            # the id, name or counter that leaked
    thing: str           # the hidden thing (or counter owner) it belongs to
    at: str | None       # the content line that made the leaking value, where known
    seed: str            # the game's seed: `rulepress play GAME --seed` replays it
    decision: int        # how many decisions into the game

    def text(self) -> str:
        where = f" (made at {self.at})" if self.at else ""
        return (f"leak: {self.what!r} of hidden {self.thing} reaches {self.seat} at {self.path}{where}; "
                f"seed {self.seed}, decision {self.decision}")


def _static_names(game) -> set:
    """Words the rules themselves print: a hidden card may share its name with them."""
    out = set()
    for table in (game.actions, game.zones, game.decks, game.pools, game.counters):
        for d in table.values():
            out.update(v for v in (d.get("name") or {}).values() if v)
    out.update(table for table in game.counters)
    return out


_NAMES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # game -> prototype -> its names


def _names_by_proto(game) -> dict:
    """Each prototype's names in every language, worked out once a game (a scan asks for
    them for every thing, seat and decision)."""
    got = _NAMES.get(game)
    if got is None:
        got = _NAMES[game] = {pid: frozenset(v for v in (p.get("name") or {}).values() if v)
                              for pid, p in game.protos.items()}
    return got


def _names_of(game, eid) -> frozenset:
    return _names_by_proto(game).get(game.proto_of.get(eid, ""), frozenset())


def _walk(v, path):
    """Every string in a payload (keys included) with its path."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield f"{path}.{k}[key]", k
            yield from _walk(x, f"{path}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _walk(x, f"{path}[{i}]")
    elif isinstance(v, str):
        yield path, v


class Witness:
    """Notes, as each log line is written, which of the hidden things' names it says could
    each seat then see on a thing of that name: a line that says `Guard` as a Guard is
    played face up tells nothing, even once that Guard is shuffled away again."""

    def __init__(self, game):
        self.game = game
        self.by_name: dict = {}
        for eid in game.proto_of:
            for n in _names_of(game, eid):
                self.by_name.setdefault(n, []).append(eid)
        names = sorted(self.by_name, key=len, reverse=True)
        self.word = re.compile("|".join(r"\b" + re.escape(n) + r"\b" for n in names)) if names else None
        self.seen: dict = {}  # log index -> seat ("*": a spectator) -> names in sight as it was written

    def __call__(self, st, i):
        entry = st["log"][i]
        if self.word is None:
            return
        said = set(self.word.findall("\n".join(entry.get(k) or "" for k in ("text", "unnamed", "ru", "unnamed_ru"))))
        things = st["things"]
        self.seen[i] = {("*" if seat is None else seat): {n for n in said if any(
            e in things and can_see(self.game, st, e, seat) for e in self.by_name[n])}
            for seat in list(st["players"]) + [None]}


def scan_state(game, st, view_fn=view, static=None, log_from=0, before=None, witness=None):
    """The first leak in what each seat and the spectator are handed now, or None.

    Log lines before `log_from` (an index into the state's log) were scanned when they were
    written: what was public then may be hidden now, and a past line is not a leak. A new
    line leaks a thing hidden from the seat now and at the last decision (`before`: seat ->
    the ids hidden then, filled in for the next call): a card claimed from the open market
    and logged on its way to a hand was seen by all."""
    before = {} if before is None else before
    static = _static_names(game) if static is None else static
    dec = Decision.of(game, st)
    for seat in list(st["players"]) + [None]:
        who = seat or "spectator"
        hidden = hidden_from(game, st, seat)
        was_hidden = before.get(who, hidden)
        before[who] = hidden
        if not hidden and not any(t["hidden"] for t in game.counters.values()) \
                and all(z["visibility"] == "public" for z in game.zones.values()):
            continue
        v = view_fn(game, st, seat)
        payloads = [(f"view({who})", v)]
        kinds = set()  # kinds of card offered as kinds: their ids and names are rule words there
        if seat is not None and dec is not None:
            if dec.asks(seat) and not dec.turn:
                options = dec.options_for(seat)
                payloads.append((f"options({who})", seat_options(game, st, seat, options)))
                if offers_kinds(game, st, options):
                    for o in options:
                        if o["id"] in game.protos:
                            kinds.add(o["id"])
                            kinds |= {n for n in (game.protos[o["id"]].get("name") or {}).values() if n}
        visible_ids = set(v.get("things", {})) if isinstance(v, dict) else set()
        seen_protos = {game.proto_of.get(eid) for eid in visible_ids}
        by_proto = _names_by_proto(game)
        seen_names = set(static).union(*(by_proto[p] for p in seen_protos if p in by_proto))
        ids = {eid: eid for eid in hidden}
        protos = {}
        names = {}
        for eid in sorted(hidden):
            pid = game.proto_of.get(eid)
            if pid and pid not in seen_protos and pid not in static and pid not in game.counters:
                protos.setdefault(pid, eid)
            for n in _names_of(game, eid) - seen_names:
                names.setdefault(n, eid)
        rules = _static_words(static)
        word = re.compile("|".join(r"\b" + re.escape(n) + r"\b" for n in sorted(names, key=len, reverse=True))) if names else None
        lines = log_lines(st, seat)  # where in the state's log each line of the view is
        log = v.get("log") or [] if isinstance(v, dict) else []
        if len(log) != len(lines):  # a view that does not hand out lines as log_for does
            lines = list(range(len(st["log"]) - len(log), len(st["log"])))
        for base, payload in payloads:
            strings = set(_QUOTED.findall(json.dumps(payload, ensure_ascii=False)))
            if strings.isdisjoint(ids) and strings.isdisjoint(protos) and strings.isdisjoint(names) \
                    and (word is None or not any(map(word.search, strings))):
                continue  # nothing to find: the walk below says where, and costs more
            for path, s in _walk(payload, base):
                if s in kinds and (".options[" in path or path.startswith("options(")):
                    continue
                m = _LOG_LINE.search(path)
                if m and (lines[int(m.group(1))] < log_from or log[int(m.group(1))].get("private")):
                    continue  # scanned when written, or told to this seat on purpose (`log X to P`)
                thing = ids.get(s) or names.get(s)
                if thing is None and path.endswith((".type", ".id", ".label.en", ".label.ru")):
                    thing = protos.get(s)  # a prototype's id where a thing's would be
                if thing is not None and m and thing not in was_hidden:
                    thing = None
                if thing is None and m:  # the line itself says it names a thing kept from this seat
                    thing, s = _named_hidden(game, st["log"][lines[int(m.group(1))]], seat, s, was_hidden) or (None, s)
                if thing is None and word is not None and m:
                    words = _rule_words(game, st["log"][lines[int(m.group(1))]], seat, rules).sub("\x00", s)
                    found = word.search(words)
                    written = witness.seen.get(lines[int(m.group(1))]) if witness is not None else None
                    if found and written is not None:  # in sight as the line was written, or at the last decision: no news
                        if found.group(0) not in written.get("*" if seat is None else seat, ()) \
                                and not any(e in st["things"] and e not in was_hidden for e in witness.by_name[found.group(0)]):
                            thing, s = names[found.group(0)], found.group(0)
                    elif found and names[found.group(0)] in was_hidden:
                        thing, s = names[found.group(0)], found.group(0)
                if thing is not None:
                    return Leak(who, path, s, thing, _made_at(st, path, lines), st["seed"], len(st["history"]))
        leak = _counter_leak(game, st, v, seat, who) or declared_leak(game, st, v, seat)
        if leak is not None:
            return leak
    return None


def declared_leak(game, st, v, seat):
    """A thing in a seat's view that its zone's declared `visibility` keeps from that seat
    (shown to it by an effect against what the designer said), or None."""
    who = seat or "spectator"
    for eid in (v.get("things") or {}) if isinstance(v, dict) else ():
        ent = st["things"].get(eid)
        if ent is None or eid in st["players"]:
            continue
        name = ent["zone"].split(".", 1)[-1]
        decl = (game.zones.get(name) or {}).get("visibility")
        if decl in (None, "public") or zone_sight(game, ent["zone"], seat) is not False:
            continue
        said = decl if isinstance(decl, str) else "[" + ", ".join(decl) + "]"
        return Leak(who, f"view({who}).things.{eid}", f"{eid} (in {ent['zone']}, `visibility: {said}`)", eid, None,
                    st["seed"], len(st["history"]))
    return None


def _static_words(static) -> list:
    """The names the rules print, longest first: a line that says an action `Tax (Duke)`
    says a rule, not where a Duke is."""
    return sorted((n for n in static if isinstance(n, str) and n), key=len, reverse=True)


def _named_hidden(game, entry, seat, text, was_hidden):
    """(thing, its name) where a log line named a thing the seat could not read it with,
    and the text the seat was handed still says its name; else None."""
    if "seen" not in entry or ("*" if seat is None else seat) in entry["seen"]:
        return None
    for x in entry.get("named") or ():
        if x in was_hidden:
            for n in sorted(_names_of(game, x), key=len, reverse=True):
                if re.search(r"\b" + re.escape(n) + r"\b", text):
                    return x, n
    return None


def _rule_words(game, entry, seat, rules):
    """What in a log line are words of the rules rather than news of a hidden thing: the
    names the rules print, the name of a kind of card the line's values name as a kind
    (`claims the {role}`), and the name of a thing it named while the seat could see it
    (a card played face up, since shuffled back). Matched whole, longest first."""
    told = set()
    me = "*" if seat is None else seat
    for x in entry.get("named") or ():
        if x in game.proto_of:
            if "seen" not in entry or me in entry["seen"]:
                told |= _names_of(game, x)
        elif x in game.protos:
            told |= {v for v in (game.protos[x].get("name") or {}).values() if v}
    said = sorted(told, key=len, reverse=True) + rules
    return re.compile("|".join(map(re.escape, said)) if said else "(?!)")


_LOG_LINE = re.compile(r"\.log\[(\d+)\]")
_QUOTED = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"')  # every string of a JSON text (unrolled: 2x faster)


# ---- refusals: what a seat is told of an answer it may not give ------------------

def said_in(game, st, seat, text: str):
    """(what, thing): the first id, kind or name of a thing hidden from `seat` that a text
    handed to it says anywhere in it (a refusal, an error line); None if it says none. A
    name or kind also borne by a thing in sight, or printed by the rules, says nothing."""
    hidden = hidden_from(game, st, seat)
    seen_names, seen_protos = set(_static_names(game)), set()
    for eid in st["things"]:
        if eid not in hidden:
            seen_names |= _names_of(game, eid)
            seen_protos.add(game.proto_of.get(eid))
    words = {}
    for eid in sorted(hidden):
        words.setdefault(eid, eid)
        pid = game.proto_of.get(eid)
        if pid and pid not in seen_protos and pid not in game.counters:
            words.setdefault(pid, eid)
        for n in _names_of(game, eid) - seen_names:
            words.setdefault(n, eid)
    for w in sorted(words, key=len, reverse=True):
        if re.search(r"(?<![\w#])" + re.escape(w) + r"(?![\w#])", text):
            return w, words[w]
    return None


def probes(game, st, seat) -> list:
    """Answers a seat could send that are none of its options: a handle to each place of
    every zone (hidden thing or not, and past either end), every thing's own id, every
    kind, every player, action and zone, and handles that name no place."""
    out = []
    for key in sorted(st["zones"]):
        n = len(st["zones"][key])
        out += [f"{HANDLE}{key}#{i}" for i in range(0, n + 2)]
        out.append(key)
    out += sorted(st["things"]) + sorted(game.protos) + sorted(game.actions) + ["pass"]
    out += [HANDLE, f"{HANDLE}#1", f"{HANDLE}{HANDLE}", f"{HANDLE}nowhere#1", f"{HANDLE}{seat}#-1", f"{HANDLE}{seat}#1e3"]
    return out


def scan_answers(game, st, answer, deciding) -> Leak | None:
    """The first refusal that names a thing hidden from the seat it is said to: each seat
    that decides now (`deciding`) sends every probe that is not among its options
    (`answer(seat, choice)`: the text it is told, None where the answer was taken)."""
    for seat in deciding:
        offered = {o["id"] for o in seat_options(game, st, seat, Decision.of(game, st).options_for(seat))}
        checked = set()  # replies already read: most are the same line
        for choice in probes(game, st, seat):
            if choice in offered:
                continue
            reply = answer(seat, choice)
            if reply is None:
                return Leak(seat, f"answer({choice!r})", choice, "an answer that is not an option was taken",
                            None, st["seed"], len(st["history"]))
            if reply in checked:
                continue
            checked.add(reply)
            found = said_in(game, st, seat, reply)
            if found is not None:
                return Leak(seat, f"answer({choice!r})", found[0], found[1], None, st["seed"], len(st["history"]))
    return None


def _counter_leak(game, st, v, seat, who):
    for owner, table in list((v.get("players") or {}).items()) + list((v.get("things") or {}).items()):
        for c in (table.get("counters") or {}):
            if c in game.counters and not counter_visible(game, st, owner, c, seat):
                section = "players" if owner in st["players"] else "things"
                return Leak(who, f"view({who}).{section}.{owner}.counters.{c}", c, owner, None,
                            st["seed"], len(st["history"]))
    for c in (v.get("counters") or {}):
        if c in game.counters and game.counters[c]["hidden"]:
            return Leak(who, f"view({who}).counters.{c}", c, "game", None, st["seed"], len(st["history"]))
    return None


def _made_at(st, path, lines):
    """The content line behind a leaking value: the pending decision's, or the log line's."""
    if ".decision." in path or path.startswith("options("):
        d = st["pending"]
        return d.get("at") if d else None
    m = _LOG_LINE.search(path)
    if m and int(m.group(1)) < len(lines):
        return st["log"][lines[int(m.group(1))]].get("at")
    return None


def refusal(game, st, seat, choice):
    """What runtime/answers tells `seat` of `choice`: None where it is taken."""
    try:
        accept(game, st, seat, choice)
    except IllegalChoice as exc:
        return str(exc)
    return None


def deciding(st) -> list:
    """The seats a decision waits on now."""
    dec = Decision.of(None, st)  # (who waits needs no rules)
    return [] if dec is None else dec.waiting


def scan(game, n=20, seed=0, players=None, view_fn=view, max_decisions=MAX_DECISIONS, answers=False, every=1, head=0):
    """Play `n` random games and scan every decision; the first leak, or None.
    `answers`: also what each deciding seat is told of every answer that is none of its
    options (scan_answers). `every` > 1 scans the first `head` decisions of each game, then
    every `every`th, each decision the first time its place in the rules is met (its kind
    and the line that asks it), and its end: the log lines written in between
    are read at the next decision scanned (those still among a view's last lines), and a
    thing in sight is found while it stays there. Returns (leak, decisions scanned)."""
    players = players or game.players_min
    static = _static_names(game)
    witness = Witness(game)
    game.cache.log_hook = witness
    try:
        return _scan(game, n, seed, players, view_fn, max_decisions, static, witness, answers, max(1, every), head)
    finally:
        game.cache.log_hook = None


def _scan(game, n, seed, players, view_fn, max_decisions, static, witness, answers, every, head):
    scanned = 0
    for i in range(n):
        s = f"{seed}:{i}"
        st = new_game(game, players, s)
        agents = {p: RandomAgent(f"{s}:{p}") for p in st["players"]}
        k = logged = 0
        before = {}
        met = set()  # where in the rules the decisions scanned were asked
        witness.seen.clear()
        while st["pending"] is not None and k < max_decisions:
            k += 1
            site = (st["pending"].get("kind"), st["pending"].get("at"))  # (every seat's view is scanned at each)
            if k <= head or k % every == 0 or site not in met:
                met.add(site)
                scanned += 1
                leak = scan_state(game, st, view_fn, static, logged, before, witness)
                if leak is None and answers:
                    leak = scan_answers(game, st, lambda seat, c: refusal(game, st, seat, c), deciding(st))
                if leak is not None:
                    return leak, scanned
                logged = len(st["log"])
            try:
                step(game, st, agents)
            except (GameFault, RuntimeError):
                break  # a content fault is `rulepress simulate`'s to report, not a leak
        if st["pending"] is None:
            scanned += 1
            leak = scan_state(game, st, view_fn, static, logged, before, witness)
            if leak is not None:
                return leak, scanned
    return None, scanned
