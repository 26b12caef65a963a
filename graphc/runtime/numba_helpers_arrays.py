"""Numba-compiled helpers for the array, linalg and indexing kernels (sort, pad,
checked gathers and scatters), re-exported by ``numba_helpers`` (programs call them as
``H.name``). ``cache.version_tag`` hashes this file too: programs link its code in.
"""

from __future__ import annotations

import numba
import numpy as np

from graphc.runtime.numba_helpers_blas import dot as blas_dot

_jit = numba.njit(cache=True, error_model="numpy", nogil=True)

# --- array/linalg helpers
# (kernels_array: stable sorts, pad index maps)
@_jit
def sort_rows(m, out, want_index):
    """Stable sort (``want_index``: argsort) of every ``m[p, :, q]`` of a 3-D array into
    the same place of ``out``. Numba's mergesort argsort is stable and puts NaNs last,
    as NumPy's (checked against np.argsort(kind='stable') by the tests)."""
    n = m.shape[1]
    row = np.empty(n, m.dtype)
    for p in range(m.shape[0]):
        for q in range(m.shape[2]):
            for i in range(n):
                row[i] = m[p, i, q]
            idx = np.argsort(row, kind="mergesort")
            for i in range(n):
                if want_index:
                    out[p, i, q] = idx[i]
                else:
                    out[p, i, q] = row[idx[i]]
    return out


@_jit
def pad_map(n, before, after, mode):
    """The source index of each position of an axis of size ``n`` padded by ``before``
    and ``after`` (np.pad's modes 0 constant (-1: the constant), 1 edge, 2 reflect,
    3 symmetric, 4 wrap; repeated reflections are periodic, as in np.pad)."""
    if n == 0 and mode != 0 and before + after > 0:
        raise ValueError("can't extend empty axis using modes other than 'constant'")
    out = np.empty(n + before + after, np.int64)
    for i in range(out.shape[0]):
        j = i - before
        if 0 <= j < n:
            out[i] = j
        elif mode == 0:
            out[i] = -1
        elif mode == 1:
            out[i] = 0 if j < 0 else n - 1
        elif mode == 2:
            if n == 1:
                out[i] = 0
            else:
                p = 2 * n - 2
                j %= p
                out[i] = j if j < n else p - j
        elif mode == 3:
            j %= 2 * n
            out[i] = j if j < n else 2 * n - 1 - j
        else:
            out[i] = j % n
    return out


# --- indexing helpers
# Every index is checked before it is used (Numba does not bounds-check): a bad one raises
# IndexError, and the executor reruns the interpreter, whose error names the node.
@_jit
def take_1d(x, idx):
    """``x[idx]`` for a vector ``x`` and a vector of integer indices (negative ones from
    the end; IndexError outside [-n, n)), checked and read in one pass."""
    n = x.shape[0]
    out = np.empty(idx.shape[0], x.dtype)
    for j in range(idx.shape[0]):
        t = np.int64(idx[j])  # uint64 wraps, as NumPy's cast to intp does
        if t < 0:
            t += n
        if t < 0 or t >= n:
            raise IndexError("index out of bounds")
        out[j] = x[t]
    return out


@_jit
def index_norm(a, n):
    """The integer index array ``a`` (any shape and layout) as a flat int64 array in
    [0, n): negative indices count from the end, as NumPy's; IndexError outside [-n, n)."""
    out = np.empty(a.size, np.int64)
    k = 0
    for v in a.flat:
        t = np.int64(v)  # uint64 wraps, as NumPy's cast to intp does
        if t < 0:
            t += n
        if t < 0 or t >= n:
            raise IndexError("index out of bounds")
        out[k] = t
        k += 1
    return out


