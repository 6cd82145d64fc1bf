"""Love Letter as in docs/examples/love-letter, written by hand in plain Python.

The yardstick for the runtime: the same rules and the same random bots, so that a decision
here costs what a decision costs when nothing but the rule itself is paid for. The rules, as
the content says them (a card is its value: the names add nothing to play):

- 12 cards: five Guards (1), two Priests (2), two Barons (3), two Handmaids (4), a Princess (8).
- Each hand: every card back, shuffle, one set aside unseen, each player draws one.
- Turns go round from the first seat; a turn draws a card and plays one of the two held.
  Players out of the hand have no turn. The hand ends, before a turn would start, once at most
  one player is in or the deck is empty.
- Guard: name 2, 3, 4 or 8 for another player in and not protected; right, they are out.
  Priest: look at such a player's card. Baron: compare cards with one; the lower is out.
  Handmaid: protected (not a target) until your next turn starts, even across hands.
  Princess: played, you are out.
- End of a hand: every player still in holding the highest card gains a token; the game ends
  after the hand in which someone reaches 3 tokens; those with the most tokens win.

Decisions are the runtime's: the turn's one action (`play`, the only legal option, still
asked), the card to play, the target (only where two or more may be chosen: the runtime takes
a lone option without asking) and the Guard's number. Bots pick uniformly among them.
"""
from __future__ import annotations

import random
from typing import NamedTuple

DECK = (1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 8)
GUARD, PRIEST, BARON, HANDMAID, PRINCESS = 1, 2, 3, 4, 8
NAMEABLE = (2, 3, 4, 8)  # a Guard names any value but its own
TOKENS_TO_WIN = 3
PLAY_ACTION = ("play",)  # a turn's options: the one action, without pass (can_pass: false)


class Result(NamedTuple):
    rounds: int  # hands dealt
    turns: int
    decisions: int
    winners: tuple  # seats, 0-based


class RandomBot:
    """Uniform over the options, from the generator it is handed (a Mersenne Twister costs
    more to seed than a whole game costs to play, so the games of a run share one)."""
    __slots__ = ("choose",)

    def __init__(self, rng: random.Random):
        self.choose = rng.choice  # choose(options) -> one of them


def play(players: int, rng: random.Random, bots) -> Result:
    """One game between `bots` (one per seat); `rng` shuffles the deck."""
    tokens = [0] * players
    protected = [False] * players  # lasts until the player's next turn, across hands
    seats = range(players)
    rounds = turns = decisions = 0
    while max(tokens) < TOKENS_TO_WIN:
        rounds += 1
        deck = list(DECK)
        rng.shuffle(deck)
        deck.pop()  # set aside, unseen
        hands = [deck.pop() for _ in seats]  # the one card each player holds between turns
        out = [False] * players
        standing = players
        over = False
        while not over:
            for p in seats:
                if standing <= 1 or not deck:
                    over = True
                    break
                if out[p]:
                    continue
                protected[p] = False
                turns += 1
                drawn = deck.pop()
                bot = bots[p]
                bot.choose(PLAY_ACTION)
                decisions += 2  # the action, then which card
                if bot.choose((hands[p], drawn)) == drawn:
                    card = drawn
                else:
                    card, hands[p] = hands[p], drawn
                if card == HANDMAID:
                    protected[p] = True
                    continue
                if card == PRINCESS:
                    out[p] = True
                    standing -= 1
                    continue
                targets = [q for q in seats if q != p and not out[q] and not protected[q]]
                if not targets:
                    continue
                if len(targets) > 1:
                    decisions += 1
                    t = bot.choose(targets)
                else:
                    t = targets[0]
                if card == GUARD:
                    decisions += 1
                    if bot.choose(NAMEABLE) == hands[t]:
                        out[t] = True
                        standing -= 1
                elif card == BARON:
                    if hands[p] > hands[t]:
                        out[t] = True
                        standing -= 1
                    elif hands[t] > hands[p]:
                        out[p] = True
                        standing -= 1
                # a Priest only shows a card: random bots make nothing of it
        best = max(hands[p] for p in seats if not out[p])
        for p in seats:
            if not out[p] and hands[p] == best:
                tokens[p] += 1
    top = max(tokens)
    return Result(rounds, turns, decisions, tuple(p for p in seats if tokens[p] == top))


def play_many(players: int, games: int, seed: str = "plain"):
    """`games` results from one generator, which shuffles and picks for every seat."""
    rng = random.Random(seed)
    bots = [RandomBot(rng) for _ in range(players)]
    return [play(players, rng, bots) for _ in range(games)]
