"""TensorFlow's ``ops/parallel_for/array_test.py`` (``ArrayTest``) ported to
``gc.vectorized_map``. See tests/tf_reference/README.md. ``check_loop_fn``
(pfor_util.py) compares the vectorized result with the per-example Python loop, in
value, dtype and shape.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pfor_util import RNG, check_loop_fn, rand, vectorized
from tfref import value

import graphc as gc

MODES = pytest.mark.parametrize("mode", ["eager", "function"])


def _gathers(y, i):
    """TensorFlow's test_gather, for one params tensor ``y``."""
    out = []
    for axis in (0, 2, -1):
        out += [gc.gather(y, 2, axis=axis),
                gc.gather(y, gc.cast(2, gc.int64), axis=axis),
                gc.gather(y, 2, axis=gc.cast(axis, gc.int64)),
                gc.gather(y, gc.cast(i, gc.int64), axis=axis),
                gc.gather(y, [i], axis=axis), gc.gather(y, [i, 2], axis=axis),
                gc.gather(y, [[2, i], [i, 1]], axis=axis)]
    return out + [gc.gather(y, [0, 1, 2], axis=1, batch_dims=1),
                  gc.gather(y, [i, 1, 2], axis=2, batch_dims=1),
                  gc.gather(y, [[2, i], [i, 1], [2, 1]], axis=-1, batch_dims=1)]


@MODES
def test_gather(mode):
    x = rand(3, 3, 3, 3)
    check_loop_fn(lambda i: _gathers(x, i) + _gathers(gc.gather(x, i), i), 3, mode)


def test_gather_of_unknown_shape():
    # TensorFlow's placeholder_with_default(x, shape=None): here a gc.function argument
    # whose spec leaves every dim unknown
    x = rand(3, 3, 3, 3)
    f = gc.function(lambda y: gc.vectorized_map(lambda i: _gathers(y, i), gc.range(3)),
                    input_signature=[gc.TensorSpec([None] * 4, gc.float32)])
    with warnings.catch_warnings():  # (some of these gathers loop: accepted)
        warnings.simplefilter("ignore", gc.errors.VectorizationWarning)
        got = f(x)
    want = [np.stack(k) for k in zip(*[[value(t) for t in _gathers(x, gc.constant(i))]
                                       for i in range(3)])]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(value(g), w)


@MODES
def test_gather_nd(mode):
    x = rand(3, 3, 3)
    # right values, but gc.gather_nd's advanced indexing with index tensors (and its
    # index check) runs in a loop over the batch (TensorFlow vectorizes it)
    check_loop_fn(lambda i: [gc.gather_nd(gc.gather(x, i), [0]),
                             gc.gather_nd(gc.gather(x, i), [i]),
                             gc.gather_nd(gc.gather(x, i), [[i], [i], [i]], batch_dims=1)],
                  3, mode, looped=True)


@MODES
def test_shape_size_rank(mode):
    x, y = rand(3, 2, 3), rand(3)

    def loop_fn(i):
        x_i, y_i = gc.gather(x, i), gc.gather(y, i)
        return [gc.shape(x_i), gc.shape(x_i, out_type=gc.int64), gc.size(x_i),
                gc.size(x_i, out_type=gc.int64), gc.rank(x_i),
                gc.shape_n([x_i, x, y, y_i]), gc.shape_n([x_i, x, y, y_i], gc.int64)]

    check_loop_fn(loop_fn, 3, mode)


@MODES
def test_reshape_fill_broadcast_expand(mode):
    x, z = rand(3, 2, 3), rand(3, 2, 1, 3)

    def loop_fn(i):
        x1, z1 = gc.gather(x, i), gc.gather(z, i)
        return [gc.reshape(x1, [-1]), gc.reshape(x1, [1, 3, 1, -1]), gc.fill((2, 3), i),
                gc.broadcast_to(z1, [2, 2, 3]), gc.broadcast_to(z1, [1, 2, 1, 3]),
                gc.expand_dims(x1, axis=-1), gc.expand_dims(x1, axis=1)]

    check_loop_fn(loop_fn, 3, mode)


def test_one_hot():
    indices = gc.constant(RNG.integers(0, 4, (3, 2, 3), dtype=np.int32))

    def loop_fn(i):
        idx = gc.gather(indices, i)
        return (gc.one_hot(idx, depth=4, on_value=2.0, off_value=-2.0),
                gc.one_hot(idx, depth=4, axis=1))

    check_loop_fn(loop_fn, 3)


