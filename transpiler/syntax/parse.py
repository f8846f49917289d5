"""Text to AST: the public entry of the syntax package.

The pipeline, a module each:

    text -> Lexer (lexer.py: the tokens of Lark's basic lexer; bad characters
            and malformed numbers become ERROR tokens instead of exceptions),
            laid out in the same loop by Indentation (indentation.py:
            INDENT/DEDENT, newlines inside brackets dropped, bracket matching,
            nesting limits)
         -> LalrParser (lalr.py: runs the LALR table Lark computed, token by
            token; on an error, recovery.py reports one diagnostic, skips the
            rest of the statement and resumes from the state saved at the
            statement's start, so one run reports every broken statement of a
            file; the reductions of a step it takes often run compiled,
            replay.py)
         -> Builder (builder.py: called at each reduction, makes the AST node
            of the rule, so no parse tree is ever built; rejects constructs
            outside the subset by name, E0109)

Lark only compiles grammar/tirx.lark, into tables.py (tables_gen.py); a parse
imports that module through grammar.py and does not import Lark. Nothing here
recurses on the input's nesting depth, and the parse never executes or
imports anything from the file.
"""
from __future__ import annotations


from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax import ast
from transpiler.syntax.lalr import LalrParser
from transpiler.syntax.grammar import compiled_grammar
from transpiler.syntax.limits import (MAX_BLOCK_DEPTH, MAX_BRACKET_DEPTH, MAX_DECIMAL_DIGITS, MAX_EXPR_DEPTH,
                                      MAX_SYNTAX_ERRORS, TAB_WIDTH)
from transpiler.syntax.source import SourceFile

__all__ = ["parse", "MAX_BLOCK_DEPTH", "MAX_BRACKET_DEPTH", "MAX_DECIMAL_DIGITS", "MAX_EXPR_DEPTH",
           "MAX_SYNTAX_ERRORS", "TAB_WIDTH"]

# Nodes that make up expressions; statements do not count towards their depth
# (blocks have their own limit, MAX_BLOCK_DEPTH).
_EXPRESSION_NODES = (ast.Name, ast.Constant, ast.Attribute, ast.Keyword, ast.Call, ast.Slice, ast.Subscript,
                     ast.Tuple, ast.List, ast.Dict, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
                     ast.Lambda, ast.Set)


def _check_depth(module: ast.Module, diags: Diagnostics) -> bool:
    """Deeply nested expressions would exhaust the later, recursive passes:
    stop them here. Returns False when one is too deep.

    Iterative, so deep input cannot crash it. `a + b + ... ` with 200 terms is
    200 levels (left-nested BinOps), so the limit also bounds such chains.
    """
    stack = [(module, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, _EXPRESSION_NODES):
            depth += 1
            if depth > MAX_EXPR_DEPTH:
                diags.error("E0108", f"expression nested more than {MAX_EXPR_DEPTH} levels deep", node.span,
                            help="name intermediate values with `T.let`")
                return False
        for child in ast.iter_children(node):
            stack.append((child, depth))
    return True


def parse(source: SourceFile, diags: Diagnostics) -> ast.Module | None:
    """Parse a whole file; every syntax problem goes to diags. None when there were any.
    The parse allocates millions of small objects and no reference cycles: a caller
    parsing big files pauses the cyclic collector around it, as `tirxc` does
    (transpiler/cli/main.py), or a 1 MB file takes three times as long."""
    text = source.text if source.text.endswith("\n") else source.text + "\n"
    driver = LalrParser(compiled_grammar(), source, text, diags)
    module = driver.run()
    if module is None:
        return None
    for problem in driver.builder.collected():
        driver.report(problem)
    if driver.errors:
        return None
    if driver.longest_line > MAX_EXPR_DEPTH and not _check_depth(module, diags):
        return None
    return module
