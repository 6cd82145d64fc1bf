"""Rooms: a game at a table, its seats, and the one order in which changes reach it.

Every change of a room (a move, a host action, a seat taken or freed) is made under the
room's asyncio.Lock, checked against the room's version, written to the store in one
transaction, and only then shown to the room's sockets. A move is applied to the live
game first and stored after; where either fails, the live game is thrown away and
rebuilt from the store, which holds only whole moves. The live game itself is where the
engine keeps it (engine.py: a thread of the room's own, or a worker process); the room
here holds its summary (who decides, how many moves).

Several processes may share a store (PostgreSQL): each holds the rooms its sockets are at,
and every change is written only if it follows the store's version of the room (a
Conflict otherwise). A process that loses such a race, or hears that a room changed
elsewhere, catches up: the room's row and seats read again and the moves it has not played
applied, so whichever process a seat's socket reaches, it plays the one game the store holds.

Bots fill seats the host gives them. A bot is handed what its seat may know and nothing
more (runtime/agents.ask: the seat's `Seen` and its options as handles), and its choices
are stored like anyone's, so a room replays without asking it again.
"""
from __future__ import annotations

import asyncio
import hmac
import secrets as token_source
import time
from typing import NamedTuple

from ..runtime.flow import IllegalChoice, new_game
from . import limits, messages
from .engine import GameWorkFault, ThreadEngine
from .limits import Refused
from .store import Conflict, Move, RoomRow, SeatRow, Store, token_hash

RACES = 3  # a change lost to another process this many times in a row is refused as stale
BOT_MOVES = 5000  # bot choices in a row before the room waits for a person again (a bound, never met in play)
CHOICE_CHARS = 200
NOT_PLAYED = "the move could not be played; the game is as it was before it"
HOST_ACTIONS = ("start", "pause", "resume", "free", "lobby", "new", "bot")
# the table's own option, kept among the room's options under a name no game option can have:
# spectators see every seat's cards (the host's choice when the room is made; off by default)
SEE_ALL = "table:spectators see all"


class Joined(NamedTuple):
    room: "Room"
    seat: str
    token: str


class Outcome(NamedTuple):
    """What became of a client's message: accepted (the room changed), refused as stale, or an error."""
    changed: bool
    stale: bool = False
    error: str | None = None


