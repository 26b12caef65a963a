"""The AutoGraph source transformation of one function definition.

Pipeline (each step its own module): expressions (``expressions.py``) -> returns, breaks
and continues to flags (``lowering.py``) -> liveness (``analysis.py``) -> control flow
(here). An ``if`` becomes::

    def if_body():                 # the branches as functions
        nonlocal x
        x = x + 1
    def else_body():
        nonlocal x
        x = 0
    def get_state():               # how the runtime reads and writes the state variables
        return (x,)
    def set_state(vars_):
        nonlocal x
        (x,) = vars_
    ag__.if_stmt(cond, if_body, else_body, get_state, set_state, ('x',))

and ``while``/``for`` the same with ``ag__.while_stmt`` / ``ag__.for_stmt``. The runtime
(``operators.py``) calls the functions directly for Python conditions and stages a graph
``cond``/``while_loop`` for tensors. A state variable with no value yet is first set to
``ag__.Undefined('x')`` so the ``nonlocal`` has a binding and the runtime can name it.
"""

from __future__ import annotations

import ast

from graphc.autograph import analysis, lowering, templates
from graphc.autograph.expressions import ExpressionConverter
from graphc.autograph.state import State, state_functions

_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))

class Namer:
    """Fresh names that clash with no identifier of the converted source."""

    def __init__(self, tree):
        self.used = set()
        for node in ast.walk(tree):
            for attr in ("id", "name", "arg", "attr"):
                value = getattr(node, attr, None)
                if isinstance(value, str):
                    self.used.add(value)

    def new(self, base: str) -> str:
        name, i = base, 0
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return name


def convert(fn_node: ast.FunctionDef, ag: str, namer: Namer) -> ast.FunctionDef:
    """Convert ``fn_node`` in place (its nested functions too) and return it."""
    user_lambdas = {id(n) for n in ast.walk(fn_node) if isinstance(n, ast.Lambda)}
    ExpressionConverter(ag).visit(fn_node)
    for node in _function_defs(fn_node):  # innermost first; each is its own scope
        _convert_scope(node, ag, namer, user_lambdas)
    return fn_node


def _function_defs(node):
    out = []
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.ClassDef | ast.Lambda):
            out.extend(_function_defs(child))
    if isinstance(node, ast.FunctionDef):
        out.append(node)
    return out


def _convert_scope(fn: ast.FunctionDef, ag: str, namer: Namer, user_lambdas) -> None:
    user_loads = _own_loads(fn.body, user_lambdas)  # before lowering adds its own
    lowering.lower_returns(fn, ag, namer)
    fn.body = lowering.lower_jumps(fn.body, ag, namer)
    live = analysis.Liveness()
    live.run(fn.body)
    args = fn.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    converter = _ControlFlow(ag, namer, live, analysis.global_names(fn.body), user_lambdas)
    fn.body = converter.block(fn.body, _Scope(params | analysis.declared(fn.body)))
    if converter.maybe_undefined:
        _CheckedLoads(ag, converter.maybe_undefined, user_loads).visit(fn)


def _own_loads(stmts, user_lambdas) -> dict[int, bool]:
    """The ``Name`` loads in this scope's own code: id -> whether the read is in one of
    the user's lambdas (a free variable there). Nested ``def``/``class`` bodies are
    scopes of their own and converted on their own."""
    out, todo = {}, [(s, False) for s in stmts]
    while todo:
        node, free = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out[id(node)] = free
        free = free or id(node) in user_lambdas
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                todo.append((child, free))
    return out


class _CheckedLoads(ast.NodeTransformer):
    """Every user read of a variable that may still be ``Undefined`` becomes
    ``ag__.ld(x, 'x')``, which raises ``UnboundLocalError`` where Python would (a
    variable set in one branch of a Python ``if``, or only in a loop that never ran)."""

    def __init__(self, ag, names, user_loads):
        self.ag, self.names, self.user_loads = ag, names, user_loads

    def visit_Name(self, node):
        free = self.user_loads.get(id(node))
        if free is None or node.id not in self.names:
            return node
        call = templates.expr(f"{self.ag}.ld(NAME, {node.id!r}{', True' if free else ''})",
                              NAME=node)
        return ast.copy_location(call, node)


