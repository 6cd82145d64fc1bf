"""Answers: what a seat may answer, and what it is told when its answer is refused.

A seat answers with the id of one of the options it was offered, as it was offered them
(runtime/visibility.seat_options: a hidden thing as a handle). Anything else, whatever it
points at (a handle to a card never offered, a hidden card's own id, a guess), is refused
with the same words, so a refusal tells nothing a seat could not see: the flow's own
refusals name the choice and every legal one, which is right for a scenario and wrong for
a player. The one narrow door for the table server and the terminal:

    choice = accept(game, st, seat, sent)   # IllegalChoice(REFUSED) for anything else
    apply(game, st, choice, seat)

`told` cuts any other line for a seat (a fault's cause) down to what that seat may see.
"""
from __future__ import annotations

import re

from .decision import Choices, Decision, IllegalChoice
from .visibility import hidden_from, resolve, seat_options

REFUSED = "that is not one of your options"
UNNAMED = "a hidden thing"


def accept(game, st, seat, choice) -> str:
    """The choice `seat` means by `choice`: an id among its options as offered to it, a
    handle standing for the thing it names. Refused alike when it is anything else, or
    when the decision is not the seat's."""
    dec = Decision.of(game, st)
    if dec is None:
        raise IllegalChoice("the game is over")
    if not dec.asks(seat):
        raise IllegalChoice("it is not your decision")
    if type(choice) is not str or not choice:
        raise IllegalChoice(REFUSED)
    options = dec.options_for(seat)
    if type(options) is Choices:  # a turn's actions and pass: never secret, never handles
        if not options.legal(choice):
            raise IllegalChoice(REFUSED)
        return choice
    if choice not in [o["id"] for o in seat_options(game, st, seat, options)]:
        raise IllegalChoice(REFUSED)
    return resolve(st, choice)


def told(game, st, seat, text: str) -> str:
    """A line for `seat` (None: a spectator) with every id and name of a thing hidden from
    it said as "a hidden thing" (a name that a thing in sight also bears stays). Without a
    state (a fault while the game was set up) every thing is hidden."""
    if st is None:
        hidden = things = set(game.proto_of)
    else:
        hidden, things = hidden_from(game, st, seat), st["things"]
    if not hidden:
        return text
    words, seen_names, seen_protos = set(), set(), set()
    for eid in things:
        if eid not in hidden:
            seen_names |= _names(game, eid)
            seen_protos.add(game.proto_of.get(eid))
    for eid in hidden:
        words.add(eid)
        proto = game.proto_of.get(eid)
        if proto and proto not in seen_protos:
            words.add(proto)
        words |= _names(game, eid) - seen_names
    words = sorted((w for w in words if w), key=len, reverse=True)
    if not words:
        return text
    pattern = re.compile("|".join(r"(?<![\w#])" + re.escape(w) + r"(?![\w#])" for w in words))
    return pattern.sub(UNNAMED, text)


def _names(game, eid) -> set:
    p = game.protos.get(game.proto_of.get(eid, ""), {})
    return {v for v in (p.get("name") or {}).values() if v}
