"""The compiled grammar: grammar/tirx.lark compiled with Lark into the tables
of tables.py, which the parser runs without importing Lark.

Lark compiles the grammar into an LALR table and a lexer, which takes most of
a second. The result ships as the Python module tables.py (written by
`python -m transpiler.syntax.tables_gen --write-tables`), so a run only
imports it: from its cached bytecode that is a fraction of the time that
reading the same tables as JSON takes, and the json module is not needed.
The module holds a copy of the grammar it was made from (comparing the text
is cheaper than importing hashlib, and exact); stale or missing tables are
rebuilt in memory with Lark (grammar.py; tests/perf checks that the shipped
ones are current). The text is canonical: states are numbered in
breadth-first order from the start state, rules are sorted, so the same
grammar always gives the same bytes whatever Python's hash seed.

Lark is read only through its public serialisation, the one its standalone
parser generator (lark.tools.standalone) uses: `Lark.memo_serialize`, which
gives the terminals with their patterns and priorities, the rules, and the
LALR states (each action `(0, state)` for a shift or goto, `(1, rule)` for a
reduction). The lexer's side is derived from the terminals as Lark's basic
lexer derives it (see _lexer_tables).
"""
from __future__ import annotations

import os
import re
import sys

from transpiler import data_text

TABLES_MODULE = "tables.py"
TABLES_FORMAT = 3
# The regeneration command, as tables.py and the stale-tables message name it.
WRITE_COMMAND = "python -m transpiler.syntax.tables_gen --write-tables"

# How the serialised parse table encodes an action.
_SHIFT, _REDUCE = 0, 1


def build_tables(text: str) -> dict:
    """Compile the grammar text with Lark into the canonical tables (see the module docstring)."""
    from lark import Lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    lark = Lark(text, parser="lalr", lexer="basic", maybe_placeholders=True, start="start")
    data, memo = lark.memo_serialize([TerminalDef, Rule])

    def load(ref):
        """A memoised object (a `{"@": id}` reference) as its serialised dict."""
        return memo[ref["@"]]

    frontend = data["parser"]
    lexer_conf = frontend["lexer_conf"]
    assert lexer_conf.get("lexer_type", "basic") == "basic" and not lexer_conf["use_bytes"], lexer_conf
    lexer = _lexer_tables([load(t) for t in lexer_conf["terminals"]], lexer_conf["g_regex_flags"],
                          lexer_conf["ignore"])

    def rule_key(rule):
        options = rule["options"]
        return (str(rule["origin"]["name"]),
                [[str(s["name"]), 0 if s["__type__"] == "NonTerminal" else (2 if s["filter_out"] else 1)]
                 for s in rule["expansion"]],
                str(rule["alias"]) if rule["alias"] else "", bool(options["expand1"]),
                bool(options["keep_all_tokens"]), [bool(b) for b in options["empty_indices"] or ()])

    refs = sorted((ref["@"] for ref in data["rules"]), key=lambda ref: rule_key(memo[ref]))
    keys = [rule_key(memo[ref]) for ref in refs]
    assert all(a != b for a, b in zip(keys, keys[1:])), "two rules with the same shape"
    rule_index = {ref: i for i, ref in enumerate(refs)}

    table = frontend["parser"]
    symbols = table["tokens"]  # the table's symbol numbers -> terminal and rule names
    rows = {state: sorted(((str(symbols[symbol]), action) for symbol, action in row.items()), key=lambda a: a[0])
            for state, row in table["states"].items()}
    start = table["start_states"]["start"]
    order = {start: 0}  # Lark's state -> ours, breadth first with the symbols in sorted order
    queue = [start]
    for state in queue:
        for _, (kind, arg) in rows[state]:
            if kind == _SHIFT and arg not in order:
                order[arg] = len(order)
                queue.append(arg)
    assert len(order) == len(rows), "unreachable LALR states"
    # A state's reductions are stored as (rule, lookahead set) pairs: LALR
    # states share a few dozen lookahead sets between them.
    shifts, reductions = [], []
    for state in queue:
        ours: dict[str, int] = {}
        lookaheads: dict[int, list[str]] = {}
        for symbol, (kind, arg) in rows[state]:
            if kind == _SHIFT:
                ours[symbol] = order[arg]
            else:
                assert kind == _REDUCE, kind
                lookaheads.setdefault(rule_index[arg["@"]], []).append(symbol)
        shifts.append(ours)
        reductions.append(sorted((rule, tuple(kinds)) for rule, kinds in lookaheads.items()))
    token_sets = sorted({kinds for row in reductions for _, kinds in row})
    set_index = {kinds: i for i, kinds in enumerate(token_sets)}
    states = [[ours, [x for rule, kinds in row for x in (rule, set_index[kinds])]]
              for ours, row in zip(shifts, reductions)]
    return {
        "format": TABLES_FORMAT,
        "grammar": text,
        "lexer": lexer,
        "rules": [[origin, alias or None, expansion, expand1, keep_all, empty]
                  for origin, expansion, alias, expand1, keep_all, empty in keys],
        "start": 0,
        "end": order[table["end_states"]["start"]],
        "token_sets": [list(kinds) for kinds in token_sets],
        "states": states,
    }