class Room:
    def __init__(self, game, row: RoomRow, seats: list[SeatRow], engine=None):
        self.game = game
        self.engine = engine if engine is not None else ThreadEngine({game.id: game})
        self.summary = None  # engine.summary of the live game; None in the lobby
        self.rebuild = None  # Tables._rebuild: the live game set up again from the store
        self.code = row.code
        self.row = row
        self.seats = {s.seat: s for s in seats}
        self.lock = asyncio.Lock()
        self.sockets: set = set()  # app.Conn objects, each with .seat (None: a spectator)
        self.presence_due = None   # the timer that tells the pages who came and went (app.presence)
        self.peers_sent = None     # the seats connected, as last told to the seats
        self.signal_rates: dict = {}  # seat -> limits.Rate of its voice signalling
        self.frames: dict = {}     # messages.table_text's frames of this version
        self.sights: dict = {}     # seat -> {version: what it could see then} (messages.sight)
        self.gone = False          # the store no longer serves it (deleted elsewhere, or unreadable)
        self.catching = False      # a catch-up after another process's change is on its way (app)
        # the highest version other processes said they reached by moves alone since the last
        # catch-up; None: something else changed too (the catch-up reads the room whole)
        self.noted: int | None = 0
        self.by_moves = False      # the last catch-up read only moves (Tables._play_noted)
        self.faces = None          # faces.Faces of the server: the cards' pictures (messages.keep)

    async def call(self, op, *args):
        """Game work (engine.Games.op_*) where the room's game is, never on the event loop:
        a long effect holds up its own room alone."""
        return await self.engine.call(self, op, *args)

    async def prepare(self, seats) -> None:
        """The parts of the `table` messages of these seats at this version, made where the
        game is (messages.table_text then only adds who is connected)."""
        need = messages.missing(self, seats)
        if need:
            at = messages.at(self)
            try:
                got = await self.call("parts", self.engine.meta(self), need)
            except GameWorkFault:  # (its worker was lost: the game set up again from the store)
                await self.rebuild(self)
                got = await self.call("parts", self.engine.meta(self), need)
            if messages.at(self) == at:
                for seat, part in got.items():
                    messages.keep(self, seat, part)

    def part_now(self, seat):
        """(A part not prepared: made now, waited for on this thread.)"""
        return self.engine.call_now(self, "parts", self.engine.meta(self), [seat])[seat]

    def close(self) -> None:
        self.engine.drop(self.code)

    @property
    def st(self):
        """The live game where it is in this process (the ThreadEngine: tests look at it), else None."""
        return self.engine.state(self.code)

    @st.setter
    def st(self, st) -> None:
        from .engine import summary
        self.engine.set_state(self, st)
        self.summary = summary(self.game, st)

    @property
    def status(self) -> str:
        return self.row.status

    @property
    def version(self) -> int:
        return self.row.version

    @property
    def game_options(self) -> dict:
        """The options the game is set up with (the room's, but the table's own)."""
        return {k: v for k, v in self.row.options.items() if k != SEE_ALL}

    @property
    def spectators_see_all(self) -> bool:
        return self.row.options.get(SEE_ALL) is True

    def seed(self) -> str:
        return f"{self.row.seed}:{self.row.game_no}"

    def host_seat(self) -> str:
        return next(s.seat for s in self.seats.values() if s.host)

    def connected(self) -> set:
        return {c.seat for c in self.sockets if c.seat is not None}

    def deciding(self) -> list:
        d = self.summary["pending"] if self.summary is not None else None
        return [] if d is None else list(d["waiting"])

    def waits_on_bots(self) -> bool:
        d = self.deciding() if self.status == "playing" else []
        return bool(d) and all(s in self.seats and self.seats[s].bot for s in d)

    def seat_of(self, token) -> str:
        """The seat a token opens; the same refusal for any token that opens none."""
        if isinstance(token, str) and 0 < len(token) <= 200:
            h = token_hash(token)
            for s in self.seats.values():
                if s.token_hash is not None and hmac.compare_digest(s.token_hash, h):
                    return s.seat
        raise Refused("this link does not open a seat of this room", 403)


