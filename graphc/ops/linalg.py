"""Linear algebra: matmul (batched, broadcasting), dot, vdot, inner, outer, tensordot,
einsum, trace.
"""

from __future__ import annotations

import numpy as np

from graphc.ops import blocks
from graphc.core.attr_types import INT, INT_OR_INTS, STR, one_of, tuple_of
from graphc.core.registry import ALL, OpDef, bind, register
from graphc.core.shapes import broadcast_shapes, probe_infer
from graphc.ir.graph import Aval


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


MATMUL = register(OpDef(name="matmul", attrs={}, infer=_matmul_infer, ref=np.matmul, weak=ALL,
                        doc="np.matmul (BLAS for floats)"))


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


DOT = register(OpDef(name="dot", attrs={}, infer=_dot_infer, ref=_dot_ref, weak=ALL, doc="np.dot"))


def _vdot_infer(a, b):
    return Aval((), np.result_type(a.dtype, b.dtype))


VDOT = register(OpDef(name="vdot", attrs={}, infer=_vdot_infer, ref=np.vdot, doc="np.vdot"))


def _probe_op(name, ref, doc, attrs):
    return register(OpDef(name=name, infer=lambda *avals, **attrs: probe_infer(ref, avals,
                                                                               attrs),
                          ref=ref, doc=doc, attrs=attrs))


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
        from graphc.core.shapes import broadcast_shapes as _bcast

        shape.insert(1, list(_bcast(*ellipses)) if ellipses else [])
    return Aval(tuple(d for part in shape for d in part), dtype)


INNER = register(OpDef(name="inner", attrs={}, infer=_inner_infer, ref=_inner_ref, doc="np.inner"))
OUTER = _probe_op("outer", _outer_ref, "np.outer", {})
TENSORDOT = register(OpDef(name="tensordot",
                           attrs={"axes": one_of(INT, tuple_of(INT_OR_INTS, 2))},
                           infer=_tensordot_infer, ref=_tensordot_ref,
                           doc="np.tensordot"))
EINSUM = register(OpDef(name="einsum",
                        attrs={"subscripts": STR},
                        infer=_einsum_infer, ref=_einsum_ref,
                        doc="np.einsum"))
TRACE = _probe_op("trace", _trace_ref, "np.trace", {"offset": INT, "axis1": INT, "axis2": INT})


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


# --------------------------------------------------------------------------- gradients
# (see the rule contract in graphc/ops/elementwise.py's gradients section)
def _matmul_grad(cts, args, outs, **_):
    """1-D operands act as a row (left) or a column (right); batch dims the operands
    broadcast are summed back by the walk."""
    from graphc import numpy as gnp
    from graphc.ops.elementwise import _want

    x, y = args
    g = cts[0]
    x_vec, y_vec = len(x.shape) == 1, len(y.shape) == 1
    X = gnp.expand_dims(x, 0) if x_vec else x
    Y = gnp.expand_dims(y, -1) if y_vec else y
    if x_vec:
        g = gnp.expand_dims(g, -2 if not y_vec else 0)
    if y_vec:
        g = gnp.expand_dims(g, -1)
    gx = gy = None
    if _want(x):
        gx = gnp.matmul(g, gnp.swapaxes(Y, -1, -2))
        if x_vec:
            gx = gnp.squeeze(gx, -2)
    if _want(y):
        gy = gnp.matmul(gnp.swapaxes(X, -1, -2), g)
        if y_vec:
            gy = gnp.squeeze(gy, -1)
    return gx, gy


def _dot_grad(cts, args, outs, **_):
    x, y = args
    if x.shape == () or y.shape == ():  # a scalar times an array
        from graphc.ops.elementwise import MULTIPLY

        return MULTIPLY.grad(cts, args, outs)
    if len(y.shape) <= 2:
        return _matmul_grad(cts, args, outs)
    return linalg_grad.dot_nd_grad(cts, args, outs)


from graphc.ops import linalg_grad  # noqa: E402  (the rules below; it imports this lazily)

MATMUL.grad = _matmul_grad
DOT.grad = _dot_grad
EINSUM.grad = linalg_grad.einsum_grad
TENSORDOT.grad = linalg_grad.tensordot_grad
INNER.grad = linalg_grad.inner_grad
OUTER.grad = linalg_grad.outer_grad
VDOT.grad = linalg_grad.vdot_grad
TRACE.grad = linalg_grad.trace_grad


# --------------------------------------------------------------------------- batching
# ``batch(args, dims)`` (gc.vectorized_map): matmul of batched operands is a batched
# matmul. A 1-D operand becomes a matrix (a row for the left, a column for the right)
# and that axis is squeezed from the result; each batched operand gets its batch axis at
# 0 and ones after it up to the result's batch rank, so NumPy's matmul broadcasting pairs
# example k of one with example k of the other.
def _matmul_batch(args, dims):
    from graphc.ops import batch_util as bu

    ranks = [bu.example_rank(a, d) for a, d in zip(args, dims)]
    if None in ranks or 0 in ranks:
        return NotImplemented
    (a, b), (da, db) = args, dims
    a, b = bu.to_front(a, da), bu.to_front(b, db)
    da, db = (None if d is None else 0 for d in dims)
    squeeze = []
    if ranks[0] == 1:
        a, ranks[0] = bu.bind_expand(a, -2), 2
        squeeze.append(-2)
    if ranks[1] == 1:
        b, ranks[1] = bu.bind_expand(b, -1), 2
        squeeze.append(-1)
    widest = max(ranks)
    operands = []
    for x, d, k in ((a, da, ranks[0]), (b, db, ranks[1])):
        if d is not None and k < widest:
            x = bu.bind_expand(x, *range(1, 1 + widest - k))
        operands.append(x)
    out = bind(MATMUL, *operands)
    if squeeze:
        from graphc.ops.shape import SQUEEZE

        out = bind(SQUEEZE, out, axis=tuple(squeeze) if len(squeeze) > 1 else squeeze[0])
    return out, 0


MATMUL.batch = _matmul_batch
MATMUL.blocks = blocks.MATMUL  # graphc.dask: blockwise while the contracted dim is whole

# dot, inner, outer, tensordot, einsum: one einsum with a batch label
# (graphc/ops/linalg_batch.py).
from graphc.ops import linalg_batch as _lb  # noqa: E402

DOT.batch, INNER.batch, OUTER.batch = _lb.dot, _lb.inner, _lb.outer
TENSORDOT.batch, EINSUM.batch = _lb.tensordot, _lb.einsum
