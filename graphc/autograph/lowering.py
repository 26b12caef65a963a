"""Lower ``return``, ``break`` and ``continue`` to flag variables, as AutoGraph does.

A graph ``cond``/``while_loop`` has no jumps, so before control flow is converted:

* ``return v`` becomes ``retval_ = v; do_return = True``; the statements after anything
  that may return are guarded by ``if not do_return:``, every loop that may return gets
  ``not do_return`` as an extra condition, and the function ends with
  ``return ag__.retval(retval_)``. When one side of an ``if`` always returns, the code
  after the ``if`` is first moved into the other side, so ``if c: return x`` followed by
  ``return 0`` becomes an ``if``/``else`` with a return on both sides (no flag needed to
  decide which value wins, and ``retval_`` is set on both sides of a tensor ``if``).
* ``break`` sets ``break_ = True`` (the loop gets ``not break_`` as an extra condition),
  ``continue`` sets ``continue_ = True``; the rest of the body is guarded the same way.
  A loop's ``else:`` runs after the loop when no ``break`` happened.

Extra loop conditions go on ``while`` tests directly and on ``for`` nodes as the
``ag_extra_tests`` attribute (the ``for`` converter turns them into ``extra_test``).
"""

from __future__ import annotations

import ast

from graphc.autograph import templates

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def _contains(stmts, kinds, into_loops: bool) -> bool:
    for s in stmts:
        for node in _walk(s, into_loops):
            if isinstance(node, kinds):
                return True
    return False


def _walk(node, into_loops: bool):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _NESTED):
            continue
        if not into_loops and isinstance(child, _LOOPS):
            continue
        yield from _walk(child, into_loops)


def _blocks(s) -> list[str]:
    """Names of the statement-list fields of a compound statement."""
    return [f for f in ("body", "orelse", "finalbody") if isinstance(getattr(s, f, None), list)]


def _sub_blocks(s):
    """Every statement list directly inside ``s`` (handlers and match cases included)."""
    for f in _blocks(s):
        yield getattr(s, f)
    for h in getattr(s, "handlers", []):
        yield h.body
    for c in getattr(s, "cases", []):
        yield c.body


def _not(ag: str, flag: str) -> ast.expr:
    return templates.expr(f"{ag}.not_({flag})")


def _guard(ag: str, flag: str, stmts) -> ast.If:
    return ast.If(test=_not(ag, flag), body=stmts, orelse=[])


def add_loop_test(loop, ag: str, flag: str) -> None:
    """Make ``loop`` also stop once ``flag`` is set."""
    if isinstance(loop, ast.While):
        loop.test = templates.expr(f"{ag}.and_({ag}.not_({flag}), lambda: TEST)",
                                   TEST=loop.test)
    else:
        loop.ag_extra_tests = [*getattr(loop, "ag_extra_tests", []), _not(ag, flag)]


# --------------------------------------------------------------------------- returns
def _always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and _always_returns(
        last.orelse)


def move_rest_into_else(stmts) -> None:
    """``if c: ...return`` + rest  ->  ``if c: ...return else: rest`` (in place)."""
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if not isinstance(s, _NESTED):
            for block in _sub_blocks(s):
                move_rest_into_else(block)
        rest = stmts[i + 1:]
        if isinstance(s, ast.If) and rest:
            body_ret, else_ret = _always_returns(s.body), _always_returns(s.orelse)
            if body_ret and else_ret:
                del stmts[i + 1:]  # unreachable
            elif body_ret:
                s.orelse = s.orelse + rest
                del stmts[i + 1:]
                move_rest_into_else(s.orelse)
            elif else_ret:
                s.body = s.body + rest
                del stmts[i + 1:]
                move_rest_into_else(s.body)
        i += 1


def lower_returns(fn: ast.FunctionDef, ag: str, namer) -> None:
    """Rewrite the returns of ``fn`` (not of nested functions) into flag assignments."""
    body = fn.body
    returns = [n for s in body for n in _walk(s, True) if isinstance(n, ast.Return)]
    if not returns or (len(returns) == 1 and body[-1] is returns[0]):
        return
    move_rest_into_else(body)
    always = _always_returns(body)
    do_return, retval = namer.new("do_return"), namer.new("retval_")
    lowered, _ = _returns_block(body, ag, do_return, retval)
    start = templates.stmts(f"{do_return} = False\n{retval} = {ag}.UndefinedReturnValue()")
    # a body that can fall off its end passes the flag: None if no return ran, an error
    # if whether one ran depends on a tensor
    end = templates.stmts(f"return {ag}.retval({retval})" if always else
                          f"return {ag}.retval({retval}, {do_return}, {fn.name!r})")
    fn.body = start + lowered + end
    if not any(isinstance(n, ast.Name) and n.id == do_return and isinstance(n.ctx, ast.Load)
               for s in fn.body for n in _walk(s, True)):
        fn.body = _drop_assignments(fn.body, do_return)  # no guard reads it: only noise


