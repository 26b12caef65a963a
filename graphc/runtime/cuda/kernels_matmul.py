"""``matmul`` and ``dot`` as a tiled shared-memory CUDA kernel; ``tensordot``, ``inner`` and
``vdot`` as that kernel after moving the contracted axes with affine copies.

Each block computes a ``T x T`` tile of one matrix of the (broadcast) batch: for every
``T``-wide slice of the contraction dimension its threads load one element of each
operand into shared memory, synchronize, and accumulate ``T`` products from the tiles,
so each operand element is read from global memory ``N / T`` (or ``M / T``) times
instead of ``N`` times. Batches are the grid's z dimension (grid-stride); a batch
dimension of 1, or a missing one, is read with stride 0 (NumPy's broadcasting). A 1-D
operand is a matrix with one row (left) or one column (right) whose dimension is dropped
from the result, as in NumPy. Operands are cast to the result dtype on load and every
partial sum is cast back to it, so integer products wrap exactly as NumPy's loops do.
"""

from __future__ import annotations

import math

from graphc.ir.graph import Aval
from graphc.runtime.cuda.kernels_shape import copy
from graphc.runtime.cuda.lowering import DVal, emitter, numba_type, settings, strides
from graphc.runtime.scalar_templates import Unsupported, cast, literal

TILE = 16
MAX_Z = 65535  # CUDA's limit on gridDim.z


def _batch_offset(batch_shape, out_batch, mat_size) -> str:
    """The flat offset of matrix ``z`` of an operand with ``batch_shape`` in the result's
    batch ``out_batch`` (broadcast dims read with stride 0)."""
    if not batch_shape or math.prod(batch_shape) == 1:
        return "0"
    if tuple(batch_shape) == tuple(out_batch):
        return f"z * {mat_size}"
    off = len(out_batch) - len(batch_shape)
    st = strides(batch_shape)
    terms = []
    for d, n in enumerate(batch_shape):
        if n == 1:
            continue
        inner = math.prod(out_batch[d + off + 1:])
        c = "z" if inner == 1 else f"(z // {inner})"
        if d + off > 0:
            c = f"({c} % {out_batch[d + off]})"
        terms.append(f"{c} * {st[d] * mat_size}")
    return " + ".join(terms)


@emitter("matmul", "dot")
def _matmul(g, node, ins, outs):
    a, b = ins
    if not a.shape or not b.shape:
        raise Unsupported("a 0-d operand (that is an elementwise multiply)")
    if node.op.name == "dot" and (len(a.shape) > 2 or len(b.shape) > 2):
        raise Unsupported("dot of N-d arrays (not a matmul)")
    return [matmul_into(g, a, b, node.outputs[0].aval, outs[0])]


