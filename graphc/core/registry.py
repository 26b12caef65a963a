"""The op registry: every op is declared once, as an ``OpDef``; ``bind`` is the one entry.

An ``OpDef`` carries everything an op *is*: ``infer`` (shapes and dtypes from avals),
``ref`` (the NumPy implementation: eager mode, constant folding and the reference
interpreter all call it), a fused-loop ``scalar`` template, the ``grad``, ``batch`` and
``blocks`` rules, and whether it is ``stateful``. How a backend runs an op is not here:
each backend keeps its own lowering table keyed by op (``runtime/cpu/kernels.py``,
``runtime/cuda/lowering.py``).

``bind(op, *args, **attrs)`` runs ``ref`` at once on eager inputs, or appends a node to
the graph being traced. Tensor arguments are positional; static parameters (axis, shape,
dtype, ...) are keyword ``attrs`` and must be hashable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from graphc import config, source_info
from graphc.core import contexts, hooks, weak
from graphc.core import device_scope as _scope
from graphc.core import placement as _placement
from graphc.core.device_tensor import DeviceTensor
from graphc.core.device_tensor import made as _made
from graphc.core.op_errors import kernel_error
from graphc.core.tensor import Tensor, _eager
from graphc.core.weak_scalars import _WEAK_ARRAYS, _all_weak, _weak_array
from graphc.dtypes import PYTHON_SCALARS, check_strict, numpy_literal
from graphc.errors import SymbolicTensorError

_REGISTRY: dict[str, "OpDef"] = {}
# ``if _open and _local.stack``: the calling thread traces. ``_open`` (contexts open in
# any thread) is a plain list, so while no thread traces the test costs what one list's
# truth does; the thread-local stack is read only while some thread traces.
_open = contexts.open_contexts
_local = contexts.local
_taping = hooks.tapes  # non-empty while a GradientTape records (any thread)
_state = config.state
# ``if _placing and _scoped.stack``: the calling thread has a device scope open while some
# thread places work on an accelerator; ``_made``: some device tensor exists
_placing, _scoped = _scope.placing, _scope.local

ALL = "all"


class _NotDifferentiable:
    """Marker for ``OpDef.grad``: the op passes no gradient by nature (comparisons,
    random draws, integer results, Python callbacks)."""

    def __repr__(self):
        return "NOT_DIFFERENTIABLE"


NOT_DIFFERENTIABLE = _NotDifferentiable()


class Grads(tuple):
    """A rule's cotangents, one per argument, plus ``variables``: ``{variable.ref():
    cotangent}`` for the variables read inside the op's subgraphs."""

    def __new__(cls, grads, variables):
        out = super().__new__(cls, grads)
        out.variables = variables
        return out


