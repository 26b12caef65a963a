"""Expression converters: ``and``/``or``/``not``, ``x if c else y``, calls and ``assert``.

* ``a and b and c`` -> ``ag__.and_(a, lambda: b, lambda: c)`` (``or_`` likewise): the
  later operands stay lazy, as in Python, and become a ``cond`` when ``a`` is a tensor;
* ``not a`` -> ``ag__.not_(a)``;
* ``a < b < c`` -> ``ag__.compare_chain(a, 'Lt', lambda: b, 'Lt', lambda: c)``: Python's
  chain on Python values; once a comparison gives a tensor, the rest are evaluated and
  joined with ``logical_and`` (elementwise ``(a < b) & (b < c)``);
* ``x if c else y`` -> ``ag__.if_exp(c, lambda: x, lambda: y)``;
* ``f(*args, **kw)`` -> ``ag__.call(f, *args, **kw)``: converts user functions on the
  fly and turns ``int/float/bool/len/range`` of tensors into graph ops;
* ``assert c, msg`` -> ``ag__.assert_stmt(c, lambda: msg)``.

Calls that depend on the calling frame (``super()``, ``locals()``, ...) are left alone,
and so are operands holding an assignment expression (a lambda would rebind it).
"""

from __future__ import annotations

import ast

from graphc.autograph import templates

_FRAME_CALLS = {"super", "locals", "globals", "vars", "eval", "exec", "dir", "breakpoint"}


def _has_walrus(node) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in ast.walk(node))


def _thunk(node: ast.expr) -> ast.Lambda:
    return ast.copy_location(ast.Lambda(
        args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                           kw_defaults=[], kwarg=None, defaults=[]),
        body=node), node)


class ExpressionConverter(ast.NodeTransformer):
    """Rewrites the expressions of a function (its nested functions and lambdas too)."""

    def __init__(self, ag: str):
        self.ag = ag

    def _ag(self, name: str, node) -> ast.Attribute:
        # positioned on one line: CPython reports a call through a multi-line attribute
        # at the attribute's last line, and errors should point at the expression's start
        attr = ast.Attribute(value=ast.Name(id=self.ag, ctx=ast.Load()), attr=name,
                             ctx=ast.Load())
        return templates.locate([attr], node)[0]

    def visit_ClassDef(self, node):
        return node  # class bodies run once, at definition: left as written

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if any(_has_walrus(v) for v in node.values[1:]):
            return node
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        args = [node.values[0], *[_thunk(v) for v in node.values[1:]]]
        return ast.copy_location(ast.Call(func=self._ag(name, node), args=args,
                                          keywords=[]), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(ast.Call(func=self._ag("not_", node), args=[node.operand],
                                          keywords=[]), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if _has_walrus(node.body) or _has_walrus(node.orelse):
            return node
        return ast.copy_location(ast.Call(
            func=self._ag("if_exp", node),
            args=[node.test, _thunk(node.body), _thunk(node.orelse)], keywords=[]), node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) < 2 or any(_has_walrus(c) for c in node.comparators):
            return node
        args = [node.left]
        for op, right in zip(node.ops, node.comparators):
            args += [ast.Constant(type(op).__name__), _thunk(right)]
        return ast.copy_location(ast.Call(func=self._ag("compare_chain", node), args=args,
                                          keywords=[]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in _FRAME_CALLS:
            return node
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == self.ag):
            return node
        return ast.copy_location(ast.Call(func=self._ag("call", node),
                                          args=[func, *node.args],
                                          keywords=node.keywords), node)

    def visit_Assert(self, node):
        self.generic_visit(node)
        args = [node.test]
        if node.msg is not None:
            args.append(_thunk(node.msg))
        call = templates.expr(f"{self.ag}.assert_stmt()")
        call.args = args
        return ast.copy_location(ast.Expr(value=ast.copy_location(call, node)), node)
