"""The lexer picks each token from the terminals that can start with the
character at hand (transpiler/syntax/grammar.py, Grammar.candidates) and steps over
single spaces without matching; it must give the very tokens that the whole
pattern of Lark's basic lexer gives. Its cooked tokens (numbers glued to names,
names normalised, unclosed triple quotes) come out of the same loop: they must be
what the plain composition below makes of the raw ones."""
from __future__ import annotations

import random
import re
import unicodedata
from pathlib import Path

from transpiler.syntax.grammar import compiled_grammar
from transpiler.syntax.lexer import Lexer
from transpiler.syntax.tables_gen import lexer_pattern
from transpiler.syntax.tokens import NUMBERS, Token, strip_prefix

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


def _cooked_plainly(lexer: Lexer):
    """What Lexer.tokens does beyond raw_tokens, one token at a time."""
    held = last = None
    for tok in lexer.raw_tokens():
        if held is not None:
            if tok.start_pos == last.end_pos and (tok.type in NUMBERS or tok.type == "NAME"):
                last = tok
                continue
            yield lexer._join_number(held, last)
            held = None
        if tok.type in NUMBERS:
            held = last = tok
            continue
        if tok.type == "NAME" and not tok.isascii():
            tok = Token("NAME", unicodedata.normalize("NFKC", tok), tok.start_pos, tok.line, tok.col,
                        tok.end_line, tok.end_col, tok.end_pos)
        if tok.type == "STRING" and tok.value[-2:] in ('""', "''") and len(strip_prefix(tok.value)[1]) == 2 \
                and lexer.text.startswith(tok.value[-1], tok.end_pos):
            yield lexer._unterminated_triple(tok)
            return
        yield tok
    if held is not None:
        yield lexer._join_number(held, last)


def _tokens(lexer_class, text: str, cooked: bool = True):
    lexer = lexer_class(compiled_grammar(), text, "k.tx")
    tokens = lexer.tokens() if cooked else _cooked_plainly(lexer)
    out = [(tok.type, tok.value, tok.start_pos, tok.line, tok.col, tok.end_line, tok.end_col, tok.end_pos)
           for tok in tokens]
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
        assert _tokens(Lexer, text) == _tokens(_WholePattern, text, cooked=False), repr(text[:200])