def _drop_assignments(stmts, name):
    out = []
    for s in stmts:
        if isinstance(s, ast.Assign) and [t.id for t in s.targets
                                          if isinstance(t, ast.Name)] == [name]:
            continue
        if not isinstance(s, _NESTED):
            for f in _blocks(s):
                block = getattr(s, f)
                setattr(s, f, block and (_drop_assignments(block, name) or [ast.Pass()]))
            for h in getattr(s, "handlers", []) + getattr(s, "cases", []):
                h.body = _drop_assignments(h.body, name) or [ast.Pass()]
        out.append(s)
    return out


def _returns_block(stmts, ag, do_return, retval):
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(None)
            # the value first: if computing it raises (and a `try` catches that), the
            # function has not returned
            set_flags = templates.stmts(f"{retval} = VALUE\n{do_return} = True", VALUE=value)
            out.extend(ast.copy_location(n, s) for n in set_flags)
            return out, True
        may_return = False
        if not isinstance(s, _NESTED):
            for f in _blocks(s):
                new, r = _returns_block(getattr(s, f), ag, do_return, retval)
                setattr(s, f, new)
                may_return |= r
            for h in getattr(s, "handlers", []) + getattr(s, "cases", []):
                h.body, r = _returns_block(h.body, ag, do_return, retval)
                may_return |= r
        if may_return and isinstance(s, _LOOPS):
            add_loop_test(s, ag, do_return)
            if s.orelse:
                s.orelse = [_guard(ag, do_return, s.orelse)]
        out.append(s)
        if may_return:
            rest, _ = _returns_block(stmts[i + 1:], ag, do_return, retval)
            if rest:
                out.append(ast.copy_location(_guard(ag, do_return, rest), stmts[i + 1]))
            return out, True
    return out, False


# --------------------------------------------------------------------------- loops
def lower_jumps(stmts, ag: str, namer) -> list:
    """Lower ``break``/``continue`` of every loop in ``stmts`` (not nested functions)."""
    out = []
    for s in stmts:
        if isinstance(s, _NESTED):
            out.append(s)
            continue
        for f in _blocks(s):
            setattr(s, f, lower_jumps(getattr(s, f), ag, namer))
        for h in getattr(s, "handlers", []) + getattr(s, "cases", []):
            h.body = lower_jumps(h.body, ag, namer)
        if not isinstance(s, _LOOPS):
            out.append(s)
            continue
        after = []
        if _contains(s.body, ast.Break, into_loops=False):
            flag = namer.new("break_")
            s.body, _ = _jumps_block(s.body, ast.Break, ag, flag)
            out.append(ast.copy_location(templates.stmts(f"{flag} = False")[0], s))
            add_loop_test(s, ag, flag)
            if s.orelse:
                after = [ast.copy_location(_guard(ag, flag, s.orelse), s.orelse[0])]
        else:
            after = s.orelse
        s.orelse = []
        if _contains(s.body, ast.Continue, into_loops=False):
            flag = namer.new("continue_")
            body, _ = _jumps_block(s.body, ast.Continue, ag, flag)
            s.body = [ast.copy_location(templates.stmts(f"{flag} = False")[0], s.body[0]),
                      *body]
        out.append(s)
        out.extend(after)
    return out


def _jumps_block(stmts, kind, ag, flag):
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.append(ast.copy_location(templates.stmts(f"{flag} = True")[0], s))
            return out, True
        jumps = False
        if not isinstance(s, _NESTED + _LOOPS):
            for f in _blocks(s):
                new, j = _jumps_block(getattr(s, f), kind, ag, flag)
                setattr(s, f, new)
                jumps |= j
            for h in getattr(s, "handlers", []) + getattr(s, "cases", []):
                h.body, j = _jumps_block(h.body, kind, ag, flag)
                jumps |= j
        out.append(s)
        if jumps:
            rest, _ = _jumps_block(stmts[i + 1:], kind, ag, flag)
            if rest:
                out.append(ast.copy_location(_guard(ag, flag, rest), stmts[i + 1]))
            return out, True
    return out, False
