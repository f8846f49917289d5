"""Random Python literals for the generated programs, and the source text of a constant.

Each generator takes a `random.Random` and returns source text. Negative numbers are
parenthesised, so that a literal can stand as any operand (`(-5) ** 2`, not `-5 ** 2`)."""
from __future__ import annotations

import math
import random

_EDGE_INTS = (2 ** 31 - 1, -2 ** 31, 2 ** 32, 2 ** 63 - 1, -2 ** 63, 2 ** 63, -2 ** 63 - 1, 2 ** 64, 2 ** 53 + 1)
_FLOATS = (0.0, -0.0, 1.5, -2.25, 0.1, 0.5, 2.0, 1e300, -1e-310, 5e-324, 1.7976931348623157e308, 3.141592653589793,
           1e16, 123456789.125, 2.5, -7.0, 1e-05, 0.30000000000000004)
_SPECIAL_FLOATS = ("math.inf", "-math.inf", "math.nan", 'float("nan")', 'float("-inf")', 'float("inf")')
_ALPHABET = "abcXYZ 019_-,.:{}\u00e9'\"\n\t"


def paren(text: str) -> str:
    return f"({text})" if text.startswith("-") else text


def small(rng: random.Random) -> str:
    return paren(str(rng.randint(-3, 9)))


def pos(rng: random.Random) -> str:
    return str(rng.randint(1, 6))


def nat(rng: random.Random) -> str:
    return str(rng.randint(0, 5))


def big(rng: random.Random) -> str:
    value = 2 ** rng.randint(64, 300) + rng.randint(-(10 ** 6), 10 ** 6)
    return paren(str(-value if rng.random() < 0.4 else value))


def integer(rng: random.Random) -> str:
    """Ints of every size: small, medium, the edges of 32/64-bit types, huge."""
    pick = rng.random()
    if pick < 0.45:
        return small(rng)
    if pick < 0.7:
        return paren(str(rng.randint(-100000, 100000)))
    if pick < 0.85:
        return paren(str(rng.choice(_EDGE_INTS)))
    return big(rng)


def floating(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.15:
        return rng.choice(_SPECIAL_FLOATS).join("()") if rng.random() < 0.5 else rng.choice(_SPECIAL_FLOATS[:2])
    if pick < 0.65:
        return paren(repr(rng.choice(_FLOATS)))
    return paren(repr(rng.uniform(-1000, 1000)))


def finite(rng: random.Random) -> str:
    return paren(repr(rng.choice(_FLOATS) if rng.random() < 0.5 else round(rng.uniform(-100, 100), rng.randint(0, 3))))


def number(rng: random.Random) -> str:
    return rng.choice((integer, floating, boolean, small))(rng)


def boolean(rng: random.Random) -> str:
    return rng.choice(("True", "False"))


def string(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return repr(rng.choice(("", "a", "ab", "abc", "a b  c", " x ", "1,2,3", "Ab-cD")))
    return repr("".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 6))))


def word(rng: random.Random) -> str:
    return repr("".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 3))))


def char(rng: random.Random) -> str:
    return repr(rng.choice("ab ,-x"))


def hashable(rng: random.Random) -> str:
    return rng.choice((small, small, word, finite, boolean, lambda r: "None", lambda r: f"({small(r)}, {word(r)})"))(rng)


def scalar(rng: random.Random) -> str:
    return rng.choice((integer, floating, string, boolean, small, small, lambda r: "None"))(rng)


def _items(rng, make, low=0, high=4) -> list[str]:
    return [make(rng) for _ in range(rng.randint(low, high))]


def int_list(rng: random.Random) -> str:
    return "[" + ", ".join(_items(rng, small)) + "]"


def word_list(rng: random.Random) -> str:
    return "[" + ", ".join(_items(rng, word)) + "]"


def any_list(rng: random.Random, depth: int = 0) -> str:
    return "[" + ", ".join(_items(rng, lambda r: value(r, depth + 1))) + "]"


def any_tuple(rng: random.Random, depth: int = 0) -> str:
    items = _items(rng, lambda r: value(r, depth + 1))
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def int_tuple(rng: random.Random) -> str:
    items = _items(rng, small)
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def any_dict(rng: random.Random, depth: int = 0) -> str:
    keys = dict.fromkeys(_items(rng, lambda r: rng.choice((small, word))(r)))
    return "{" + ", ".join(f"{k}: {value(rng, depth + 1)}" for k in keys) + "}"


def int_set(rng: random.Random) -> str:
    items = _items(rng, small, 1, 5)
    return "{" + ", ".join(items) + "}"


def word_set(rng: random.Random) -> str:
    return "{" + ", ".join(_items(rng, word, 1, 4)) + "}"


def value(rng: random.Random, depth: int = 0) -> str:
    """Any value of the subset: a scalar, or (rarer, deeper) a container."""
    if depth >= 2 or rng.random() < 0.6:
        return scalar(rng)
    return rng.choice((any_list, any_tuple, any_dict))(rng, depth) if rng.random() < 0.85 else int_set(rng)


def index(rng: random.Random) -> str:
    return paren(str(rng.randint(-3, 3)))


def slice_text(rng: random.Random) -> str:
    return rng.choice(("1:", ":-1", "::-1", "-2:", "1:4:2", "::2", "3:0:-1", ":", "-1:-4:-1", "5:", ":0", "-10:10"))


def number_spec(rng: random.Random) -> str:
    return rng.choice(("", ">8", "<6", "^7", "08.3f", ".2f", "e", ".3e", "g", ".3g", ",", "_", "x", "X", "o", "b",
                       "#x", "+", " ", ".2%", "%", "d", "10d", "*^9", "=+8", "05d", ".0f", "n", "#b"))


def string_spec(rng: random.Random) -> str:
    return rng.choice(("", ">8", "<5", "^9", ".2", "*>6", "s", "-<4"))


# placeholder name in a scene template -> its generator
GENERATORS = {
    "int": integer, "small": small, "pos": pos, "nat": nat, "big": big, "float": floating, "finite": finite,
    "num": number, "bool": boolean, "str": string, "word": word, "chr": char, "hashable": hashable,
    "scalar": scalar, "ilist": int_list, "wlist": word_list, "list": any_list, "tuple": any_tuple,
    "ituple": int_tuple, "dict": any_dict, "set": int_set, "wset": word_set, "any": value, "idx": index,
    "slice": slice_text, "nspec": number_spec, "sspec": string_spec,
}


def literal(v) -> str | None:
    """Python source text whose value equals v (type and value), or None where no literal
    of the subset writes it (nan has no literal equal to it: `math.nan` is not == itself)."""
    if v is None or type(v) in (bool, int, str):
        return repr(v)
    if type(v) is float:
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "math.inf" if v > 0 else "(-math.inf)"
        return repr(v)
    if type(v) is tuple:
        parts = [literal(x) for x in v]
        if None in parts:
            return None
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return None
