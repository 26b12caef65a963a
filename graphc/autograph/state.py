"""The state of a converted statement, and the ``get_state``/``set_state`` functions
through which the runtime reads and writes it.

A statement's state has three parts, in this order:

* ``names``: variables it rebinds that are live afterwards (its outputs);
* ``composites``: attributes and subscripts it assigns whose base object exists before
  it (``obj.x += 1``, ``d['a'] = ...``); they are outputs too, since the object can
  be seen later through any reference to it;
* ``extras``: variables it rebinds that are dead afterwards but must still be reset
  before each traced branch (or kept in the enclosing scope for closures); a staged
  statement gives them back their entry values.

``get_state`` reads a composite through ``ag__.ldc`` (``Undefined`` when it does not
exist yet); ``set_state`` writes one back when it is defined and deletes it when not
(so a key one traced branch added is gone again before the other is traced).
"""

from __future__ import annotations

import ast
import copy

from graphc.autograph import templates


class State:
    def __init__(self, names=(), composites=(), extras=(), unbound=()):
        self.names = list(names)
        self.composites = list(composites)  # (source text, target expression)
        self.extras = list(extras)
        self.unbound = set(unbound)  # names a branch may ``del``: read them guarded

    @property
    def variables(self) -> list[str]:
        """The plain variables (``nonlocal`` in the state functions)."""
        return self.names + self.extras

    @property
    def labels(self) -> list[str]:
        return self.names + [text for text, _ in self.composites] + self.extras

    @property
    def nouts(self) -> int:
        return len(self.names) + len(self.composites)

    def call_args(self, always_nouts=False) -> list:
        """The ``names`` argument (and ``nouts`` where some state is no output)."""
        args = [templates.strings_tuple(self.labels)]
        if always_nouts or self.extras:
            args.append(ast.Constant(self.nouts))
        return args


def state_functions(ag: str, get: str, put: str, vars_: str, state: State) -> list:
    """``def get(): return (...)`` and ``def put(vars_): ...`` for ``state``."""
    if not state.labels:
        return templates.stmts(f"def {get}():\n    return ()\ndef {put}({vars_}):\n    pass")
    def read(n):
        if n in state.unbound:  # ``del``-eted: Undefined rather than a NameError
            return templates.expr(f"{ag}.ldu(lambda: {n}, {n!r})")
        return ast.Name(id=n, ctx=ast.Load())

    reads = [read(n) for n in state.names]
    reads += [templates.expr(f"{ag}.ldc(lambda: TARGET, {text!r})",
                             TARGET=_loaded(target)) for text, target in state.composites]
    reads += [read(n) for n in state.extras]
    getter = templates.stmts(f"def {get}():\n    return STATE",
                             STATE=ast.Tuple(elts=reads, ctx=ast.Load()))
    body = []
    if state.variables:
        body += templates.stmts("nonlocal NONLOCAL", NONLOCAL=state.variables)
    for k, name in enumerate(state.names):
        body += templates.stmts(f"{name} = {vars_}[{k}]")
    for k, (_text, target) in enumerate(state.composites, start=len(state.names)):
        # an undefined value means "did not exist": one a traced branch created is
        # removed again, so the other branch cannot see it
        body += templates.stmts(f"""
            if {ag}.defined({vars_}[{k}]):
                TARGET = {vars_}[{k}]
            else:
                try:
                    del DELETED
                except (LookupError, AttributeError):
                    pass
            """, TARGET=_stored(target), DELETED=_deleted(target))
    for k, name in enumerate(state.extras, start=state.nouts):
        body += templates.stmts(f"{name} = {vars_}[{k}]")
    setter = templates.stmts(f"def {put}({vars_}):\n    BODY", BODY=body)
    return getter + setter


def _loaded(target):
    return templates.set_ctx(copy.deepcopy(target), ast.Load())


def _deleted(target):
    return templates.set_ctx(copy.deepcopy(target), ast.Del())


def _stored(target):
    return templates.set_ctx(copy.deepcopy(target), ast.Store())
