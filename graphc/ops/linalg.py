"""Linear algebra: matmul (batched, broadcasting), dot, vdot, inner, outer, tensordot,
einsum, trace.
"""

from __future__ import annotations

import numpy as np

from graphc.ops.registry import ALL, OpDef, bind, register
from graphc.ops.shapes import broadcast_shapes, probe_infer
from graphc.tracer.ir import Aval


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


MATMUL = register(OpDef(name="matmul", infer=_matmul_infer, ref=np.matmul, weak=ALL,
                        doc="np.matmul (BLAS for floats)"))


def _dot_ref(a, b):
    return np.dot(a, b)


def _dot_infer(a, b):
    if not a.shape or not b.shape:
        return Aval(broadcast_shapes(a.shape, b.shape), np.result_type(a.dtype, b.dtype))
    if len(b.shape) <= 2:
        return _matmul_infer(a, b)
    return probe_infer(_dot_ref, [a, b], {})


DOT = register(OpDef(name="dot", infer=_dot_infer, ref=_dot_ref, weak=ALL, doc="np.dot"))


def _vdot_infer(a, b):
    return Aval((), np.result_type(a.dtype, b.dtype))


VDOT = register(OpDef(name="vdot", infer=_vdot_infer, ref=np.vdot, doc="np.vdot"))


def _probe_op(name, ref, doc):
    return register(OpDef(name=name, infer=lambda *avals, **attrs: probe_infer(ref, avals,
                                                                               attrs),
                          ref=ref, doc=doc))


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


INNER = _probe_op("inner", _inner_ref, "np.inner")
OUTER = _probe_op("outer", _outer_ref, "np.outer")
TENSORDOT = _probe_op("tensordot", _tensordot_ref, "np.tensordot")
EINSUM = _probe_op("einsum", _einsum_ref, "np.einsum")
TRACE = _probe_op("trace", _trace_ref, "np.trace")


# ----------------------------------------------------------------------------- API
def matmul(a, b):
    """``np.matmul`` / ``a @ b`` (also ``tf.matmul``)."""
    return bind(MATMUL, a, b)


def tf_matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """``tf.matmul`` with its ``transpose_a``/``transpose_b`` flags."""
    from graphc.ops.shape import swapaxes
    from graphc.tf_api import _tf_args

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