@_jit
def take4(p, idx, mode, out):
    """``out[b, i, j, r] = p[b, i, idx[b, j], r]``: np.take / tf.gather on (batch, pre,
    n, post) views. ``mode`` 0: NumPy's "raise" (negatives from the end), 1 "wrap",
    2 "clip", 3 TensorFlow's (negatives are errors)."""
    n = p.shape[2]
    nb, m = idx.shape
    if n == 0 and m > 0 and nb > 0:
        raise IndexError("cannot take from an empty axis")
    ix = np.empty((nb, m), np.int64)
    for b in range(nb):
        for j in range(m):
            t = np.int64(idx[b, j])
            if mode == 1:
                t = t % n
            elif mode == 2:
                t = min(max(t, 0), n - 1)
            else:
                if t < 0 and mode == 0:
                    t += n
                if t < 0 or t >= n:
                    raise IndexError("index out of bounds")
            ix[b, j] = t
    for b in range(nb):
        for i in range(p.shape[1]):
            for j in range(m):
                t = ix[b, j]
                for r in range(p.shape[3]):
                    out[b, i, j, r] = p[b, i, t, r]


@_jit
def along3(a, idx, out):
    """``out[i, j, r] = a[i, idx[i, j, r], r]``: np.take_along_axis on (pre, n, post)
    views (negative indices count from the end)."""
    n = a.shape[1]
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            for r in range(idx.shape[2]):
                t = np.int64(idx[i, j, r])
                if t < 0:
                    t += n
                if t < 0 or t >= n:
                    raise IndexError("index out of bounds")
                out[i, j, r] = a[i, t, r]


@_jit
def argwhere(a):
    """np.argwhere: int64 coordinates (count, a.ndim) of the nonzero elements, C order."""
    count = 0
    for v in a.flat:
        if v != 0:
            count += 1
    out = np.empty((count, a.ndim), np.int64)
    k = 0
    for ix in np.ndindex(a.shape):
        if a[ix] != 0:
            for d in range(a.ndim):
                out[k, d] = ix[d]
            k += 1
    return out


@_jit
def scatter_nd(out, idx, upd, dims):
    """tf.tensor_scatter_nd_update into ``out`` (rows, inner), the copied tensor: row
    ``q`` of ``upd`` goes to the row addressed by ``idx[q, :k]`` in the tensor's first
    ``k`` dims ``dims``; in order, so the last duplicate wins; no negative indices."""
    k = idx.shape[1]
    for q in range(idx.shape[0]):
        lin = 0
        for d in range(k):
            t = np.int64(idx[q, d])
            if t < 0 or t >= dims[d]:
                raise IndexError("index out of bounds")
            lin = lin * dims[d] + t
        for s in range(out.shape[1]):
            out[lin, s] = upd[q, s]


# (kernels_setitem: x[mask] = v and x[index_array] = v on a (rows, inner) view)
@_jit
def mask_assign(out, mask, v):
    """``out[i, :] = v[k]`` for the k-th True ``mask[i]``, in order (NumPy's boolean
    assignment); ``v``: (count, inner), or (1, inner) shared by every row."""
    k = 0
    step = 1 if v.shape[0] != 1 else 0
    for i in range(mask.size):
        if mask[i]:
            for j in range(out.shape[1]):  # (a row slice ``out[i, :]`` costs a view)
                out[i, j] = v[k, j]
            k += step


@_jit
def mask_count(mask):
    """The number of True elements of the flat ``mask``."""
    count = 0
    for i in range(mask.size):
        if mask[i]:
            count += 1
    return count


@_jit
def take_assign(out, idx, v):
    """``out[idx[j], :] = v[j]`` in order (the last write to a row wins, as NumPy's);
    ``idx``: flat int64 rows in range (``index_norm``); ``v``: (len(idx), inner) or
    (1, inner)."""
    step = 1 if v.shape[0] != 1 else 0
    for j in range(idx.size):
        r, k = idx[j], j * step
        for c in range(out.shape[1]):
            out[r, c] = v[k, c]


# (kernels_matmul: a vector times a strided matrix, without copying the matrix)
@_jit
def vecmat(v, a):
    """``v @ a`` for a 1-D ``v`` and a 2-D ``a`` of any layout (``a[:, i:]`` of a C
    array), as rows of ``a`` scaled and added in order of k: out[j] = ((0 + v[0] a[0, j])
    + v[1] a[1, j]) + ... Four rows per pass over ``out`` (same order, so the same bits)."""
    return _vecmat_rows(v, a, 0, 0, a.shape[0], a.shape[1])


