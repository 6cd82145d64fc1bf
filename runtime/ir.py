"""The effect IR: every operation once, with its fields, read by all that walk it.

A node is a JSON list `[op, position, field...]`: the operation's name, where it was written
("file:line:col") and its fields in the order given here. The compiler's parser makes the
nodes, its checker and rulebook renderer walk them, and the runtime runs them; each looks
its operations up here, so an operation added to one is missing from none unseen
(tests/test_ir.py). The field names are the words the documentation uses.
"""
from __future__ import annotations

from typing import NamedTuple


class Op(NamedTuple):
    fields: tuple  # the node's fields after its op and position, in order
    does: str  # what it does, in a line


STATEMENTS = {
    "let": Op(("name", "value"), "binds a name for the rest of the block"),
    "set": Op(("target", "value"), "sets a counter (or a name bound by `let`)"),
    "gain": Op(("amount", "counter", "target"), "adds to a counter"),
    "lose": Op(("amount", "counter", "target"), "takes from a counter"),
    "pay": Op(("amount", "counter", "target"), "takes from a counter, or fails where it has too little"),
    "move": Op(("thing", "destination", "face"), "puts things in a zone or place"),
    "draw": Op(("amount", "source", "destination", "face", "as"), "moves the top things of a pile (a pool's at random)"),
    "discard": Op(("thing", "under"), "puts things on their deck's discard pile (or under the deck)"),
    "shuffle": Op(("pile", "into"), "shuffles a pile, after moving another into it"),
    "reveal": Op(("thing",), "turns things face up"),
    "show": Op(("thing", "players"), "lets some players see things until they move"),
    "hide": Op(("thing", "players"), "keeps things from some players, wherever they lie, until they move"),
    "conceal": Op(("thing",), "turns things face down"),
    "remove": Op(("thing",), "takes things out of the game"),
    "putback": Op(("thing",), "returns things to their pool, deck or starting zone"),
    "mark": Op(("thing", "mark", "until"), "marks things, for ever, until the turn, round or game ends or until the marking player's next turn"),
    "unmark": Op(("thing", "mark"), "takes a mark off things"),
    "fail": Op(("reason",), "undoes the whole effect (its reason a text, or a `text` node with values)"),
    "endgame": Op((), "ends the game at once"),
    "endturn": Op((), "ends the turn once the effect is done"),
    "stop": Op((), "leaves the innermost loop"),
    "log": Op(("message", "to"), "writes a line in the game's log (`to`: the line of those players alone)"),
    "emit": Op(("event", "with"), "fires an event's triggers"),
    "perform": Op(("thing", "by"), "carries out an action or a card's activation"),
    "return": Op(("value",), "ends a procedure with a value"),
    "do": Op(("call",), "works an expression out for what its calls do"),
    "swap": Op(("first", "second"), "exchanges the places of two things"),
    "offer": Op(("window", "players", "with", "as"),
                "asks players one after another (by default the others, from the next seat) to react "
                "with an action of a window; the first who does, does it, and no one after is asked"),
    "if": Op(("branches", "else"), "runs the block of the first condition that holds"),
    "for": Op(("name", "collection", "where", "body"), "runs a block for each thing"),
    "repeat": Op(("times", "body"), "runs a block a number of times"),
    "while": Op(("condition", "body"), "runs a block while a condition holds"),
    "choose": Op(("up_to", "name", "options", "where", "by", "or_none", "prompt", "body", "otherwise"),
                 "asks a player to pick among options"),
    "may": Op(("by", "prompt", "body", "otherwise"), "asks a player yes or no"),
    "secret": Op(("chooser", "choosers", "name", "options", "where", "body", "or_none", "prompt"),
                 "asks several players to pick at once, each unseen by the others"),
}

EXPRESSIONS = {
    "num": Op(("value",), "a number"),
    "str": Op(("value",), "a text"),
    "text": Op(("parts",), "a text with values, `\"{p} is out\"`: its parts, texts and expressions"),
    "none": Op((), "nothing"),
    "name": Op(("name",), "a name's value: bound, of the flow, a game counter or zone, an id"),
    "attr": Op(("of", "attribute"), "`x.a`: a counter, zone, printed or built-in attribute"),
    "index": Op(("of", "index"), "`x[i]`: an item of a list or a table"),
    "call": Op(("function", "args"), "a built-in function or a procedure of the content"),
    "gen": Op(("function", "body", "name", "source", "where"), "`f(x.a for x in ...)`: an aggregate over a loop"),
    "list": Op(("items",), "`[a, b]`"),
    "comp": Op(("body", "name", "source", "where"), "`[x.a for x in ... where ...]`"),
    "every": Op(("kind",), "the things of a kind in play (or the players)"),
    "op": Op(("operator", "left", "right"), "a comparison or arithmetic"),
    "and": Op(("left", "right"), "both"),
    "or": Op(("left", "right"), "either"),
    "not": Op(("operand",), "the opposite"),
    "neg": Op(("operand",), "minus a number"),
    "in": Op(("item", "collection"), "whether an item is in a list, zone or text"),
    "has": Op(("thing", "mark"), "whether a thing bears a mark"),
    "cond": Op(("test", "then", "otherwise"), "`a if test else b`"),
}


def fields(node) -> dict:
    """A node's fields by name (for reading a node where speed does not matter)."""
    op = STATEMENTS.get(node[0]) or EXPRESSIONS[node[0]]
    return dict(zip(op.fields, node[2:]))