def test_searchsorted():
    sorted_inputs = gc.cumsum(rand(3, 2, 4), axis=-1)
    values = rand(2, 3) * 5.5 - 1

    def loop_fn(i):
        inputs_i = gc.gather(sorted_inputs, i)
        return [gc.searchsorted(inputs_i, values, out_type=gc.int32, side="left"),
                gc.searchsorted(inputs_i, values, out_type=gc.int64, side="right")]

    check_loop_fn(loop_fn, 3)


@MODES
def test_slice_tile_stack_unstack(mode):
    x, y, w = rand(3, 2, 3), rand(2, 3), rand(3, 2, 3, 4)

    def loop_fn(i):
        x1, w1 = gc.gather(x, i), gc.gather(w, i)
        return [gc.slice(x1, begin=(0, 1), size=(2, 1)), gc.tile(x1, [2, 1]),
                gc.stack([x1, y], axis=-1), gc.unstack(w1, 4, axis=-1),
                gc.unstack(w1, 3, axis=1)]

    check_loop_fn(loop_fn, 3, mode)


def test_tile_by_a_per_example_multiple():
    # TensorFlow's pfor refuses a loop-variant `multiples` without its fallback
    # (ValueError); graphc gives the per-example results a different shape, which no
    # stacking can hold: an error either way
    x = rand(3, 2, 3)
    with pytest.raises(ValueError):
        vectorized(lambda i: gc.tile(gc.gather(x, i), [i, 1]), 2,
                   fallback_to_while_loop=False)


@MODES
def test_pad_split_squeeze_reverse(mode):
    x, x6, s, r = rand(3, 2, 3), rand(3, 6, 3), rand(5, 1, 2, 1), rand(3, 4, 2, 3)
    padding = gc.constant([[1, 2], [3, 4]])

    def loop_fn(i):
        x1, x61, s1, r1 = (gc.gather(t, i) for t in (x, x6, s, r))
        return [gc.pad(x1, padding, mode="CONSTANT"), gc.split(x1, 2, axis=0),
                gc.split(x1, 3, axis=-1), gc.split(x61, [2, 1, 3], axis=0),
                gc.split(x61, [3], axis=-1), gc.squeeze(s1, axis=0),
                gc.squeeze(s1, axis=-1), gc.squeeze(s1), gc.reverse(r1, axis=[0]),
                gc.reverse(r1, axis=[-1]), gc.reverse(r1, axis=[1, -1])]

    check_loop_fn(loop_fn, 3, mode)


def test_transpose_and_conjugate_transpose():
    x = rand(3, 2, 3, 4)
    z = gc.complex(rand(3, 2, 3, 4), rand(3, 2, 3, 4))
    check_loop_fn(lambda i: (gc.transpose(gc.gather(x, i), [2, 1, 0]),
                             gc.transpose(gc.gather(z, i), [2, 1, 0], conjugate=True)), 3)


@MODES
def test_zeros_like_and_concat(mode):
    x, y = rand(3, 2, 3), rand(2, 3)

    def loop_fn(i):
        x1 = gc.gather(x, i)
        z = gc.zeros_like(x1)
        return [z, z + x1, gc.concat([x1, x1, y], axis=0), gc.concat([x1, x1, y], axis=-1)]

    check_loop_fn(loop_fn, 3, mode)


@pytest.mark.parametrize("op", [gc.identity, gc.stop_gradient], ids=["identity", "stop"])
@MODES
def test_identity_and_stop_gradient(op, mode):
    x = rand(3, 5)

    def loop_fn(i):
        with gc.GradientTape() as tape:
            x1 = gc.gather(x, i)
            tape.watch(x1)
            y = op(x1) + x1
            loss = gc.nn.l2_loss(y)
        return op(x), y, tape.gradient(loss, x1)

    _, y, grad = check_loop_fn(loop_fn, 3, mode)
    # l2_loss = sum(y^2) / 2: its gradient is y times dy/dx1 (2 for identity, 1 if stopped)
    np.testing.assert_allclose(value(grad), value(y) * (2 if op is gc.identity else 1),
                               rtol=1e-6)


def test_identity_n():
    x = rand(3, 4)
    check_loop_fn(lambda i: gc.identity_n([x, gc.gather(x, i)]), 3)


@pytest.mark.parametrize("band", [(0, -1), (-1, 0), (1, 1)], ids=str)
def test_matrix_band_part(band):
    # (TensorFlow's loop builds three loop_fns and tests only the last: all three here)
    x = rand(3, 4, 2, 2)
    check_loop_fn(lambda i: gc.linalg.band_part(gc.gather(x, i), *band), 3)


