"""Every error and warning code: what it means, a wrong example and the right one.

`rulepress explain CODE` prints one entry; docs/errors.md is all of them, made by
`python -m rulepress.compiler.catalogue > docs/errors.md` (a test keeps the two the same).

Each example is a whole content file. Unless `alone` is set it is added, as `file`
(default extra.yaml), to the tutorial game docs/tutorial/race; with `alone` it is the only
file of a new game folder. Tests check that every wrong example gives its code and every
right one does not.
"""
from __future__ import annotations

import sys

_RACE = "docs/tutorial/race"

_CARD = """\
cards:
  - id: turbo
    name: {en: Turbo, ru: Турбо}
    deck: boosts
"""

_MINI = """\
game:
  id: tiny
  name: {en: Tiny, ru: Крошка}
  version: 1
  players: {min: 1, max: 2}
"""

_FLOW = """\
flow:
  phases:
    - id: main
      mode: once
      effect: |
        log "hello"
"""

_SCORING = """\
scoring:
  score: 0
"""

_PLACES = """\
locations:
  - id: north
    name: {en: North, ru: Север}
    adjacent: [south]
  - id: south
    name: {en: South, ru: Юг}
    adjacent: [north]
"""


def _proc(effect: str, extra: str = "") -> str:
    """A procedure with this effect, and an action that calls it (so it is used)."""
    body = "".join(f"      {line}\n" for line in effect.splitlines())
    return ("procedures:\n  - id: push\n    effect: |\n" + body + extra
            + "actions:\n  - id: do_push\n    name: {en: Push, ru: Толчок}\n    effect: push()\n")


def _scenario(body: str) -> str:
    """A scenario file of the tutorial game with these lines under `scenario:`."""
    return "scenario:\n  name: Nitro moves the racer\n  players: 2\n" + "".join(f"  {line}\n" for line in body.splitlines())


_SCEN = "scenarios/nitro.yaml"


