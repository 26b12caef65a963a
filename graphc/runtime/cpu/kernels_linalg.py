"""Numba emitters (as source) for contractions: einsum, tensordot, inner, vdot, trace;
registered into ``kernels.EMITTERS``.

Agreement with the interpreter (docs/runtime.md):

* integer results are exact (products and sums wrap in the result dtype, any order);
* ``trace`` is the ``sum`` emitter over the gathered diagonal: NumPy's pairwise order,
  exact for 2-D inputs (batched float traces of 8+ elements may differ in the last bits
  when NumPy's iterator walks the diagonal axis outermost);
* float ``tensordot``/``inner``/``vdot`` are ``np.dot`` (BLAS) on the operands cast to
  the result dtype and reshaped as NumPy's own implementations do; SciPy's BLAS (Numba)
  and NumPy's may round differently, so results agree within BLAS rounding (the matmul
  tolerance);
* ``einsum``: a two-operand contraction without batch or single-operand sums
  (``ij,jk->ik``, ``i,i``, ``ij,kj->ki``) is one matrix product as tensordot, or a
  loop of products written into the result (``nchw,oc->nohw``, ``_as_products``); any
  other spec is nested loops accumulating each output element in order, in the result
  dtype. NumPy's einsum uses its own SIMD partial sums (and FMA), so float sums of 2+
  terms agree within a few ULP of the terms' magnitude, not bit for bit. Pure
  transposes/diagonals are exact.

Bool results (NumPy's dot of bools is an OR of ANDs) are counts of true products
compared with 0 (``vdot``/einsum loops: ``np.bool_(acc + a * b)``, the same OR). einsum's
``...`` becomes fresh labels (equal dims; size-1 broadcasting falls back at run time).
"""

from __future__ import annotations

import string

import numpy as np

from graphc.ir.graph import Aval
from graphc.runtime.cpu.kernels import (
    Unsupported,
    Val,
    contiguous,
    emitter,
    np_type,
    permuted,
    shape_expr,
)
from graphc.runtime.cpu.kernels_array import _finish, _sum


def _prod(dims) -> str:
    return " * ".join(f"({d})" for d in dims) if dims else "1"


def _check_eq(g, d1, d2, what):
    g.line(f"if {d1} != {d2}:")
    g.line(f"    raise ValueError('{what}: shapes not aligned')")


def _as_matrix(g, x: Val, perm, rows, cols, T) -> str:
    """``x`` with axes permuted by ``perm``, as a C-contiguous ``(rows, cols)`` matrix
    of dtype ``T`` (NumPy's transpose + reshape in tensordot)."""
    nd = len(x.aval.shape)
    if perm == list(range(nd)):
        src = contiguous(g, x)
    else:
        src = f"{permuted(x.name, perm)}.copy()"
    if x.aval.dtype != np.dtype(T):
        src = f"{src}.astype({np_type(T)})"
    m = g.tmp("mat")
    g.line(f"{m} = {src}.reshape(({rows}, {cols}))")
    return m


def _matmul(g, a2, b2, rows, cols, out_t) -> str:
    """``a2 @ b2`` of C-contiguous matrices (of ``_mat_t(out_t)``) in ``out_t``: BLAS for
    floats, the wraparound loop for ints, an int64 count of true products for bools
    (NumPy's bool dot is an OR of ANDs)."""
    r = g.tmp("mm")
    if out_t.kind == "f":
        g.line(f"{r} = H.dot({a2}, {b2})")
        return r
    g.line(f"{r} = H.int_matmul({a2}, {b2}, np.empty(({rows}, {cols}), "
           f"{np_type(_mat_t(out_t))}))")
    if out_t == np.bool_:
        g.line(f"{r} = {r} != 0")
    return r


def _mat_t(out_t):
    return np.dtype(np.int64) if out_t == np.bool_ else out_t


def _result_type(node):
    out_t = node.outputs[0].aval.dtype
    if out_t.kind not in "biuf":
        raise Unsupported(f"{node.op.name} producing {out_t}")
    return out_t


