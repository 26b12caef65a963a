"""Static analysis of one function scope: names read and bound, and liveness.

AutoGraph turns the body of an ``if``/``while``/``for`` into a nested function, so it must
know which variables cross that boundary:

* ``bound(node)``: names a statement (or block) assigns in *this* scope (nested function
  and class bodies, lambdas and comprehensions are their own scopes; their names are not);
* ``reads(node)``: names it reads, including the free names of nested scopes;
* ``Liveness``: which names are live after each compound statement, at each loop head and
  on entry to each branch. A branch's *state* is what it modifies and is live after it;
  a loop's *loop variables* are what its body modifies and is live at its head (read
  after the loop or in the next iteration).

It runs after returns, ``break`` and ``continue`` have been lowered to flags, so the only
control flow left is structured ``if``/``while``/``for`` (plus ``try``/``with``).
"""

from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# --------------------------------------------------------------------------- names
def target_names(target) -> set[str]:
    """Names bound by an assignment target (``a``, ``a, (b, *c)``); not ``x.a``/``x[i]``."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        out = set()
        for elt in target.elts:
            out |= target_names(elt)
        return out
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return set()


def bound(node) -> set[str]:
    """Names bound in this scope by ``node`` (a statement, a list of them, or an expr)."""
    if isinstance(node, list):
        out = set()
        for n in node:
            out |= bound(n)
        return out
    out = set()
    _bound_into(node, out)
    return out


def _bound_into(node, out: set) -> None:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        out.add(node.name)
        return
    if isinstance(node, ast.Lambda | ast.Global | ast.Nonlocal) or isinstance(
            node, _COMPREHENSIONS):
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        out.add(node.id)
    elif isinstance(node, ast.alias):
        out.add((node.asname or node.name).split(".")[0])
    elif isinstance(node, ast.ExceptHandler) and node.name:
        out.add(node.name)
    elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        out.add(node.name)
    for child in ast.iter_child_nodes(node):
        _bound_into(child, out)


def reads(node) -> set[str]:
    """Names read by ``node``, including free names of nested functions and lambdas."""
    if node is None:
        return set()
    if isinstance(node, list):
        out = set()
        for n in node:
            out |= reads(n)
        return out
    out = set()
    _reads_into(node, out)
    return out


def _reads_into(node, out: set) -> None:
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load | ast.Del):
            out.add(node.id)
        return
    if isinstance(node, ast.AugAssign):
        out |= target_names(node.target)
    if isinstance(node, _SCOPES) or isinstance(node, _COMPREHENSIONS):
        out |= _free_reads(node)
        return
    for child in ast.iter_child_nodes(node):
        _reads_into(child, out)


def _free_reads(node) -> set[str]:
    """Free names of a nested scope (over-approximated: its loads minus its own names)."""
    if isinstance(node, ast.ClassDef):
        outside = reads(node.decorator_list) | reads(node.bases) | reads(node.keywords)
        return outside | (reads(node.body) - bound(node.body))
    if isinstance(node, _COMPREHENSIONS):
        own, inner = set(), set()
        for gen in node.generators:
            own |= target_names(gen.target)
            inner |= reads(gen.iter) | reads(gen.ifs)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        inner |= reads(parts)
        first = reads(node.generators[0].iter)  # evaluated in the enclosing scope
        return first | (inner - own)
    args = node.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    outside = reads(args.defaults) | reads([d for d in args.kw_defaults if d is not None])
    if isinstance(node, ast.Lambda):
        return outside | (reads(node.body) - params)
    outside |= reads(node.decorator_list)
    local = bound(node.body) - declared(node.body)
    return outside | (reads(node.body) - params - local)


def declared(stmts) -> set[str]:
    """Names declared ``global``/``nonlocal`` directly in a function body."""
    out = set()
    for node in stmts:
        for sub in _walk_scope(node):
            if isinstance(sub, ast.Global | ast.Nonlocal):
                out |= set(sub.names)
    return out


def global_names(stmts) -> set[str]:
    out = set()
    for node in stmts:
        for sub in _walk_scope(node):
            if isinstance(sub, ast.Global):
                out |= set(sub.names)
    return out


def _walk_scope(node):
    """``ast.walk`` that does not enter nested scopes."""
    yield node
    if isinstance(node, _SCOPES) or isinstance(node, _COMPREHENSIONS):
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk_scope(child)


def captured(stmts, closures) -> set[str]:
    """Names read by the closures (ids in ``closures``: the user's lambdas and nested
    ``def``s) created in ``stmts``. A closure sees the variable, not its value when it
    was made (late binding), so such a name must stay one variable of the enclosing
    scope rather than become a local of a branch or loop-body function."""
    out = set()
    for node in stmts:
        for sub in _walk_scope(node):
            if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef) or id(sub) in closures:
                out |= reads(sub)
    return out


def deleted(stmts) -> set[str]:
    """Names ``del``-eted in this scope by ``stmts``."""
    return {n.id for s in stmts for n in _walk_scope(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}


def composites(stmts) -> dict[str, ast.expr]:
    """The composite names a block assigns in this scope (``d['a'] = ...``, ``obj.x +=
    ...``, ``l[0] = ...``): source text -> target expression, in order of appearance.

    Only attribute and subscript chains on a plain name with constant or name keys
    count (``a.b[0].c``, ``d[k]``); a target with a computed key (``l[i + 1]``) names
    no fixed place and is left alone.
    """
    out: dict[str, ast.expr] = {}
    for node in stmts:
        for sub in _walk_scope(node):
            targets = (sub.targets if isinstance(sub, ast.Assign) else
                       [sub.target] if isinstance(sub, ast.AugAssign | ast.AnnAssign)
                       else [])
            for t in targets:
                for leaf in _target_leaves(t):
                    if isinstance(leaf, ast.Attribute | ast.Subscript) and _simple(leaf):
                        out.setdefault(ast.unparse(leaf), leaf)
    return out


def composite_base(target: ast.expr) -> str:
    while isinstance(target, ast.Attribute | ast.Subscript):
        target = target.value
    return target.id


def composite_keys(target: ast.expr) -> set[str]:
    """The names a composite's subscripts read (``i`` in ``d[i].x``)."""
    out = set()
    while isinstance(target, ast.Attribute | ast.Subscript):
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Name):
            out.add(target.slice.id)
        target = target.value
    return out


