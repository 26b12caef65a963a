"""The ops behind ``gc.TensorArray`` (``graphc/ops/tensor_array/array.py``).

A TensorArray is a dense *buffer* of shape ``(capacity, *element_shape)`` and an int64
*size* (the number of elements, ``<= capacity``). Every op is functional: a write returns
a new buffer (a copy; a dynamic array grows by doubling) and the new size. Each op is
declared once here, with its ``infer`` and NumPy ``ref``; their Numba kernels are in
``graphc/runtime/cpu/kernels_tensor_array.py`` (imported at the end of this module, so the
compiled backend knows them whenever the ops exist).

* ``tensor_array_zeros(capacity)``: zeros of ``(capacity, *element_shape)``;
* ``tensor_array_write(buffer, size, index, value)`` -> ``(buffer, size)``: ``mode``
  ``"one"`` writes ``value`` at ``index``, ``"many"`` writes row ``r`` of ``value`` at
  ``index[r]`` (scatter), ``"block"`` writes the rows of ``value`` at ``index, index+1,
  ...`` (unstack). Past the capacity a ``dynamic`` buffer grows, another raises. A
  ``provisional`` buffer (made before the element shape was known, with 0 for its
  unknown dims) that holds no element takes the shape of the first value written;
* ``tensor_array_read(buffer, size, index)``: the element(s) at ``index`` (a scalar or a
  vector: gather), each in ``[0, size)``;
* ``tensor_array_stack(buffer, size)``: the first ``size`` elements (``concat``: joined
  along their first dim).

Errors raised by ``ref`` are ``ValueError``: ``bind`` and the interpreter turn them into
``InvalidArgumentError`` naming the op and the user's line (TensorFlow's error type).
"""

from __future__ import annotations

import numpy as np

from graphc.core.attr_types import BOOL, DTYPE, OPT_INT, SHAPE, STR
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, register
from graphc.ir.graph import Aval

INDEX = np.dtype(np.int64)


def _shape_text(shape) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


def _int_scalar(aval, what: str) -> None:
    if aval.dtype.kind not in "iu" or aval.shape != ():
        raise TypeError(f"{what} must be an integer scalar, got {aval}")


def _buffer_rank(aval) -> None:
    if aval.shape is None or len(aval.shape) < 1:
        raise TypeError(f"a TensorArray buffer must have rank >= 1, got {aval}")


# --------------------------------------------------------------------------- zeros
def _zeros_infer(capacity, *, dtype, element_shape, static_capacity=None):
    _int_scalar(capacity, "the size of a TensorArray")
    return Aval((static_capacity, *element_shape), dtype)


def _zeros_ref(capacity, *, dtype, element_shape, static_capacity=None):
    n = int(capacity)
    if n < 0:
        raise ValueError(f"the size of a TensorArray must be >= 0, got {n}")
    return np.zeros((n, *element_shape), dtype)


ZEROS = register(OpDef(
    name="tensor_array_zeros",
    attrs={"dtype": DTYPE, "element_shape": SHAPE, "static_capacity": OPT_INT},
    infer=_zeros_infer, ref=_zeros_ref))


# --------------------------------------------------------------------------- write
def _value_elem(mode, value_shape, index_shape):
    """The element shape a value carries, and its number of rows (None: unknown)."""
    if mode == "one":
        return value_shape, 1
    if not value_shape:
        raise ValueError(f"{'scatter' if mode == 'many' else 'unstack'} needs a value with "
                         f"a leading dim (one row per element), got shape ()")
    rows = value_shape[0]
    if mode == "many" and index_shape[0] is not None and rows is not None \
            and index_shape[0] != rows:
        raise ValueError(f"scatter: {index_shape[0]} indices but {rows} rows of values")
    return value_shape[1:], rows


def _write_infer(buffer, size, index, value, *, mode, dynamic, provisional=False):
    _buffer_rank(buffer)
    _int_scalar(size, "the size of a TensorArray")
    rank = 1 if mode == "many" else 0
    if index.dtype.kind not in "iu" or index.shape is None or len(index.shape) != rank:
        want = "a vector" if mode == "many" else "a scalar"
        raise TypeError(f"the index of a TensorArray write must be {want} of integers, "
                        f"got {index}")
    if value.dtype != buffer.dtype:
        raise TypeError(f"the TensorArray holds {buffer.dtype.name} but the value written "
                        f"is {value.dtype.name}; cast it with gc.cast")
    if value.shape is None:
        raise ValueError("the value written into a TensorArray must have a known rank")
    elem = buffer.shape[1:]
    v_elem, _ = _value_elem(mode, value.shape, index.shape)
    if len(v_elem) != len(elem):
        raise ValueError(f"a value with elements of shape {_shape_text(v_elem)} cannot be "
                         f"written into a TensorArray of elements of shape "
                         f"{_shape_text(elem)}")
    out = []
    for b, v in zip(elem, v_elem):
        if b is not None and v is not None and b != v and not provisional:
            raise ValueError(f"a value with elements of shape {_shape_text(v_elem)} cannot "
                             f"be written into a TensorArray of elements of shape "
                             f"{_shape_text(elem)}")
        out.append(b if b == v else None)
    lead = None if dynamic else buffer.shape[0]
    return Aval((lead, *out), buffer.dtype), Aval((), INDEX)