def matmul_into(g, a, b, out, name):
    """Emit ``name = a @ b`` (NumPy's matmul shapes) into a new array of ``out``."""
    if out.dtype.kind not in "iuf":
        raise Unsupported(f"matmul with a {out.dtype} result")
    m, k = (1, a.shape[0]) if len(a.shape) == 1 else a.shape[-2:]
    k2, n = (b.shape[0], 1) if len(b.shape) == 1 else b.shape[-2:]
    if k != k2:
        raise Unsupported(f"contraction sizes differ ({k} and {k2})")
    a_batch, b_batch = a.shape[:-2], b.shape[:-2]
    batch = tuple(out.shape[:len(out.shape) - (len(a.shape) > 1) - (len(b.shape) > 1)])
    nbatch = math.prod(batch)
    t = min(TILE, 1 << max(0, (max(m, n) - 1).bit_length()))
    dt, zero = out.dtype, literal(0, out.dtype)
    body = [
        f"sa = cuda.shared.array(({t}, {t}), numba.{numba_type(dt)})",
        f"sb = cuda.shared.array(({t}, {t}), numba.{numba_type(dt)})",
        "tx = cuda.threadIdx.x", "ty = cuda.threadIdx.y",
        f"row = cuda.blockIdx.y * {t} + ty", f"col = cuda.blockIdx.x * {t} + tx",
        "z = cuda.blockIdx.z", f"while z < {nbatch}:",
        f"    ao = {_batch_offset(a_batch, batch, m * k)}",
        f"    bo = {_batch_offset(b_batch, batch, k * n)}",
        f"    acc = {zero}",
        f"    for t0 in range(0, {k}, {t}):",
        "        kk = t0 + tx",
        f"        if row < {m} and kk < {k}:",
        f"            sa[ty, tx] = {cast(f'a0[ao + row * {k} + kk]', dt)}",
        "        else:", f"            sa[ty, tx] = {zero}",
        "        kk = t0 + ty",
        f"        if kk < {k} and col < {n}:",
        f"            sb[ty, tx] = {cast(f'a1[bo + kk * {n} + col]', dt)}",
        "        else:", f"            sb[ty, tx] = {zero}",
        "        cuda.syncthreads()",
        f"        for j in range({t}):",
        f"            acc = {cast('acc + sa[ty, j] * sb[j, tx]', dt)}",
        "        cuda.syncthreads()",
        f"    if row < {m} and col < {n}:",
        f"        o0[z * {m * n} + row * {n} + col] = acc",
        "    z += cuda.gridDim.z",
    ]
    val = g.alloc(name, out)
    if nbatch * m * n:
        grid = (-(-n // t), -(-m // t), min(nbatch, MAX_Z, settings.max_grid))
        kname = g.kernel(["a0", "a1", "o0"], [a.aval.dtype, b.aval.dtype, dt], body, grid,
                         (t, t))
        g.line(f"{kname}({a.name}, {b.name}, {name})")
    elif math.prod(out.shape):  # k == 0: zeros
        g.line(f"{name}[:] = 0")
    return val


# ----------------------------------------------------------------------- contractions
def _moved(g, x, perm, shape2):
    """``x`` transposed by ``perm`` (an affine copy unless ``perm`` is the identity) and
    viewed as the 2-D ``shape2``."""
    if list(perm) != sorted(perm) and x.size > 1:
        st = strides(x.shape)
        name = g.tmp("t")
        g.alloc(name, Aval(tuple(x.shape[p] for p in perm), x.aval.dtype))
        copy(g, x, name, [x.shape[p] for p in perm], 0, [st[p] for p in perm])
        return DVal(name, Aval(shape2, x.aval.dtype))
    return DVal(x.name, Aval(shape2, x.aval.dtype), x.lit)


def contract(g, a, b, a_axes, b_axes, out, name):
    """``tensordot(a, b, (a_axes, b_axes))`` as one matmul: ``a``'s free axes then its
    contracted ones, ``b``'s contracted axes then its free ones, each moved by an affine
    copy when needed, then the tiled kernel on the ``(M, K) @ (K, N)`` views."""
    a_free = [d for d in range(len(a.shape)) if d not in a_axes]
    b_free = [d for d in range(len(b.shape)) if d not in b_axes]
    m = math.prod(a.shape[d] for d in a_free)
    k = math.prod(a.shape[d] for d in a_axes)
    n = math.prod(b.shape[d] for d in b_free)
    a2 = _moved(g, a, a_free + list(a_axes), (m, k))
    b2 = _moved(g, b, list(b_axes) + b_free, (k, n))
    matmul_into(g, a2, b2, Aval((m, n), out.dtype), name)
    return DVal(name, out)


@emitter("tensordot")
def _tensordot(g, node, ins, outs):
    a, b = ins
    axes = node.attrs.get("axes", 2)
    if isinstance(axes, int):
        a_axes = list(range(len(a.shape) - axes, len(a.shape)))
        b_axes = list(range(axes))
    else:
        a_axes = [d % len(a.shape) for d in axes[0]]
        b_axes = [d % len(b.shape) for d in axes[1]]
    return [contract(g, a, b, a_axes, b_axes, node.outputs[0].aval, outs[0])]


@emitter("inner", "vdot")
def _inner(g, node, ins, outs):
    a, b = ins
    if not a.shape or not b.shape:
        raise Unsupported("a 0-d operand (that is an elementwise multiply)")
    if node.op.name == "vdot":  # both flattened (real dtypes: no conjugate)
        a = DVal(a.name, Aval((a.size,), a.aval.dtype), a.lit)
        b = DVal(b.name, Aval((b.size,), b.aval.dtype), b.lit)
    return [contract(g, a, b, [len(a.shape) - 1], [len(b.shape) - 1],
                     node.outputs[0].aval, outs[0])]
