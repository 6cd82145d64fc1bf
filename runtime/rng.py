"""A small seeded generator whose whole state is one integer kept in the game state.

splitmix64: fast in pure Python, good enough for dice and shuffles, and identical on
every machine and Python version (unlike `random`, whose algorithms may change).
"""
MASK = (1 << 64) - 1


def seed_state(seed) -> int:
    s = 0
    for ch in str(seed).encode("utf-8"):
        s = (s * 1099511628211 + ch) & MASK
    return s ^ 0x9E3779B97F4A7C15


def below(state: dict, n: int) -> int:
    """A uniform integer in [0, n) by rejection, so no value is favoured. One splitmix64
    step a try, written out here: this is called for every die, shuffle step and bot pick."""
    if n <= 1:
        return 0
    limit = MASK - (MASK + 1) % n
    z = state["rng"]
    while True:
        z = (z + 0x9E3779B97F4A7C15) & MASK
        r = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        r = ((r ^ (r >> 27)) * 0x94D049BB133111EB) & MASK
        r ^= r >> 31
        if r <= limit:
            state["rng"] = z
            return r % n


def shuffle(state: dict, items: list) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
