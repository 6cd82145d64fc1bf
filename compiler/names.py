"""The closed vocabulary of the effect language: built-in names, functions, attributes, events.

The checker accepts nothing outside these tables and the content's own declarations;
the runtime implements exactly these (a test holds the two together).
"""
from ..runtime import ir

# Names every effect can use. Each says what it means in the rulebook's words.
BUILTIN_NAMES = {
    "player": "the player whose turn, action or effect it is",
    "players": "all players, in turn order from the first player",
    "others": "all players except `player`, in turn order after them",
    "first_player": "the player who currently holds the first-player right",
    "round": "the number of the current round",
    "player_count": "how many players are in the game",
    "supply": "the supply: everything not yet in play",
    "removed": "things removed from the game",
}

# Functions: name -> (min args, max args, description); aggregates also take `x for x in xs where ...`.
# Both are the runtime's tables (runtime/ir.py), said the way the checker and the editor read them.
FUNCTIONS = {name: (f.least, f.most, f.does) for name, f in ir.FUNCTIONS.items()}
AGGREGATES = ir.AGGREGATES

# Attributes every entity (and player) has, whatever its kind.
BUILTIN_ATTRS = {name: a.does for name, a in ir.THING_ATTRIBUTES.items()}

# Events the runtime emits, and the names they bind for triggers.
EVENTS = {
    "game_start": (),
    "round_start": (),
    "round_end": (),
    "turn_start": ("player",),
    "turn_end": ("player",),
    "phase_start": ("phase",),
    "phase_end": ("phase",),
    "enter": ("piece", "location", "origin"),
    "action": ("player", "action"),
}

# Statement verbs and the parameters each declares (IR slots after op and pos): the IR's own table.
VERBS = {op: spec.fields for op, spec in ir.STATEMENTS.items()}
