"""The ``numba`` table's workloads written for JAX (``jax.jit``), timed when JAX imports.

Each function returns a ``(fn, args)`` case for ``runner.measure`` that includes waiting
for the result (``block_until_ready``), or None for a kind it has no version of.
Float64 workloads need JAX's x64 mode: :func:`x64` turns it on for the duration of a
table and restores the previous setting.
"""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def x64(jax):
    old = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", old)


def jax_case(jax, kind: str, arr, extra):
    import jax.numpy as jnp
    from jax import lax

    def plus_one(x):
        return x + 1

    def sigmoid(x):
        return 1.0 / (1.0 + jnp.exp(-x))

    def chain(x):
        from benchmarks.bench_numba import chain as graphc_chain

        return graphc_chain(x, jnp)

    def gelu_softplus(x):
        from benchmarks.bench_numba import gelu_softplus as graphc_gelu_softplus

        return graphc_gelu_softplus(x, jnp)

    def power(x):
        result = jnp.eye(10, dtype=jnp.int32)
        for _ in range(extra[0] if extra else 100):
            result = jnp.matmul(x, result)
        return result

    def newton(a):
        return lax.while_loop(lambda x: jnp.max(jnp.abs(x * x - a)) >= 1e-6,
                              lambda x: 0.5 * (x + a / x), a)

    def collatz(n):
        def body(state):
            n, steps = state
            return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1
        return lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int64(0)))[1]

    fns = {"plus_one": plus_one, "sigmoid": sigmoid, "chain": chain, "power": power,
           "newton": newton, "collatz": collatz, "gelu_softplus": gelu_softplus}
    if kind not in fns:
        return None
    jitted = jax.jit(fns[kind])
    x = jnp.asarray(arr)
    jitted(x).block_until_ready()  # compile outside the timing
    return (lambda a: jitted(a).block_until_ready()), (x,)


def jax_mlp_grad(jax, arrays, loss):
    """The ``autodiff`` table's MLP gradient as ``jax.jit(jax.grad(loss))`` with respect
    to (w1, b, w2); ``loss(x, w1, b, w2, labels, np_)`` is the table's own model."""
    import jax.numpy as jnp

    grad = jax.jit(jax.grad(lambda *a: loss(*a, np_=jnp), argnums=(1, 2, 3)))
    args = tuple(jnp.asarray(a) for a in arrays)
    jax.block_until_ready(grad(*args))  # compile outside the timing
    return (lambda *a: jax.block_until_ready(grad(*a))), args
