"""Linear algebra: matmul (batched, broadcasting), dot, vdot, inner, outer, tensordot,
einsum, trace. The gradient rules are attached by ``linalg_grad.py``, the batching rules
by ``linalg_batch.py``.
"""

from __future__ import annotations

import numpy as np

from graphc.core.attr_types import INT, INT_OR_INTS, STR, one_of, tuple_of
from graphc.core.registry import ALL, OpDef, bind, register
from graphc.core.shapes import broadcast_shapes, probe_infer
from graphc.ir.graph import Aval
from graphc.ops import blocks
from graphc.ops.shape import swapaxes
from graphc.ops.tf_elementwise import _tf_args


def _matmul_dtype(a, b):
    try:
        return np.matmul.resolve_dtypes((a.dtype, b.dtype, None))[2]
    except TypeError:
        raise TypeError(f"matmul is not defined for dtypes {a.dtype} and {b.dtype}") from None


def _matmul_infer(a, b):
    sa, sb = a.shape, b.shape
    if not sa or not sb:
        raise ValueError("matmul: inputs must have at least 1 dimension (use multiply for "
                         "scalars)")
    xa = (1,) + sa if len(sa) == 1 else sa
    xb = sb + (1,) if len(sb) == 1 else sb
    k1, k2 = xa[-1], xb[-2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"matmul: inner dimensions differ: {sa} @ {sb} ({k1} != {k2})")
    batch = broadcast_shapes(xa[:-2], xb[:-2])
    out = batch + (xa[-2], xb[-1])
    if len(sa) == 1:
        out = out[:-2] + out[-1:]
    if len(sb) == 1:
        out = out[:-1]
    return Aval(out, _matmul_dtype(a, b))


MATMUL = register(OpDef(name="matmul", attrs={}, infer=_matmul_infer, ref=np.matmul, weak=ALL))


def _dot_ref(a, b):
    return np.dot(a, b)


def _dot_infer(a, b):
    if not a.shape or not b.shape:
        return Aval(broadcast_shapes(a.shape, b.shape), np.result_type(a.dtype, b.dtype))
    if len(b.shape) <= 2:
        return _matmul_infer(a, b)
    # a's last dim against b's second-to-last, unified (a probe could not match an
    # unknown dim to a known one)
    dtype = _ones_probe(_dot_ref, [a, b]).dtype
    _unify([a.shape[-1], b.shape[-2]], "dot: shapes not aligned")
    return Aval(a.shape[:-1] + b.shape[:-2] + b.shape[-1:], dtype)


DOT = register(OpDef(name="dot", attrs={}, infer=_dot_infer, ref=_dot_ref, weak=ALL))


def _vdot_infer(a, b):
    return Aval((), np.result_type(a.dtype, b.dtype))


VDOT = register(OpDef(name="vdot", attrs={}, infer=_vdot_infer, ref=np.vdot))


def _probe_op(name, ref, attrs):
    return register(OpDef(name=name, infer=lambda *avals, **attrs: probe_infer(ref, avals,
                                                                               attrs),
                          ref=ref, attrs=attrs))


def _inner_ref(a, b):
    return np.inner(a, b)


def _outer_ref(a, b):
    return np.outer(a, b)


def _tensordot_ref(a, b, axes=2):
    return np.tensordot(a, b, axes)


def _einsum_ref(*operands, subscripts):
    return np.einsum(subscripts, *operands)


def _trace_ref(x, offset=0, axis1=0, axis2=1):
    return np.trace(x, offset=offset, axis1=axis1, axis2=axis2)


# inner, tensordot and einsum contract dims against each other, so their inference cannot
# probe an unknown dim at an arbitrary size (f64[?] . f64[3] must take the ? as 3): they
# unify the sizes themselves, and probe NumPy on all-1 stand-ins (which every contraction
# accepts) for the dtype and for argument errors.
def _ones_probe(ref, avals, **attrs):
    out = ref(*[np.zeros((1,) * len(a.shape), a.dtype) for a in avals], **attrs)
    return np.asarray(out)


def _unify(dims, what, broadcast=False):
    """One size for dims that must agree (``None``: unknown; ``broadcast``: 1 stretches)."""
    known = {d for d in dims if d is not None and not (broadcast and d == 1)}
    if len(known) > 1:
        raise ValueError(f"{what}: sizes {sorted(known)} do not match")
    if known:
        return known.pop()
    return None if None in dims else (1 if dims else None)


def _inner_infer(a, b):
    dtype = _ones_probe(_inner_ref, [a, b]).dtype
    if not a.shape or not b.shape:  # a scalar multiplies
        return Aval(a.shape or b.shape, dtype)
    _unify([a.shape[-1], b.shape[-1]], "inner: the last dims of both operands")
    return Aval(a.shape[:-1] + b.shape[:-1], dtype)


