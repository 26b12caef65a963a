"""What Python code gives a staged branch or loop body, seen leaf by leaf: the sentinels
for values not set yet (``Undefined``, ``UndefinedReturnValue``), tests and descriptions
of leaves for error messages, and the joins of shapes; and whether a body is traced only
provisionally (to learn its dtypes). Shared by ``trace``, ``branch_outputs`` and
``loop`` (``trace`` re-exports them).
"""

from __future__ import annotations

import contextlib

import numpy as np

from graphc.core.tensor import Tensor
from graphc.dtypes import PYTHON_SCALARS
from graphc.ir import graph as ir


class Undefined:
    """A variable that has no value yet (AutoGraph's ``Undefined(name)``).

    Flows through converted code so that a variable assigned in only one branch of a
    tensor ``if``, or first assigned inside a tensor loop, can be reported by name.
    """

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"Undefined({self.name!r})"

    def _unbound(self, *args, **kwargs):
        raise UnboundLocalError(f"local variable '{self.name}' is used before it is assigned")

    __bool__ = __len__ = __iter__ = __call__ = __getitem__ = __index__ = _unbound
    __float__ = __int__ = __neg__ = __abs__ = _unbound
    for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                  "and", "or", "xor"):
        locals()[f"__{_name}__"] = locals()[f"__r{_name}__"] = _unbound
    __lt__ = __le__ = __gt__ = __ge__ = _unbound
    del _name


class UndefinedReturnValue:
    """The return value of a converted function before a ``return`` ran.

    Unlike a user variable it may stay unset on one side of a tensor ``if`` or through
    a tensor loop: it is read only where the matching ``do_return`` flag is true, so it
    is filled with zeros of the other side's dtype and shape.
    """

    __slots__ = ()

    def __repr__(self):
        return "UndefinedReturnValue()"


def is_symbolic(x) -> bool:
    return isinstance(x, Tensor) and x._np is None


def _is_tensorish(x) -> bool:
    return isinstance(x, Tensor | np.ndarray | np.generic)


def _is_number(x) -> bool:
    return type(x) in PYTHON_SCALARS


def aval_of(x) -> ir.Aval:
    if isinstance(x, Tensor):
        return x.aval
    arr = np.asarray(x)
    return ir.Aval(arr.shape, arr.dtype)


def describe(x) -> str:
    """``int64[3,?] tensor`` / ``Python int 3`` / ``None``: for error messages."""
    if _is_tensorish(x):
        return f"{aval_of(x)} tensor"
    if isinstance(x, Undefined):
        return "undefined"
    if x is None:
        return "None"
    return f"Python {type(x).__name__} {x!r:.40}"


def join_shapes(a, b):
    """The most specific shape both fit (``None`` where dims differ); None if ranks differ."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def _same_python(values) -> bool:
    first = values[0]
    for v in values[1:]:
        if v is first:
            continue
        if type(v) is not type(first) or _is_tensorish(v):
            return False
        try:
            if not bool(v == first):
                return False
        except Exception:  # noqa: BLE001 - objects whose == fails are simply different
            return False
    return True


def _join_all(shapes):
    out = shapes[0]
    for s in shapes[1:]:
        out = join_shapes(out, s)
    return out


def _shape_text(shape) -> str:
    return "<unknown>" if shape is None else str(tuple(shape))


# --------------------------------------------------------------------------- probes
_probes = [0]  # > 0 while a loop body is traced only to learn its dtypes


@contextlib.contextmanager
def provisional():
    """Trace provisionally: branches whose dtypes differ promote instead of failing (a
    loop variable's probe dtype must not make a ``cond`` in the body fail)."""
    _probes[0] += 1
    try:
        yield
    finally:
        _probes[0] -= 1


def probing() -> bool:
    return _probes[0] > 0
