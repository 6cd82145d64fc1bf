"""Rooms: a game at a table, its seats, and the one order in which changes reach it.

Every change of a room (a move, a host action, a seat taken or freed) is made under the
room's asyncio.Lock, checked against the room's version, written to the store in one
transaction, and only then shown to the room's sockets. A move is applied to the live
state first and stored after; where either fails, the live state is thrown away and
rebuilt from the store, which holds only whole moves.

Bots fill seats the host gives them. A bot is handed what its seat may know and nothing
more (runtime/agents.ask: the seat's `Seen` and its options as handles), and its choices
are stored like anyone's, so a room replays without asking it again.
"""
from __future__ import annotations

import asyncio
import functools
import hmac
import secrets as token_source
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

from ..runtime import agents, answers
from ..runtime.flow import IllegalChoice, apply, choices, new_game
from . import limits, messages
from .limits import Refused
from .store import Move, RoomRow, SeatRow, Store, token_hash

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
    def __init__(self, game, row: RoomRow, seats: list[SeatRow]):
        self.game = game
        self.code = row.code
        self.row = row
        self.seats = {s.seat: s for s in seats}
        self.st = None  # the live game, None in the lobby
        self.lock = asyncio.Lock()
        self.sockets: set = set()  # app.Conn objects, each with .seat (None: a spectator)
        self.presence_due = None   # the timer that tells the pages who came and went (app.presence)
        self.peers_sent = None     # the seats connected, as last told to the seats
        self.signal_rates: dict = {}  # seat -> limits.Rate of its voice signalling
        self.frames: dict = {}     # messages.table_text's frames of this version
        self.sights: dict = {}     # seat -> {version: what it could see then} (messages.sight)
        self.worker = None         # the thread this room's game runs on (Room.work)
        self.faces = None          # faces.Faces of the server: the cards' pictures (messages.table)

    async def work(self, fn, *args):
        """Run game work (a move, a bot's choice, a setup) on the room's own thread, never the
        event loop's: a long effect holds up its room alone. Always the same thread, since an
        effect waiting for a decision stays live in its thread (runtime/continuation.py)."""
        if self.worker is None:
            self.worker = ThreadPoolExecutor(1, thread_name_prefix=f"table-{self.code}")
        return await asyncio.get_running_loop().run_in_executor(self.worker, functools.partial(fn, *args))

    def close(self) -> None:
        if self.worker is not None:
            self.worker.shutdown(wait=False)
            self.worker = None

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
        d = self.st["pending"] if self.st is not None else None
        if d is None:
            return []
        if d["kind"] == "secret":
            return [p for p in d["who"] if p not in d["collected"]]
        return [d["who"]]

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

    def __init__(self, games: dict, store: Store, clock=time.time, faces=None):
        self.games = games  # game id -> runtime.tables.Game
        self.faces = faces  # faces.Faces, or None: cards shown by their names
        self.store = store
        self.clock = clock
        self.rooms: dict[str, Room] = {}
        self.made_by: dict[str, list] = {}  # address -> codes of the rooms it made (ROOMS_PER_ADDRESS)

    # ---- finding rooms ---------------------------------------------------------------

    def get(self, code) -> Room | None:
        code = limits.room_code(code)
        if code is None:
            return None
        room = self.rooms.get(code)
        if room is None:
            row = self.store.room(code)
            if row is None or row.game not in self.games or self.games[row.game].hash != row.game_hash:
                return None  # (a game changed since: its stored moves would play another game)
            room = Room(self.games[row.game], row, self.store.seats(code))
            room.faces = self.faces
            try:
                self._rebuild(room)
            except Exception:  # its moves no longer play (the game was rebuilt since): not served
                return None
            self.rooms[code] = room
        return room

    def room(self, code) -> Room:
        room = self.get(code)
        if room is None:
            raise Refused("no room with this code", 404)
        return room

    def _rebuild(self, room: Room) -> None:
        """The room's game as the store has it: the seed, then every stored move again."""
        if room.status == "lobby":
            room.st = None
            return
        st = new_game(room.game, room.row.players, seed=room.seed(), options=room.game_options)
        for m in self.store.moves(room.code, room.row.game_no):
            apply(room.game, st, m.choice, m.seat)
        room.st = st

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
        await self.store.create_room(row, host)
        room = Room(game, row, self.store.seats(code))
        room.faces = self.faces
        self.rooms[code] = room
        if len(self.made_by) > 50_000:  # (a bound: forgetting who made what only frees their quota)
            self.made_by.clear()
        if address is not None:
            self.made_by[address] = made + [code]
        return Joined(room, "p1", token)

    async def join(self, code, name) -> Joined:
        room = self.room(code)
        name = limits.display_name(name)
        async with room.lock:
            if room.status != "lobby":
                raise Refused("the game at this table has started", 409)
            free = [s for s in sorted(room.seats, key=_seat_order) if not _taken(room.seats[s])]
            if not free:
                raise Refused("every seat at this table is taken", 409)
            token = token_source.token_urlsafe(24)
            await self._set_seat(room, SeatRow(free[0], name, token_hash(token), False, False))
        return Joined(room, free[0], token)

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
        """A seat's choice; call under room.lock."""
        if room.status != "playing":
            return Outcome(False, error={"lobby": "the game has not started", "paused": "the game is paused",
                                         "finished": "the game is over"}[room.status])
        if version != room.version and not _unchanged_for(room, seat, version):
            return Outcome(False, stale=True)
        if seat not in room.deciding():
            waiting = ", ".join(_name(room, s) for s in room.deciding())
            return Outcome(False, error=f"it is not your decision; waiting for {waiting}")
        if not isinstance(choice, str) or not 0 < len(choice) <= CHOICE_CHARS:
            return Outcome(False, error="a choice is one of the options' ids")
        try:
            # only what this seat was offered, turn actions and questions alike: a handle to
            # a card never offered, or a hidden card's own id, is refused in the same words
            # as a guess, so a refusal names nothing the seat may not see
            choice = await room.work(answers.accept, room.game, room.st, seat, choice)
        except IllegalChoice as exc:
            return Outcome(False, error=str(exc))
        except Exception:  # a fault of the content while an action's condition was worked out
            await room.work(self._rebuild, room)
            return Outcome(False, error=NOT_PLAYED)
        error = await self._play(room, Move(seat, choice))
        if error:
            return Outcome(False, error=error)
        await self.run_bots(room)
        return Outcome(True)

    async def _play(self, room: Room, move: Move) -> str | None:
        """Apply one move and store it; an error line where it was not, the room unchanged."""
        try:
            await room.work(apply, room.game, room.st, move.choice, move.seat)
        except IllegalChoice:  # refused before the state changed (the flow's words name every option: not said)
            return "that move is not legal now"
        except Exception:  # a fault of the content mid-move: back to the stored state
            await room.work(self._rebuild, room)
            return NOT_PLAYED
        n = len(room.st["history"]) - 1
        status = "finished" if room.st["pending"] is None else "playing"
        try:
            await self.store.add_move(room.code, room.version + 1, room.row.game_no, n, move, status)
        except Exception:
            await room.work(self._rebuild, room)
            return "the move could not be saved; try again"
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
            seat, d = bots[0], room.st["pending"]
            agent = agents.RandomAgent(f"{room.seed()}:{len(room.st['history'])}")
            choice = await room.work(lambda: agents.ask(
                room.game, room.st, agent, seat, d["options"][seat] if d["kind"] == "secret" else choices(room.game, room.st)))
            if await self._play(room, Move(seat, choice)):
                return  # a bot's move that cannot be played waits for the host (pause, lobby)

    # ---- the host --------------------------------------------------------------------

    async def host(self, room: Room, seat: str, action, target=None) -> Outcome:
        """A host action (docs/table.md); call under room.lock."""
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
                room.st = await room.work(lambda: new_game(room.game, room.row.players, seed=f"{room.row.seed}:{game_no}",
                                                           options=room.game_options))
            except Exception as exc:  # (options are tried when the room is made: a game changed since)
                room.st = None
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
            room.st = None
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

    async def touch(self, room: Room) -> None:
        await self.store.touch(room.code, self.clock())

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