def test_matrix_diag_and_diag_part():
    x, m = rand(3, 2, 4), rand(3, 4, 6)

    def loop_fn(i):
        return (gc.linalg.diag(gc.gather(x, i), k=(0, 1), num_rows=4, num_cols=5,
                               align="RIGHT_LEFT"),
                gc.linalg.diag_part(gc.gather(m, i), k=(-2, 0), padding_value=3,
                                    align="RIGHT_LEFT"))

    check_loop_fn(loop_fn, 3)


@pytest.mark.parametrize("shape", [(3, 4), (3, 4, 2)], ids=str)
def test_tensor_diag(shape):
    # TensorFlow's array_ops.diag / diag_part: tf.linalg.tensor_diag / tensor_diag_part
    x = rand(*shape)
    square = rand(3, *shape[1:], *shape[1:])
    check_loop_fn(lambda i: (gc.linalg.tensor_diag(gc.gather(x, i)),
                             gc.linalg.tensor_diag_part(gc.gather(square, i))), 3)


def test_matrix_set_diag():
    matrices, diags, bands = rand(3, 4, 4), rand(3, 4), rand(3, 3, 4)

    def loop_fn(i):
        m_i, d_i, b_i = gc.gather(matrices, i), gc.gather(diags, i), gc.gather(bands, i)
        out = [gc.linalg.set_diag(m_i, d_i), gc.linalg.set_diag(matrices[0, ...], d_i),
               gc.linalg.set_diag(m_i, diags[0, ...])]
        for align in ("RIGHT_LEFT", "LEFT_RIGHT"):
            out += [gc.linalg.set_diag(m_i, b_i, k=(-1, 1), align=align),
                    gc.linalg.set_diag(matrices[0, ...], b_i, k=(-1, 1), align=align),
                    gc.linalg.set_diag(m_i, bands[0, ...], k=(-1, 1), align=align)]
        return out

    check_loop_fn(loop_fn, 3)


@MODES
def test_strided_slice_and_its_gradient(mode):
    x = rand(3, 3, 4, 4, 2, 2, 2)

    def loop_fn(i):
        with gc.GradientTape() as tape:
            x_i = gc.gather(x, i)
            tape.watch(x_i)
            y = x_i[:2, ::2, 1::3, ..., gc.newaxis, 1]
            loss = gc.nn.l2_loss(y)
        return y, tape.gradient(loss, x_i)

    check_loop_fn(loop_fn, 3, mode)


@MODES
def test_strided_slice_by_a_per_example_start(mode):
    # as in TensorFlow: a loop over the batch, and without that fallback a ValueError
    x = rand(3, 3, 4, 2)
    check_loop_fn(lambda i: gc.gather(x, i)[i:i + 1, ...], 3, mode, looped=True)
    with pytest.raises(ValueError, match="no batching rule"):
        vectorized(lambda i: gc.gather(x, i)[i:i + 1, ...], 3, mode,
                   fallback_to_while_loop=False)


def test_depth_space_and_batch_space():
    d2s, s2d = rand(2, 3, 2, 2, 12), rand(2, 3, 4, 4, 3)
    b2s = rand(3, 5 * 2 * 3, 2, 2, 3, 2)
    s2b = rand(3, 5, 2 * 2 - 3, 2 * 3 - 1, 3, 2)

    def loop_fn(i):
        return [gc.nn.depth_to_space(gc.gather(d2s, i), 2, data_format="NHWC"),
                gc.nn.space_to_depth(gc.gather(s2d, i), 2, data_format="NHWC"),
                gc.batch_to_space(gc.gather(b2s, i), [2, 3], [[1, 2], [1, 0]]),
                gc.space_to_batch_nd(gc.gather(s2b, i), [2, 3], [[1, 2], [1, 0]])]

    check_loop_fn(loop_fn, 2)


def test_check_numerics():
    # TensorFlow's check_numerics is tf.debugging.assert_all_finite in its 2.x API
    # (its check runs in a loop over the batch; TensorFlow vectorizes it)
    x = rand(2, 3, 4)
    check_loop_fn(lambda i: gc.debugging.assert_all_finite(gc.gather(x, i), "message"), 2,
                  looped=True)
    bad = gc.constant([[1.0, 2.0], [np.inf, 0.0]])
    with pytest.raises(gc.errors.InvalidArgumentError, match="message"):
        gc.vectorized_map(lambda i: gc.debugging.assert_all_finite(gc.gather(bad, i),
                                                                   "message"), gc.range(2))