@emitter("tensordot")
def _tensordot(g, node, ins, outs):
    """np.tensordot: both operands transposed and reshaped to matrices, one matmul."""
    a, b = ins
    aval, out_t = node.outputs[0].aval, _result_type(node)
    axes = node.attrs.get("axes", 2)
    if isinstance(axes, int):
        axes_a, axes_b = list(range(-axes, 0)), list(range(axes))
    else:
        axes_a, axes_b = (list(x) if isinstance(x, tuple | list) else [x] for x in axes)
    na, nb = len(a.aval.shape), len(b.aval.shape)
    if a.scalar or b.scalar:
        raise Unsupported("tensordot of a 0-d operand")
    axes_a = [x % na for x in axes_a]
    axes_b = [x % nb for x in axes_b]
    for i, j in zip(axes_a, axes_b):
        _check_eq(g, a.dim(i), b.dim(j), "tensordot")
    free_a = [i for i in range(na) if i not in axes_a]
    free_b = [i for i in range(nb) if i not in axes_b]
    M = _prod([a.dim(i) for i in free_a])
    K = _prod([a.dim(i) for i in axes_a])
    N = _prod([b.dim(i) for i in free_b])
    a2 = _as_matrix(g, a, free_a + axes_a, M, K, _mat_t(out_t))
    b2 = _as_matrix(g, b, axes_b + free_b, K, N, _mat_t(out_t))
    r = _matmul(g, a2, b2, M, N, out_t)
    dims = [a.dim(i) for i in free_a] + [b.dim(i) for i in free_b]
    return _finish(g, r, aval, dims, outs[0])


def _scale(g, s: Val, x: Val, aval, out_t, o):
    """``s * x`` for a scalar ``s`` (inner with a 0-d operand), in ``out_t``."""
    T = np_type(out_t)
    if x.scalar:
        g.line(f"{o} = {T}({T}({s.name}) * {T}({x.name}))")
        return [Val(o, aval)]
    f, r = g.tmp("f"), g.tmp("r")
    g.line(f"{f} = {contiguous(g, x)}.reshape(-1)")
    g.line(f"{r} = np.empty({f}.shape[0], {T})")
    g.line(f"for _i in range({f}.shape[0]):")
    g.line(f"    {r}[_i] = {T}({T}({s.name}) * {T}({f}[_i]))")
    return _finish(g, r, aval, [x.dim(i) for i in range(len(x.aval.shape))], o)


@emitter("inner")
def _inner(g, node, ins, outs):
    """np.inner: ``a (A, k) @ b (B, k).T`` (a 0-d operand multiplies)."""
    a, b = ins
    aval, out_t = node.outputs[0].aval, _result_type(node)
    if a.scalar:
        return _scale(g, a, b, aval, out_t, outs[0])
    if b.scalar:
        return _scale(g, b, a, aval, out_t, outs[0])
    na, nb = len(a.aval.shape), len(b.aval.shape)
    k = a.dim(na - 1)
    _check_eq(g, k, b.dim(nb - 1), "inner")
    A = _prod([a.dim(i) for i in range(na - 1)])
    B = _prod([b.dim(i) for i in range(nb - 1)])
    a2 = _as_matrix(g, a, list(range(na)), A, k, _mat_t(out_t))
    b2 = _as_matrix(g, b, list(range(nb)), B, k, _mat_t(out_t))
    if out_t.kind == "f":
        r = g.tmp("mm")
        g.line(f"{r} = H.dot({a2}, {b2}.T)")
    else:
        r = _matmul(g, a2, f"{b2}.T.copy()", A, B, out_t)
    dims = [a.dim(i) for i in range(na - 1)] + [b.dim(i) for i in range(nb - 1)]
    return _finish(g, r, aval, dims, outs[0])


@emitter("vdot")
def _vdot(g, node, ins, outs):
    """np.vdot: the dot product of both operands flattened (sizes checked)."""
    aval, out_t = node.outputs[0].aval, _result_type(node)
    T = np_type(out_t)
    flat = []
    for x in ins:
        f = g.tmp("f")
        if x.scalar:
            g.line(f"{f} = np.full(1, {T}({x.name}))")
        else:
            cast = "" if x.aval.dtype == out_t else f".astype({T})"
            g.line(f"{f} = {contiguous(g, x)}.reshape(-1){cast}")
        flat.append(f)
    a, b = flat
    o = outs[0]
    _check_eq(g, f"{a}.shape[0]", f"{b}.shape[0]", "vdot")
    if out_t.kind == "f":
        g.line(f"{o} = {T}(H.dot({a}, {b}))")
    else:
        g.line(f"{o} = {T}(0)")
        g.line(f"for _i in range({a}.shape[0]):")
        g.line(f"    {o} = {T}({o} + {T}({a}[_i] * {b}[_i]))")
    return [Val(o, aval)]


