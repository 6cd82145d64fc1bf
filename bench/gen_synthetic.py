"""Write a synthetic game big enough to measure the compiler: 10,000 cards in 100 files.

    python bench/gen_synthetic.py [OUT] [--cards N] [--files F] [--seed S]

Every card has an effect of 2 to 5 statements drawn from a fixed menu, so the game
validates cleanly and exercises the loader, the schemas, the parser and the checker.
The same arguments always write the same files.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil

MANIFEST = """\
game:
  id: synthetic
  name: {en: Synthetic, ru: Синтетика}
  version: 1
  players: {min: 2, max: 4}

counters:
  - id: coins
    name: {en: Coins, ru: Монеты}
    of: player
    min: 0
  - id: fame
    name: {en: Fame, ru: Слава}
    of: player
  - id: doom
    name: {en: Doom, ru: Рок}
    of: game
    min: 0
    max: 50

decks:
  - id: market
    name: {en: Market, ru: Рынок}

zones:
  - id: hand
    name: {en: Hand, ru: Рука}
    of: player
    visibility: owner
  - id: table
    name: {en: Table, ru: Стол}
    visibility: public

procedures:
  - id: bonus
    params: [amount]
    effect: |
      gain amount fame
      if amount > 2:
        lose 1 doom

actions:
  - id: buy
    name: {en: Buy, ru: Купить}
    effect: |
      draw 1 from market
  - id: play
    name: {en: Play, ru: Сыграть}
    if: count(player.hand) > 0
    effect: |
      choose c from player.hand "Which card?":
        perform c
        discard c

flow:
  first_player: random
  rounds: 20
  phases:
    - id: main
      mode: turns
      max_actions: 2
  end: doom >= 50

scoring:
  score: player.fame + player.coins
  tie: share
"""

# One line (or a small block) per statement; {n} is a number, {k} a number of cards.
STATEMENTS = [
    "gain {n} coins",
    "gain {n} fame",
    "lose {n} coins",
    "gain {n} doom",
    "lose {n} doom",
    "draw {k} from market",
    "let x = count(player.hand) + {n}",
    "bonus({n})",
    "log \"played a card\"",
    "if player.coins >= {n}:\n  pay {n} coins\n  gain {k} fame",
    "for each p in others:\n  gain 1 fame to p",
    "choose q from others \"Who loses a coin?\":\n  lose 1 coins from q",
    "may \"Discard a card for fame?\":\n  gain {k} fame",
    "if this.power > {n}:\n  gain 1 fame\nelse:\n  gain 1 coins",
    "set player.coins to max(player.coins, {n})",
]


def card(i: int, rng: random.Random) -> str:
    stmts = [rng.choice(STATEMENTS).format(n=rng.randint(1, 6), k=rng.randint(1, 3))
             for _ in range(rng.randint(2, 5))]
    effect = "\n".join("      " + ln for s in stmts for ln in s.split("\n"))
    return (f"  - id: card_{i:05d}\n"
            f"    name: {{en: Card {i}, ru: Карта {i}}}\n"
            f"    deck: market\n"
            f"    attrs: {{power: {rng.randint(0, 9)}, suit: s{i % 4}}}\n"
            f"    effect: |\n{effect}\n")


def generate(out: str, cards: int = 10_000, files: int = 100, seed: int = 1) -> str:
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    with open(os.path.join(out, "game.yaml"), "w", encoding="utf-8") as fh:
        fh.write(MANIFEST)
    rng = random.Random(seed)
    per_file = -(-cards // files)
    for f in range(files):
        lo, hi = f * per_file, min(cards, (f + 1) * per_file)
        if lo >= hi:
            break
        with open(os.path.join(out, f"cards_{f:03d}.yaml"), "w", encoding="utf-8") as fh:
            fh.write("cards:\n")
            for i in range(lo, hi):
                fh.write(card(i, rng))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default=os.path.join("bench", "out", "synthetic"))
    ap.add_argument("--cards", type=int, default=10_000)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print(generate(a.out, a.cards, a.files, a.seed))


if __name__ == "__main__":
    main()
