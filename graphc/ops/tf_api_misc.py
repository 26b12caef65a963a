"""TensorFlow's top-level helper names: ``gc.DType``/``gc.as_dtype`` and the extra
dtype spellings, ``gc.TensorShape``, ``gc.get_static_value``, ``gc.is_tensor``,
``gc.no_gradient``, ``gc.case`` (nested ``gc.cond``) and ``gc.assert_rank``.

graphc's dtypes are ``numpy.dtype`` objects, so ``gc.DType`` is ``numpy.dtype`` (every
``gc.float32``... is an instance) and ``gc.as_dtype`` reads TensorFlow's spellings
('float' is float32, 'double' float64, 'half' float16).
"""

from __future__ import annotations

import builtins

import numpy as np

from graphc import source_info
from graphc.core.registry import NOT_DIFFERENTIABLE, bind, get
from graphc.core.tensor import Tensor
from graphc.errors import InvalidArgumentError
from graphc.ops import elementwise as ew
from graphc.ops import join
from graphc.ops.control.flow import cond
from graphc.ops.effects import assert_op
from graphc.ops.shape_args import static_value
from graphc.ops.tf_api_shapes import tensor, value_of

DType = np.dtype
newaxis = None
half = np.dtype(np.float16)
double = np.dtype(np.float64)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)

_TF_NAMES = {"float": np.float32, "double": np.float64, "half": np.float16,
             "float32": np.float32, "float64": np.float64, "float16": np.float16,
             "complex": np.complex128, "bool": np.bool_}


def as_dtype(type_value):
    """``tf.as_dtype``: a ``gc.DType`` (``numpy.dtype``) from a dtype, a NumPy type, a
    Python type (``float`` -> float32, as TensorFlow) or a name ('float32', 'float',
    'double', 'half'...)."""
    if isinstance(type_value, np.dtype):
        return type_value
    if type_value is builtins.float:
        return np.dtype(np.float32)
    if isinstance(type_value, str) and type_value in _TF_NAMES:
        return np.dtype(_TF_NAMES[type_value])
    if isinstance(type_value, str) and type_value in ("bfloat16", "string", "resource",
                                                      "variant", "qint8", "quint8"):
        raise TypeError(f"Cannot convert {type_value!r} to a graphc DType: graphc "
                        "tensors hold NumPy's numeric dtypes (docs/tf_api.md)")
    try:
        dtype = np.dtype(getattr(type_value, "as_numpy_dtype", type_value))
    except TypeError:
        raise TypeError(f"Cannot convert value {type_value!r} to a graphc DType.") from None
    if dtype.kind not in "biufc":
        raise TypeError(f"Cannot convert value {type_value!r} to a graphc DType.")
    return dtype


# --------------------------------------------------------------------------- TensorShape
class TensorShape:
    """``tf.TensorShape``: a possibly partial shape (``None`` rank or dims).

    >>> gc.TensorShape([None, 3]).is_compatible_with((2, 3))
    True
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims.dims
        elif dims is not None and not isinstance(dims, list | tuple):
            dims = [dims]
        self._dims = None if dims is None else tuple(
            None if d is None or getattr(d, "value", 0) is None else int(d) for d in dims)

    @property
    def dims(self):
        """The dims as a list (``None`` for unknown ones), or ``None`` for unknown rank."""
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        """The number of dims, or ``None``."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self):
        """The dims as a list; unknown rank raises ``ValueError``."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        """Whether the rank and every dim are known."""
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        """The element count, or ``None`` when not fully defined."""
        return int(np.prod(self._dims, dtype=np.int64)) if self.is_fully_defined() else None

    def is_compatible_with(self, other):
        """Whether some shape fits both (``None`` dims match anything)."""
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other):
        """The shape with both's information; ``ValueError`` if they are incompatible."""
        other = TensorShape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self._dims,
                                                                      other._dims)])

    def concatenate(self, other):
        """The dims of this shape followed by ``other``'s."""
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def assert_is_compatible_with(self, other):
        """``ValueError`` unless :meth:`is_compatible_with`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {TensorShape(other)} are incompatible")

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = TensorShape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return f"TensorShape({self.dims})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        return "(" + ", ".join("None" if d is None else str(d) for d in self._dims) + (
            ",)" if len(self._dims) == 1 else ")")


def broadcast_static_shape(shape_x, shape_y):
    """``tf.broadcast_static_shape``: the broadcast of two ``TensorShape``s (``None``
    dims stay unknown unless the other is known and not 1); incompatible shapes raise
    ``ValueError``."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    a, b = [1] * (len(y) - len(x)) + x.dims, [1] * (len(x) - len(y)) + y.dims
    out = []
    for p, q in zip(a, b):
        if p is None or q is None:
            known = q if p is None else p
            out.append(known if known is not None and known > 1 else None)
        elif p == q or q == 1:
            out.append(p)
        elif p == 1:
            out.append(q)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x, shape_y):
    """``tf.broadcast_dynamic_shape``: the broadcast of two 1-D shape tensors (their
    dtype), checked as the graph runs when their values are not known."""
    x, y = tensor(shape_x), tensor(shape_y)
    kx, ky = value_of(x), value_of(y)
    if kx is not None and ky is not None:
        try:
            return tensor(np.asarray(np.broadcast_shapes(tuple(kx), tuple(ky)), x.dtype))
        except ValueError:
            raise InvalidArgumentError(f"Incompatible shapes: {list(kx)} vs. "
                                       f"{list(ky)}") from None
    nx, ny = x.shape[0], y.shape[0]
    if nx is None or ny is None:
        raise ValueError("broadcast_dynamic_shape: the shapes' lengths must be known "
                         "while tracing")
    n = max(nx, ny)
    ones = np.ones(n, x.dtype)
    a = join.concatenate([tensor(ones[:n - nx]), x]) if nx < n else x
    b = join.concatenate([tensor(ones[:n - ny]).astype(x.dtype), y.astype(x.dtype)]) \
        if ny < n else y.astype(x.dtype)
    ok = (a == b) | (a == 1) | (b == 1)
    assert_op("assert", (ok,), message="Incompatible shapes for broadcasting")
    return bind(ew.WHERE, a == 1, b, a)