CATALOGUE: dict[str, dict] = {
    # ---- Y: reading the YAML file ------------------------------------------------
    "Y001": {
        "title": "YAML syntax error",
        "explain": "The file is not valid YAML, so nothing in it could be read. The position is where the "
                   "YAML reader gave up, which is often just after the real mistake: an unclosed `{`, `[` or "
                   "quote, a missing `:`, or a line indented with a tab (YAML indents with spaces only).",
        "wrong": _CARD.replace("{en: Turbo, ru: Турбо}", "{en: Turbo, ru: Турбо"),
        "right": _CARD,
    },
    "Y002": {
        "title": "file is not UTF-8",
        "explain": "Content files are read as UTF-8. The file holds a byte that is not UTF-8, usually because "
                   "an editor saved it as Latin-1 or Windows-1251. Save it again as UTF-8; the position is the "
                   "first bad byte. (The wrong example is this very text saved as Windows-1251.)",
        "wrong": _CARD + "    text: {en: Cafe, ru: Кафе}\n",
        "right": _CARD + "    text: {en: Cafe, ru: Кафе}\n",
        "encoding": "cp1251",
    },
    "Y003": {
        "title": "empty file",
        "explain": "The file holds nothing but blank lines and comments. An empty file is usually a mistake "
                   "(content pasted into the wrong file); remove it or give it content.",
        "wrong": "# boost cards will go here\n",
        "right": _CARD,
    },
    "Y004": {
        "title": "tag not allowed",
        "explain": "Content is plain data: maps, lists, text, numbers, true/false. YAML tags such as "
                   "`!!python/object` could make a YAML reader build objects or run code, and merge keys (`<<`) "
                   "hide where values come from, so rulepress refuses them all. Write the value out plainly.",
        "wrong": _CARD + "    attrs: !!python/object/apply:os.system [\"ls\"]\n",
        "right": _CARD + "    attrs: {speed: 2}\n",
    },
    "Y005": {
        "title": "alias expands too far",
        "explain": "An alias (`*name`) repeats the value marked with `&name`. Aliases inside aliases can grow "
                   "a small file into billions of values (the \"billion laughs\"), and an alias inside its own "
                   "value never ends. rulepress counts values after expansion and stops past a million, or "
                   "past 32 MiB of text (one long text repeated a few hundred times). "
                   "Write the values out, or keep anchors to small, flat values.",
        "wrong": "icons: &all [*all]\n",
        "right": "icons:\n  - {id: coin, glyph: \"●\"}\n",
    },
    "Y006": {
        "title": "nesting too deep",
        "explain": "Maps and lists nest more than 64 levels deep. No game needs that; it is usually a runaway "
                   "generator or a pasted blob. Flatten the data.",
        "wrong": "icons: " + "[" * 70 + "]" * 70 + "\n",
        "right": "icons: []\n",
    },
    "Y007": {
        "title": "key is not text, or number not usable",
        "explain": "Keys must be text. YAML reads a bare key like `12` or `~` as a number or as nothing; "
                   "quote it, or better, use a name (`speed_2`). (The words on, off, yes and no are kept as "
                   "text when they are keys.) The same code is given for `.inf` and `.nan`, which are not "
                   "numbers a game can use, and for numbers more than 10^15 from zero.",
        "wrong": _CARD + "    attrs: {2: fast}\n",
        "right": _CARD + "    attrs: {speed: 2}\n",
    },
    "Y008": {
        "title": "file too large",
        "explain": "A content file is limited to 16 MB, so that a mistake (a log or a data dump saved under "
                   "content/) cannot stall the checker. Split large content into several files; any number "
                   "of *.yaml files may make up a game. (The wrong example stands for 17 MB of cards.)",
        "wrong": _CARD + "# ... and 17 MB more of cards in this one file\n",
        "right": _CARD,
        "special": "huge",
    },
    "Y009": {
        "title": "cannot read file or folder",
        "explain": "The file or folder exists in the listing but cannot be opened: a link to a file that is "
                   "gone, or missing read permission (the message gives the system's reason), or not a regular "
                   "file at all: a pipe, device or socket is never read. Nor is a file whose real path leads "
                   "outside the game folder (a link to /etc/passwd, a linked folder of the user's): content "
                   "is what the game folder holds, and no message quotes such a file.",
        "wrong": "# extra.yaml is a link to a file that was deleted\n",
        "right": _CARD,
        "special": "dangling",
    },
    "Y010": {
        "title": "more than one YAML document",
        "explain": "A `---` line starts a second YAML document in the same file. A content file holds one "
                   "document: one map of sections. Remove the separator (or split the file in two).",
        "wrong": _CARD + "---\nicons: []\n",
        "right": _CARD + "icons: []\n",
    },
    "Y011": {
        "title": "duplicate key",
        "explain": "The same key appears twice in one map. Plain YAML keeps only the last value without a "
                   "word; rulepress reports it and keeps the first. Remove one of them.",
        "wrong": _CARD + "    deck: boosts\n",
        "right": _CARD,
    },
    "Y012": {
        "title": "folder link loops",
        "explain": "A link inside the game folder points back to a folder already read (for example "
                   "`more/loop -> ..`). Following it would read the same files forever, or twice. Remove the "
                   "link. (The wrong example stands for the folder with the link in it.)",
        "wrong": _CARD + "# and a folder link more/loop -> ..\n",
        "right": _CARD,
        "special": "loop",
    },
    "Y101": {
        "title": "word read as true/false",
        "explain": "YAML 1.1 reads the bare words yes, no, on, off, y, n as true or false. If you meant the "
                   "word, quote it; if you meant true or false, write true or false.",
        "wrong": _CARD + "    attrs: {answer: no}\n",
        "right": _CARD + "    attrs: {answer: \"no\"}\n",
    },
    "Y102": {
        "title": "number with a leading zero",
        "explain": "YAML 1.1 reads a number with a leading zero, like `012`, as octal (10). Card codes and "
                   "similar labels should be quoted text; real numbers should have no leading zero.",
        "wrong": _CARD + "    attrs: {code: 012}\n",
        "right": _CARD + "    attrs: {code: \"012\"}\n",
    },
    # ---- S: the shape of the content (JSON Schema) --------------------------------
    "S000": {
        "title": "value breaks a schema rule",
        "explain": "The value breaks a rule of the section's JSON Schema (schemas/*.json) that has no more "
                   "specific code (S001-S006); the message quotes the rule. Today's schemas have no such "
                   "rule, so this code appears only if a schema gains a new kind of rule, such as a "
                   "list whose items must differ (`uniqueItems`). Editors that read the schemas "
                   "(`rulepress schema --editor`) show schema errors as you type.",
        "wrong": "icons:\n  - {id: coin, glyph: \"●\"}\n  - {id: coin, glyph: \"●\"}\n",
        "right": "icons:\n  - {id: coin, glyph: \"●\"}\n",
        "untested": "no rule of today's schemas falls outside S001-S006",
    },
    "S001": {
        "title": "unknown key or section",
        "explain": "The key is not one this kind of content has, usually a misspelling; rulepress suggests "
                   "the nearest known key. A misspelled key would otherwise be silently ignored, the worst "
                   "kind of rules bug. At the top of a file the key must be a section name.",
        "wrong": _CARD + "    cuont: 2\n",
        "right": _CARD + "    count: 2\n",
    },
    "S002": {
        "title": "required key missing",
        "explain": "This kind of content needs the key: every card a `name`, every counter an `id`, and so on. "
                   "The schemas in schemas/ list what each kind requires.",
        "wrong": "cards:\n  - id: turbo\n    deck: boosts\n",
        "right": _CARD,
    },
    "S003": {
        "title": "wrong kind of value",
        "explain": "The value is of the wrong kind: text where a number belongs, a list where a map belongs. "
                   "The message says what was expected and what was found.",
        "wrong": _CARD + "    count: two\n",
        "right": _CARD + "    count: 2\n",
    },
    "S004": {
        "title": "value not among the allowed ones",
        "explain": "The key takes one of a fixed set of words (a zone's `visibility`, a phase's `mode`, ...). "
                   "The message lists them and suggests the nearest.",
        "wrong": "zones:\n  - id: table\n    name: {en: Table, ru: Стол}\n    visibility: open\n",
        "right": "zones:\n  - id: table\n    name: {en: Table, ru: Стол}\n    visibility: public\n",
    },
    "S005": {
        "title": "not a valid id",
        "explain": "Ids are lower-case letters, digits and `_`, starting with a letter (`city_hall`), so that "
                   "effects can name them as plain words.",
        "wrong": _CARD.replace("id: turbo", "id: Turbo Boost"),
        "right": _CARD,
    },
    "S006": {
        "title": "number or size out of range",
        "explain": "A number is below its minimum or above its maximum (a card's `count` is 1 to 1000), or a "
                   "list or map has fewer entries than it must, or a list more than it may (a `bot:` section has at most "
                   "100 terms).",
        "wrong": _CARD + "    count: 0\n",
        "right": _CARD + "    count: 1\n",
    },
    "S010": {
        "title": "not a scenario file",
        "explain": "A file of a game's scenarios/ folder holds one map, `scenario:`, with the scenario's keys "
                   "under it (docs/scenarios.md). This one does not, so it could not be run.",
        "file": _SCEN,
        "wrong": "name: Nitro moves the racer\nsetup: |\n  move \"nitro#1\" to p1.hand\n",
        "right": _scenario("setup: |\n  move \"nitro#1\" to p1.hand\nexpect:\n  - count(p1.hand) == 1"),
    },
    "S011": {
        "title": "scenario sets an unknown option",
        "explain": "A scenario's `options:` names options of the game (`game: options:`). An unknown one "
                   "would be set and never read, so the scenario would test the default instead.",
        "file": _SCEN,
        "wrong": _scenario("options: {short_race: true}\nexpect:\n  - p1.position == 0"),
        "right": _scenario("expect:\n  - p1.position == 0"),
    },
    "S012": {
        "title": "scenario looks at something the game does not have",
        "explain": "`sees:` and `does_not_see:` map a seat (`p1`) to what it is sent or not: a thing's id, a "
                   "zone (`p1.hand`, a game zone's id) or a counter of a thing (`nitro#1.heat`, or "
                   "`p1.hand#2.heat` for the second thing in p1's hand). A seat the game cannot have, or a "
                   "name that is none of these, would test nothing.",
        "file": _SCEN,
        "wrong": _scenario("setup: |\n  move \"nitro#1\" to p1.hand\nsees:\n  p1: [p1.hnd]\ndoes_not_see:\n  p2: [p1.hand]"),
        "right": _scenario("setup: |\n  move \"nitro#1\" to p1.hand\nsees:\n  p1: [p1.hand]\ndoes_not_see:\n  p2: [p1.hand]"),
    },
    "S101": {
        "title": "translation missing",
        "explain": "Player-facing text is written in every language of the game, `{en: ..., ru: ...}`: "
                   "those its manifest declares (`game: languages: [en]`), else those its name is written in "
                   "(`name: {en: Sprint}`: English alone), else English and Russian. A missing language is a warning: the rulebook and cards in that language "
                   "would show the other one. A language the game does not declare is never missed.",
        "wrong": _CARD.replace("{en: Turbo, ru: Турбо}", "{en: Turbo}"),
        "right": _CARD,
    },
    "S102": {
        "title": "text in an undeclared language",
        "explain": "A text's keys are the game's languages, by their BCP 47 tags (`game: languages:`; "
                   "English and Russian unless it says). A text in another language is read by no rulebook, "
                   "card or player: most often the tag is misspelt (`rus:` for `ru:`), or the game has yet "
                   "to declare the language.",
        "wrong": _CARD.replace("{en: Turbo, ru: Турбо}", "{en: Turbo, rus: Турбо}"),
        "right": _CARD,
    },
    "S103": {
        "title": "no rulebook for a declared language",
        "explain": "A rulebook's own words (headings, fixed phrases, words counted by a number) come from "
                   "rulepress's message catalogue for its language, compiler/messages/<tag>.yaml. A game may "
                   "declare any language, but a rulebook is made only in those there is a catalogue for. "
                   "A new language is one new file: a translated copy of en.yaml (docs/content.md, \"Languages\").",
        "wrong": _MINI.replace("  version: 1\n", "  version: 1\n  languages: [en, tlh]\n") + _FLOW + _SCORING,
        "right": _MINI.replace("  version: 1\n", "  version: 1\n  languages: [en, ru]\n") + _FLOW + _SCORING,
        "file": "game.yaml", "alone": True,
    },
    # ---- G: the game folder as a whole --------------------------------------------
    "G001": {
        "title": "no game.yaml",
        "explain": "A game folder must hold game.yaml with the `game:` manifest (id, name, players). Other "
                   "files may be named as you like. The wrong example is the manifest saved as main.yaml.",
        "wrong": _MINI + _FLOW + _SCORING,
        "right": _MINI + _FLOW + _SCORING,
        "file": "main.yaml", "right_file": "game.yaml", "alone": True,
    },
    "G002": {
        "title": "manifest outside game.yaml",
        "explain": "The `game:` section belongs in game.yaml and nowhere else, so that a reader always finds "
                   "the manifest in the same place.",
        "wrong": "game:\n  id: race_two\n  name: {en: Race, ru: Гонка}\n  version: 2\n  players: {min: 2, max: 4}\n",
        "right": "icons: []\n",
    },
    "G003": {
        "title": "game.yaml without a manifest",
        "explain": "game.yaml exists but has no `game:` section. Add the manifest: id, name, version, players.",
        "wrong": "icons: []\n" + _FLOW + _SCORING,
        "right": _MINI + _FLOW + _SCORING,
        "file": "game.yaml", "alone": True,
    },
    "G004": {
        "title": "section given twice",
        "explain": "`game`, `flow` and `scoring` each describe the whole game, so each is given once, in one "
                   "file. The message says where the first one is.",
        "wrong": "scoring:\n  score: player.position * 2\n",
        "right": "icons: []\n",
    },
    "G005": {
        "title": "no flow",
        "explain": "The game has no `flow:` section, so nothing says how a game proceeds: setup, rounds, "
                   "phases, the end. See docs/content.md, Flow.",
        "wrong": _MINI + _SCORING,
        "right": _MINI + _FLOW + _SCORING,
        "file": "game.yaml", "alone": True,
    },
    "G006": {
        "title": "no scoring",
        "explain": "The game has no `scoring:` section, so nothing says who wins. Give at least `score:`, an "
                   "expression worked out for each player at the end.",
        "wrong": _MINI + _FLOW,
        "right": _MINI + _FLOW + _SCORING,
        "file": "game.yaml", "alone": True,
    },
    "G007": {
        "title": "game template refused",
        "explain": "A game may bring its own rulebook and card templates (Jinja2) in templates/. They are "
                   "content like the rest and render in Jinja's sandbox: no attribute starting with `_`, no "
                   "call that changes anything, nothing huge built from a few characters (see the limits in "
                   "docs/content.md). A template that tries one, or that "
                   "is broken (syntax, a value that does not exist), that runs past its budget of CPU time, "
                   "that is a link leading outside the game folder, or that includes a file that is not one "
                   "of templates/, stops `rulepress build` with this error at its line; `validate` does not "
                   "render templates.",
        "wrong": "# {{ title.__class__.__mro__ }}\n",
        "right": "# {{ title }}\n",
        "file": "templates/rulebook.md.j2", "build": True, "fence": "jinja",
    },
    # ---- R: references between content --------------------------------------------
    "R001": {
        "title": "id used twice",
        "explain": "Ids are unique across the whole game, in every section and every file, so that an effect "
                   "naming one means exactly one thing. The message names both places.",
        "wrong": _CARD.replace("turbo", "nitro"),
        "right": _CARD,
    },
    "R002": {
        "title": "unknown reference",
        "explain": "The value names something (a deck, location, action, phase, event, owner) that the game "
                   "does not declare, usually a misspelling; rulepress suggests the nearest declared id.",
        "wrong": _CARD.replace("deck: boosts", "deck: bosts"),
        "right": _CARD,
    },
    "R003": {
        "title": "id is a built-in name",
        "explain": "The id is a name the effect language already has (`player`, `players`, `round`, `supply`, "
                   "...); effects could not tell the two apart. Choose another id.",
        "wrong": "counters:\n  - id: round\n    name: {en: Round, ru: Раунд}\n    of: game\n",
        "right": "counters:\n  - id: lap\n    name: {en: Lap, ru: Круг}\n    of: game\n",
    },
    "R004": {
        "title": "bounds that contradict each other",
        "explain": "A minimum above a maximum (players, a counter), or a counter that starts outside its "
                   "bounds. A track from 0 to 5 cannot start at 7.",
        "wrong": "counters:\n  - id: heat\n    name: {en: Heat, ru: Жар}\n    min: 0\n    max: 5\n    initial: 7\n",
        "right": "counters:\n  - id: heat\n    name: {en: Heat, ru: Жар}\n    min: 0\n    max: 5\n    initial: 0\n",
    },
    "R005": {
        "title": "pool total does not add up",
        "explain": "A pool's `total` says how many tokens the bag holds, as the printed rules do; its tokens' "
                   "counts must add up to it. The check catches a token line lost or mistyped.",
        "wrong": "pools:\n  - id: bag\n    total: 5\n    tokens:\n      - {id: red, count: 2}\n      - {id: blue, count: 2}\n"
                 "actions:\n  - id: pick\n    name: {en: Pick, ru: Тянуть}\n    effect: draw 1 from bag\n",
        "right": "pools:\n  - id: bag\n    total: 4\n    tokens:\n      - {id: red, count: 2}\n      - {id: blue, count: 2}\n"
                 "actions:\n  - id: pick\n    name: {en: Pick, ru: Тянуть}\n    effect: draw 1 from bag\n",
    },
    "R006": {
        "title": "a phase of turns with no action",
        "explain": "A phase with `mode: turns` gives each player turns of actions, but no action can be taken "
                   "in it: every player could only pass. Give the phase `actions:` or declare actions "
                   "(without a `phase:`, or with this one).",
        "wrong": _MINI + "flow:\n  phases:\n    - id: main\n      mode: turns\n" + _SCORING,
        "right": _MINI + "flow:\n  phases:\n    - id: main\n      mode: turns\n" + _SCORING
                 + "actions:\n  - id: wave\n    name: {en: Wave, ru: Помахать}\n    effect: log \"hi\"\n",
        "file": "game.yaml", "alone": True,
    },
    "R007": {
        "title": "visibility that names nobody",
        "explain": "A zone's `visibility` says who sees what lies there: `public`, `owner` (its player), "
                   "`others` (every player but its own), `hidden`, or a list of seats (`[p1, p3]`). `owner` and "
                   "`others` need a zone `of: player`; a seat must be one the game can have. A counter "
                   "`public` (seen on a thing while the thing is hidden) is a counter of a kind of thing, "
                   "and not `hidden` as well; a counter that `tells` or `rules_out` an attribute is `public`.",
        "wrong": "zones:\n  - id: table\n    name: {en: Table, ru: Стол}\n    visibility: others\n",
        "right": "zones:\n  - id: table\n    of: player\n    name: {en: Table, ru: Стол}\n    visibility: others\n",
    },
    "R008": {
        "title": "two places at one spot of the table's map",
        "explain": "`game: table: map:` puts each location at a column and a row of the online table's board "
                   "(docs/table.md). Two at the same spot would be drawn one over the other: give each its own.",
        "wrong": _MINI + "  table:\n    map: {north: [1, 1], south: [1, 1]}\n" + _PLACES + _FLOW + _SCORING,
        "right": _MINI + "  table:\n    map: {north: [1, 1], south: [1, 2]}\n" + _PLACES + _FLOW + _SCORING,
        "file": "game.yaml", "alone": True,
    },
    "R010": {
        "title": "unknown icon",
        "explain": "`[name]` in player-facing text shows an icon, and every icon is declared under `icons:` "
                   "with its glyph. This one is not.",
        "wrong": _CARD + "    text: {en: \"Gain 1 [coin]\", ru: \"Получите 1 [coin]\"}\n",
        "right": _CARD + "    text: {en: \"Gain 1 [coin]\", ru: \"Получите 1 [coin]\"}\n"
                 + "icons:\n  - {id: coin, glyph: \"●\"}\n",
    },
    # ---- D: the effect language ----------------------------------------------------
    "D001": {
        "title": "effect syntax error",
        "explain": "The effect text does not follow the grammar of the effect language (docs/dsl.md). The "
                   "message says what was expected at that point: a missing `:` before a block, an unknown "
                   "statement, a line that ends too early, unbalanced brackets or quotes.",
        "wrong": _proc("gain 1 position\njump 2 position"),
        "right": _proc("gain 1 position\ngain 2 position"),
    },
    "D004": {
        "title": "effect text too long",
        "explain": "One effect text is over 20,000 characters. Split it into procedures with names that say "
                   "what each part does. (The wrong example stands for a thousand such lines.)",
        "wrong": _proc("gain 1 position\ngain 1 position\n# ... a thousand lines more"),
        "right": _proc("gain 1 position"),
        "special": "long",
    },
    "D005": {
        "title": "tab in an effect",
        "explain": "Effects indent blocks with spaces; a tab would mean different depths in different "
                   "editors. Replace the tab with spaces.",
        "wrong": "procedures:\n  - id: push\n    effect: \"gain\\t1 position\"\n"
                 "actions:\n  - id: do_push\n    name: {en: Push, ru: Толчок}\n    effect: push()\n",
        "right": _proc("gain 1 position"),
    },
    "D006": {
        "title": "effect nests too deeply",
        "explain": "Brackets or indented blocks nest deeper than 40 levels. Name the inner parts with `let` "
                   "or move them into procedures.",
        "wrong": _proc("gain " + "(" * 45 + "1" + ")" * 45 + " position"),
        "right": _proc("gain 1 position"),
    },
    "D007": {
        "title": "condition on several lines",
        "explain": "Conditions, scores and other expressions (`if:`, `when:`, `until:`, `end:`, `score:`) are "
                   "one expression on one line. Combine parts with `and`/`or`, or compute them in a "
                   "procedure.",
        "wrong": "actions:\n  - id: sprint\n    name: {en: Sprint, ru: Рывок}\n    if: |\n      count(player.hand) > 0\n"
                 "      player.position < 10\n    effect: gain 3 position\n",
        "right": "actions:\n  - id: sprint\n    name: {en: Sprint, ru: Рывок}\n"
                 "    if: count(player.hand) > 0 and player.position < 10\n    effect: gain 3 position\n",
    },
    "D008": {
        "title": "number too large",
        "explain": "Numbers in effects are limited to 10^12; a larger one is a typo (or a paste) and would "
                   "make scores meaningless.",
        "wrong": _proc("gain 10000000000000 position"),
        "right": _proc("gain 10 position"),
    },
    "D010": {
        "title": "cannot set this",
        "explain": "`set X to ...` changes a counter or a name given by `let`. X is neither: a misspelled "
                   "counter, or a name that was never given a value.",
        "wrong": _proc("set speed to 3"),
        "right": _proc("let speed = 1\nset speed to 3\ngain speed position"),
    },
    "D011": {
        "title": "unknown counter",
        "explain": "`gain`, `lose` and `pay` change a counter declared under `counters:`; this one is not "
                   "declared (or is misspelled).",
        "wrong": _proc("gain 1 postion"),
        "right": _proc("gain 1 position"),
    },
    "D012": {
        "title": "whose counter?",
        "explain": "The counter belongs to a kind of thing (`of: card`, `of: monster`), so `gain`/`lose`/`pay` "
                   "must say whose: `gain 1 wear to c`. Player counters default to `player`, game counters "
                   "to the game.",
        "wrong": "counters:\n  - id: wear\n    name: {en: Wear, ru: Износ}\n    of: card\n"
                 + _proc("gain 1 wear"),
        "right": "counters:\n  - id: wear\n    name: {en: Wear, ru: Износ}\n    of: card\n"
                 + _proc("for each c in player.hand:\n  gain 1 wear to c"),
    },
    "D013": {
        "title": "unknown name",
        "explain": "The effect uses a name that is not declared anywhere: not an id, counter, zone, option, a "
                   "built-in name (`player`, `round`, ...), nor a name given by `let`, `for each`, `choose` "
                   "or the procedure's parameters. Usually a misspelling; the nearest name is suggested.",
        "wrong": _proc("gain bonus position"),
        "right": _proc("let bonus = 2\ngain bonus position"),
    },
    "D014": {
        "title": "unknown attribute",
        "explain": "`x.name` reads an attribute (`attrs:` of cards, pieces, locations), a counter or zone of "
                   "x, or a built-in attribute (`id`, `owner`, `location`, ...). No content declares this one.",
        "wrong": _proc("for each c in player.hand:\n  gain c.sped position"),
        "right": _proc("for each c in player.hand:\n  gain c.speed position"),
    },
    "D015": {
        "title": "unknown kind",
        "explain": "`every KIND` lists all things of a kind in play; the kind is not one the game has "
                   "(cards, pieces and pools declare kinds with `kind:`; card, token, location and player "
                   "are built in).",
        "wrong": _proc("log count(every monster)"),
        "right": _proc("log count(every card)"),
    },
    "D016": {
        "title": "wrong number of arguments",
        "explain": "A function or procedure is called with more or fewer arguments than it takes, or an "
                   "aggregate form (`sum(x for x in ...)`) is used with a function that is not an aggregate.",
        "wrong": _proc("gain roll() position"),
        "right": _proc("gain sum(roll(2)) position"),
    },
    "D017": {
        "title": "unknown function or procedure",
        "explain": "The call names neither a built-in function (docs/dsl.md) nor a procedure of the game.",
        "wrong": _proc("gain dice(2) position"),
        "right": _proc("gain sum(roll(2)) position"),
    },
    "D018": {
        "title": "wrong kind of value",
        "explain": "The value cannot be what this place needs: text where an amount belongs, a number where "
                   "a place or a list belongs. Only sure cases are reported; a value whose kind is known "
                   "only when the game runs is accepted.",
        "wrong": _proc("gain \"three\" position"),
        "right": _proc("gain 3 position"),
    },
    "D030": {
        "title": "option or window named by what names nothing",
        "explain": "`option(\"name\")` reads a game option, named in quotes; the name must be one of "
                   "`game: options:`. Without quotes, `name` alone is already the option's value, and "
                   "`option(...)` of that value names no option: it gives nothing and the rule silently "
                   "never applies. In the "
                   "same way `usable(\"window\", p)` names a window some action has (`window:`); "
                   "any other text gives an empty list, always.",
        "alone": True,
        "file": "game.yaml",
        "wrong": _MINI + "  options:\n    short: {default: true}\n" + _FLOW.replace('log "hello"', 'if option(short):\n          log "short game"') + _SCORING,
        "right": _MINI + "  options:\n    short: {default: true}\n" + _FLOW.replace('log "hello"', 'if option("short"):\n          log "short game"') + _SCORING,
    },
    "D031": {
        "title": "`return` outside a procedure",
        "explain": "Only a procedure gives back a value. Elsewhere `return` is accepted by the grammar "
                   "but means nothing the rules could say; to end an effect early, put the rest of it "
                   "under `if`.",
        "wrong": "actions:\n  - id: rest\n    name: {en: Rest, ru: Отдых}\n    effect: |\n"
                 "      if player.position > 5:\n        return\n      gain 1 position\n",
        "right": "actions:\n  - id: rest\n    name: {en: Rest, ru: Отдых}\n    effect: |\n"
                 "      if player.position <= 5:\n        gain 1 position\n",
    },
    "D032": {
        "title": "a copy that does not exist",
        "explain": "The copies of a card with `count: N` are `id#1` ... `id#N`; an effect or a scenario "
                   "names one as it is, `nitro#2` (a `#` right after a name and before digits does not "
                   "start a comment), or in quotes, `\"nitro#2\"`. The copy must exist.",
        "file": _SCEN,
        "wrong": _scenario("setup: |\n  move nitro#9 to p1.hand\nexpect:\n  - count(p1.hand) == 1"),
        "right": _scenario("setup: |\n  move nitro#1 to p1.hand\nexpect:\n  - count(p1.hand) == 1"),
    },
    "D035": {
        "title": "offer of a window no action has",
        "explain": "`offer WINDOW` asks the players, one after another, to react with an action that has "
                   "`window: WINDOW`; the first who takes one does it. No action has that window, so nobody "
                   "is ever asked: a misspelling, or the reaction is missing its `window:`.",
        "alone": True,
        "file": "game.yaml",
        "wrong": _MINI + "actions:\n  - id: challenge\n    name: {en: Challenge, ru: Вызов}\n    window: claim\n"
                 "    effect: |\n      log \"{player} challenges {actor}\"\n"
                 + _FLOW.replace('log "hello"', "offer claims") + _SCORING,
        "right": _MINI + "actions:\n  - id: challenge\n    name: {en: Challenge, ru: Вызов}\n    window: claim\n"
                 "    effect: |\n      log \"{player} challenges {actor}\"\n"
                 + _FLOW.replace('log "hello"', "offer claim") + _SCORING,
    },
    "D033": {
        "title": "scenario tests a mark nothing sets",
        "explain": "A scenario tests `x has MARK`, but neither the game's effects nor the scenario set that "
                   "mark: a misspelling, and the expectation could never tell the rule works.",
        "file": _SCEN,
        "wrong": _scenario("setup: |\n  mark p1 as boosted\nexpect:\n  - p1 has bosted"),
        "right": _scenario("setup: |\n  mark p1 as boosted\nexpect:\n  - p1 has boosted"),
    },
    "D034": {
        "title": "a value thrown away",
        "explain": "A built-in function that only gives a value (`count`, `max`, `option`, ...) stands "
                   "alone as a statement: its value is thrown away and nothing changes. Use the value "
                   "(`let`, `set`, `if`, `gain`) or remove the line. (`roll` and `random` draw dice, so "
                   "they may stand alone.)",
        "wrong": _proc("max(player.position, 3)"),
        "right": _proc("set player.position to max(player.position, 3)"),
    },
    "D020": {
        "title": "procedure calls itself",
        "explain": "A procedure calls itself, directly or through others. Effects must always finish, so "
                   "repetition is written with `repeat N times:` or `while`, which run under a step budget.",
        "wrong": _proc("gain 1 position\nif player.position < 10:\n  push()"),
        "right": _proc("while player.position < 10:\n  gain 1 position"),
    },
    # ---- W: warnings ---------------------------------------------------------------
    "W001": {
        "title": "procedure never called",
        "explain": "No effect calls the procedure. It may be left over from an edit, or its caller may "
                   "misspell its name.",
        "wrong": "procedures:\n  - id: push\n    effect: gain 1 position\n",
        "right": _proc("gain 1 position"),
    },
    "W002": {
        "title": "deck never used",
        "explain": "A game deck that no effect draws from or names: its cards can never come into play.",
        "wrong": "decks:\n  - id: spares\n    name: {en: Spares, ru: Запас}\n",
        "right": "decks:\n  - id: spares\n    name: {en: Spares, ru: Запас}\n"
                 "actions:\n  - id: draw_spare\n    name: {en: Draw a spare, ru: Взять запасную}\n    effect: draw 1 from spares\n",
    },
    "W003": {
        "title": "pool never used",
        "explain": "A pool that no effect draws from or names: its tokens can never come into play.",
        "wrong": "pools:\n  - id: bag\n    tokens:\n      - {id: red, count: 2}\n",
        "right": "pools:\n  - id: bag\n    tokens:\n      - {id: red, count: 2}\n"
                 "actions:\n  - id: pick\n    name: {en: Pick, ru: Тянуть}\n    effect: draw 1 from bag\n",
    },
    "W004": {
        "title": "attribute named like a counter or zone",
        "explain": "A card, piece, location or token has an attribute with the name of a counter or zone "
                   "that things of its kind have (`of: card`). `x.name` reads the counter or zone first, so "
                   "the attribute can never be read. Rename one of them.",
        "wrong": "counters:\n  - id: wear\n    name: {en: Wear, ru: Износ}\n    of: card\n"
                 + _CARD + "    attrs: {wear: 2}\n",
        "right": "counters:\n  - id: wear\n    name: {en: Wear, ru: Износ}\n    of: card\n"
                 + _CARD + "    attrs: {grip: 2}\n",
    },
    "W010": {
        "title": "name hides a built-in",
        "explain": "An attribute (or a counter or zone things have) has the name of a built-in attribute of "
                   "the language: `type` (the card or piece a thing is a copy of), `id`, `kind`, `name`, "
                   "`zone`, `location`, `owner`, `face_up`, `contents`, `seat`. `x.type` reads the built-in, "
                   "so the content's value can never be read, and a test like `c.type == \"headline\"` "
                   "is never true. Rename the attribute (`category`, say). The same holds for an option "
                   "named like a built-in name, an id, a counter or a zone (the bare name reads those "
                   "first), a procedure named like a built-in function (calls reach the procedure), and "
                   "a name an effect gives (`let others = ...`, a parameter, a loop's name) that hides a "
                   "built-in name such as `others` or `round` from there on.",
        "wrong": _CARD + "    attrs: {type: fast}\n",
        "right": _CARD + "    attrs: {style: fast}\n",
    },
    "W011": {
        "title": "mark tested but never set",
        "explain": "An effect tests `x has MARK` but no effect marks anything with it (`mark x as MARK`), "
                   "so the test never passes: usually a misspelling on one side.",
        "wrong": _proc("if player has shielded:\n  gain 1 position")
                 + "  - id: shield\n    name: {en: Shield, ru: Щит}\n    effect: mark player as sheilded\n",
        "right": _proc("if player has shielded:\n  gain 1 position")
                 + "  - id: shield\n    name: {en: Shield, ru: Щит}\n    effect: mark player as shielded\n",
    },
    "W012": {
        "title": "mark set but never tested",
        "explain": "An effect marks things with a mark that no effect tests (`x has MARK`), so setting it "
                   "changes nothing: a misspelling, or a rule not yet written.",
        "wrong": _proc("mark player as shielded"),
        "right": _proc("mark player as shielded\nif player has shielded:\n  gain 1 position"),
    },
    "W014": {
        "title": "event no trigger hears",
        "explain": "`emit EVENT` runs the triggers with `on: EVENT`. No trigger has it, so the statement "
                   "does nothing: a misspelling on one side, or a trigger not yet written.",
        "wrong": _proc("emit pushed")
                 + "triggers:\n  - id: after_push\n    on: pushd\n    effect: gain 1 score\n",
        "right": _proc("emit pushed")
                 + "triggers:\n  - id: after_push\n    on: pushed\n    effect: gain 1 score\n",
    },
    "W015": {
        "title": "option never read",
        "explain": "The game declares an option (`game: options:`) that no effect reads, by its name or "
                   "as `option(\"name\")`: choosing it at the table changes nothing.",
        "alone": True,
        "file": "game.yaml",
        "wrong": _MINI + "  options:\n    short: {default: true}\n" + _FLOW + _SCORING,
        "right": _MINI + "  options:\n    short: {default: true}\n" + _FLOW.replace('log "hello"', 'if short:\n          log "short game"') + _SCORING,
    },
    "W019": {
        "title": "rulebook prints an id",
        "explain": "A kind, attribute, mark, option, procedure or event that the rulebook (or a card face) "
                   "names has no name in words: no declaration of it carries a `name:`, so the rulebook "
                   "would print its id (`seat_no`, `first_edition_track_scoring`) among the prose. Give it "
                   "words in each language under `game: terms:` in game.yaml. Found by `rulepress build`, "
                   "which lists every such id of the game.",
        "build": True,
        "wrong": "cards:\n  - id: slick\n    name: {en: Slick tyres, ru: Слики}\n    deck: boosts\n    attrs: {grip: 2}\n",
        "right": "cards:\n  - id: slick\n    name: {en: Slick tyres, ru: Слики}\n    deck: boosts\n    attrs: {speed: 2}\n",
    },
    "W022": {
        "title": "procedure left out of the rulebook",
        "explain": "A rule the rulebook prints sends the reader to a procedure by name (\"carry out "
                   "«refill»\"), but the procedure has no `text:`, and a procedure without one is steps for the "
                   "runtime: the glossary leaves it out rather than print its statements as pseudo-code, so "
                   "the reader finds nothing under that name. Give it a `text:` in each language saying what "
                   "it does for them (the rule then reads as those words). A procedure no printed rule names "
                   "(a helper of other procedures, a `bot:` term's) needs none. Found by `rulepress build`, "
                   "which lists every such procedure of the game.",
        "build": True,
        "wrong": "procedures:\n  - id: refill\n    effect: gain 1 score\nactions:\n  - id: pit_stop\n"
                 "    name: {en: Pit stop, ru: Пит-стоп}\n    effect: refill()\n",
        "right": "procedures:\n  - id: refill\n    text: {en: Gain a point., ru: Получите очко.}\n    effect: gain 1 score\n"
                 "actions:\n  - id: pit_stop\n    name: {en: Pit stop, ru: Пит-стоп}\n    effect: refill()\n",
    },
    "W020": {
        "title": "card text does not fit",
        "explain": "A card's text is set in the largest size from 7.5 pt down to 6 pt that fits its face; "
                   "below 6 pt nobody reads it at the table. This card's text (with its effect in words "
                   "where it has no text) does not fit even at 6 pt on the card size printed, measured "
                   "in the layout the printer uses; the warning says by how many millimetres. Shorten the "
                   "text, move detail to the rulebook, or print a larger size (`rulepress print --size "
                   "tarot`). Found by `rulepress print`, with the card's place.",
        "print": True,
        "wrong": "cards:\n  - id: essay\n    name: {en: Essay, ru: Эссе}\n    deck: boosts\n"
                 "    text: {en: \"Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead. Move ahead.\", ru: \"Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд. Вперёд.\"}\n",
        "right": "cards:\n  - id: essay\n    name: {en: Essay, ru: Эссе}\n    deck: boosts\n"
                 "    text: {en: \"Move ahead.\", ru: \"Вперёд.\"}\n",
    },
    "W021": {
        "title": "character no font draws",
        "explain": "A card holds a character that no installed font can draw (often an emoji or a rare "
                   "symbol used as an icon's glyph): the printed card would show an empty box. Give the "
                   "icon an image (`art/icons/<icon id>.svg` or `.png` in the game folder: the card and "
                   "the rulebook show it instead of the glyph) or use a character the fonts have. Found "
                   "by `rulepress print`, with the card's place.",
        "print": True,
        "wrong": "cards:\n  - id: charm\n    name: {en: Charm, ru: Амулет}\n    deck: boosts\n"
                 "    text: {en: \"Gain 1 \\ue000\", ru: \"Получите 1 \\ue000\"}\n",
        "right": "cards:\n  - id: charm\n    name: {en: Charm, ru: Амулет}\n    deck: boosts\n"
                 "    text: {en: \"Gain 1 ★\", ru: \"Получите 1 ★\"}\n",
    },
    "W023": {
        "title": "attribute the rules read is on no face",
        "explain": "A rule reads this card's attribute (`c.grip`), but a player holding the card cannot "
                   "see it: it has no name in words (so the face does not show it), its deck's `face:` "
                   "does not promote it to the corner or the big numbers, and the card's text does not "
                   "say its value. Give it words under `game: terms:`, put it in its deck's `face: "
                   "corner:` (a number a player reads at arm's length, such as a card's value), or say "
                   "it in the card's text. Found by `rulepress print`, with the card's place.",
        "print": True,
        "wrong": "decks:\n  - id: tyres\n    name: {en: Tyre deck, ru: Колода шин}\n"
                 "cards:\n  - id: slick\n    name: {en: Slick tyres, ru: Слики}\n    deck: tyres\n    attrs: {grip: 2}\n"
                 "procedures:\n  - id: grip_of\n    params: [c]\n    effect: |\n      gain c.grip position\n",
        "right": "decks:\n  - id: tyres\n    name: {en: Tyre deck, ru: Колода шин}\n    face: {corner: grip}\n"
                 "cards:\n  - id: slick\n    name: {en: Slick tyres, ru: Слики}\n    deck: tyres\n    attrs: {grip: 2}\n"
                 "procedures:\n  - id: grip_of\n    params: [c]\n    effect: |\n      gain c.grip position\n",
    },
    "W013": {
        "title": "comparison no thing can pass",
        "explain": "`x.attr == \"value\"` where no thing (of the kind x runs over, for `every KIND`) has "
                   "that value for the attribute: the comparison never holds (`!=`: always holds), so a "
                   "`where` filter with it lets nothing through. For the built-in `type` the values are "
                   "the ids of cards, pieces, tokens and locations.",
        "wrong": _proc("let n = count(c for c in every card where c.type == \"fast\")\ngain n position"),
        "right": _proc("let n = count(c for c in every card where c.type == \"nitro\")\ngain n position"),
    },
    "W016": {
        "title": "public log line names a hidden thing",
        "explain": "A `log` line every player reads names or reads a thing hidden from some of them (a card "
                   "drawn into a hand, a thing chosen from a deck). Those players read the line with the thing "
                   "unnamed, but what the rest of the line says about it still reaches them. Say it to the "
                   "player who may know it with `log ... to P`, or log it once it is face up for all.",
        "wrong": "actions:\n  - id: peek\n    name: {en: Peek, ru: Подсмотреть}\n    effect: |\n"
                 "      draw 1 from boosts as got\n      log [player, \"draws a boost of speed\", got.speed]\n",
        "right": "actions:\n  - id: peek\n    name: {en: Peek, ru: Подсмотреть}\n    effect: |\n"
                 "      draw 1 from boosts as got\n      log [\"you draw a boost of speed\", got.speed] to player\n",
    },
    "W017": {
        "title": "whether a decision is asked depends on a hidden value",
        "explain": "Every seat sees who is deciding. A `choose` or `may` asked only when a hidden thing allows "
                   "it (under an `if` that reads a hand) tells everyone what the hidden things are. (A `choose` "
                   "among hidden things filtered by `where` is safe: it is asked however many fit, with one "
                   "option or with `none` alone.) Decide on what every player sees (how many cards a hand holds), "
                   "or ask every player alike: `each p in players secretly chooses x from LIST where C "
                   "or none:` asks all of them, and one without a legal answer answers only `none` "
                   "(docs/dsl.md, \"Decisions that do not reveal\").",
        "wrong": "actions:\n  - id: flash\n    name: {en: Flash, ru: Вспышка}\n    effect: |\n"
                 "      for each p in players:\n        if count([c for c in p.hand where c.speed > 2]) > 0:\n"
                 "          may by p \"Flash your fast boost?\":\n            gain 1 score to p\n",
        "right": "actions:\n  - id: flash\n    name: {en: Flash, ru: Вспышка}\n    effect: |\n"
                 "      each p in players secretly chooses c from p.hand where c.speed > 2 or none:\n"
                 "        log \"everyone has answered\"\n      for each p in players where c[p] != none:\n"
                 "        show c[p] to players\n        gain 1 score to p\n",
    },
}