def _target_leaves(t):
    if isinstance(t, ast.Tuple | ast.List):
        for e in t.elts:
            yield from _target_leaves(e)
    elif isinstance(t, ast.Starred):
        yield from _target_leaves(t.value)
    else:
        yield t


def _simple(t) -> bool:
    while isinstance(t, ast.Attribute | ast.Subscript):
        if isinstance(t, ast.Subscript) and not _simple_key(t.slice):
            return False
        t = t.value
    return isinstance(t, ast.Name)


def _simple_key(k) -> bool:
    if isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub):
        k = k.operand
    return isinstance(k, ast.Constant | ast.Name)


def extra_tests(node) -> list:
    """The extra loop conditions lowering attached to a ``for`` (break/return flags)."""
    return getattr(node, "ag_extra_tests", [])


# --------------------------------------------------------------------------- liveness
class Liveness:
    """Backward liveness over one function body's structured statements.

    After ``run(body)``: ``live_out[id(stmt)]`` (live after each statement),
    ``loop_head[id(loop)]`` (live at a loop's head: after it, in its test, or in the next
    iteration) and ``branch_in[id(if_stmt)]`` (live on entry to each branch).
    """

    def __init__(self):
        self.live_out: dict[int, frozenset] = {}
        self.loop_head: dict[int, frozenset] = {}
        self.branch_in: dict[int, tuple] = {}

    def run(self, body) -> set[str]:
        return self.block(body, set())

    def block(self, stmts, live_out) -> set[str]:
        live = set(live_out)
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, live_out) -> set[str]:
        self.live_out[id(s)] = frozenset(live_out)
        if isinstance(s, ast.If):
            body_in = self.block(s.body, live_out)
            else_in = self.block(s.orelse, live_out)
            self.branch_in[id(s)] = (frozenset(body_in), frozenset(else_in))
            return reads(s.test) | body_in | else_in
        if isinstance(s, ast.While):
            return self._loop(s, live_out, reads(s.test), set(), set())
        if isinstance(s, ast.For | ast.AsyncFor):
            tests = reads(extra_tests(s))
            head = self._loop(s, live_out, tests, target_names(s.target),
                              reads(s.target) | tests)
            return reads(s.iter) | head
        if isinstance(s, ast.With | ast.AsyncWith):
            inner = self.block(s.body, live_out)
            names = set()
            for item in s.items:
                if item.optional_vars is not None:
                    names |= target_names(item.optional_vars)
            return (inner - names) | reads(s.items)
        if isinstance(s, ast.Try | getattr(ast, "TryStar", ast.Try)):
            return self._try(s, live_out)
        if isinstance(s, ast.Return | ast.Raise):
            return reads(s)
        if isinstance(s, ast.Match):
            inner = set()
            for case in s.cases:
                inner |= self.block(case.body, live_out) | reads(case.guard)
            return set(live_out) | inner | reads(s.subject)
        # simple statements, nested function and class definitions
        return (set(live_out) - bound(s)) | reads(s)

    def _loop(self, s, live_out, test_reads, targets, target_reads) -> set[str]:
        head = set(live_out) | test_reads
        while True:
            body_in = self.block(s.body, head)
            new = set(live_out) | test_reads | (body_in - targets) | target_reads
            if new == head:
                break
            head = new
        self.block(s.orelse, live_out)
        self.loop_head[id(s)] = frozenset(head)
        return head

    def _try(self, s, live_out) -> set[str]:
        final_in = self.block(s.finalbody, live_out)
        after = set(live_out) | final_in
        else_in = self.block(s.orelse, after)
        handlers_in = set()
        for h in s.handlers:
            handlers_in |= (self.block(h.body, after) - ({h.name} if h.name else set()))
            handlers_in |= reads(h.type)
        # an exception may leave the body at any point: everything a handler needs is
        # live throughout it
        body_in = self.block(s.body, else_in | handlers_in | final_in)
        return body_in | handlers_in | final_in


# Method names that change a Python container in place: a loop body calling one has a
# Python side effect per iteration, which a graph loop (traced once) would do once.
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear",
                               "update", "setdefault", "add", "discard", "popitem",
                               "reverse"})
_EFFECT_CALLS = frozenset({"print", "input", "open", "setattr", "delattr", "exec", "eval",
                           "next", "iter"})


def stageable(body) -> bool:
    """Whether a ``for`` body over a Python ``range`` may run as one graph loop: no
    Python side effect that each iteration must repeat (printing, container mutation,
    attribute writes, ``del``, ``global``/``nonlocal``, generators, ``try``/``with``)."""
    for node in ast.walk(ast.Module(body=list(body), type_ignores=[])):
        if isinstance(node, ast.Yield | ast.YieldFrom | ast.Global | ast.Nonlocal
                      | ast.Delete | ast.Await | ast.Try | ast.With):
            return False
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in _EFFECT_CALLS:
                return False
            if isinstance(f, ast.Attribute) and f.attr in _MUTATING_METHODS:
                return False
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
        if any(isinstance(t, ast.Attribute) for t in targets):
            return False
    return True
