"""The keyword PTX wrappers that August's PTX table retired (spellings.py, PTX_WRAPPERS and
PTX_SPELLED), rewritten for the scanner (scan.py): each function takes the scanner, which records
the older form and the text edits that spell the call today."""
from __future__ import annotations

from transpiler.dialect import spellings
from transpiler.syntax import ast


def rewrite(sc, call: ast.Call, name: str) -> None:
    """`T.ptx.<name>(...)`, one of the keyword wrappers: its older form recorded and its edits made
    (or a problem, for a form of the wrapper not migrated yet)."""
    if name == "cp_async.bulk.wait_group":
        wait_group(sc, call)
        return
    if call.keywords and name != "tcgen05.commit":
        sc.problem(call, f"`T.ptx.{name}` with keywords is not supported yet", "pass its operands in order")
        return
    if name == "fence.proxy_async":
        space = call.args[0] if len(call.args) == 1 else None
        if call.args and not (isinstance(space, ast.Constant) and isinstance(space.value, str)):
            sc.problem(call, "`T.ptx.fence.proxy_async` with a space that is not a string literal is not "
                       "supported yet", 'write `T.ptx["fence.proxy.async.shared::cta"]()`')
            return
        form = "fence.proxy.async" + (f".{space.value}" if space is not None else "")
        sc.older("june", call, f"`T.ptx.{name}(...)`")
        sc.edit(sc.start(call), sc.end(call), sc.spelled(f'ptx["{form}"]()'))
        return
    if name == "tcgen05.commit":
        commit(sc, call)
        return
    counts, today = spellings.PTX_WRAPPERS[name]
    if len(call.args) not in counts:
        if name == "elect_sync":
            return  # `T.ptx.elect_sync(mask)`: today's operand form
        sc.problem(call, f"`T.ptx.{name}` with {len(call.args)} operands (a form of the older wrapper) is "
                   f"not supported yet", f"write today's `T.{today}` form")
        return
    sc.older("june", call, f"`T.ptx.{name}(...)`")
    sc.edit(sc.start(call.func), sc.end(call.func), sc.spelled(today))


def wait_group(sc, call: ast.Call) -> None:
    """`T.ptx.cp_async.bulk.wait_group(n=0, read=True)`."""
    named = {k.name: k.value for k in call.keywords}
    given = dict(zip(("n", "read"), call.args)) | named
    read = given.get("read")
    if set(given) - {"n", "read"} or len(call.args) > 2 or not (
            read is None or isinstance(read, ast.Constant) and isinstance(read.value, bool)):
        sc.problem(call, "this `T.ptx.cp_async.bulk.wait_group` form is not supported yet",
                   "write `T.ptx.cp.async_.bulk.wait_group.read(n)`, or `.wait_group(n)` for read=False")
        return
    form = "ptx.cp.async_.bulk.wait_group" + (".read" if read is None or read.value else "")
    n = sc.piece(given["n"]) if "n" in given else "0"
    sc.older("june", call, "`T.ptx.cp_async.bulk.wait_group(...)`")
    sc.edit(sc.start(call), sc.end(call), f"{sc.spelled(form)}({n})")


def commit(sc, call: ast.Call) -> None:
    """`T.ptx.tcgen05.commit(bar, cta_group=1, cta_mask=0)`."""
    named = {k.name: k for k in call.keywords}
    positional = list(call.args)
    group = named["cta_group"].value if "cta_group" in named else positional[1] if len(positional) > 1 else None
    mask = named["cta_mask"].value if "cta_mask" in named else positional[2] if len(positional) > 2 else None
    if not positional or set(named) - {"cta_group", "cta_mask"}:
        sc.problem(call, "this `T.ptx.tcgen05.commit` form is not supported yet",
                   "pass the barrier first, then `cta_group=` and `cta_mask=`")
        return
    if group is not None and not (isinstance(group, ast.Constant) and group.value in (1, 2)):
        sc.problem(call, "`T.ptx.tcgen05.commit` with a `cta_group` that is not the literal 1 or 2 is not "
                   "supported yet", "write the group as a literal")
        return
    if isinstance(mask, ast.Constant) and mask.value == 0:
        mask = None
    form = spellings.COMMIT.format(group=group.value if group is not None else 1,
                                   multicast=".multicast::cluster" if mask is not None else "")
    sc.older("june", call, "`T.ptx.tcgen05.commit(...)`")
    sc.edit(sc.start(call.func), sc.end(call.func), sc.spelled(f'ptx["{form}"]'))
    bar = positional[0]
    rest = list(positional[1:]) + list(call.keywords)
    if rest:
        last = max(rest, key=lambda n: (n.span.end_line, n.span.end_col))
        sc.edit(sc.end(bar), sc.end(last), ", " + sc.piece(mask) if mask is not None else "")