def _regexp(pattern: dict) -> str:
    """A serialised pattern as a regular expression (Lark's Pattern.to_regexp)."""
    value = pattern["value"] if pattern["__type__"] == "PatternRE" else re.escape(pattern["value"])
    for flag in sorted(pattern["flags"]):
        value = f"(?{flag}:{value})"
    return value


def _max_width(pattern: dict) -> int:
    """The longest text a pattern matches (Lark's Pattern.max_width)."""
    if pattern["__type__"] == "PatternStr":
        return len(pattern["value"])
    width = pattern.get("_width")
    if width is None:  # not measured when serialised: measure it as Lark does
        try:
            from re import _parser as sre_parse
        except ImportError:  # Python 3.10
            import sre_parse
        width = sre_parse.parse(_regexp(pattern)).getwidth()
    return int(width[1])


def _has_newline(regexp: str) -> bool:
    """Whether a terminal may hold a newline (Lark's _regexp_has_newline)."""
    return "\n" in regexp or "\\n" in regexp or "\\s" in regexp or "[^" in regexp or \
        ("(?s" in regexp and "." in regexp)


def _lexer_tables(terminals: list[dict], flags: int, ignore) -> dict:
    """The lexer of the grammar as Lark's basic lexer builds it from the
    serialised terminals: all terminals in priority order; a string terminal
    that a pattern terminal of the same priority matches in full is a keyword
    of that terminal (matched as it and then retyped), not a terminal of its
    own; ignored terminals are skipped, and those that may hold a newline
    move the line count."""
    for t in terminals:
        assert t["pattern"]["__type__"] in ("PatternStr", "PatternRE"), t
    ordered = sorted(terminals, key=lambda t: (-t["priority"], -_max_width(t["pattern"]),
                                               -len(t["pattern"]["value"]), t["name"]))
    strings = [t for t in ordered if t["pattern"]["__type__"] == "PatternStr"]
    keywords: dict[str, dict[str, str]] = {}
    embedded = set()
    for retok in ordered:
        if retok["pattern"]["__type__"] != "PatternRE":
            continue
        words = {}
        for strtok in strings:
            text = strtok["pattern"]["value"]
            if strtok["priority"] != retok["priority"]:
                continue
            m = re.match(_regexp(retok["pattern"]), text, flags)
            if m is None or m.group(0) != text:
                continue
            assert not strtok["pattern"]["flags"] and text not in words, strtok
            words[text] = strtok["name"]
            if set(strtok["pattern"]["flags"]) <= set(retok["pattern"]["flags"]):
                embedded.add(strtok["name"])
        if words:
            keywords[retok["name"]] = dict(sorted(words.items()))
    # name, pattern, and the text itself for a plain string (matched without re)
    kept = [[t["name"], _regexp(t["pattern"]),
             t["pattern"]["value"] if t["pattern"]["__type__"] == "PatternStr" and not t["pattern"]["flags"]
             and not flags else None] for t in ordered if t["name"] not in embedded]
    first = [[i for i, (_, regexp, _) in enumerate(kept) if code in _first_chars(regexp, flags)]
             for code in range(128)]
    _check_first(kept, first, flags)
    return {
        "terminals": kept,
        "first": first,
        "flags": flags,
        "ignore": sorted(ignore),
        "newline": sorted(t["name"] for t in terminals if _has_newline(_regexp(t["pattern"]))),
        "keywords": dict(sorted(keywords.items())),
    }


def lexer_pattern(terminals) -> str:
    """The lexer's pattern: the terminals' patterns as named alternatives, in
    priority order (the first alternative that matches wins, as in Lark)."""
    return "|".join(f"(?P<{name}>{regexp})" for name, regexp, *_ in terminals)


