"""The lexer picks each token from the terminals that can start with the
character at hand (transpiler/syntax/grammar.py, Grammar.candidates) and steps over
single spaces without matching; it must give the very tokens that the whole
pattern of Lark's basic lexer gives."""
from __future__ import annotations

import random
import re
from pathlib import Path

from transpiler.syntax.grammar import compiled_grammar
from transpiler.syntax.lexer import Lexer
from transpiler.syntax.tables_gen import lexer_pattern
from transpiler.syntax.tokens import Token

ROOT = Path(__file__).resolve().parent.parent.parent


class _WholePattern(Lexer):
    """The lexer as Lark's basic lexer runs: the one combined pattern at every position."""

    def raw_tokens(self):
        grammar, text = self.grammar, self.text
        whole = re.compile(lexer_pattern(grammar.terminals), grammar.flags)
        while self.pos < len(text):
            m = whole.match(text, self.pos)
            if m is None:
                yield self._bad_character(self.pos, self.line, self.pos - self.line_start + 1)
                continue
            value, kind = m.group(), m.lastgroup
            start, line, col = self.pos, self.line, self.pos - self.line_start + 1
            if kind in grammar.newline_types:
                self._feed(value)
            else:
                self.pos += len(value)
            if kind in grammar.ignore_types:
                continue
            kind = grammar.keywords.get(kind, {}).get(value, kind)
            yield Token(kind, value, start, line, col, self.line, self.pos - self.line_start + 1, self.pos)


def _tokens(lexer_class, text: str):
    lexer = lexer_class(compiled_grammar(), text, "k.tx")
    out = [(tok.type, tok.value, tok.start_pos, tok.line, tok.col, tok.end_line, tok.end_col, tok.end_pos)
           for tok in lexer.tokens()]
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
    for text in _texts():
        assert _tokens(Lexer, text) == _tokens(_WholePattern, text), repr(text[:200])
