"""Build AST from small source templates with named holes (AutoGraph's ``templates``).

A hole is an identifier written in capitals in the template. ``stmts(src, **subs)``
parses ``src`` and substitutes each hole:

* a ``str`` renames the identifier (a variable, a ``def`` name or a parameter);
* an ``ast.expr`` replaces a name (its ``ctx`` set to where the hole stands);
* a ``list`` of statements replaces a statement that is just the hole (``BODY``);
* a ``list`` of ``str`` fills a ``nonlocal``/``global`` hole (dropped when empty).

Everything else in the template is kept as written, so each converter's output reads like
the code it produces.
"""

from __future__ import annotations

import ast
import copy
import textwrap

_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def stmts(src: str, **subs) -> list[ast.stmt]:
    """The statements of ``src`` with holes substituted.

    Template nodes carry no source position (``locate`` gives them the position of the
    user statement they replace); substituted user nodes keep theirs.
    """
    tree = _unlocated(ast.parse(textwrap.dedent(src)))
    return _Filler(subs).fill_block(tree.body)


def expr(src: str, **subs) -> ast.expr:
    """The expression ``src`` with holes substituted."""
    tree = _unlocated(ast.parse(textwrap.dedent(src).strip(), mode="eval"))
    return _Filler(subs).visit(tree).body


def _unlocated(tree):
    for node in ast.walk(tree):
        for attr in _POSITIONS:
            if hasattr(node, attr):
                delattr(node, attr)
    return tree


def locate(nodes, origin) -> list:
    """Give every node in ``nodes`` without a position the position where ``origin``
    starts (one line: CPython reports a call on a multi-line attribute at its last line)."""
    line, col = origin.lineno, origin.col_offset
    pos = {"lineno": line, "col_offset": col, "end_lineno": line, "end_col_offset": col}
    for top in nodes:
        for node in ast.walk(top):
            if "lineno" in node._attributes and getattr(node, "lineno", None) is None:
                for attr, value in pos.items():
                    setattr(node, attr, value)
    return nodes


def set_ctx(node, ctx):
    """``node`` with ``ctx`` set on its names, tuples, lists, attributes and subscripts."""
    if "ctx" not in node._fields:
        return node
    node.ctx = ctx
    if isinstance(node, ast.Tuple | ast.List):
        for elt in node.elts:
            set_ctx(elt, ctx)
    elif isinstance(node, ast.Starred):
        set_ctx(node.value, ctx)
    return node


def strings_tuple(names) -> ast.Tuple:
    """``('a', 'b')``: the symbol names AutoGraph passes for error messages."""
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


class _Filler(ast.NodeTransformer):
    def __init__(self, subs: dict):
        self.subs = subs

    def fill_block(self, body):
        out = []
        for s in body:
            if (isinstance(s, ast.Expr) and isinstance(s.value, ast.Name)
                    and isinstance(self.subs.get(s.value.id), list)):
                out.extend(self.subs[s.value.id])
                continue
            if isinstance(s, ast.Global | ast.Nonlocal):
                names = []
                for n in s.names:
                    sub = self.subs.get(n, n)
                    names.extend(sub if isinstance(sub, list) else [sub])
                if names:
                    s.names = names
                    out.append(s)
                continue
            out.append(self.visit(s))
        return out

    def generic_visit(self, node):
        """Fill statement lists with :meth:`fill_block` (which visits each template
        statement once) and visit the other children; statements spliced in from a hole
        are the user's code and are not visited. (Visiting every child again after
        filling, as ``NodeTransformer.generic_visit`` does, walked each block once per
        enclosing block, exponential in the nesting, and renamed user variables whose
        names are template holes.)"""
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    setattr(node, field, self.fill_block(value))
                    continue
                items = []
                for item in value:
                    item = self.visit(item) if isinstance(item, ast.AST) else item
                    if isinstance(item, list):
                        items.extend(item)
                    elif item is not None:
                        items.append(item)
                value[:] = items
            elif isinstance(value, ast.AST):
                new = self.visit(value)
                if new is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new)
        return node

    def visit_Name(self, node):
        sub = self.subs.get(node.id)
        if sub is None:
            return node
        if isinstance(sub, str):
            return ast.copy_location(ast.Name(id=sub, ctx=node.ctx), node)
        if isinstance(sub, ast.expr):
            return set_ctx(copy.copy(sub), type(node.ctx)())
        raise TypeError(f"template hole {node.id} cannot take {type(sub).__name__}")

    def visit_FunctionDef(self, node):
        sub = self.subs.get(node.name)
        if isinstance(sub, str):
            node.name = sub
        return self.generic_visit(node)

    def visit_arg(self, node):
        sub = self.subs.get(node.arg)
        if isinstance(sub, str):
            node.arg = sub
        return node
