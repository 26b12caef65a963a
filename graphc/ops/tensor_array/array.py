"""``gc.TensorArray``: TensorFlow's array of same-shaped tensors, for tensor loops.

A TensorArray is a dense buffer of shape ``(capacity, *element_shape)`` plus an int64
size, built and updated with the ops of ``ops.py`` (so it runs eagerly, in
a ``gc.function``, and compiled by Numba). It is immutable: ``write`` returns the new
array (``ta = ta.write(i, x)``). It flattens to its tensors (``graphc.nest``), so
it can be the state of a tensor ``for``/``while`` loop or a tensor ``if``; the buffer's
first dim changes across iterations and the loop relaxes it to ``None``.

Until the element shape is known (no ``element_shape`` given, nothing written) there is
no buffer: the first write, ``unstack`` or ``scatter`` makes it. A loop or ``if`` whose
body makes it is staged again with a buffer made before it (``shaped``).
"""

from __future__ import annotations

import numpy as np

from graphc import nest, source_info
from graphc.core import weak
from graphc.core.registry import bind
from graphc.core.tensor import Tensor, _eager
from graphc.dtypes import as_dtype
from graphc.ops.tensor_array import ops
from graphc.ops.tf_elementwise import cast

_INT64 = np.dtype(np.int64)


class TensorArray:
    """An array of tensors of one dtype and shape that a tensor loop can grow.

    ``TensorArray(dtype, size=0, dynamic_size=False, clear_after_read=None,
    element_shape=None, infer_shape=True, name=None)`` as in TensorFlow: ``size``
    elements (an int or an integer scalar tensor); with ``dynamic_size=True`` writes past
    the end grow it, else they raise (``InvalidArgumentError``, eagerly at once and when a
    graph runs). The element shape comes from ``element_shape`` or the first write, and a
    write of another shape raises. Reading an element inside the size that was never
    written gives zeros; reading past the size raises.

    Differences from TensorFlow: elements are stored densely, so every element has the
    same shape whatever ``infer_shape`` says, and ``concat`` joins elements of one shape;
    reads never clear (``clear_after_read`` is accepted and ignored); sizes are int64.

    Example (a tensor loop collecting one value per iteration)::

        @gc.function
        def squares(n):
            ta = gc.TensorArray(gc.int32, size=0, dynamic_size=True)
            for i in gc.range(n):
                ta = ta.write(i, i * i)
            return ta.stack()

        squares(4)  # [0, 1, 4, 9] (gc.range of a Python int counts in int32, as TF)
    """

    def __init__(self, dtype, size=0, dynamic_size=False, clear_after_read=None,
                 element_shape=None, infer_shape=True, name=None):
        if dtype is None:
            raise TypeError(f"TensorArray needs a dtype, e.g. gc.float32{source_info.where()}")
        self._dtype = as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._clear_after_read = clear_after_read
        self._infer_shape = bool(infer_shape)
        self._name = name
        self._spec = _shape_spec(element_shape)
        self._size = _size_value(0 if size is None else size)
        self._buffer = None
        self._provisional = False
        if self._spec is not None and None not in self._spec:
            self._buffer = _zeros(self._size, self._dtype, self._spec)

    # ------------------------------------------------------------------ properties
    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic

    @property
    def element_shape(self):
        """The elements' shape as a tuple (``None`` for an unknown dim), or ``None`` while
        it is unknown."""
        if self._buffer is None:
            return self._spec
        dims = tuple(_shape_of(self._buffer)[1:])
        return tuple(None if d == 0 else d for d in dims) if self._provisional else dims

    def size(self) -> Tensor:
        """The number of elements (an int64 scalar tensor)."""
        return self._size if isinstance(self._size, Tensor) else _eager(self._size)

    def __repr__(self):
        return (f"<gc.TensorArray dtype={self._dtype.name} element_shape="
                f"{self.element_shape} dynamic_size={self._dynamic}>")

    # ------------------------------------------------------------------ writes
    def write(self, index, value) -> "TensorArray":
        """The array with ``value`` at ``index`` (grown first if ``dynamic_size``)."""
        value = self._value(value, "write")
        self._check_elements(_shape_of(value), "write")
        return self._write("one", index, value, _shape_of(value))

    def scatter(self, indices, value) -> "TensorArray":
        """The array with ``value[r]`` at ``indices[r]`` for each row ``r``."""
        value = self._value(value, "scatter")
        shape = _rows_shape(value, "scatter")
        self._check_elements(shape[1:], "scatter")
        if not isinstance(indices, Tensor):
            indices = np.asarray(indices, dtype=_INT64)
        return self._write("many", indices, value, shape[1:])

    def unstack(self, value) -> "TensorArray":
        """The array with row ``r`` of ``value`` at index ``r`` for each row."""
        value = self._value(value, "unstack")
        shape = _rows_shape(value, "unstack")
        self._check_elements(shape[1:], "unstack")
        return self._write("block", np.asarray(0, _INT64), value, shape[1:])

    def _write(self, mode, index, value, elem):
        ta = self if self._buffer is not None else self.shaped(elem)
        buffer, size = bind(ops.WRITE, ta._buffer, ta._size, index, value, mode=mode,
                            dynamic=self._dynamic, provisional=ta._provisional)
        return ta._replace(buffer, size)

    # ------------------------------------------------------------------ reads
    def read(self, index) -> Tensor:
        """The element at ``index`` (zeros if it was never written)."""
        return bind(ops.READ, self._known("read"), self._size, index)

    def gather(self, indices) -> Tensor:
        """The elements at ``indices``, stacked."""
        if not isinstance(indices, Tensor):
            indices = np.asarray(indices, dtype=_INT64)
        return bind(ops.READ, self._known("gather"), self._size, indices)

    def stack(self) -> Tensor:
        """All elements stacked: shape ``(size, *element_shape)``."""
        buffer = self._known("stack")
        if not self._dynamic:  # a fixed-size array's buffer is exactly its elements
            return buffer if isinstance(buffer, Tensor) else _eager(buffer)
        return bind(ops.STACK, buffer, self._size)

    def concat(self) -> Tensor:
        """All elements joined along their first dim: ``(size * d0, *rest)``."""
        return bind(ops.STACK, self._known("concat"), self._size, concat=True)

    # ------------------------------------------------------------------ helpers
    def shaped(self, element_shape) -> "TensorArray":
        """This (still empty) array with a buffer for elements of ``element_shape``;
        unknown dims are held as 0 until the first write gives them."""
        elem = tuple(element_shape)
        ta = self._replace(_zeros(self._size, self._dtype,
                                  tuple(0 if d is None else d for d in elem)), self._size)
        ta._provisional = None in elem
        return ta

    def _replace(self, buffer, size) -> "TensorArray":
        ta = object.__new__(TensorArray)
        ta.__dict__.update(self.__dict__)
        ta._buffer, ta._size = buffer, size
        return ta

    def _known(self, what):
        if self._buffer is None:
            raise ValueError(
                f"TensorArray.{what}(){source_info.where()}: the element shape is unknown "
                "(nothing was written and no element_shape was given); pass element_shape= "
                "to gc.TensorArray or write an element first")
        return self._buffer

    def _value(self, value, what):
        if weak.is_weak(value) and value.dtype != self._dtype and np.can_cast(
                value.dtype, self._dtype, "same_kind"):
            # a traced Python number (a loop counter from ``i = 0``) takes the array's dtype
            return cast(value, self._dtype)
        if isinstance(value, Tensor) or isinstance(value, np.ndarray):
            if value.dtype != self._dtype:
                raise TypeError(
                    f"TensorArray.{what}{source_info.where()}: the array holds "
                    f"{self._dtype.name} but the value is {value.dtype.name}; cast it with "
                    f"gc.cast(value, gc.{self._dtype.name})")
            return value
        arr = np.asarray(value)
        if arr.dtype.kind not in "biufc" or not np.can_cast(arr.dtype, self._dtype,
                                                             "same_kind"):
            raise TypeError(
                f"TensorArray.{what}{source_info.where()}: cannot store {value!r:.60} "
                f"(a {arr.dtype.name} value) in an array of {self._dtype.name}")
        return arr.astype(self._dtype)

    def _check_elements(self, shape, what):
        known = self.element_shape
        if shape is None:
            raise ValueError(f"TensorArray.{what}{source_info.where()}: the value must "
                             "have a known rank")
        if known is None:
            return
        if len(known) != len(shape) or any(a is not None and b is not None and a != b
                                            for a, b in zip(known, shape)):
            raise ValueError(
                f"TensorArray.{what}{source_info.where()}: the array holds elements of "
                f"shape {_text(known)} but the value has elements of shape {_text(shape)}; "
                "every element of a TensorArray has the same shape")