class Tables:
    """Every room of the server, loaded from the store when first asked for."""

    def __init__(self, games: dict, store: Store, clock=time.time, engine=None, faces=None):
        self.games = games  # game id -> runtime.tables.Game
        self.faces = faces  # faces.Faces, or None: cards shown by their names
        self.store = store
        self.engine = engine if engine is not None else ThreadEngine(games)
        self.clock = clock
        self.rooms: dict[str, Room] = {}
        self.made_by: dict[str, list] = {}  # address -> codes of the rooms it made (ROOMS_PER_ADDRESS)
        self.loading: dict[str, asyncio.Future] = {}  # code -> its load under way (get)

    # ---- finding rooms ---------------------------------------------------------------

    async def get(self, code) -> Room | None:
        """The room of a code, loaded from the store the first time: its game is set up again
        where games run (engine.call), the event loop serving every other room meanwhile;
        callers asking for a room while it loads wait for the one load."""
        code = limits.room_code(code)
        if code is None:
            return None
        room = self.rooms.get(code)
        if room is not None:
            return room
        loading = self.loading.get(code)
        if loading is None:
            loading = self.loading[code] = asyncio.ensure_future(self._load(code))
            loading.add_done_callback(lambda _: self.loading.pop(code, None))
        return await asyncio.shield(loading)

    async def _load(self, code) -> Room | None:
        row = self.store.room(code)
        if row is None or row.game not in self.games or self.games[row.game].hash != row.game_hash:
            return None  # (a game changed since: its stored moves would play another game)
        try:
            room = Room(self.games[row.game], row, self.store.seats(code), self.engine)
            room.rebuild = self._rebuild
            room.faces = self.faces
            if sorted(room.seats, key=_seat_order) != [f"p{i + 1}" for i in range(row.players)]:
                return None  # (not the seats this server makes: a store written by someone else)
            room.summary = None if room.status == "lobby" else await room.call("load", *self._setup(room))
        except Exception:  # its moves no longer play (the game was rebuilt since), or a row of
            return None    # a shape this server never writes: not served
        return self.rooms.setdefault(code, room)

    async def room(self, code) -> Room:
        room = await self.get(code)
        if room is None:
            raise Refused("no room with this code", 404)
        return room

    def _setup(self, room: Room) -> tuple:
        """How the room's game is set up again (engine.Games.op_load): the seed, then every stored move."""
        played = [tuple(m) for m in self.store.moves(room.code, room.row.game_no)]
        return room.game.id, room.row.players, room.seed(), room.game_options, played

    async def _rebuild(self, room: Room) -> None:
        """The room's game as the store has it: the seed, then every stored move again."""
        if room.status == "lobby":
            room.summary = None
            room.engine.drop(room.code)
            return
        room.summary = await room.call("load", *self._setup(room))

    async def catch_up(self, room: Room, moves_to: int | None = None) -> bool:
        """The room as the store holds it now, after changes another process made; call under
        room.lock. Whether anything changed. A room the store no longer serves (deleted, or
        rows this server never writes) is closed to its sockets by the caller (`room.gone`).
        `moves_to`: other processes said they took the room to this version by moves alone
        (app.changed_elsewhere); then only its new moves are read, if that is what they are."""
        room.by_moves = False
        if moves_to is not None:
            if moves_to <= room.version:
                return False  # (said of changes this process has seen already: its own)
            if await self._play_noted(room, moves_to):
                room.by_moves = True
                return True
        row = self.store.room(room.code)
        if row is not None and row.version == room.version:
            return False
        if row is None or row.version < room.version or row.game != room.game.id or row.game_hash != room.game.hash:
            room.gone = True
            return True
        try:
            seats = {s.seat: s for s in self.store.seats(room.code)}
            if sorted(seats) != sorted(room.seats):
                raise ValueError("seats")
            playing = room.summary is not None and row.status != "lobby" and row.game_no == room.row.game_no
            room.row, room.seats = row, seats
            if playing:
                await self._play_stored(room)
            else:
                await self._rebuild(room)
        except Exception:
            room.gone = True
        return True

    async def _play_noted(self, room: Room, version: int) -> bool:
        """The room taken to `version` by the moves stored since the live game's last, read
        alone (no look at the room's row or seats): a move changes neither but the version and
        whether the game is over. Only where as many moves follow on as versions were made;
        else (another change among them, or a note nobody's move made) False, nothing changed."""
        if room.summary is None or room.status != "playing":
            return False
        more = self.store.moves(room.code, room.row.game_no, room.summary["history"])
        if len(more) != version - room.version:
            return False
        try:
            room.summary = await room.call("more", [tuple(m) for m in more])
        except Exception:  # (moves that do not play here: the game set up again, the room read whole)
            await self._rebuild(room)
            return False
        status = "finished" if room.summary["pending"] is None else "playing"
        room.row = room.row._replace(version=version, status=status)
        return True

    async def _play_stored(self, room: Room) -> None:
        """The stored moves the live game has not played yet; from the seed again when they do
        not follow on (a move this process applied and then lost the race to store)."""
        try:
            more = self.store.moves(room.code, room.row.game_no, room.summary["history"])
            if more:
                room.summary = await room.call("more", [tuple(m) for m in more])
        except Exception:
            await self._rebuild(room)

    async def _caught_up(self, room: Room) -> None:
        """Before a change: where other processes share the store, the room as it is there."""
        if self.store.shared and self.store.version(room.code) != room.version:
            await self.catch_up(room)

    # ---- rooms and seats -------------------------------------------------------------

    async def create(self, game_id, players, options, name, address="?", see_all=False) -> Joined:
        game = self.games.get(game_id) if isinstance(game_id, str) else None
        if game is None:
            raise Refused("no such game here")
        if not isinstance(players, int) or isinstance(players, bool) \
                or not game.players_min <= players <= game.players_max:
            raise Refused(f"{game.id} is for {game.players_min} to {game.players_max} players")
        options = limits.game_options(game, options)
        await asyncio.to_thread(playable, game, players, options)  # (a setup: off the event loop too)
        if see_all is not False:
            if see_all is not True:
                raise Refused("`spectators_see_all` is true or false")
            options = {**options, SEE_ALL: True}
        name = limits.display_name(name)
        made = [c for c in self.made_by.get(address, []) if c in self.rooms and self.store.room(c) is not None]
        if address is not None and len(made) >= limits.ROOMS_PER_ADDRESS:
            raise Refused(f"{limits.ROOMS_PER_ADDRESS} rooms made from this address are open already", 429)
        if self.store.count_rooms() >= limits.ROOMS_OPEN:
            raise Refused("too many rooms are open; try again later", 503)
        for _ in range(100):  # 31^6 codes: a clash is rare, a hundred in a row never happens
            code = limits.new_code()
            if self.store.room(code) is None:
                break
        else:  # pragma: no cover
            raise Refused("no free room code; try again later", 503)
        now = self.clock()
        row = RoomRow(code, game.id, game.hash, players, options, token_source.token_hex(8), "lobby", 1, 0, now, now)
        token = token_source.token_urlsafe(24)
        host = SeatRow("p1", name, token_hash(token), False, True)
        try:
            await self.store.create_room(row, host)
        except Exception:  # (another process took the code between the look and the write)
            raise Refused("the room could not be made; try again", 503) from None
        room = Room(game, row, self.store.seats(code), self.engine)
        room.rebuild = self._rebuild
        room.faces = self.faces
        self.rooms[code] = room
        if len(self.made_by) > 50_000:  # (a bound: forgetting who made what only frees their quota)
            self.made_by.clear()
        if address is not None:
            self.made_by[address] = made + [code]
        return Joined(room, "p1", token)

    async def join(self, code, name) -> Joined:
        room = await self.room(code)
        name = limits.display_name(name)
        async with room.lock:
            for _ in range(RACES):
                await self._caught_up(room)
                if room.gone:
                    break
                if room.status != "lobby":
                    raise Refused("the game at this table has started", 409)
                free = [s for s in sorted(room.seats, key=_seat_order) if not _taken(room.seats[s])]
                if not free:
                    raise Refused("every seat at this table is taken", 409)
                token = token_source.token_urlsafe(24)
                try:
                    await self._set_seat(room, SeatRow(free[0], name, token_hash(token), False, False))
                except Conflict:  # another process seated someone first: look again
                    await self.catch_up(room)
                    continue
                return Joined(room, free[0], token)
        raise Refused("the table is changing fast; try again", 409)

    async def _set_seat(self, room: Room, seat: SeatRow) -> None:
        await self.store.set_seat(room.code, room.version + 1, seat)
        room.seats[seat.seat] = seat
        room.row = room.row._replace(version=room.version + 1)

    async def _set_status(self, room: Room, status: str, game_no: int | None = None) -> None:
        game_no = room.row.game_no if game_no is None else game_no
        await self.store.set_status(room.code, room.version + 1, status, game_no)
        room.row = room.row._replace(status=status, version=room.version + 1, game_no=game_no)

    # ---- play ------------------------------------------------------------------------

    async def move(self, room: Room, seat: str, version, choice) -> Outcome:
        """A seat's choice; call under room.lock. A move that another process's change beat to
        the store is tried again on the room caught up, as if it had come just after that one."""
        for _ in range(RACES):
            await self._caught_up(room)
            if room.gone:
                return Outcome(False, error="this room is no longer served")
            try:
                return await self._move(room, seat, version, choice)
            except Conflict:
                await self.catch_up(room)
        return Outcome(False, stale=True)

    async def _move(self, room: Room, seat: str, version, choice) -> Outcome:
        if room.status != "playing":
            return Outcome(False, error={"lobby": "the game has not started", "paused": "the game is paused",
                                         "finished": "the game is over"}[room.status])
        if version != room.version:
            await room.prepare([seat])
            if not _unchanged_for(room, seat, version):
                return Outcome(False, stale=True)
        if seat not in room.deciding():
            waiting = ", ".join(_name(room, s) for s in room.deciding())
            return Outcome(False, error=f"it is not your decision; waiting for {waiting}")
        if not isinstance(choice, str) or not 0 < len(choice) <= CHOICE_CHARS:
            return Outcome(False, error="a choice is one of the options' ids")
        # only what this seat was offered, turn actions and questions alike: a handle to a
        # card never offered, or a hidden card's own id, is refused in the same words as a
        # guess, so a refusal names nothing the seat may not see. Checked, played and the
        # connected seats' new tables made where the game is, in one call.
        seats = [c.seat for c in list(room.sockets)]
        meta = dict(room.engine.meta(room), version=room.version + 1)
        try:
            out = await room.call("play", seat, choice, meta, seats)
        except Exception:  # a fault of the content while the answer was checked or played
            await self._rebuild(room)
            return Outcome(False, error=NOT_PLAYED)
        if out[0] == "refused":
            return Outcome(False, error=out[1])
        if out[0] == "illegal":  # refused before the state changed (the flow's words name every option: not said)
            return Outcome(False, error="that move is not legal now")
        _, choice, after, parts = out
        error = await self._store_move(room, Move(seat, choice), after)
        if error:
            return Outcome(False, error=error)
        for s, part in parts.items():
            messages.keep(room, s, part)
        await self.run_bots(room)
        return Outcome(True)

    async def _play(self, room: Room, move: Move) -> str | None:
        """Apply one move and store it; an error line where it was not, the room unchanged."""
        try:
            after = await room.call("apply", move.seat, move.choice)
        except IllegalChoice:  # refused before the state changed (the flow's words name every option: not said)
            return "that move is not legal now"
        except Exception:  # a fault of the content mid-move: back to the stored state
            await self._rebuild(room)
            return NOT_PLAYED
        return await self._store_move(room, move, after)

    async def _store_move(self, room: Room, move: Move, after: dict) -> str | None:
        """A move applied to the live game (`after`: its summary now), stored."""
        n = after["history"] - 1
        status = "finished" if after["pending"] is None else "playing"
        try:
            await self.store.add_move(room.code, room.version + 1, room.row.game_no, n, move, status)
        except Conflict:  # another process stored a change first: this move was never made
            await self._rebuild(room)
            raise
        except Exception:
            await self._rebuild(room)
            return "the move could not be saved; try again"
        room.summary = after
        room.row = room.row._replace(version=room.version + 1, status=status)
        return None

    async def run_bots(self, room: Room) -> None:
        """Bots decide while the game waits on bot seats alone (or on a bot among others
        picking a secret at once)."""
        for _ in range(BOT_MOVES):
            if room.status != "playing":
                return
            bots = [s for s in room.deciding() if room.seats[s].bot]
            if not bots:
                return
            seat = bots[0]
            try:
                choice = await room.call("bot", seat, f"{room.seed()}:{room.summary['history']}")
            except Exception:  # (a fault of the content: the room waits for the host)
                return
            try:
                if await self._play(room, Move(seat, choice)):
                    return
            except Conflict:  # another process changed the room first: the bots look again
                await self.catch_up(room)  # a bot's move that cannot be played waits for the host (pause, lobby)

    # ---- the host --------------------------------------------------------------------

    async def host(self, room: Room, seat: str, action, target=None) -> Outcome:
        """A host action (docs/table.md); call under room.lock. One that another process's
        change beat to the store is refused as stale (the host sees the table as it is now)."""
        await self._caught_up(room)
        if room.gone:
            return Outcome(False, error="this room is no longer served")
        try:
            return await self._host(room, seat, action, target)
        except Conflict:
            await self.catch_up(room)
            return Outcome(False, stale=True)

    async def _host(self, room: Room, seat: str, action, target=None) -> Outcome:
        if room.seats[seat].host is False:
            return Outcome(False, error="only the host can do that")
        if action not in HOST_ACTIONS:
            return Outcome(False, error=f"host actions: {', '.join(HOST_ACTIONS)}")
        status = room.status
        if action in ("start", "new"):
            if action == "start" and status != "lobby":
                return Outcome(False, error="the game has already started")
            if action == "new" and status != "finished":
                return Outcome(False, error="a new game is set up after the end of this one")
            free = [s for s in sorted(room.seats, key=_seat_order) if not _taken(room.seats[s])]
            if free:
                return Outcome(False, error=f"seat {free[0]} is free: wait for a player or give it to a bot")
            game_no = room.row.game_no + 1
            try:
                room.summary = await room.call("load", room.game.id, room.row.players, f"{room.row.seed}:{game_no}",
                                               room.game_options, [])
            except Exception as exc:  # (options are tried when the room is made: a game changed since)
                room.summary = None
                return Outcome(False, error=f"the game cannot be set up with this room's options ({type(exc).__name__})")
            await self._set_status(room, "playing", game_no)
            await self.run_bots(room)
        elif action == "pause":
            if status != "playing":
                return Outcome(False, error="only a game in play can be paused")
            await self._set_status(room, "paused")
        elif action == "resume":
            if status != "paused":
                return Outcome(False, error="the game is not paused")
            await self._set_status(room, "playing")
            await self.run_bots(room)
        elif action == "lobby":
            if status == "lobby":
                return Outcome(False, error="the table is in the lobby already")
            room.summary = None
            room.engine.drop(room.code)
            await self._set_status(room, "lobby")
        else:  # free, bot: a seat before the start
            if status != "lobby":
                return Outcome(False, error="seats change only before the start")
            if target not in room.seats:
                return Outcome(False, error="no such seat")
            if action == "free":
                if room.seats[target].host:
                    return Outcome(False, error="the host's own seat stays")
                if not _taken(room.seats[target]):
                    return Outcome(False, error="that seat is free already")
                await self._set_seat(room, SeatRow(target, "", None, False, False))
            else:
                if _taken(room.seats[target]):
                    return Outcome(False, error="that seat is taken")
                await self._set_seat(room, SeatRow(target, "Bot", None, True, False))
        return Outcome(True)

    # ---- keeping rooms ---------------------------------------------------------------

    async def touch(self, room: Room) -> bool:
        """The room's "last seen" now. Whether it was written: one the store could not write
        (a database busy or away) costs a seat nothing (the sweep writes it again while
        anyone is connected; until then the room's expiry counts from the one before)."""
        try:
            await self.store.touch(room.code, self.clock())
        except Exception:
            return False
        return True

    async def expire(self, hours: float) -> list[str]:
        """Drop the rooms nobody has been connected to for `hours`; their codes."""
        gone = []
        for code in self.store.expired(self.clock() - hours * 3600):
            room = self.rooms.get(code)
            if room is not None and room.sockets:
                continue  # someone is at the table now
            await self.store.delete_room(code)
            dropped = self.rooms.pop(code, None)
            if dropped is not None:
                dropped.close()
            gone.append(code)
        return gone


def playable(game, players: int, options: dict) -> None:
    """Refuse options the game cannot be set up with, naming the first such option. Games
    declare only an option's default; the values they take are what their setup accepts,
    so each option given is tried in a setup of its own (seeded: the same answer every time)."""
    try:
        new_game(game, players, seed="options", options=options)
        return
    except Exception:
        pass
    for name, value in options.items():
        try:
            new_game(game, players, seed="options", options={name: value})
        except Exception:
            raise Refused(f"option `{name}`: {str(value)[:40]!r} is not a value {game.id} knows") from None
    raise Refused(f"{game.id} cannot be set up with these options together")


def _unchanged_for(room: Room, seat: str, version) -> bool:
    """A move made at an older version stands when nothing its seat could see has changed
    since (another seat's secret pick, a connection): what it chose from is what it sees now."""
    then = room.sights.get(seat, {}).get(version)
    return then is not None and then == messages.sight(room, seat)


def _taken(seat: SeatRow) -> bool:
    return seat.bot or seat.token_hash is not None


def _seat_order(seat: str):
    return int(seat[1:]) if seat[1:].isdigit() else 0


def _name(room: Room, seat: str) -> str:
    return room.seats[seat].name or seat if seat in room.seats else seat
