"""One game being played: the narrow interface every caller plays through.

    m = Match.new(game, players=3, seed=7)
    while not m.is_over:
        seat = m.seats_to_move()[0]
        m.apply(seat, m.legal(seat)[0]["id"])
    m.returns()                         # {seat: 1.0 a winner, -1.0 not, 0.0 all where nobody won}

A `Match` holds the rules (`game`, never changed) and the state (`state`, plain data: what
`json` and `marshal` write). Saving a match is saving its record, the seed and the choices
(`record()`, replayed by `Match.replay`): the same seed and choices make the same game, byte
for byte. What a seat may see, and the options as offered to it, come from `view(seat)`;
`legal(seat)` is what `apply` accepts (ids the rules know, hidden ones among them).
"""
from __future__ import annotations

from . import flow, views
from .decision import Decision, IllegalChoice
from .state import clone as deep_copy


class Match:
    __slots__ = ("game", "state", "players", "seed", "options", "first", "_turns", "_dec")

    def __init__(self, game, state, players=None, seed=None, options=None, first=None):
        self.game, self.state = game, state
        self.players = players if players is not None else len(state["players"])
        self.seed = seed if seed is not None else state.get("seed")
        self.options, self.first = options, first
        self._turns = None  # the Choices of the turn's decision the last choice led to (flow.apply)
        self._dec = None  # the Decision read from the state's, while it waits

    @classmethod
    def new(cls, game, players: int, seed=0, options=None, first=None) -> "Match":
        """A game from its start; IllegalChoice where the rules refuse the seat count or `first`."""
        return cls(game, flow.new_game(game, players, seed, options, first), players, seed, options, first)

    @classmethod
    def replay(cls, game, record: dict) -> "Match":
        """The match a saved record (`record()`: seed, choices) made; replay.ReplayError where
        the record is not of this game or a choice in it is not legal."""
        from .replay import replay
        return cls(game, replay(game, record), record["players"], record["seed"], record.get("options") or None,
                   record.get("first"))

    def record(self) -> dict:
        """What saves the match: its seed, seat count, options and choices (and a hash of the state
        they make, that a replay checks)."""
        from .replay import make_log
        return make_log(self.game, self.state, self.players, self.seed, self.options, self.first)

    @property
    def decision(self) -> Decision | None:
        """What the game waits for, None where it is over."""
        d = self.state["pending"]
        if d is None:
            return None
        dec = self._dec
        if dec is None or dec.raw is not d:
            dec = self._dec = Decision(self.game, self.state, self._turns)
        return dec

    @property
    def is_over(self) -> bool:
        return self.state["pending"] is None

    @property
    def history(self) -> list:
        """The choices made so far, [seat, choice] each."""
        return self.state["history"]

    def seats_to_move(self) -> list:
        """The seats that have a pick to make now (several at a secret pick), none at the end."""
        dec = self.decision
        return [] if dec is None else dec.waiting

    def legal(self, seat) -> list:
        """The options `seat` may pick now ({"id", "label"} each), none where it has no pick."""
        dec = self.decision
        return dec.options_for(seat) if dec is not None and dec.asks(seat) else []

    def apply(self, seat, choice: str) -> None:
        """`seat` picks `choice`; IllegalChoice (the state unchanged) where that is not legal."""
        dec = self._dec
        if dec is None or dec.raw is not self.state["pending"]:
            dec = self.decision
            if dec is None:
                raise IllegalChoice("the game is over")
        turns = flow.decide(self.game, self.state, dec, choice, seat)
        # (after a secret pick a turn's options are worked out afresh, as they always were)
        self._turns = None if dec.simultaneous else turns
        if self.state["pending"] is not dec.raw:
            self._dec = None

    def clone(self) -> "Match":
        """A copy to play on: the copy and this match go on independently."""
        # (a waiting effect goes on in the copy from the copy's own record of where it started)
        return Match(self.game, deep_copy(self.state), self.players, self.seed, self.options, self.first)

    def view(self, seat=None) -> dict:
        """What `seat` sees (everything public where None), its decision's options as offered to it."""
        return views.view(self.game, self.state, seat)

    def scores(self) -> dict | None:
        """seat -> final score, None before the end."""
        return self.state["scores"]

    def returns(self) -> dict:
        """seat -> what the game gave it: 1.0 a winner, -1.0 a seat that did not win where someone
        did, 0.0 each where nobody won or before the end."""
        st = self.state
        won = st["winners"] if st["scores"] is not None else None
        if not won:
            return {p: 0.0 for p in st["players"]}
        return {p: 1.0 if p in won else -1.0 for p in st["players"]}
