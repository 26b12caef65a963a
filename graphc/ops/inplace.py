"""In-place updates with NumPy's meaning: ``t op= u``, ``t.sort()``, ``t.fill(v)``, and
the checks every write makes (``t[key] = v`` itself is ``indexing.setitem``).

Eagerly the new value is computed by the same op as ``t op u`` and written into ``t``'s
array (``t[...] = result``), so every NumPy view of that array sees it. While tracing the
write is functionalized: ``t`` is rebound to the result (``graphc.core.mutation``).
Either way the result must fit ``t``: NumPy's ``same_kind`` casting rule for in-place
ufuncs (``int_tensor += 1.5`` raises NumPy's own ``UFuncTypeError``) and no broadcasting
of ``t`` itself. A 0-d tensor stands for a NumPy scalar (what reductions and integer
indexing return in NumPy, where ``s += 1`` rebinds ``s``): ``op=`` on it rebinds too.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core import contexts, hooks, mutation, weak
from graphc.core.device_tensor import DeviceTensor
from graphc.core.registry import bind
from graphc.core.tensor import Tensor, _eager, _operand
from graphc.errors import AliasError, SymbolicTensorError


def check_writable(t, what: str) -> None:
    """Raise where graphc cannot give the write ``what`` into ``t`` NumPy's meaning."""
    if isinstance(t, DeviceTensor):
        raise TypeError(f"{what}: in-place writes into a tensor on {t.device} are not "
                        f"supported yet{source_info.where()}; compute a new tensor instead")
    if t._np is None:
        return
    if contexts.active():
        raise AliasError(
            f"{what}: this tensor was made outside the gc.function being traced (a "
            f"captured tensor){source_info.where()}, and a write into it would happen "
            "once, while tracing, not at each call. Pass it to the function as an "
            "argument: graphc writes an argument's final value back after each call")


def eager_operand(t):
    """The array of an eager tensor used as a written value or an index."""
    if t._np is None:
        raise SymbolicTensorError(
            f"a traced tensor was written into an eager tensor{source_info.where()}; "
            "return the traced value from the gc.function instead")
    return t._np


def assign(t, new) -> None:
    """``t`` (traced) now stands for ``new`` (traced, ``t``'s shape and dtype)."""
    mutation.assign(contexts.current(), t, new)


def fitted(t, result, ufunc: str | None = None, other=None):
    """``result`` (the value of ``t op other``) as ``t op= other`` stores it: NumPy's
    same_kind cast into ``t``'s dtype, ``t``'s shape kept."""
    if result.dtype != t.dtype:
        if not np.can_cast(result.dtype, t.dtype, "same_kind"):
            _numpy_casting_error(t, ufunc, other)
        result = result.astype(t.dtype)
    if result.shape != t.shape and not _compatible(result.shape, t.shape):
        raise ValueError(f"non-broadcastable output operand with shape {t.shape} doesn't "
                         f"match the broadcast shape {result.shape}{source_info.where()}")
    return result


def store(t, result, ufunc: str | None = None, other=None) -> None:
    """Write ``result`` (the value of ``t op other``) into ``t`` as ``t op= other`` would."""
    result = fitted(t, result, ufunc, other)
    write(t, lambda src: result)


def write(t, compute) -> None:
    """Give ``t`` the value ``compute(current)``, ``current`` a tensor holding ``t``'s
    value now. Eagerly the result is written into ``t``'s array; while tracing ``t`` is
    rebound (``core/mutation.py``). Under a recording ``GradientTape`` the tapes first
    name a snapshot where they named ``t`` (its old value) and then name ``t`` for the
    new value, so the tape differentiates through the write."""
    if t._np is None:
        assign(t, compute(t))
    elif hooks.tapes:
        _taped_write(t, compute)
    else:
        t._np[...] = eager_operand(compute(t))


def _taped_write(t, compute) -> None:
    """An eager write while a tape records (see :func:`write`). NumPy writes ``t``'s
    array and with it every array sharing that memory; the tapes learn the same: the
    tensors ``t`` was recorded a view of are rebuilt up to the root by the view ops'
    ``unview`` rules, and every recorded view of the root is taken again from its new
    value. Another recorded tensor sharing the memory makes the tape refuse."""
    root, path, views = hooks.view_family_on_tapes(t)
    family = [root] + [v[0] for v in views]
    if not any(x is t for x in family):
        family.append(t)
    new = compute(t)  # recorded on t and its operands as they are before the write
    old = {id(x): _eager(x._np.copy()) for x in family}
    for x in family:  # the records so far name snapshots of the old values
        hooks.rename_on_tapes(x, old[id(x)], allowed=family)
    t._np[...] = eager_operand(new)  # NumPy's write: the root's and views' arrays too
    value = new
    for _view, base, op, args, attrs in path:  # up: each base around its new view
        value = op.unview(old[id(base)], value, *args, **attrs)
    hooks.rename_on_tapes(value, root)
    for view, base, op, args, attrs in views:  # down: each view from its new base
        hooks.rename_on_tapes(bind(op, base, *args, **attrs), view)


def _compatible(got, want) -> bool:
    return len(got) == len(want) and all(
        a is None or b is None or a == b for a, b in zip(got, want))


