"""The expression nodes the evaluator elaborates by itself, whatever checker hosts it: node class
-> function(st, node). The checker's dispatch on node classes takes them over as they are."""
from __future__ import annotations

from transpiler.syntax import ast
from transpiler.evaluator import comprehensions, core, fstring, lists

NODE_RULES = {
    ast.Starred: core._elab_Starred, ast.DoubleStarred: core._elab_DoubleStarred, ast.Value: core._elab_Value,
    ast.Dict: core._elab_Dict, ast.ListComp: comprehensions._elab_ListComp,
    ast.List: lists._elab_List, ast.Set: lists._elab_Set,
    ast.FString: fstring._elab_FString,
}