def _write_ref(buffer, size, index, value, *, mode, dynamic, provisional=False):
    cap = buffer.shape[0]
    if mode == "one":
        positions, rows = np.asarray(index, np.int64).reshape(1), value[np.newaxis]
    elif mode == "many":
        positions, rows = np.asarray(index, np.int64), value
        if len(positions) != len(rows):
            raise ValueError(f"scatter: {len(positions)} indices but {len(rows)} rows of "
                             "values")
    else:
        positions, rows = int(index) + np.arange(len(value), dtype=np.int64), value
    if positions.size and positions.min() < 0:
        raise ValueError(f"TensorArray index {int(positions.min())} is negative")
    need = int(positions.max()) + 1 if positions.size else 0
    elem = rows.shape[1:]
    if buffer.shape[1:] != elem:
        if not (provisional and buffer.size == 0):
            raise ValueError(f"a value with elements of shape {_shape_text(elem)} cannot be "
                             f"written into a TensorArray of elements of shape "
                             f"{_shape_text(buffer.shape[1:])}")
        buffer = np.zeros((cap, *elem), buffer.dtype)
    if need > cap:
        if not dynamic:
            raise ValueError(f"TensorArray index {need - 1} is out of bounds: the array "
                             f"has size {cap} and dynamic_size=False; create it with "
                             "dynamic_size=True to let writes grow it")
        out = np.zeros((max(2 * cap, need), *elem), buffer.dtype)
        out[:cap] = buffer
    else:
        out = buffer.copy()
    out[positions] = rows
    return out, np.asarray(max(int(size), need), INDEX)


WRITE = register(OpDef(
    name="tensor_array_write",
    attrs={"mode": STR, "dynamic": BOOL, "provisional": BOOL},
    infer=_write_infer, ref=_write_ref, multiple_results=True,
    extra={"updates_operand0": True}))


# --------------------------------------------------------------------------- read
def _read_infer(buffer, size, index):
    _buffer_rank(buffer)
    _int_scalar(size, "the size of a TensorArray")
    if index.dtype.kind not in "iu" or index.shape is None or len(index.shape) > 1:
        raise TypeError(f"a TensorArray index must be an integer scalar or vector, got "
                        f"{index}")
    return Aval((*index.shape, *buffer.shape[1:]), buffer.dtype)


def _read_ref(buffer, size, index):
    n = int(size)
    idx = np.asarray(index, np.int64)
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise ValueError(f"cannot read TensorArray index {int(bad.flat[0])}: the array has "
                         f"size {n}")
    return buffer[idx]


READ = register(OpDef(
    name="tensor_array_read", attrs={}, infer=_read_infer, ref=_read_ref))


# --------------------------------------------------------------------------- stack
def _stack_infer(buffer, size, *, concat=False):
    _buffer_rank(buffer)
    _int_scalar(size, "the size of a TensorArray")
    elem = buffer.shape[1:]
    if concat:
        if not elem:
            raise ValueError("concat needs elements of rank >= 1 (it joins them along "
                             "their first dim); use stack() for scalars")
        return Aval((None, *elem[1:]), buffer.dtype)
    return Aval((None, *elem), buffer.dtype)


def _stack_ref(buffer, size, *, concat=False):
    n = int(size)
    if not 0 <= n <= buffer.shape[0]:
        raise ValueError(f"TensorArray size {n} does not fit its buffer of "
                         f"{buffer.shape[0]} elements")
    out = buffer[:n]
    return out.reshape((-1, *buffer.shape[2:])) if concat else out


STACK = register(OpDef(
    name="tensor_array_stack", attrs={"concat": BOOL}, infer=_stack_infer, ref=_stack_ref))


# --------------------------------------------------------------------------- gradients
# write, read and stack: graphc/ops/tensor_array/grad.py
ZEROS.grad = NOT_DIFFERENTIABLE  # zeros whatever the capacity
