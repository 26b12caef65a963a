"""gc.linalg's band and diagonal names (band_part, diag, diag_part, set_diag with k
bands and the four alignments, tensor_diag(_part), eye, trace, adjoint,
matrix_transpose) against oracles written here with plain NumPy loops."""

from __future__ import annotations

import numpy as np
import pytest
from tf_linalg_helpers import check_both

import graphc as gc
from graphc.errors import InvalidArgumentError

L = gc.linalg
X34 = np.arange(1.0, 13.0).reshape(3, 4)
ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]


def _left(d, align):
    sup, sub = {"RIGHT_LEFT": (False, True), "LEFT_RIGHT": (True, False),
                "LEFT_LEFT": (True, True), "RIGHT_RIGHT": (False, False)}[align]
    return (d >= 0 and sup) or (d <= 0 and sub)


def diag_part_oracle(x, lo, hi, align, pad=0.0):
    m, n = x.shape[-2:]
    length = min(m + min(hi, 0), n - max(lo, 0))
    out = np.full(x.shape[:-2] + (hi - lo + 1, length), pad, x.dtype)
    for r, d in enumerate(range(hi, lo - 1, -1)):
        vals = np.diagonal(x, offset=d, axis1=-2, axis2=-1)
        k = vals.shape[-1]
        start = 0 if _left(d, align) else length - k
        out[..., r, start:start + k] = vals
    return out[..., 0, :] if lo == hi else out


def test_band_part():
    x = np.arange(16.0).reshape(4, 4)
    for lo, up in [(1, 0), (0, -1), (-1, 0), (2, 1), (0, 0), (-1, -1)]:
        want = np.where(((lo < 0) | (np.subtract.outer(range(4), range(4)) <= lo))
                        & ((up < 0) | (np.subtract.outer(range(4), range(4)).T <= up)), x, 0)
        check_both(lambda t, lo=lo, up=up: L.band_part(t, lo, up), (x,), want)
    # traced counts
    f = gc.function(lambda t, k: L.band_part(t, k, 0), backend="numpy")
    np.testing.assert_array_equal(f(x, np.int32(1)).numpy(), np.tril(np.triu(x, -1)))
    with pytest.raises(TypeError):
        L.band_part(x, 1.5, 0)


@pytest.mark.parametrize("align", ALIGNS)
@pytest.mark.parametrize("k", [0, 1, -2, (-1, 1), (1, 2), (-2, -1), (0, 3)])
def test_diag_part(k, align):
    lo, hi = (k, k) if isinstance(k, int) else k
    x = np.stack([X34, -X34])
    check_both(lambda t: L.diag_part(t, k=k, padding_value=9, align=align), (x,),
               diag_part_oracle(x, lo, hi, align, 9.0))


@pytest.mark.parametrize("align", ALIGNS)
@pytest.mark.parametrize("k", [0, 1, -1, (-1, 1), (0, 2), (-2, 0)])
def test_set_diag_is_diag_part_inverse(k, align):
    lo, hi = (k, k) if isinstance(k, int) else k
    x = np.stack([X34, X34 * 2])
    new = -diag_part_oracle(x, lo, hi, align)
    want = x.copy()
    for r, d in enumerate(range(hi, lo - 1, -1)):  # write the new diagonals by hand
        row = new[..., r, :] if lo != hi else new
        k_len = np.diagonal(x, d, -2, -1).shape[-1]
        start = 0 if _left(d, align) else row.shape[-1] - k_len
        for q in range(k_len):
            i, j = q + max(-d, 0), q + max(d, 0)
            want[..., i, j] = row[..., start + q]
    check_both(lambda t, v: L.set_diag(t, v, k=k, align=align), (x, new), want)


def test_diag_shapes_and_rules():
    check_both(lambda v: L.diag(v), ([[1.0, 2.0], [3.0, 4.0]],),
               np.array([np.diag([1.0, 2.0]), np.diag([3.0, 4.0])], np.float32))
    check_both(lambda v: L.diag(v, k=1), ([1.0, 2.0],), np.diag([1.0, 2.0], 1).astype(np.float32))
    check_both(lambda v: L.diag(v, k=-1, num_rows=3, num_cols=4, padding_value=7),
               ([1.0, 2.0],), np.array([[7, 7, 7, 7], [1, 7, 7, 7], [7, 2, 7, 7]], np.float32))
    # a band: rows from k[1] down, RIGHT_LEFT (superdiagonals padded on the left)
    v = np.array([[0.0, 5.0, 6.0], [1.0, 2.0, 3.0], [7.0, 8.0, 0.0]])
    want = np.diag([1.0, 2.0, 3.0]) + np.diag([5.0, 6.0], 1) + np.diag([7.0, 8.0], -1)
    check_both(lambda t: L.diag(t, k=(-1, 1)), (v,), want)
    # diag of diag_part round trip for every alignment
    for align in ALIGNS:
        d = L.diag_part(np.arange(9.0).reshape(3, 3), k=(-1, 1), align=align)
        np.testing.assert_array_equal(L.diag(d, k=(-1, 1), align=align).numpy(),
                                      np.arange(9.0).reshape(3, 3) * (np.abs(
                                          np.subtract.outer(range(3), range(3))) <= 1))
    with pytest.raises(InvalidArgumentError, match="too small"):
        L.diag([1.0, 2.0], num_rows=1)
    with pytest.raises(InvalidArgumentError, match="not consistent"):
        L.diag([1.0, 2.0], num_rows=4, num_cols=4)
    with pytest.raises(InvalidArgumentError, match="lower_diag_index"):
        L.diag_part(X34, k=(1, 0))
    with pytest.raises(InvalidArgumentError):
        L.diag_part(X34, k=4)
    with pytest.raises(InvalidArgumentError):
        L.set_diag(X34, [1.0, 2.0])


def test_tensor_diag_and_part():
    v = np.arange(1.0, 7.0).reshape(2, 3)
    want = np.zeros((2, 3, 2, 3))
    for i, j in np.ndindex(2, 3):
        want[i, j, i, j] = v[i, j]
    check_both(L.tensor_diag, (v,), want)
    check_both(L.tensor_diag_part, (want,), v)
    with pytest.raises(InvalidArgumentError):
        L.tensor_diag_part(np.zeros((2, 3, 3, 2)))


def test_eye_trace_transposes():
    np.testing.assert_array_equal(L.eye(2, 3, batch_shape=[2]).numpy(),
                                  np.broadcast_to(np.eye(2, 3, dtype=np.float32), (2, 2, 3)))
    assert L.eye(2).dtype == np.float32 and L.eye(2, dtype=gc.int32).dtype == np.int32
    check_both(L.trace, (np.stack([X34, -X34]),), np.array([18.0, -18.0]))
    z = X34 + 1j * X34[::-1]
    check_both(L.adjoint, (z,), np.conj(z.T))
    check_both(L.matrix_transpose, (z,), z.T)
    check_both(lambda t: L.matrix_transpose(t, conjugate=True), (z,), np.conj(z.T))
    with pytest.raises(ValueError, match="rank >= 2"):
        L.matrix_transpose([1.0, 2.0])
