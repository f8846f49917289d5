"""The lexer picks each token from the terminals that can start with the
character at hand (transpiler/parse.py, _Grammar.matcher); it must give the
very tokens that the whole pattern of Lark's basic lexer gives."""
from __future__ import annotations

import random
import re
from pathlib import Path

from transpiler import parse

ROOT = Path(__file__).resolve().parent.parent.parent


class _WholePattern(parse._Grammar):
    """The same grammar, lexing with the one combined pattern at every position."""

    def __init__(self, grammar: parse._Grammar):
        self.__dict__.update(grammar.__dict__)
        self.dispatch = {}
        whole = re.compile(parse._union(self.terminals), self.flags).match
        self.matcher = lambda char: whole


def _tokens(grammar, text: str):
    lexer = parse._Lexer(grammar, text, "k.tx")
    out = []
    while True:
        tok = lexer.token()
        if tok is None:
            break
        out.append((tok.type, tok.value, tok.start_pos, tok.line, tok.column, tok.end_line, tok.end_column,
                    tok.end_pos))
    problems = {pos: (p.code, p.message, p.span) for pos, p in lexer.problems.items()}
    return out, problems


def _texts():
    files = sorted(ROOT.glob("samples/*.tx")) + sorted(ROOT.glob("tests/**/*.tx"))
    texts = [f.read_text(encoding="utf-8") for f in files]
    rng = random.Random(6)
    alphabet = list("aAzZ_rbfuRBFU0123456789.eExXoObBjJ+-*/%@<>=!&|^~()[]{}:;,'\"#\\ \t\f\n") + \
        ["\u00e9", "\u03bb", "\u201c", "\u2212", "\u00a0", "\u212a", "\u0660", "\x00", "\r"]
    for _ in range(400):
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))))
    for text in texts[:40]:
        for _ in range(5):
            i = rng.randrange(len(text) + 1)
            texts.append(text[:i] + rng.choice(alphabet) + text[i:])
    return texts


def test_first_character_dispatch_matches_the_whole_pattern():
    grammar = parse._Grammar(parse._load_tables())
    reference = _WholePattern(grammar)
    for text in _texts():
        assert _tokens(grammar, text) == _tokens(reference, text), repr(text[:200])
