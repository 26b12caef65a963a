"""Where converted code comes from and where its errors point: the user's own lines.

The function's definition is found in the parsed source *file* (not a dedented snippet),
so every AST node keeps its real line and column. Converted code is compiled under the
user's file name with those positions, and generated statements take the position of
the statement they replace: a frame of converted code therefore *is* the user's file and
line, in tracebacks and in ``source_info.user_frame`` (graphc's error messages), with no
separate line table. ``source_info.filter_traceback`` drops graphc's own frames from a traceback
unless ``GRAPHC_SHOW_INTERNAL_FRAMES=1`` (``config.show_internal_frames()``).
"""

from __future__ import annotations

import ast
import copy
import inspect
import linecache
import types


class SourceUnavailable(Exception):
    """The function's source cannot be found; the message says why."""


_modules: dict[str, tuple] = {}  # filename -> (source text, parsed module)
# Every code object compiled from converted source, nested ones included: a function made
# from one (a nested ``def`` of converted code) is already converted.
generated_codes: set[types.CodeType] = set()


def function_node(fn) -> ast.FunctionDef:
    """A fresh copy of ``fn``'s definition (a lambda becomes ``def``), real positions."""
    code = fn.__code__
    filename = code.co_filename
    tree = _module_ast(filename)
    if tree is None:
        where = ("it was defined in a REPL, by exec() or in generated code"
                 if filename.startswith("<") else f"{filename} cannot be read")
        raise SourceUnavailable(f"its source code is not available ({where})")
    node = _find_lambda(tree, code) if code.co_name == "<lambda>" else _find_def(tree, code)
    if node is None:
        raise SourceUnavailable(f"its definition was not found in {filename} at line "
                                f"{code.co_firstlineno} (was the file changed after import?)")
    node = copy.deepcopy(node)
    if isinstance(node, ast.Lambda):
        ret = ast.copy_location(ast.Return(value=node.body), node.body)
        node = ast.copy_location(ast.FunctionDef(
            name="lambda_", args=node.args, body=[ret], decorator_list=[], returns=None,
            type_comment=None), node)
    node.decorator_list = []
    node.returns = None
    for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs + [
            node.args.vararg, node.args.kwarg]:
        if a is not None:
            a.annotation = None
    return node


def _module_ast(filename: str):
    linecache.checkcache(filename)
    lines = linecache.getlines(filename)
    if not lines:
        return None
    text = "".join(lines)
    hit = _modules.get(filename)
    if hit is not None and hit[0] == text:
        return hit[1]
    try:
        tree = ast.parse(text, filename)
    except SyntaxError:
        return None
    _modules[filename] = (text, tree)
    return tree


def _find_def(tree, code):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if code.co_firstlineno in (node.lineno, first):
                return node
    return None


def _find_lambda(tree, code):
    """The lambda of ``code`` among those starting on its line: same parameters (names
    and kinds), and the one whose own body (not a lambda nested in it) holds every
    positioned instruction of the code. Several left: ``SourceUnavailable`` (converting
    the wrong one would run other code), so the function runs unconverted."""
    line = code.co_firstlineno
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line
             and _same_parameters(n.args, code)]
    if len(found) <= 1:
        return found[0] if found else None
    spans = [p for p in code.co_positions()
             if None not in p and (p[2], p[3]) != (0, 0)]   # (0, 0): the entry (RESUME)
    owners = [n for n in found if spans and all(_owns(n, p) for p in spans)]
    if len(owners) == 1:
        return owners[0]
    raise SourceUnavailable(f"{len(found)} lambdas with the same parameters start on line "
                            f"{line} of {code.co_filename} and its code could not be told "
                            "apart from theirs; give it a line of its own, or a def")


def _same_parameters(args: ast.arguments, code) -> bool:
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    n = code.co_argcount + code.co_kwonlyargcount
    flags = code.co_flags
    return (names == list(code.co_varnames[:n])
            and (args.vararg is not None) == bool(flags & inspect.CO_VARARGS)
            and (args.kwarg is not None) == bool(flags & inspect.CO_VARKEYWORDS))


def _inside(node, span) -> bool:
    line, end_line, col, end_col = span
    return ((node.lineno, node.col_offset) <= (line, col)
            and (end_line, end_col) <= (node.end_lineno, node.end_col_offset))


def _owns(lam, span) -> bool:
    """Whether ``span`` lies in ``lam``'s body and in no lambda nested in it."""
    if not _inside(lam.body, span):
        return False
    return not any(isinstance(n, ast.Lambda) and _inside(n, span)
                   for n in ast.walk(lam.body))


def compile_function(fn_node: ast.FunctionDef, fn, ag_name: str, ag_module):
    """Compile the converted definition as a function with ``fn``'s globals, closure
    cells (live, not copies), defaults and names; ``ag_name`` is bound to ``ag_module``."""
    freevars = list(fn.__code__.co_freevars)
    # The definition is compiled under a name of its own: under its real name it would
    # bind that name inside the factory, and a recursive call would read that binding
    # (a free variable with no cell) instead of the global or closure the user meant.
    fn_node = copy.copy(fn_node)  # the entry's node is shared by every closure of it
    fn_node.name = _fresh_name(fn_node, "ag__converted")
    factory = ast.FunctionDef(
        name="ag__factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in [ag_name, *freevars]],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                           defaults=[]),
        body=[fn_node], decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(factory, fn_node)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    _sane_positions(module)
    code = compile(module, fn.__code__.co_filename, "exec")
    inner = _const_code(_const_code(code, "ag__factory"), fn_node.name)
    inner = inner.replace(co_name=fn.__code__.co_name, co_qualname=fn.__code__.co_qualname)
    _remember(inner)
    cells = dict(zip(freevars, fn.__closure__ or ()))
    cells[ag_name] = types.CellType(ag_module)
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(cells[n] for n in inner.co_freevars))
    new.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__annotations__ = fn.__annotations__
    new.__dict__.update(fn.__dict__)
    return new


def _fresh_name(node, base: str) -> str:
    used = {getattr(n, a) for n in ast.walk(node) for a in ("id", "name", "arg")
            if isinstance(getattr(n, a, None), str)}
    name, i = base, 0
    while name in used:
        i += 1
        name = f"{base}_{i}"
    return name


def _remember(code) -> None:
    generated_codes.add(code)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _remember(c)


def _const_code(code, name):
    for c in code.co_consts:
        if isinstance(c, types.CodeType) and c.co_name == name:
            return c
    raise AssertionError(f"compiled code has no {name!r}")


def _sane_positions(tree) -> None:
    """End positions never before start positions (generated nodes borrow positions)."""
    for node in ast.walk(tree):
        if "lineno" not in node._attributes:
            continue
        if getattr(node, "end_lineno", None) is None or node.end_lineno < node.lineno:
            node.end_lineno = node.lineno
            node.end_col_offset = node.col_offset
        if node.end_lineno == node.lineno and (node.end_col_offset or 0) < node.col_offset:
            node.end_col_offset = node.col_offset


