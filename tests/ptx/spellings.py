"""The spellings the PTX table accepts, family by family: every string a family's pattern
matches (its modifier slots expanded; a slot spelled as a free token, `[a-z]+` or `\\d+`, takes
the words and numbers the table itself uses), kept where the table says it is a valid form.
A family with more spellings than asked for gives a seeded sample of them.

The ld / st / red / atom family reads its modifiers as a set of slots in any order, so its
spellings are drawn instead: an opcode, then each slot filled or not at random, in the ISA's
order or, now and then, shuffled."""
from __future__ import annotations

import itertools
import random
import re
from re import _constants as C  # noqa: N812  (the regular-expression parser's node names)
from re import _parser

from transpiler.target import ptx
from transpiler.target.ptx import memory

# the comparison operators of setp / set / slct, which the patterns spell `[a-z]+`
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu",
                "geu", "num", "nan")
_NUMBERS = tuple(str(n) for n in sorted({1, 2, 4, 8, 16, 32, 64, 128, 256, *range(8, 257, 8)}))
_MEMORY_DRAWS = 60000  # ld / st / red / atom spellings drawn (of the full cap)
_CAP = 50000  # the most strings one node of a pattern expands to before sampling


def _vocabulary() -> tuple[str, ...]:
    words = set(_COMPARISONS)
    for family in ptx.FAMILIES:
        for example in family.examples:
            words.update(t for t in example.split(".") if t)
    for values in memory._SLOTS.values():
        words.update(values)
    return tuple(sorted(words))


_WORDS = _vocabulary()


def _in_class(items, char: str) -> bool:
    for op, av in items:
        if op is C.LITERAL and chr(av) == char:
            return True
        if op is C.RANGE and av[0] <= ord(char) <= av[1]:
            return True
        if op is C.CATEGORY and ((av is C.CATEGORY_DIGIT and char.isdigit())
                                 or (av is C.CATEGORY_WORD and (char.isalnum() or char == "_"))):
            return True
    return False


def _class_chars(items) -> list[str] | None:
    """The characters of a small character class ([1-5], [xyz]); None for a large one."""
    chars = [chr(c) for c in range(32, 127) if _in_class(items, chr(c))]
    return chars if len(chars) <= 12 else None


class _Expander:
    def __init__(self, rng: random.Random, cap: int):
        self.rng, self.cap = rng, cap

    def seq(self, items) -> list[str]:
        parts = [self.node(op, av) for op, av in items]
        total = 1
        for p in parts:
            total *= max(len(p), 1)
        if total <= self.cap:
            return ["".join(t) for t in itertools.product(*parts)]
        return ["".join(self.rng.choice(p) for p in parts) for _ in range(self.cap)]

    def node(self, op, av) -> list[str]:
        if op is C.LITERAL:
            return [chr(av)]
        if op is C.SUBPATTERN:
            return self.seq(av[3])
        if op is C.BRANCH:
            out = []
            for branch in av[1]:
                out += self.seq(branch)
            return out
        if op is C.IN:
            chars = _class_chars(av)
            return chars if chars is not None else [w for w in _WORDS if len(w) == 1 and _in_class(av, w)]
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, body = av
            if len(body) == 1 and body[0][0] is C.IN and _class_chars(body[0][1]) is None:
                # a free token: the table's own words (and numbers) that the class spells
                pool = _NUMBERS + _WORDS if _in_class(body[0][1], "0") else _WORDS
                return sorted({w for w in pool if len(w) >= max(low, 1) and all(_in_class(body[0][1], c) for c in w)})
            high = min(high, low + 2)
            inner = self.seq(body)
            out = []
            for count in range(low, high + 1):
                out += self.seq([(C.SUBPATTERN, (None, 0, 0, body))] * count) if count else [""]
            return out if inner else [""]
        if op in (C.ASSERT_NOT, C.ASSERT, C.AT):
            return [""]  # checked by matching the whole pattern at the end
        raise NotImplementedError(f"pattern node {op}")


def _memory_candidates(rng: random.Random, count: int) -> list[str]:
    order = ["sem", "scope", "mmio", "space", "cop", "evict", "evict2", "hint", "size", "nc", "op", "noftz", "vec",
             "type"]
    out = []
    for _ in range(count):
        opcode = rng.choice(("ld", "st", "red", "atom"))
        tokens = []
        for slot in order:
            values = sorted(memory._SLOTS[slot])
            if slot == "type" or rng.random() < (0.6 if slot in ("space", "sem", "scope", "op") else 0.2):
                tokens.append(rng.choice(values))
        if rng.random() < 0.1:
            rng.shuffle(tokens)
        out.append(".".join([opcode, *tokens]))
    return out


def candidates(family, rng: random.Random, cap: int = _CAP) -> list[str]:
    """Strings the family's pattern matches (before the table's rules judge them); where a
    part of the pattern spells more than `cap`, `cap` of them drawn at random."""
    if family is ptx.family_of("ld.global.b32"):
        return _memory_candidates(rng, _MEMORY_DRAWS * cap // _CAP)
    whole = re.compile(family.pattern + "$")
    found = _Expander(rng, cap).seq(_parser.parse(family.pattern))
    return sorted({s for s in found if whole.match(s)})


def accepted(family, limit: int | None = None, seed: int = 0, cap: int = _CAP,
             examples: bool = True) -> list[str]:
    """The family's spellings the table accepts as valid forms (not those another family takes
    first): all of them, or a seeded sample of `limit` (with its examples, unless told not)."""
    rng = random.Random(f"{seed}:{family.pattern}")
    valid = sorted({s for s in candidates(family, rng, cap)
                    if ptx.family_of(s) is family and isinstance(ptx.forms(s), list)})
    if limit is not None and len(valid) > limit:
        valid = sorted(rng.sample(valid, limit))
    return [e for e in family.examples if e not in valid and examples] + valid