@_jit
def vecmat_view(v, a, base):
    """``vecmat(v, a)`` where ``a`` is a view of the C-contiguous 2-D ``base``: when ``a``
    is a block of ``base`` (rows r0.., columns c0.. with base's row stride, found from
    the pointers), its rows are read as slices of base's rows, typed contiguous, so the
    loop vectorizes (NPBench covariance's ``data[:, i] @ data[:, i:M]``: 18.5 -> 8.8 ms);
    the same sums in the same order either way."""
    item, rs = base.itemsize, base.strides[0]
    if a.shape[0] > 0 and a.shape[1] > 0 and a.strides[1] == item and a.strides[0] == rs:
        off = np.int64(a.ctypes.data) - np.int64(base.ctypes.data)
        r0 = off // rs if rs > 0 else 0
        c0 = (off - r0 * rs) // item
        if (off >= 0 and (off - r0 * rs) % item == 0 and r0 + a.shape[0] <= base.shape[0]
                and c0 + a.shape[1] <= base.shape[1]):
            return _vecmat_rows(v, base, r0, c0, a.shape[0], a.shape[1])
    return _vecmat_rows(v, a, 0, 0, a.shape[0], a.shape[1])


@_jit
def dot_1d(a, b):
    """``a @ b`` of 1-D float vectors of any strides (NumPy: BLAS ``dot`` with its
    increments), without copying them: four partial sums over k mod 4, added pairwise,
    then the tail in order; within BLAS rounding of NumPy's (BLAS adds in its own
    order too). Vectors of 50 values: 27 ns, against 36 ns through Numba's BLAS call;
    of 500, the same 165 ns."""
    n = a.shape[0]
    if b.shape[0] != n:
        raise ValueError("shapes not aligned")
    s0 = s1 = s2 = s3 = a.dtype.type(0)
    k = 0
    while k + 4 <= n:
        s0 += a[k] * b[k]
        s1 += a[k + 1] * b[k + 1]
        s2 += a[k + 2] * b[k + 2]
        s3 += a[k + 3] * b[k + 3]
        k += 4
    acc = (s0 + s1) + (s2 + s3)
    while k < n:
        acc += a[k] * b[k]
        k += 1
    return acc


DOT_BLAS_MIN = 512


@_jit
def dot_contiguous(a, b):
    """``dot_1d`` for vectors known contiguous: from DOT_BLAS_MIN values on, BLAS's
    vectorized ``dot`` (trisolv's rows of up to 2000 values: 1.42 ms of dots in the
    loop, 0.91 ms in BLAS). A helper of its own, so that ``dot_1d`` stays small for the
    short and strided dots (a branch in it cost trmm and lu 20-30%)."""
    if a.shape[0] >= DOT_BLAS_MIN:  # BLAS through its own helper: this one stays small
        return blas_dot(a, b)
    return dot_1d(a, b)


@_jit
def _vecmat_rows(v, a, r0, c0, kk, n):
    out = np.zeros(n, a.dtype)
    k = 0
    while k + 4 <= kk:
        s0, s1, s2, s3 = v[k], v[k + 1], v[k + 2], v[k + 3]
        r = r0 + k
        w0, w1, w2, w3 = (a[r, c0:c0 + n], a[r + 1, c0:c0 + n], a[r + 2, c0:c0 + n],
                          a[r + 3, c0:c0 + n])
        for j in range(n):
            out[j] = (((out[j] + s0 * w0[j]) + s1 * w1[j]) + s2 * w2[j]) + s3 * w3[j]
        k += 4
    while k < kk:
        s0, w0 = v[k], a[r0 + k, c0:c0 + n]
        for j in range(n):
            out[j] += s0 * w0[j]
        k += 1
    return out


@_jit
def mask_take(x, mask):
    """``x[mask]`` for flat ``x`` and ``mask`` of one size: the selected elements, in
    order."""
    out = np.empty(mask_count(mask), x.dtype)
    k = 0
    for i in range(mask.size):
        if mask[i]:
            out[k] = x[i]
            k += 1
    return out

