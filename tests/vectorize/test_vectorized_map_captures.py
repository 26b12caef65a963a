"""Gradients that cross into ``gc.vectorized_map``'s ``fn`` through what it reads from
outside: eager tensors and variables read in a loop body or branch of ``fn`` (read once,
the tape sees them), and ``gc.gradients`` in ``fn`` of a value of the enclosing trace."""

import warnings

import numpy as np

import graphc as gc


def test_tape_sees_an_eager_tensor_read_in_a_scan_body():
    x = gc.constant(np.arange(10.0))

    def fn(i):  # cumulative sums of x * (i + 1)
        return gc.scan(lambda a, j: a + gc.gather(x, j) * gc.cast(i + 1, gc.float64),
                       elems=gc.range(10), initializer=gc.constant(0.0, gc.float64))

    with gc.GradientTape() as tape:
        tape.watch(x)
        total = gc.reduce_sum(gc.vectorized_map(fn, gc.range(2), warn=False))
    # x_j is in 10 - j of the sums, times 1 + 2
    assert gc.convert_to_tensor(tape.gradient(total, x)).numpy().tolist() == \
        (3.0 * (10 - np.arange(10))).tolist()


def test_a_variable_read_in_a_branch_is_read_once():
    v = gc.Variable([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.VectorizationWarning)
        with gc.GradientTape() as tape:
            r = gc.vectorized_map(lambda i: gc.cond(i > 0, lambda: v * 2.0, lambda: v * 3.0),
                                  gc.range(3))
    assert r.numpy().tolist() == [[3.0, 6.0], [2.0, 4.0], [2.0, 4.0]]
    assert tape.gradient(r, v).numpy().tolist() == [7.0, 7.0]  # 3 + 2 + 2


def test_gradients_in_fn_add_the_enclosing_path():
    @gc.function
    def f(x):
        z = x * x
        # d(z * x * e)/dx = 3 x^2 e: x directly and through z, traced outside fn
        return gc.vectorized_map(lambda e: gc.gradients(z * x * e, x)[0],
                                 gc.constant([1.0, 2.0]))

    assert f(gc.constant(3.0)).numpy().tolist() == [27.0, 54.0]