# --------------------------------------------------------------------------- values
def get_static_value(tensor_, partial=False):
    """``tf.get_static_value``: ``tensor_``'s value as a NumPy array if it is known
    while tracing (eager tensors, constants and values computed from them), else
    ``None``; non-tensors are converted with ``np.asarray``."""
    if hasattr(tensor_, "_graphc_tensor_") and not isinstance(tensor_, Tensor):
        return None
    if isinstance(tensor_, Tensor):
        return static_value(tensor_)
    return np.asarray(tensor_)


def is_tensor(x):
    """``tf.is_tensor``: whether ``x`` is a graphc tensor (or tensor-like, as a
    ``gc.Variable``); NumPy arrays and Python values are not."""
    return isinstance(x, Tensor) or hasattr(x, "_graphc_tensor_")


def no_gradient(op_type):
    """``tf.no_gradient``: declares the registry op named ``op_type`` not
    differentiable (its gradient is then zero/``None``); an op that already has a
    gradient raises ``KeyError`` (TensorFlow's duplicate registration)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be the string name of an operation")
    try:
        op = get(op_type)
    except KeyError:
        raise LookupError(f"no_gradient: graphc has no op named {op_type!r}") from None
    if op.grad is not None and op.grad is not NOT_DIFFERENTIABLE:
        raise KeyError(f"Registering two gradient with name '{op_type}'!")
    op.grad = NOT_DIFFERENTIABLE


def assert_rank(x, rank, message=None, name=None):
    """``tf.assert_rank``: ``ValueError`` unless ``x`` has rank ``rank`` (graphc knows
    every traced tensor's rank, so the check is made while tracing)."""
    t = tensor(x)
    r = value_of(rank)
    if r is None or np.ndim(r):
        raise ValueError("assert_rank: rank must be a known scalar")
    if t.shape is None:
        raise ValueError("assert_rank: the tensor's rank is unknown while tracing")
    if len(t.shape) != int(r):
        raise ValueError(f"{message + '. ' if message else ''}Tensor must have rank "
                         f"{int(r)}. Received rank {len(t.shape)}, shape {t.shape}")


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: the result of the first ``fn`` whose ``pred`` is true (``default``
    when none is; with ``default=None`` the last pair's ``fn`` is the default and its
    predicate must hold). ``exclusive=True`` checks that at most one ``pred`` holds."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    pairs = list(pred_fn_pairs)
    if not pairs:
        raise ValueError("case: pred_fn_pairs holds no pair")
    for pred, fn in pairs:
        if not callable(fn):
            raise TypeError(f"fn for pred {pred} must be callable.")
    preds = [tensor(p) for p, _ in pairs]
    for p in preds:
        if p.dtype != np.bool_ or p.shape not in ((), None):
            raise TypeError("case: each pred must be a scalar bool tensor")
    if exclusive and len(preds) > 1:
        count = sum(p.astype(np.int32) for p in preds)
        ok = count <= 1
        if value_of(ok) is None:
            assert_op("assert", (ok,), message="Input error: exclusive=True: more than "
                      "1 conditions evaluated as True")
        elif not value_of(ok):
            raise InvalidArgumentError("Input error: exclusive=True: more than 1 "
                                       "conditions evaluated as True")
    if default is None:
        last_pred, default = preds[-1], pairs[-1][1]
        pairs, preds = pairs[:-1], preds[:-1]
        anything = last_pred
        for p in preds:
            anything = anything | p
        if value_of(anything) is None:
            assert_op("assert", (anything,), message="case: none of the conditions "
                      "evaluated as True")
        elif not value_of(anything):
            raise InvalidArgumentError("case: none of the conditions evaluated as True "
                                       f"{source_info.where()}")
    fn = default
    for p, (_, branch) in reversed(list(zip(preds, pairs))):
        fn = _branch(p, branch, fn)
    return fn()


def _branch(pred, true_fn, false_fn):
    return lambda: cond(pred, true_fn, false_fn)