@emitter("trace")
def _trace(g, node, ins, outs):
    """np.trace: the diagonal gathered into a ``(rest, k)`` array, summed per row by
    the ``sum`` emitter (NumPy's pairwise order) in the result dtype."""
    x, aval = ins[0], node.outputs[0].aval
    nd = len(x.aval.shape)
    if nd < 2:
        raise Unsupported("trace of an operand with fewer than 2 dims")
    offset = int(node.attrs.get("offset", 0))
    a1, a2 = node.attrs.get("axis1", 0) % nd, node.attrs.get("axis2", 1) % nd
    rest = [i for i in range(nd) if i not in (a1, a2)]
    R = _prod([x.dim(i) for i in rest])
    m, k, d = g.tmp("m"), g.tmp("k"), g.tmp("diag")
    perm = rest + [a1, a2]
    src = contiguous(g, x) if perm == list(range(nd)) else f"{permuted(x.name, perm)}.copy()"
    g.line(f"{m} = {src}.reshape(({R}, {x.dim(a1)}, {x.dim(a2)}))")
    r0, c0 = max(0, -offset), max(0, offset)
    g.line(f"{k} = max(0, min({m}.shape[1] - {r0}, {m}.shape[2] - {c0}))")
    g.line(f"{d} = np.empty(({R}, {k}), {np_type(x.aval.dtype)})")
    g.line(f"for _r in range({R}):")
    g.line(f"    for _i in range({k}):")
    g.line(f"        {d}[_r, _i] = {m}[_r, _i + {r0}, _i + {c0}]")
    s = _sum(g, Val(d, Aval((None, None), x.aval.dtype)), (1,), False, aval.dtype, (None,))
    return _finish(g, s.name, aval, [x.dim(i) for i in rest], outs[0])


# --------------------------------------------------------------------------- einsum
def _parse(spec: str, ranks):
    """(input label strings, output labels) of an explicit or implicit spec; ``...`` is
    spelled out as fresh labels aligned to the right (its dims must then be equal at run
    time: size-1 broadcasting raises there and the interpreter computes it)."""
    spec = spec.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    terms = ins.split(",")
    if len(terms) != len(ranks):
        raise Unsupported("einsum subscripts do not match the operands")
    fresh = [c for c in string.ascii_letters if c not in spec]
    n_ell = max([r - len(t.replace("...", "")) for t, r in zip(terms, ranks)
                 if "..." in t] or [0])
    ell = "".join(fresh[:n_ell])
    terms = [t.replace("...", ell[n_ell - (r - len(t) + 3):] if r - len(t) + 3 else "")
             if "..." in t else t for t, r in zip(terms, ranks)]
    if any(len(t) != r or "." in t for t, r in zip(terms, ranks)):
        raise Unsupported("einsum subscripts do not match the operands")
    if not arrow:
        joined = "".join(terms)
        out = ell + "".join(sorted(c for c in set(joined) if joined.count(c) == 1
                                   and c not in ell))
    return terms, out.replace("...", ell)


def _as_matmul(g, ins, terms, out, dim, out_t, o) -> bool:
    """A two-operand einsum whose every label is either contracted (in both operands,
    not in the output) or free (in one operand and the output) is one matrix product,
    as tensordot: emit it and return True (else False: the loops below)."""
    if len(ins) != 2 or any(x.scalar or len(set(t)) != len(t) for x, t in zip(ins, terms)):
        return False
    ta, tb = terms
    if any((c in ta) + (c in tb) + (c in out) != 2 for c in ta + tb):
        return False
    ks = [c for c in ta if c not in out]
    if _as_products(g, ins, terms, out, dim, ks, out_t, o):
        return True
    fa, fb = [c for c in ta if c in out], [c for c in tb if c in out]
    M, K, N = (_prod([dim[c] for c in cs]) for cs in (fa, ks, fb))
    a2 = _as_matrix(g, ins[0], [ta.index(c) for c in fa + ks], M, K, _mat_t(out_t))
    b2 = _as_matrix(g, ins[1], [tb.index(c) for c in ks + fb], K, N, _mat_t(out_t))
    r = _matmul(g, a2, b2, M, N, out_t)
    if not out:
        g.line(f"{o} = {r}[0, 0]")
        return True
    g.line(f"{o} = {r}.reshape({shape_expr([dim[c] for c in fa + fb])})")
    perm = [(fa + fb).index(c) for c in out]
    if perm != list(range(len(out))):
        g.line(f"{o} = {permuted(o, perm)}.copy()")
    return True


BATCHED_MIN = 256  # elements of each product's result for a loop of products