class _Scope:
    """What is bound so far in the function being generated: ``defined`` surely, and
    ``possible`` maybe (assigned in a ``try``) -- it decides how to initialize state."""

    def __init__(self, defined=(), possible=(), outer=None):
        self.defined = set(defined)
        self.possible = set(possible)
        self.outer = outer  # the enclosing function's scope (its names are readable)

    def visible(self, name: str) -> bool:
        """Whether ``name`` surely has a value here, bound here or in an enclosing
        function (the base of a composite name must be)."""
        return name in self.defined or (self.outer is not None and self.outer.visible(name))


class _ControlFlow:
    def __init__(self, ag, namer, live, global_names, user_lambdas):
        self.ag = ag
        self.user_lambdas = user_lambdas
        self.namer = namer
        self.live = live
        self.globals = global_names
        self.vars = namer.new("vars_")
        self.maybe_undefined: set[str] = set()  # names given an Undefined binding

    def block(self, stmts, scope: _Scope) -> list:
        out = []
        for s in stmts:
            if isinstance(s, ast.If):
                out.extend(self.if_stmt(s, scope))
                continue
            if isinstance(s, ast.While):
                out.extend(self.while_stmt(s, scope))
                continue
            if isinstance(s, ast.For):
                out.extend(self.for_stmt(s, scope))
                continue
            if isinstance(s, ast.With):
                s.body = self.block(s.body, scope)
            elif isinstance(s, _TRY + (ast.Match,)):
                self._maybe_blocks(s, scope)
                scope.possible |= analysis.bound(s)
                out.append(s)
                continue
            out.append(s)
            scope.defined |= analysis.bound(s)
        return out

    def _maybe_blocks(self, s, scope):
        blocks = [(s, f) for f in ("body", "orelse", "finalbody") if hasattr(s, f)]
        blocks += [(h, "body") for h in getattr(s, "handlers", []) + getattr(s, "cases", [])]
        for owner, field in blocks:
            inner = _Scope(scope.defined, scope.possible, scope.outer)
            setattr(owner, field, self.block(getattr(owner, field), inner))

    # ------------------------------------------------------------------ helpers
    def _inits(self, names, scope: _Scope) -> list:
        """Give every name in ``names`` a binding here (Undefined if it has no value)."""
        out = []
        for v in sorted(set(names) - scope.defined):
            self.maybe_undefined.add(v)
            if v in scope.possible:
                out += templates.stmts(f"{v} = {self.ag}.ldu(lambda: {v}, {v!r})")
            else:
                out += templates.stmts(f"{v} = {self.ag}.Undefined({v!r})")
        scope.defined |= set(names)
        return out

    def _state_fns(self, state: State):
        get, put = self.namer.new("get_state"), self.namer.new("set_state")
        return state_functions(self.ag, get, put, self.vars, state), get, put

    def _composites(self, blocks, scope, rebound) -> list:
        """The composite names ``blocks`` assign whose base exists before the statement
        and is not rebound by it (nor are the names their subscripts read)."""
        out = []
        for text, target in analysis.composites(blocks).items():
            base = analysis.composite_base(target)
            if (scope.visible(base) and base not in rebound
                    and not analysis.composite_keys(target) & rebound):
                out.append((text, target))
        return out

    def _function(self, name, params, nonlocal_names, body_stmts, outer):
        """``def name(params): nonlocal ...; global ...; body`` (body converted)."""
        mine = analysis.bound(body_stmts)
        glob = sorted(mine & self.globals)
        scope = _Scope(set(nonlocal_names) | set(params), outer=outer)
        body = self.block(body_stmts, scope) or [ast.Pass()]
        code = templates.stmts("""
            def NAME(PARAMS):
                nonlocal NONLOCAL
                global GLOBAL
                BODY
            """, NAME=name, NONLOCAL=sorted(nonlocal_names), GLOBAL=glob, BODY=body)
        fn = code[0]
        fn.args.args = [ast.arg(arg=p) for p in params]
        return fn

    def _call(self, name, args):
        call = templates.expr(f"{self.ag}.{name}()")
        call.args = args
        return ast.Expr(value=call)

    # ------------------------------------------------------------------ statements
    def if_stmt(self, s: ast.If, scope):
        after = self.live.live_out[id(s)]
        body_in, else_in = self.live.branch_in[id(s)]
        mod_b, mod_e = analysis.bound(s.body), analysis.bound(s.orelse)
        live = sorted(((mod_b | mod_e) & after) - self.globals)
        nl_b = (mod_b & (set(live) | body_in | self._captured(s.body))) - self.globals
        nl_e = (mod_e & (set(live) | else_in | self._captured(s.orelse))) - self.globals
        # Every name a branch rebinds in the enclosing scope is state, live or not: the
        # runtime restores all of them before tracing each branch (else a name the first
        # branch changed leaks into the second). Only the live ones (first) are outputs.
        comps = self._composites(s.body + s.orelse, scope, mod_b | mod_e)
        dels = analysis.deleted(s.body + s.orelse)
        self.maybe_undefined |= dels  # a read after a `del` must raise as in Python
        state = State(live, comps, sorted((nl_b | nl_e) - set(live)), unbound=dels)
        pre = self._inits(state.variables, scope)
        body_name, else_name = self.namer.new("if_body"), self.namer.new("else_body")
        body_fn = self._function(body_name, [], nl_b, s.body, scope)
        else_fn = self._function(else_name, [], nl_e, s.orelse, scope)
        state_fns, get, put = self._state_fns(state)
        call = self._call("if_stmt", [
            s.test, ast.Name(body_name, ast.Load()), ast.Name(else_name, ast.Load()),
            ast.Name(get, ast.Load()), ast.Name(put, ast.Load()),
            *state.call_args(always_nouts=True)])
        return templates.locate([*pre, body_fn, else_fn, *state_fns, call], s)

    def _captured(self, stmts) -> set[str]:
        return analysis.captured(stmts, self.user_lambdas)

    def _loop_state(self, s, scope, extra_bound=frozenset()) -> State:
        """Loop variables (what the body rebinds and is live at the head), composite
        names it assigns, then what else it rebinds that a closure made in it reads
        (kept in the enclosing scope, restored after a graph loop)."""
        head = self.live.loop_head[id(s)]
        mod = (analysis.bound(s.body) | set(extra_bound)) - self.globals
        loop_vars = sorted(mod & head)
        comps = self._composites(s.body, scope, mod)
        return State(loop_vars, comps, sorted((mod & self._captured(s.body)) - head))

    def while_stmt(self, s: ast.While, scope):
        state = self._loop_state(s, scope)
        pre = self._inits(state.variables, scope)
        test_name, body_name = self.namer.new("loop_test"), self.namer.new("loop_body")
        test_fn = templates.stmts("def NAME():\n    return TEST", NAME=test_name, TEST=s.test)
        body_fn = self._function(body_name, [], state.variables, s.body, scope)
        state_fns, get, put = self._state_fns(state)
        call = self._call("while_stmt", [
            ast.Name(test_name, ast.Load()), ast.Name(body_name, ast.Load()),
            ast.Name(get, ast.Load()), ast.Name(put, ast.Load()), *state.call_args()])
        return templates.locate([*pre, *test_fn, body_fn, *state_fns, call], s)

    def for_stmt(self, s: ast.For, scope):
        targets = analysis.target_names(s.target)
        state = self._loop_state(s, scope, targets)
        pre = self._inits(state.variables, scope)
        body_name = self.namer.new("loop_body")
        body = list(s.body)
        if isinstance(s.target, ast.Name) and s.target.id not in state.variables:
            param = s.target.id
        else:
            param = self.namer.new("itr")
            body.insert(0, ast.copy_location(ast.Assign(
                targets=[s.target], value=ast.Name(param, ast.Load())), s.target))
        body_fn = self._function(body_name, [param], state.variables, body, scope)
        tests = analysis.extra_tests(s)
        extra, extra_fn = ast.Constant(None), []
        if tests:
            test = tests[0] if len(tests) == 1 else templates.expr(
                f"{self.ag}.and_(FIRST, lambda: REST)", FIRST=tests[0],
                REST=_conj(self.ag, tests[1:]))
            name = self.namer.new("extra_test")
            extra_fn = templates.stmts("def NAME():\n    return TEST", NAME=name, TEST=test)
            extra = ast.Name(name, ast.Load())
        state_fns, get, put = self._state_fns(state)
        call = self._call("for_stmt", [
            s.iter, extra, ast.Name(body_name, ast.Load()), ast.Name(get, ast.Load()),
            ast.Name(put, ast.Load()), *state.call_args()])
        call.value.keywords = [ast.keyword(arg="stageable",
                                           value=ast.Constant(analysis.stageable(s.body)))]
        return templates.locate([*pre, *extra_fn, body_fn, *state_fns, call], s)


def _conj(ag, tests):
    if len(tests) == 1:
        return tests[0]
    return templates.expr(f"{ag}.and_(FIRST, lambda: REST)", FIRST=tests[0],
                          REST=_conj(ag, tests[1:]))
