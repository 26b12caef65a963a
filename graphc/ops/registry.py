"""The op registry: every op is declared once, as an ``OpDef``; ``bind`` is the one entry.

An ``OpDef`` carries everything an op *is*: ``infer`` (shapes and dtypes from avals),
``ref`` (the NumPy implementation: eager mode, constant folding and the reference
interpreter all call it), room for a fused-loop ``scalar`` template, a Numba ``kernel``,
a ``cuda`` kernel and a ``grad`` rule, and whether it is ``stateful``.

``bind(op, *args, **attrs)`` runs ``ref`` at once on eager inputs, or appends a node to
the graph being traced. Tensor arguments are positional; static parameters (axis, shape,
dtype, ...) are keyword ``attrs`` and must be hashable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from graphc import config
from graphc.dtypes import PYTHON_SCALARS, check_strict, numpy_literal
from graphc.errors import InvalidArgumentError, SymbolicTensorError
from graphc.tracer import source_info, trace
from graphc.tracer.tensor import Tensor, _eager

_REGISTRY: dict[str, "OpDef"] = {}

ALL = "all"


@dataclass(eq=False)
class OpDef:
    """Everything graphc knows about one op.

    * ``infer(*avals, **attrs) -> Aval | tuple[Aval, ...]``
    * ``ref(*arrays, **attrs) -> ndarray | tuple[ndarray, ...]`` (NumPy semantics)
    * ``weak``: input positions where a Python number is *weak* and promotes with the
      other weak positions' tensors (NEP 50); ``"all"`` for elementwise math.
    * ``multiple_results``: ``ref`` returns a tuple/list of arrays.
    * ``elementwise``: one output element per broadcast input element; ``scalar`` is its
      per-element template for fused loops (``"({0} + {1})"``).
    * ``kernel`` / ``cuda``: compiled implementations (filled in by the runtime issues);
      ``None`` means the op runs its NumPy ``ref`` inside compiled code.
    """

    name: str
    infer: Callable
    ref: Callable
    weak: tuple | str = ()
    multiple_results: bool = False
    elementwise: bool = False
    scalar: str | None = None
    kernel: Callable | None = None
    cuda: Callable | None = None
    stateful: bool = False
    grad: Callable | None = None
    doc: str = ""
    extra: dict = field(default_factory=dict)

    def __repr__(self):
        return f"<op {self.name}>"


def register(op: OpDef) -> OpDef:
    """Add ``op`` to the registry; each name may be declared only once."""
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} is already registered")
    _REGISTRY[op.name] = op
    return op


def get(name: str) -> OpDef:
    return _REGISTRY[name]


def all_ops() -> dict[str, OpDef]:
    """A copy of the registry: name -> OpDef."""
    return dict(_REGISTRY)


# --------------------------------------------------------------------------- operands
def _operands(op: OpDef, args) -> list:
    """Turn call arguments into eager arrays / symbolic tensors, resolving weak scalars.

    Returns a list whose items are ``np.ndarray`` (eager) or ``Tensor`` (symbolic).
    """
    weak = op.weak
    out = []
    weak_at = None
    strong = None
    for i, a in enumerate(args):
        t = type(a)
        if t is Tensor:
            arr = a._np
            out.append(a if arr is None else arr)
            if weak and (weak == ALL or i in weak):
                (strong := strong or []).append(a.dtype)
        elif t in PYTHON_SCALARS and weak and (weak == ALL or i in weak):
            (weak_at := weak_at or []).append(i)
            out.append(a)
        else:
            if t is not np.ndarray:
                arr = _to_array(a, op)
            else:
                arr = a
            out.append(arr)
            if weak and (weak == ALL or i in weak):
                (strong := strong or []).append(arr.dtype)
    if weak_at:
        for i in weak_at:
            value = out[i]
            if strong:
                dtype = np.result_type(*strong, value)
                out[i] = _scalar_array(value, dtype, op)
            else:
                out[i] = numpy_literal(value)
    elif strong and len(strong) > 1 and config.state.dtype_promotion == "strict":
        check_strict(op.name, strong)
    return out


def _scalar_array(value, dtype, op):
    try:
        return np.asarray(value, dtype=dtype)
    except OverflowError:
        raise InvalidArgumentError(
            f"{op.name}: Python number {value!r} does not fit the tensor dtype {dtype} "
            f"it is combined with{source_info.where()}; cast the tensor to a wider dtype first"
        ) from None


def _to_array(value, op):
    if isinstance(value, Tensor):  # subclasses
        return value._np if value._np is not None else value
    try:
        return numpy_literal(value)
    except (ValueError, TypeError) as e:
        raise TypeError(
            f"{op.name}: cannot convert {type(value).__name__} {value!r:.60} to a tensor "
            f"({e}){source_info.where()}"
        ) from None


# --------------------------------------------------------------------------- bind
def bind(op: OpDef, *args, **attrs):
    """Apply ``op``: run it now on eager inputs, or record it in the graph being traced."""
    if trace.active():
        return trace.current().bind(op, _operands(op, args), attrs)
    arrays = _operands(op, args)
    for a in arrays:
        if type(a) is Tensor:
            raise SymbolicTensorError(
                f"{op.name}: a traced tensor was used outside the gc.function that traced "
                f"it{source_info.where()}; return it from the function instead of storing it"
            )
    try:
        out = op.ref(*arrays, **attrs)
    except Exception as e:  # noqa: BLE001 - re-raised with the op and user line attached
        raise kernel_error(op, e, arrays, source_info.where()) from None
    if op.multiple_results:
        return [_eager(o) for o in out]
    return _eager(out)


def kernel_error(op: OpDef, error: Exception, arrays, where: str) -> Exception:
    """Wrap an exception raised by an op's implementation into a user-facing error."""
    shapes = ", ".join(_describe(a) for a in arrays)
    text = f"{op.name}({shapes}): {error}{where}"
    if isinstance(error, (InvalidArgumentError, SymbolicTensorError)):
        return error
    if isinstance(error, TypeError):
        return TypeError(text)
    if isinstance(error, (ValueError, IndexError, ArithmeticError)):
        return InvalidArgumentError(text)
    return error


def _describe(a) -> str:
    if isinstance(a, np.ndarray):
        return f"{a.dtype}{list(a.shape)}"
    return type(a).__name__