def _as_products(g, ins, terms, out, dim, ks, out_t, o) -> bool:
    """The product with no result transpose. ``out = X's free + Y's free`` (either
    order): one product. ``out = pre + X's other free + Y's free`` (or Y's free first),
    ``pre`` a run of X's free labels, floats: a loop over ``pre`` of products written
    into the result (``nchw,oc->nohw``: ``out[n] = W @ P[n]``), when each product has at
    least BATCHED_MIN elements (static). Emit and return True, else False."""
    for x in (0, 1):
        tx, ty = terms[x], terms[1 - x]
        fy = [c for c in out if c in ty]
        for cut in range(len(out)):
            pre, rest = list(out[:cut]), list(out[cut:])
            fx = [c for c in rest if c in tx]
            if any(c not in tx for c in pre) or rest not in (fx + fy, fy + fx):
                continue
            if cut and (out_t.kind != "f"
                        or (_static_size(ins, terms, rest) or 0) < BATCHED_MIN):
                break  # one product and a transpose instead
            x_first = rest == fx + fy
            P, M, K, N = (_prod([dim[c] for c in cs]) for cs in (pre, fx, ks, fy))
            T = _mat_t(out_t)
            x_dims = (M, K) if x_first else (K, M)
            x_order = pre + (fx + ks if x_first else ks + fx)
            xm = _as_matrix(g, ins[x], [tx.index(c) for c in x_order],
                            P if cut else x_dims[0], f"{M} * {K}" if cut else x_dims[1], T)
            y_order, y_dims = (ks + fy, (K, N)) if x_first else (fy + ks, (N, K))
            ym = _as_matrix(g, ins[1 - x], [ty.index(c) for c in y_order], *y_dims, T)
            if cut:
                xs = f"{xm}[_p].reshape({shape_expr(list(x_dims))})"
                a, b = (xs, ym) if x_first else (ym, xs)
                r = g.tmp("mm")
                g.line(f"{r} = np.empty(({P}, {_prod([dim[c] for c in rest])}), "
                       f"{np_type(out_t)})")
                rows = M if x_first else N
                g.line(f"for _p in range({P}):")
                g.line(f"    H.dot_into({a}, {b}, {r}[_p].reshape(({rows}, -1)))")
            else:
                a, b = (xm, ym) if x_first else (ym, xm)
                r = _matmul(g, a, b, *((M, N) if x_first else (N, M)), out_t)
            g.line(f"{o} = {r}.reshape({shape_expr([dim[c] for c in out])})")
            return True
    return False


def _static_size(ins, terms, labels):
    """The product of ``labels``' dims where each is static in some operand, else None."""
    n = 1
    for c in labels:
        known = [x.aval.shape[t.index(c)] for x, t in zip(ins, terms)
                 if c in t and x.aval.shape[t.index(c)] is not None]
        if not known:
            return None
        n *= known[0]
    return n


@emitter("einsum")
def _einsum(g, node, ins, outs):
    """np.einsum as nested loops: output labels outside, contracted labels inside, the
    product of the operands (cast to the result dtype) accumulated per output element."""
    aval, out_t = node.outputs[0].aval, _result_type(node)
    T = np_type(out_t)
    terms, out = _parse(node.attrs["subscripts"], [len(x.aval.shape) for x in ins])
    dim: dict[str, str] = {}
    for x, term in zip(ins, terms):
        for i, c in enumerate(term):
            if c in dim:  # repeated labels must agree (size-1 broadcasting falls back)
                _check_eq(g, dim[c], x.dim(i), "einsum")
            else:
                dim[c] = x.dim(i)
    inner = [c for c in dict.fromkeys("".join(terms)) if c not in out]
    o = outs[0]
    if _as_matmul(g, ins, terms, out, dim, out_t, o):
        return [Val(o, aval)]
    res = g.tmp("r")
    if out:
        g.line(f"{res} = np.empty({shape_expr([dim[c] for c in out])}, {T})")
    depth = 0
    for c in out:
        g.line("    " * depth + f"for _e_{c} in range({dim[c]}):")
        depth += 1
    factors = []
    for x, term in zip(ins, terms):
        elem = x.name if x.scalar else f"{x.name}[{', '.join(f'_e_{c}' for c in term)}]"
        factors.append(f"{T}({elem})")
    prod = factors[0]
    for f in factors[1:]:
        prod = f"{T}({prod} * {f})"
    acc = g.tmp("acc")
    body = depth
    if inner:
        g.line("    " * depth + f"{acc} = {T}(0)")
        for c in inner:
            g.line("    " * depth + f"for _e_{c} in range({dim[c]}):")
            depth += 1
        g.line("    " * depth + f"{acc} = {T}({acc} + {prod})")
    else:  # no sum: the product itself (a transpose keeps -0.0)
        g.line("    " * depth + f"{acc} = {prod}")
    if not out:
        g.line(f"{o} = {acc}")
        return [Val(o, aval)]
    g.line("    " * body + f"{res}[{', '.join(f'_e_{c}' for c in out)}] = {acc}")
    g.line(f"{o} = {res}")
    return [Val(o, aval)]