def _tensordot_infer(a, b, axes=2):
    dtype = _ones_probe(_tensordot_ref, [a, b], axes=axes).dtype  # checks the axes too
    if isinstance(axes, int):  # NumPy's reading of the axes, as in np.tensordot
        axes_a, axes_b = list(range(-axes, 0)), list(range(axes))
    else:
        axes_a, axes_b = (list(x) if isinstance(x, tuple | list) else [x] for x in axes)
    na, nb = len(a.shape), len(b.shape)
    axes_a = [x % na if na else x for x in axes_a]
    axes_b = [x % nb if nb else x for x in axes_b]
    for i, j in zip(axes_a, axes_b):
        _unify([a.shape[i], b.shape[j]], f"tensordot: shape-mismatch for sum (axes {i}, {j})")
    out = [d for k, d in enumerate(a.shape) if k not in axes_a]
    out += [d for k, d in enumerate(b.shape) if k not in axes_b]
    return Aval(tuple(out), dtype)


def _einsum_infer(*avals, subscripts):
    if any(a.shape is None for a in avals):
        return Aval(None, np.result_type(*[a.dtype for a in avals]))
    dtype = _ones_probe(_einsum_ref, avals, subscripts=subscripts).dtype  # checks the spec
    spec = subscripts.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    sizes: dict[str, list] = {}
    ellipses = []
    for term, a in zip(ins.split(","), avals):
        shape = a.shape
        if "..." in term:
            pre, post = term.split("...")
            n = len(shape) - len(pre) - len(post)
            ellipses.append(shape[len(pre):len(pre) + n])
            labels, dims = pre + post, shape[:len(pre)] + shape[len(pre) + n:]
        else:
            labels, dims = term, shape
        own: dict[str, list] = {}
        for label, d in zip(labels, dims):
            own.setdefault(label, []).append(d)
        for label, ds in own.items():  # a label repeated in one operand: a diagonal
            sizes.setdefault(label, []).append(
                _unify(ds, f"einsum: label {label!r} within one operand"))
    if not arrow:  # implicit output: the labels used once, in order, after any '...'
        counts = ins.replace("...", "").replace(",", "")
        out = ("..." if "..." in ins else "") + "".join(
            sorted(c for c in set(counts) if counts.count(c) == 1))
    for label, ds in sizes.items():
        sizes[label] = _unify(ds, f"einsum: label {label!r}", broadcast=True)
    shape = []
    for part in out.split("...") if "..." in out else [out]:
        shape.append([sizes[c] for c in part])
    if "..." in out:
        shape.insert(1, list(broadcast_shapes(*ellipses)) if ellipses else [])
    return Aval(tuple(d for part in shape for d in part), dtype)


INNER = register(OpDef(name="inner", attrs={}, infer=_inner_infer, ref=_inner_ref))
OUTER = _probe_op("outer", _outer_ref, {})
TENSORDOT = register(OpDef(name="tensordot",
                           attrs={"axes": one_of(INT, tuple_of(INT_OR_INTS, 2))},
                           infer=_tensordot_infer, ref=_tensordot_ref))
EINSUM = register(OpDef(name="einsum",
                        attrs={"subscripts": STR},
                        infer=_einsum_infer, ref=_einsum_ref))
TRACE = _probe_op("trace", _trace_ref, {"offset": INT, "axis1": INT, "axis2": INT})


# ----------------------------------------------------------------------------- API
def matmul(a, b):
    """``np.matmul`` / ``a @ b`` (also ``tf.matmul``)."""
    return bind(MATMUL, a, b)


def tf_matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """``tf.matmul`` with its ``transpose_a``/``transpose_b`` flags."""
    a, b = _tf_args(a, b)  # TensorFlow literal dtypes: [[1.]] is float32
    if transpose_a:
        a = swapaxes(a, -1, -2)
    if transpose_b:
        b = swapaxes(b, -1, -2)
    return bind(MATMUL, a, b)


def dot(a, b):
    """``np.dot``."""
    return bind(DOT, a, b)


def vdot(a, b):
    """``np.vdot``: dot product of the flattened inputs."""
    return bind(VDOT, a, b)


def inner(a, b):
    """``np.inner``."""
    return bind(INNER, a, b)


def outer(a, b):
    """``np.outer``."""
    return bind(OUTER, a, b)


def tensordot(a, b, axes=2):
    """``np.tensordot``."""
    if not isinstance(axes, int):
        axes = tuple(tuple(x) if isinstance(x, list | tuple) else x for x in axes)
    return bind(TENSORDOT, a, b, axes=axes)


def einsum(subscripts, *operands):
    """``np.einsum`` (explicit subscripts string)."""
    if not isinstance(subscripts, str):
        raise TypeError("einsum: the first argument must be the subscripts string, "
                        "e.g. gnp.einsum('ij,jk->ik', a, b)")
    return bind(EINSUM, *operands, subscripts=subscripts)


def trace(a, offset=0, axis1=0, axis2=1):
    """``np.trace``: sum along a diagonal."""
    return bind(TRACE, a, offset=offset, axis1=axis1, axis2=axis2)


MATMUL.blocks = blocks.MATMUL  # graphc.dask: blockwise while the contracted dim is whole
# gradients: graphc/ops/linalg_grad.py; batching: graphc/ops/linalg_batch.py
