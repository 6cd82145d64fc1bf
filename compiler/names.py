"""The closed vocabulary of the effect language: built-in names, functions, attributes, events.

The checker accepts nothing outside these tables and the content's own declarations;
the runtime implements exactly these (a test holds the two together).
"""

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

# Functions: name -> (min args, max args, description). Aggregates also take `x for x in xs where ...`.
FUNCTIONS = {
    "count": (1, 1, "how many"),
    "sum": (1, 1, "the total of"),
    "max": (1, 9, "the largest of"),
    "min": (1, 9, "the smallest of"),
    "any": (1, 1, "whether any of"),
    "all": (1, 1, "whether all of"),
    "abs": (1, 1, "the absolute value of"),
    "floor": (1, 1, "rounded down"),
    "ceil": (1, 1, "rounded up"),
    "clamp": (3, 3, "limited to a range"),
    "roll": (1, 2, "dice rolled: the faces"),
    "random": (1, 1, "one picked at random from"),
    "distance": (2, 2, "the map distance between"),
    "adjacent": (2, 2, "whether two places are adjacent"),
    "neighbours": (1, 1, "the places adjacent to"),
    "within": (2, 2, "the places within a distance of"),
    "top": (1, 1, "the top card of"),
    "first": (1, 1, "the first of"),
    "last": (1, 1, "the last of"),
    "next_player": (1, 1, "the player to the left of"),
    "previous_player": (1, 1, "the player to the right of"),
    "usable": (2, 2, "the reactions of a window a player can use"),
    "sorted": (1, 2, "sorted"),
    "distinct": (1, 1, "without repeats"),
    "option": (1, 1, "the value of a game option"),
    "faces": (1, 1, "the dice faces of a roll"),
}
AGGREGATES = {"count", "sum", "max", "min", "any", "all", "sorted", "distinct"}

# Attributes every entity (and player) has, whatever its kind.
BUILTIN_ATTRS = {
    "id": "its id", "type": "the card or piece it is a copy of", "kind": "its kind",
    "name": "its name", "zone": "where it is", "location": "the location it is at",
    "owner": "the player it belongs to", "face_up": "whether it is face up",
    "contents": "what is on it", "seat": "a player's seat number",
}

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

# Statement verbs and the parameters each declares (IR slots after op and pos).
VERBS = {
    "let": ("name", "value"), "set": ("target", "value"),
    "gain": ("amount", "counter", "target"), "lose": ("amount", "counter", "target"),
    "pay": ("amount", "counter", "target"), "move": ("thing", "destination", "face"),
    "draw": ("amount", "source", "destination", "face", "as"), "discard": ("thing", "under"),
    "shuffle": ("pile", "into"), "reveal": ("thing",), "show": ("thing", "players"), "conceal": ("thing",), "remove": ("thing",),
    "putback": ("thing",), "mark": ("thing", "mark", "until"), "unmark": ("thing", "mark"),
    "fail": ("reason",), "endgame": (), "endturn": (), "stop": (), "log": ("message", "to"),
    "emit": ("event", "with"), "perform": ("thing", "by"), "return": ("value",), "do": ("call",),
    "swap": ("first", "second"), "if": ("branches", "else"),
    "for": ("name", "collection", "where", "body"), "repeat": ("times", "body"),
    "while": ("condition", "body"),
    "choose": ("up_to", "name", "options", "where", "by", "or_none", "prompt", "body", "otherwise"),
    "may": ("by", "prompt", "body", "otherwise"),
    "secret": ("chooser", "choosers", "name", "options", "where", "body", "or_none"),
}
