"""Gradient and batching rules of the ops of ``linalg_tf.py``; the end of this module
attaches them. ``graphc/__init__.py`` imports it, so the ops are registered, with their
rules, whenever graphc is.

Gradients (reverse mode, as JAX and TensorFlow define them):

* ``triangular_solve`` (``x = A^-1 b``, or ``A^-H b`` with ``adjoint``):
  ``gb = triangular_solve(A, g, adjoint=not adjoint)``, ``gA = -gb x^T`` (``-x gb^T``
  with ``adjoint``) kept on the triangle the op reads.
* ``lu`` (``A[p] = L U``, packed): with ``Gl``/``Gu`` the strictly lower / upper parts of
  the cotangent, ``gA[p] = L^-T (tril(L^T Gl, -1) + triu(Gu U^T)) U^-T``; ``p`` (integers)
  passes none.
* ``expm``, ``sqrtm``, ``logm``: the adjoint of the Fréchet derivative, ``L_f(A^T, G)``,
  read off ``f`` of the block matrix ``[[A^T, G], [0, A^T]]`` (its upper right block), so
  the rule is the op itself and differentiates again. Complex operands get JAX's
  convention (the transpose, no conjugate).

Batching: a batch axis moved to the front is one more stack dim; ``triangular_solve``
lines up the stack dims of its two operands as ``solve``'s rule does.
"""

from __future__ import annotations

from graphc.core.registry import bind
from graphc.ops import batch_util as bu
from graphc.ops import linalg as _linalg
from graphc.ops import linalg_tf as lt
from graphc.ops.creation import eye, zeros_like
from graphc.ops.indexing import take_along_axis
from graphc.ops.join import concatenate
from graphc.ops.linalg_decomp_batch import stacked
from graphc.ops.shape import argsort, expand_dims, swapaxes
from graphc.ops.triangular import tril, triu


def _T(x):
    return swapaxes(x, -1, -2)


def _real(name, *xs):
    for x in xs:
        if x.dtype.kind == "c":
            raise NotImplementedError(f"the gradient of {name} for complex operands is not "
                                      "implemented")


def _tsolve(a, b, lower, adjoint):
    return bind(lt.TRIANGULAR_SOLVE, a, b, lower=bool(lower), adjoint=bool(adjoint))


def triangular_solve_grad(cts, args, outs, lower=True, adjoint=False):
    a, b = args
    _real("triangular_solve", a, b)
    x, g = outs[0], cts[0]
    gb = _tsolve(a, g, lower, not adjoint)
    ga = -_linalg.matmul(x, _T(gb)) if adjoint else -_linalg.matmul(gb, _T(x))
    return (tril(ga) if lower else triu(ga)), gb


def lu_grad(cts, args, outs, output_idx_type=None):
    x = args[0]
    _real("lu", x)
    lu, perm = outs
    g = cts[0]
    n = x.shape[-1]
    if n is None:
        raise NotImplementedError("the gradient of lu needs the matrix size while tracing")
    low = tril(lu, -1) + eye(n, dtype=lu.dtype)
    up = triu(lu)
    middle = tril(_linalg.matmul(_T(low), tril(g, -1)), -1) + triu(_linalg.matmul(triu(g),
                                                                                  _T(up)))
    y = _tsolve(low, middle, True, True)  # L^-T middle
    gp = _T(_tsolve(up, _T(y), False, False))  # (L^-T middle) U^-T
    inverse = argsort(perm, axis=-1)
    return (take_along_axis(gp, expand_dims(inverse, -1), axis=-2),)


def _frechet_adjoint(op, name):
    def grad(cts, args, outs):
        x, g = args[0], cts[0]
        n = x.shape[-1]
        if n is None:
            raise NotImplementedError(f"the gradient of {name} needs the matrix size while "
                                      "tracing")
        xt = _T(x).astype(outs[0].dtype)
        g = g.astype(outs[0].dtype)
        big = concatenate([concatenate([xt, g], axis=-1),
                           concatenate([zeros_like(xt), xt], axis=-1)], axis=-2)
        return (bind(op, big)[..., :n, n:],)
    grad.__name__ = f"{name}_grad"
    return grad


# --------------------------------------------------------------------------- batching
def triangular_solve_batch(args, dims, **attrs):
    """The stack dims line up after the batch axis: the operand with fewer gets ones
    there (an unbatched one broadcasts from the right)."""
    (a, b), (da, db) = args, dims
    ra, rb = bu.example_rank(a, da), bu.example_rank(b, db)
    if ra is None or rb is None or ra < 2 or rb < 2:
        return NotImplemented
    a, b = bu.to_front(a, da), bu.to_front(b, db)
    if da is not None and rb > ra:
        a = bu.bind_expand(a, *range(1, 1 + rb - ra))
    if db is not None and ra > rb:
        b = bu.bind_expand(b, *range(1, 1 + ra - rb))
    return bind(lt.TRIANGULAR_SOLVE, a, b, **attrs), 0


lt.TRIANGULAR_SOLVE.grad = triangular_solve_grad
lt.TRIANGULAR_SOLVE.batch = triangular_solve_batch
lt.LU.grad = lu_grad
for _op in (lt.LU, lt.EXPM, lt.SQRTM, lt.LOGM):
    _op.batch = stacked(_op)
for _op in (lt.EXPM, lt.SQRTM, lt.LOGM):
    _op.grad = _frechet_adjoint(_op, _op.name)