def _first_chars(regexp: str, flags: int) -> set[int]:
    """The ASCII characters a match of regexp may start with, or more (never fewer)."""
    try:
        from re import _constants as c, _parser as sre_parse
    except ImportError:  # Python 3.10
        import sre_constants as c
        import sre_parse
    every = set(range(128))
    category_re = {c.CATEGORY_DIGIT: r"\d", c.CATEGORY_NOT_DIGIT: r"\D", c.CATEGORY_SPACE: r"\s",
                   c.CATEGORY_NOT_SPACE: r"\S", c.CATEGORY_WORD: r"\w", c.CATEGORY_NOT_WORD: r"\W"}

    def char_set(items) -> set[int]:
        chars, negate = set(), False
        for op, av in items:
            if op is c.NEGATE:
                negate = True
            elif op is c.LITERAL:
                chars.add(av)
            elif op is c.RANGE:
                chars.update(range(av[0], min(av[1], 127) + 1))
            elif op is c.CATEGORY and av in category_re:
                chars.update(code for code in every if re.fullmatch(category_re[av], chr(code), flags))
            else:
                return every  # not understood: any character
        return every - chars if negate else chars & every

    def sequence(items) -> tuple[set[int], bool]:  # (first characters, may match the empty string)
        out: set[int] = set()
        for op, av in items:
            first, empty = item(op, av)
            out |= first
            if not empty:
                return out, False
        return out, True

    def item(op, av) -> tuple[set[int], bool]:
        if op is c.LITERAL:
            return {av} & every, False
        if op is c.IN:
            return char_set(av), False
        if op is c.BRANCH:
            out, empty = set(), False
            for alternative in av[1]:
                first, alt_empty = sequence(alternative)
                out |= first
                empty = empty or alt_empty
            return out, empty
        if op is c.SUBPATTERN:
            return sequence(av[3])
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) or op is getattr(c, "POSSESSIVE_REPEAT", None):
            first, empty = sequence(av[2])
            return first, empty or av[0] == 0
        if op is getattr(c, "ATOMIC_GROUP", None):
            return sequence(av)
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return set(), True  # zero width
        return every, True  # not understood: anything

    parsed = sre_parse.parse(regexp, flags)
    if parsed.state.flags & re.IGNORECASE or "(?i" in regexp or "(?-" in regexp:
        return every
    return sequence(list(parsed))[0]


def _check_first(terminals, first, flags: int) -> None:
    """The first-character dispatch (see Grammar.candidates) must pick the same
    token as the whole pattern; try it on every ASCII character followed by
    some likely continuations."""
    whole = re.compile(lexer_pattern(terminals), flags)
    tails = ["", "a", "0", "x1", "_", ".", ".5", "5", "e5", "j", '"', "'", '""', "''", "\n", " ", "\t", "=",
             "*", "/", "<", ">", "-", "+", "(", "#", "\\\n", "a'", 'b"x"', "'" * 3, '"' * 3, "0_1", "fr'", "\u00e9"]
    for code in range(128):
        part = re.compile(lexer_pattern([terminals[i] for i in first[code]]), flags) if first[code] else None
        for tail in tails:
            text = chr(code) + tail
            m = whole.match(text)
            n = part.match(text) if part is not None else None
            assert (m and (m.lastgroup, m.end())) == (n and (n.lastgroup, n.end())), (text, m, n)


def tables_text(tables: dict) -> str:
    """The tables as the text of tables.py: one rule and one state per line."""
    lines = [f"# Generated from grammar/tirx.lark by `{WRITE_COMMAND}`; do not edit.",
             '"""The compiled tables of grammar/tirx.lark: its lexer\'s terminals and its LALR(1) states',
             '(see transpiler/syntax/tables_gen.py)."""',
             "TABLES = {"]
    for key in ("format", "grammar", "lexer", "start", "end"):
        lines.append(f"{key!r}: {tables[key]!r},")
    for key in ("rules", "token_sets", "states"):
        lines.append(f"{key!r}: [")
        lines += [f"{item!r}," for item in tables[key]]
        lines.append("],")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_tables() -> str:
    """Regenerate tables.py from tirx.lark; returns its path."""
    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), TABLES_MODULE)
    with open(target, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(tables_text(build_tables(data_text("grammar", "tirx.lark"))))
    return target


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-tables"]:
        sys.exit(f"usage: {WRITE_COMMAND}")
    print(write_tables())
