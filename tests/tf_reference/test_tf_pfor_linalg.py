"""TensorFlow's ``ops/parallel_for/math_test.py``, class ``LinalgTest``, ported to
``gc.vectorized_map`` (its ``MathTest`` is in test_tf_pfor_math.py). See
tests/tf_reference/README.md. ``check_loop_fn`` (pfor_util.py) compares the vectorized
result with the per-example Python loop, in value, dtype and shape.
"""

from __future__ import annotations

import numpy as np
import pytest
from pfor_util import RNG, check_loop_fn, rand
from tfref import value

import graphc as gc

MODES = pytest.mark.parametrize("mode", ["eager", "function"])
STACKED = [(a, b) for a in (True, False) for b in (True, False)]


def normal(*shape):
    return gc.constant(RNG.standard_normal(shape).astype(np.float32))


@MODES
def test_cholesky(mode):
    z = normal(2, 3, 3)
    x = gc.matmul(z, gc.linalg.matrix_transpose(z)) + gc.eye(3)  # positive definite
    check_loop_fn(lambda i: gc.linalg.cholesky(gc.gather(x, i)), 2, mode, rtol=1e-4)


@pytest.mark.parametrize("shape", [(3, 4, 2, 2), (3, 2, 2)], ids=str)
def test_log_matrix_determinant(shape):
    # TensorFlow's log_matrix_determinant: (sign, log |det|), gc.linalg.slogdet
    x = normal(*shape)
    check_loop_fn(lambda i: gc.linalg.slogdet(gc.gather(x, i)), 3, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("adjoint", [True, False])
def test_matrix_inverse(adjoint):
    x = rand(3, 4, 2, 2) + 10 * gc.eye(2)  # well conditioned
    check_loop_fn(lambda i: gc.linalg.inv(gc.gather(x, i), adjoint=adjoint), 2, rtol=1e-5)


@pytest.mark.parametrize("adjoint", [True, False])
def test_matrix_solve(adjoint):
    for stack_a, stack_b in STACKED:
        x = rand(*(2,) * stack_a, 4, 3, 3) + 10 * gc.eye(3)
        y = rand(*(2,) * stack_b, 4, 3, 5)

        def loop_fn(i, x=x, y=y, stack_a=stack_a, stack_b=stack_b):
            a = gc.gather(x, i) if stack_a else x
            b = gc.gather(y, i) if stack_b else y
            return gc.linalg.solve(a, b, adjoint=adjoint)

        check_loop_fn(loop_fn, 2, rtol=1e-5)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_matrix_triangular_solve(lower, adjoint):
    for stack_a, stack_b in STACKED:
        x = gc.linalg.band_part(rand(*(2,) * stack_a, 4, 3, 3) + gc.eye(3),
                                *((-1, 0) if lower else (0, -1)))
        y = rand(*(2,) * stack_b, 4, 3, 5)

        def loop_fn(i, x=x, y=y, stack_a=stack_a, stack_b=stack_b):
            a = gc.gather(x, i) if stack_a else x
            b = gc.gather(y, i) if stack_b else y
            return gc.linalg.triangular_solve(a, b, lower=lower, adjoint=adjoint)

        check_loop_fn(loop_fn, 2, rtol=1e-4, atol=1e-5)


def test_self_adjoint_eig():
    z = normal(2, 3, 3)
    x = z + gc.linalg.matrix_transpose(z)  # symmetric

    def loop_fn(i):
        return gc.linalg.eigh(gc.gather(x, i)), gc.linalg.eigvalsh(gc.gather(x, i))

    got = check_loop_fn(loop_fn, 2, rtol=1e-4, atol=1e-5)
    # the eigenvalues are those of each matrix (ascending), as NumPy finds them
    want = np.linalg.eigvalsh(value(x))
    np.testing.assert_allclose(value(got[2]), want, rtol=1e-4, atol=1e-5)


@MODES
def test_einsum(mode):
    xs, ys = rand(4, 9, 9), rand(4, 9, 1)

    def loop_fn(i):
        x, y = gc.gather(xs, 0), gc.gather(ys, 0)  # the same in every example
        x_i, y_i = gc.gather(xs, i), gc.gather(ys, i)
        return [gc.einsum("ab,bc->ac", x_i, y), gc.einsum("ab,bc->ac", x, y_i),
                gc.einsum("ab,bc->ac", x, y), gc.einsum("ab,bc->ac", x_i, y_i),
                gc.einsum("cd,ce->de", y_i, x_i)]  # a transposed operand

    check_loop_fn(loop_fn, 4, mode, rtol=1e-5)
