"""gc.nn fractional pools: the returned pooling sequences obey TensorFlow's rule (sizes
k or k + 1, endpoints 0 and n, the pseudo-random ceil form), the pooled values match a
loop over the regions those sequences describe (eager and traced, float and int,
overlapping or not), a divisible size gives regular pooling, seeds reproduce, gradients
by finite differences, and errors."""

import numpy as np
import pytest
from nn_helpers import check_grad, same

import graphc as gc

X = np.random.default_rng(8).standard_normal((2, 7, 5, 2))


def loops(x, rows, cols, overlapping, kind):
    h, w = x.shape[1:3]
    out = np.zeros((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
    extra = 1 if overlapping else 0
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            win = x[:, rows[i]:min(rows[i + 1] + extra, h), cols[j]:min(cols[j + 1] + extra, w)]
            if kind == "max":
                out[:, i, j] = win.max((1, 2))
            elif x.dtype.kind == "f":
                out[:, i, j] = win.mean((1, 2))
            else:
                out[:, i, j] = np.trunc(win.sum((1, 2)) / (win.shape[1] * win.shape[2]))
    return out


def check_sequence(seq, n_in, n_out):
    assert seq.dtype == np.int64 and seq.shape == (n_out + 1,)
    assert seq[0] == 0 and seq[-1] == n_in
    k = n_in // n_out
    assert set(np.diff(seq)) <= {k, k + 1}


@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_values_follow_the_sequences(pseudo_random, overlapping, kind):
    fn = gc.nn.fractional_max_pool if kind == "max" else gc.nn.fractional_avg_pool
    for run in (fn, gc.function(fn)):
        out, rows, cols = run(X, [1.0, 1.5, 1.6, 1.0], pseudo_random, overlapping, 7)
        rows, cols = rows.numpy(), cols.numpy()
        check_sequence(rows, 7, 4)
        check_sequence(cols, 5, 3)
        same(out, loops(X, rows, cols, overlapping, kind), rtol=1e-12)


def test_pseudo_random_form():
    # rows[i] = ceil(alpha * (i + u)) - 1 for one u >= 0: the interior cuts agree on u
    for _ in range(5):
        _, rows, _ = gc.nn.fractional_max_pool(np.zeros((1, 10, 3, 1)), [1, 1.5, 1, 1],
                                               pseudo_random=True)
        rows = rows.numpy()
        alpha = 10 / 6
        lo = max(rows[i] / alpha - i for i in range(1, 6))
        hi = min((rows[i] + 1) / alpha - i for i in range(1, 6))
        assert lo < hi + 1e-12 and hi >= 0


def test_int_inputs_and_divisible_sizes():
    xi = np.arange(2 * 6 * 4 * 1, dtype=np.int32).reshape(2, 6, 4, 1) * 3 - 20
    out, rows, cols = gc.nn.fractional_avg_pool(xi, 1.5)
    same(out, loops(xi, rows.numpy(), cols.numpy(), False, "avg"))
    out, rows, cols = gc.nn.fractional_max_pool(xi.astype(np.int64), 2.0)
    same(rows, np.array([0, 2, 4, 6], np.int64))
    same(cols, np.array([0, 2, 4], np.int64))
    same(out, xi.reshape(2, 3, 2, 2, 2, 1).max((2, 4)).astype(np.int64))


def test_seed_reproduces():
    gc.random.set_seed(1)
    a = gc.nn.fractional_max_pool(X, 1.4, seed=5)
    gc.random.set_seed(1)
    b = gc.nn.fractional_max_pool(X, 1.4, seed=5)
    for u, v in zip(a, b, strict=True):
        same(u, v.numpy())


def test_gradients():
    gc.random.set_seed(2)

    def avg(x):
        gc.random.set_seed(2)
        return gc.nn.fractional_avg_pool(x, 1.5, True, True, seed=3)[0]

    def mx(x):
        gc.random.set_seed(2)
        return gc.nn.fractional_max_pool(x, 1.5, False, False, seed=3)[0]

    check_grad(avg, X.copy())
    check_grad(mx, X.copy())


def test_errors():
    with pytest.raises(ValueError, match="batch or channel"):
        gc.nn.fractional_max_pool(X, [2.0, 1.5, 1.5, 1.0])
    with pytest.raises(ValueError, match="4-D"):
        gc.nn.fractional_avg_pool(X[0], 1.5)
    with pytest.raises(ValueError, match="greater than 0"):
        gc.nn.fractional_max_pool(X, [1.0, 8.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=">= 1.0"):
        gc.nn.fractional_max_pool(X, 0.5)
    with pytest.raises(TypeError, match="float32"):
        gc.nn.fractional_max_pool(X.astype(np.float16), 1.5)