def _text(shape) -> str:
    return ops._shape_text(tuple(shape))


def _shape_of(x):
    return tuple(x.shape) if x.shape is not None else None


def _rows_shape(value, what):
    shape = _shape_of(value)
    if shape is not None and len(shape) == 0:
        raise ValueError(f"TensorArray.{what}{source_info.where()}: the value needs a "
                         "leading dim (one row per element), got a scalar")
    return shape


def _shape_spec(element_shape):
    if element_shape is None:
        return None
    if isinstance(element_shape, int):
        element_shape = (element_shape,)
    return tuple(None if d is None or d == -1 else int(d) for d in element_shape)


def _size_value(size):
    """The size as an int64 0-d array (Python / eager) or an int64 scalar tensor."""
    if isinstance(size, Tensor) and size._np is None:
        if size.shape != () or size.dtype.kind not in "iu":
            raise TypeError(f"the size of a TensorArray must be an integer scalar, got "
                            f"{size.aval}{source_info.where()}")
        if size.dtype != _INT64:
            size = cast(size, _INT64)
        return size
    arr = np.asarray(size)
    if arr.shape != () or arr.dtype.kind not in "iu" or int(arr) < 0:
        raise ValueError(f"the size of a TensorArray must be an integer >= 0, got "
                         f"{size!r}{source_info.where()}")
    return arr.astype(_INT64)