@dataclass(eq=False)
class OpDef:
    """Everything graphc knows about one op.

    * ``infer(*avals, **attrs) -> Aval | tuple[Aval, ...]``
    * ``ref(*arrays, **attrs) -> ndarray | tuple[ndarray, ...]`` (NumPy semantics)
    * ``weak``: input positions where a Python number is *weak* and promotes with the
      other weak positions' tensors (NEP 50); ``"all"`` for elementwise math.
    * ``weak_tensors``: positions where a weakly typed tensor (a traced Python number,
      ``graphc.core.weak``) promotes weakly; ``None``: the same as ``weak``.
    * ``multiple_results``: ``ref`` returns a tuple/list of arrays.
    * ``elementwise``: one output element per broadcast input element; ``scalar`` is its
      per-element template for fused loops (``"({0} + {1})"``).
    * ``ref`` must raise plain ``ValueError``/``IndexError``/``TypeError``: ``bind`` and the
      interpreter wrap them into user-facing errors naming the op and the user's line.
    * ``batch(args, dims, **attrs) -> (outputs, out_dims)``: the op on operands that carry
      an extra batch axis (``dims[i]``: its position in argument ``i``, ``None``:
      unbatched), written with ops through ``bind``; may return ``NotImplemented`` for a
      case it does not cover (``gc.vectorized_map`` then loops over the batch for it).
    * ``attrs``: every attr the op takes, name -> kind (``graphc.core.attr_types``:
      ``{"axis": AXES, "keepdims": BOOL}``; ``{}`` for none). A loaded saved graph's
      attrs are checked against it.
    * ``view(*avals, **attrs)``: whether NumPy's version of the op returns a view of its
      first operand: ``True`` (always, for these operands: ``getitem`` with a basic key,
      ``transpose``), ``False`` (a new array), ``"layout"`` (a view or a copy by the
      memory layout: ``reshape``); ``view=None``: never.
      ``unview(base, new_view, *other_inputs, **attrs) -> new_base``: the base after a
      write through such a view, written with ops through ``bind``;
      ``None`` where graphc cannot write through it (``graphc.core.mutation``).
    * ``blocks``: how the op runs on the blocks of a chunked array (``graphc.dask``), a
      rule of :mod:`graphc.ops.blocks`; ``None``: blockwise when ``elementwise``, else
      the op cannot be split by blocks.
    * ``extra``: facts a few walks read, by name: ``runs_subgraph`` (the attr holding a
      subgraph the op runs exactly: the interpreter splices its steps in), ``reshapes``
      (the result is the operand's data in the output's shape, C order: between static
      shapes the interpreter runs one ``reshape``), ``runs_user_code``, ``no_fold``.
    """

    name: str
    infer: Callable
    ref: Callable
    weak: tuple | str = ()
    weak_tensors: tuple | str | None = None
    multiple_results: bool = False
    elementwise: bool = False
    scalar: str | None = None
    stateful: bool = False
    grad: Callable | None = None
    batch: Callable | None = None
    view: Callable | None = None
    unview: Callable | None = None
    attrs: dict | None = None
    blocks: object = None
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
def _operands(op: OpDef, args, device: bool = False) -> list:
    """Turn call arguments into eager arrays / symbolic tensors, resolving weak scalars.

    Returns a list whose items are ``np.ndarray`` (eager) or ``Tensor`` (symbolic); with
    ``device=True`` tensors on a GPU stay ``DeviceTensor``s (else: their host values).
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
                if strong is None:
                    strong = [a.dtype]
                else:
                    strong.append(a.dtype)
        elif t in PYTHON_SCALARS and weak and (weak == ALL or i in weak):
            if weak_at is None:
                weak_at = [i]
            else:
                weak_at.append(i)
            out.append(a)
        else:
            arr = a if t is np.ndarray or device and t is DeviceTensor else _to_array(a, op)
            out.append(arr)
            if weak and (weak == ALL or i in weak):
                if strong is None:
                    strong = [arr.dtype]
                else:
                    strong.append(arr.dtype)
    if strong is not None and len(strong) > 1 and config.state.dtype_promotion == "strict":
        check_strict(op.name, strong)  # a Python number beside them changes nothing
    if weak_at is not None:
        if strong is None:
            if len(weak_at) > 1:
                _all_weak(out, weak_at, op)
            else:  # one number alone is converted as np.asarray does (2**63: uint64)
                out[weak_at[0]] = numpy_literal(out[weak_at[0]])
        else:
            # several weak numbers promote together (NEP 50: clip(int8_t, 1, 2.5) is float64)
            types = tuple(type(out[i]) for i in weak_at) if len(weak_at) > 1 else None
            for i in weak_at:
                out[i] = _weak_array(out[i], strong, op, types)
    return out


def _bind_weak(op: OpDef, args, attrs):
    """Trace ``op`` where some operands may be weakly typed tensors: next to strong
    operands they are cast to the dtype a Python number of their kind would take; with
    none, the op runs on them as they are and its outputs are weak too."""
    positions = op.weak if op.weak_tensors is None else op.weak_tensors
    at = [i for i, a in enumerate(args)
          if (positions == ALL or i in positions) and weak.is_weak(a)]
    if not at:
        return _local.stack[-1].bind(op, _operands(op, args), attrs)
    strong = [a.dtype for i, a in enumerate(args) if i not in at
              and (positions == ALL or i in positions) and isinstance(a, Tensor | np.ndarray)]
    if strong:
        args = list(args)
        for i in at:
            dtype = np.result_type(*strong, weak.python_kind(args[i].dtype))
            if dtype != args[i].dtype:
                args[i] = args[i].astype(dtype)  # the cast op, through Tensor's methods
        return _local.stack[-1].bind(op, _operands(op, args), attrs)
    out = _local.stack[-1].bind(op, _operands(op, args), attrs)
    for t in out if isinstance(out, list | tuple) else (out,):
        if isinstance(t, Tensor) and t._np is None:
            weak.mark(t)
    return out


def _to_array(value, op):
    as_tensor = getattr(value, "_graphc_tensor_", None)
    if as_tensor is not None:  # a gc.Variable: read it (a read node while tracing)
        value = as_tensor()
    if isinstance(value, Tensor):  # subclasses
        return value._np if value._np is not None else value
    try:
        return numpy_literal(value)
    except (ValueError, TypeError) as e:
        raise type(e)(f"{op.name}: {e}{source_info.where()}") from None


# --------------------------------------------------------------------------- bind
def bind(op: OpDef, *args, **attrs):
    """Apply ``op``: run it now on eager inputs, or record it in the graph being traced
    (and on the calling thread's recording ``GradientTape``s)."""
    if _taping:
        return hooks.record_bind(_bind, op, args, attrs)
    return _bind(op, args, attrs)


def _bind(op: OpDef, args, attrs):
    if _open and _local.stack:
        for a in args:
            if type(a) is Tensor and a._np is not None:  # an eager tensor used in a trace
                ctx = _local.stack[-1]
                args = [ctx.capture(x) if type(x) is Tensor and x._np is not None else x
                        for x in args]
                break
        if weak.any_weak():
            return _bind_weak(op, args, attrs)
        return _local.stack[-1].bind(op, _operands(op, args), attrs)
    if _placing and _scoped.stack or _made and _placement.has_device_tensor(args):
        out = _placement.run_eager(op, args, attrs, _operands)
        if out is not None:
            return out
    # Fast path for the commonest eager call: one or two eager tensors, no promotion
    # check needed (a mixed-dtype pair under strict promotion takes the full path).
    n = len(args)
    arrays = None
    if n == 1:
        a = args[0]
        t = type(a)
        if t is Tensor and a._np is not None:
            arrays = (a._np,)
        elif t is np.ndarray:
            arrays = (a,)
    elif n == 2:
        a, b = args
        ta, tb = type(a), type(b)
        if (ta is Tensor or ta is np.ndarray) and (tb is Tensor or tb is np.ndarray):
            x = a._np if ta is Tensor else a
            y = b._np if tb is Tensor else b
            if x is not None and y is not None and (
                    x.dtype == y.dtype or _state.dtype_promotion != "strict"):
                arrays = (x, y)
        elif op.weak is ALL:
            # tensor op Python number (either order): the cached weak 0-d array
            if ta is Tensor and (tb is float or tb is int) and a._np is not None:
                x = a._np
                y = _WEAK_ARRAYS.get((x.dtype, tb, b))
                if y is not None:
                    arrays = (x, y)
            elif tb is Tensor and (ta is float or ta is int) and b._np is not None:
                y = b._np
                x = _WEAK_ARRAYS.get((y.dtype, ta, a))
                if x is not None:
                    arrays = (x, y)
    if arrays is None:
        arrays = _operands(op, args)
    try:
        out = op.ref(*arrays, **attrs)
    except Exception as e:  # noqa: BLE001 - re-raised with the op and user line attached
        for a in arrays:
            if type(a) is Tensor:
                raise SymbolicTensorError(
                    f"{op.name}: a traced tensor was used outside the gc.function that "
                    f"traced it{source_info.where()}; return it from the function instead "
                    "of storing it") from None
        raise kernel_error(op, e, arrays, source_info.where()) from None
    if op.multiple_results:
        return [_eager(o) for o in out]
    return _eager(out)


# --------------------------------------------------------------------------- fast calls
_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray


def fast_unary(op: OpDef):
    """``x -> bind(op, x)`` with the eager one-tensor case inlined (no attrs).

    The public elementwise functions and Tensor operators use these: on tiny arrays the
    Python layers around NumPy are the whole cost, so the common case skips them. Any
    other case, and any error, goes through ``bind`` (which builds the full message).
    """
    ref = op.ref

    def call(x):
        if type(x) is Tensor and not (_open and _local.stack) and not _taping and not _placing:
            a = x._np
            if a is not None:
                try:
                    out = ref(a)
                except Exception:  # noqa: BLE001 - bind re-raises it with context
                    return bind(op, x)
                t = _new(Tensor)
                t._np = out if type(out) is _ndarray else _asarray(out)
                t._sym = None
                return t
        return bind(op, x)

    return call


def fast_binary(op: OpDef):
    """``(x, y) -> bind(op, x, y)`` with eager tensor/tensor and tensor/number inlined."""
    ref = op.ref
    weak_all = op.weak == ALL

    def call(x, y):
        if not (_open and _local.stack) and not _taping and not _placing:
            tx, ty = type(x), type(y)
            a = b = None
            if tx is Tensor:
                a = x._np
                if ty is Tensor:
                    b = y._np
                    if a is not None and b is not None and (
                            _state.dtype_promotion != "strict" or a.dtype == b.dtype):
                        pass
                    else:
                        a = None
                elif a is not None and weak_all and (ty is float or ty is int):
                    b = _WEAK_ARRAYS.get((a.dtype, ty, y))
            elif ty is Tensor and weak_all and (tx is float or tx is int):
                b = y._np
                if b is not None:
                    a = _WEAK_ARRAYS.get((b.dtype, tx, x))
            if a is not None and b is not None:
                try:
                    out = ref(a, b)
                except Exception:  # noqa: BLE001 - bind re-raises it with context
                    return bind(op, x, y)
                t = _new(Tensor)
                t._np = out if type(out) is _ndarray else _asarray(out)
                t._sym = None
                return t
        return bind(op, x, y)

    return call