def _numpy_casting_error(t, ufunc, other):
    """Raise the error NumPy raises for this in-place op (its own exception type)."""
    probe = other if isinstance(other, int | float | complex | bool) else np.zeros(
        (), np.asarray(other).dtype if not isinstance(other, Tensor) else other.dtype)
    if ufunc is not None:
        out = np.zeros((), t.dtype)
        getattr(np, ufunc)(np.zeros((), t.dtype), probe, out=out, casting="same_kind")
    raise TypeError(f"Cannot cast the result to {t.dtype} with casting rule 'same_kind'"
                    f"{source_info.where()}")


def operator(call, ufunc: str, symbol: str):
    """``Tensor.__i<op>__``: ``t op= other`` through ``call`` (the op of ``t op other``)."""

    def method(self, other):
        if type(other) is not Tensor and not _operand(other):
            return NotImplemented
        if self.shape == () or self._np is None and weak.is_weak(self):
            # a 0-d tensor stands for a NumPy scalar (what NumPy's reductions and integer
            # indexing return), a weak one for a Python number: both immutable, so
            # += rebinds the name, as in NumPy and Python
            return call(self, other)
        check_writable(self, f"{symbol}=")
        write(self, lambda src: fitted(self, call(src, other), ufunc, other))
        return self

    return method


def sort(t, sorted_fn, axis=-1) -> None:
    """``t.sort(axis)``: ``t`` sorted in place (NumPy's method returns None)."""
    check_writable(t, "t.sort()")
    write(t, lambda src: sorted_fn(src, axis=axis))


def fill(t, value, full_like) -> None:
    """``t.fill(value)``: every element of ``t`` set to ``value`` (cast as NumPy does)."""
    check_writable(t, "t.fill()")
    if t._np is not None and not hooks.tapes:
        t._np.fill(value if not isinstance(value, Tensor) else eager_operand(value))
        return
    write(t, lambda src: full_like(src, value))


def into_out(out, result, ufunc: str, other):
    """``graphc.numpy``'s ``ufunc(..., out=out)``: ``result`` written into ``out`` (a
    tensor, an ndarray, or a 1-tuple of one) as NumPy's same_kind rule casts it;
    ``out`` returned."""
    target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if isinstance(target, Tensor):
        check_writable(target, f"{ufunc}(..., out=t)")
        store(target, result, ufunc, other)
        return out
    if isinstance(target, np.ndarray):
        value = eager_operand(result) if isinstance(result, Tensor) else np.asarray(result)
        np.copyto(target, value, casting="same_kind")
        return out
    raise TypeError(f"{ufunc}: out must be a tensor, an ndarray or a tuple of one, not "
                    f"{type(out).__name__}{source_info.where()}")


def ufunc_out(ufunc, method, inputs, kwargs, gnp):
    """A NumPy ufunc called with ``out=`` and a tensor among its operands or outputs:
    NumPy's result written into each ``out`` (an ndarray, or a tensor's array; a traced
    tensor is rebound to graphc's op of the same name), ``out`` returned as NumPy does."""
    out = kwargs["out"]
    outs = out if isinstance(out, tuple) else (out,)
    traced = [o for o in outs if isinstance(o, Tensor) and o._np is None] or [
        a for a in inputs if isinstance(a, Tensor) and a._np is None]
    if traced:
        fn = getattr(gnp, ufunc.__name__, None)
        rest = {k: v for k, v in kwargs.items() if k != "out"}
        if method != "__call__" or fn is None or rest or len(outs) != 1 or not isinstance(
                outs[0], Tensor):
            raise TypeError(f"np.{ufunc.__name__}(..., out=...) on traced tensors is "
                            f"supported for a single tensor out= and no other options"
                            f"{source_info.where()}")
        check_writable(outs[0], f"np.{ufunc.__name__}(..., out=t)")
        store(outs[0], fn(*inputs), ufunc.__name__, inputs[-1])
        return outs[0]
    for o in outs:
        if isinstance(o, Tensor):
            check_writable(o, f"np.{ufunc.__name__}(..., out=t)")
    arrays = [eager_operand(a) if isinstance(a, Tensor) else a for a in inputs]
    kwargs = dict(kwargs, out=tuple(eager_operand(o) if isinstance(o, Tensor) else o
                                    for o in outs))
    getattr(ufunc, method)(*arrays, **kwargs)
    return outs[0] if len(outs) == 1 else outs


def set_shape(t, shape) -> None:
    """``t.shape = s``: ``t`` now sees its memory with shape ``s``, as NumPy's in-place
    reshape (``-1`` allowed; NumPy's AttributeError where that would need a copy, which
    eagerly NumPy decides). While tracing, ``t`` is rebound to ``reshape(t, s)``: a
    root with no views, or a view (then a view whose layout graphc does not model:
    reading it works, writing through it raises ``AliasError``, ``core/mutation``)."""
    from graphc.ops.shape import reshape  # the op layer above the in-place methods

    check_writable(t, "t.shape = ...")
    shape = tuple(int(d) for d in shape) if isinstance(shape, tuple | list) else (int(shape),)
    if t._np is None:
        mutation.reshape_in_place(contexts.current(), t, reshape(t, shape))
        return
    arr = t._np.view()
    arr.shape = shape  # NumPy raises when the memory layout needs a copy
    if hooks.tapes:  # the records so far name the old value; t names the reshape
        new = reshape(t, arr.shape)
        hooks.rename_on_tapes(t, _eager(t._np.copy()))
        hooks.rename_on_tapes(new, t)
    t._np = arr