def _zeros(size, dtype, elem):
    static = int(size) if not (isinstance(size, Tensor) and size._np is None) else None
    return bind(ops.ZEROS, size, dtype=dtype, element_shape=tuple(elem),
                static_capacity=static)


# ------------------------------------------------------------------ nest registration
def _children(ta):
    leaves = [ta._size] if ta._buffer is None else [ta._buffer, ta._size]
    aux = (ta._dtype, ta._dynamic, ta._infer_shape, ta._clear_after_read, ta._name,
           ta._spec, ta._provisional, ta._buffer is not None)
    return leaves, aux


def _from_children(aux, children):
    ta = object.__new__(TensorArray)
    (ta._dtype, ta._dynamic, ta._infer_shape, ta._clear_after_read, ta._name, ta._spec,
     ta._provisional, has_buffer) = aux
    ta._buffer, ta._size = (children[0], children[1]) if has_buffer else (None, children[0])
    return ta


nest.register(TensorArray, _children, _from_children)


def unshaped_to_shaped(before, after):
    """For staging: ``before`` (a TensorArray without a buffer) with a buffer for the
    elements ``after`` (the same array once a branch or loop body wrote it) holds, or
    ``None`` when the two are not that pair."""
    if not (isinstance(before, TensorArray) and isinstance(after, TensorArray)):
        return None
    if before._buffer is not None or after._buffer is None:
        return None
    return lambda: before.shaped(after.element_shape)


def shape_branch_results(ctxs, results):
    """A ``gc.TensorArray`` (a result, or an item of tuple results) that one branch gave
    its first element and another left without one gets a buffer in the other too."""
    tuples = all(type(r) is tuple for r in results) and len({len(r) for r in results}) == 1
    rows = [list(r) if tuples else [r] for r in results]
    for j in range(len(rows[0])):
        for k, ctx in enumerate(ctxs):
            for other in rows:
                make = unshaped_to_shaped(rows[k][j], other[j])
                if make is not None:
                    with ctx:
                        rows[k][j] = make()
                    break
    return [tuple(r) if tuples else r[0] for r in rows]
