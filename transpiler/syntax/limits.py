"""The parser's limits: how deeply a file may nest, how long a literal may be,
how many syntax errors one file reports, and how wide a tab is."""

MAX_BLOCK_DEPTH = 100
MAX_BRACKET_DEPTH = 100
MAX_EXPR_DEPTH = 200
MAX_SYNTAX_ERRORS = 100
MAX_DECIMAL_DIGITS = 4000
TAB_WIDTH = 8