_GROUPS = [("Y", "Reading YAML files"), ("S", "The shape of content (JSON Schema)"), ("G", "The game folder"),
           ("R", "References between content"), ("D", "The effect language"), ("W", "Warnings")]


def _fence(text: str, kind: str = "yaml") -> str:
    return f"```{kind}\n" + text.rstrip("\n") + "\n```"


def render(code: str, entry: dict) -> str:
    """One entry, as Markdown (it reads as well in a terminal)."""
    name = entry.get("file", "extra.yaml")
    where = (f"`{name}`, the only file of a new game folder" if entry.get("alone")
             else f"`{name}` added to the tutorial game {_RACE}")
    if entry.get("build"):
        where += ", then `rulepress build`"
    if entry.get("print"):
        where += ", then `rulepress print`"
    right_file = entry.get("right_file")
    lines = [f"## {code}: {entry['title']}", "", entry["explain"], "",
             f"Wrong, as {where}:", "", _fence(entry["wrong"], entry.get("fence", "yaml")), "",
             f"Right{f', as `{right_file}`' if right_file else ''}:", "", _fence(entry["right"], entry.get("fence", "yaml"))]
    return "\n".join(lines) + "\n"


def render_doc() -> str:
    """docs/errors.md: every code, grouped by stage."""
    out = ["# Errors and warnings", "",
           "Every finding of `rulepress validate` is one line `FILE:LINE:COL: error|warning: CODE message`.",
           "`rulepress explain CODE` prints the entry below for CODE. Errors stop a build; warnings do not.",
           "This file is generated: `python -m rulepress.compiler.catalogue > docs/errors.md`.", ""]
    for prefix, heading in _GROUPS:
        out += [f"# {prefix}: {heading}", ""]
        for code in sorted(c for c in CATALOGUE if c[0] == prefix):
            out.append(render(code, CATALOGUE[code]))
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_doc())
