"""Table "vectorize": per-example gradients of the TF NumPy guide's MLP, compiled.

``loss_i = sum((relu(x_i @ w1 + b) @ w2 - labels_i)**2)`` for a batch of 128 (x 128x32
float32, w1 32x64, b 64, w2 64x2); the gradient of each example's loss with respect to
(w1, b, w2), as a ``gc.function`` (compiled by Numba before timing) calling

* ``gc.vectorized_map`` over the examples (the batching transform: one batched graph),
* ``gc.map_fn`` over the examples (a compiled ``while_loop``, one example per trip);
  target: vectorized_map >= 20x faster,
* and ``jax.jit(jax.vmap(jax.grad(loss_i)))`` when JAX imports; target <= 1.0x.
"""

from __future__ import annotations

import numpy as np

import graphc as gc
import graphc.numpy as gnp
from benchmarks.bench_autodiff import _check, _compiled
from benchmarks.runner import (
    Settings,
    fmt_ratio,
    fmt_time,
    measure,
    optional_frameworks,
    render_table,
    yes_no,
)

BATCH = 128


def data():
    rng = np.random.default_rng(0)
    f32 = np.float32
    return ((rng.normal(size=(BATCH, 32))).astype(f32),
            (rng.normal(size=(32, 64)) * 0.2).astype(f32),
            (rng.normal(size=64) * 0.1).astype(f32),
            (rng.normal(size=(64, 2)) * 0.2).astype(f32),
            rng.normal(size=(BATCH, 2)).astype(f32))


def example_loss(x, w1, b, w2, label, np_=gnp):
    h = np_.maximum(x @ w1 + b, 0.0)
    return np_.sum((h @ w2 - label) ** 2)


def _example_grads(w1, b, w2):
    def grads(example):
        x, label = example
        with gc.GradientTape() as tape:
            tape.watch([w1, b, w2])
            value = example_loss(x, w1, b, w2, label)
        return tuple(tape.gradient(value, [w1, b, w2]))
    return grads


def vectorized(x, w1, b, w2, labels):
    return gc.vectorized_map(_example_grads(w1, b, w2), (x, labels))


def looped(x, w1, b, w2, labels):
    return gc.map_fn(_example_grads(w1, b, w2), (x, labels),
                     fn_output_signature=(gc.float32, gc.float32, gc.float32))


def np_per_example(x, w1, b, w2, labels):
    """The per-example gradients by hand in NumPy (the check)."""
    z = x @ w1 + b
    h = np.maximum(z, 0)
    dp = 2 * (h @ w2 - labels)                      # (n, 2)
    dz = (dp @ w2.T) * (z > 0)                      # (n, 64)
    return x[:, :, None] * dz[:, None, :], dz, h[:, :, None] * dp[:, None, :]


def _jax_case(jax, arrays):
    import jax.numpy as jnp

    grad = jax.grad(lambda *a: example_loss(*a, np_=jnp), argnums=(1, 2, 3))
    fn = jax.jit(jax.vmap(grad, in_axes=(0, None, None, None, 0)))
    args = tuple(jnp.asarray(a) for a in arrays)
    _check(fn(*args), np_per_example(*arrays))   # compiles outside the timing
    return (lambda *a: jax.block_until_ready(fn(*a))), args


def run(settings=None) -> str:
    """Measure and return the table (``settings``: a ``Settings`` or ``quick`` bool)."""
    if not isinstance(settings, Settings):
        settings = Settings(quick=bool(settings))
    arrays = data()
    tensors = [gnp.asarray(a) for a in arrays]
    want = np_per_example(*arrays)
    vec, loop = _compiled(vectorized, tensors), _compiled(looped, tensors)
    _check(vec(*tensors), want)
    _check(loop(*tensors), want)
    cases = {"vectorized_map": (vec, tensors), "map_fn": (loop, tensors)}
    jax = optional_frameworks().get("JAX")
    if jax is not None:
        cases["JAX"] = _jax_case(jax, arrays)
    t = measure(cases, settings)
    speedup = t["map_fn"] / t["vectorized_map"]
    rows = [["gc.function: map_fn vs vectorized_map (speedup)", fmt_time(t["map_fn"]),
             fmt_time(t["vectorized_map"]), f"{speedup:.1f}x faster", ">= 20x faster",
             yes_no(speedup >= 20)]]
    if "JAX" in t:
        r = t["vectorized_map"] / t["JAX"]
        rows.append(["gc.function(vectorized_map) vs jax.jit(jax.vmap(jax.grad))",
                     fmt_time(t["JAX"]), fmt_time(t["vectorized_map"]), fmt_ratio(r),
                     "<= 1.00x", yes_no(r <= 1.0)])
    notes = (
        f"MLP per-example gradients: x f32[{BATCH},32], w1 f32[32,64], b f32[64], "
        "w2 f32[64,2]; d/d(w1, b, w2) of each example's sum((relu(x@w1+b)@w2 - y)**2)",
        "gc.function compiled by Numba (GRAPHC_JIT=eager) before timing; whole call "
        "(dispatch included)",
        *(["JAX = jax.jit(jax.vmap(jax.grad(loss_i, argnums=(1, 2, 3)))), "
           "block_until_ready included"] if jax is not None
          else ["JAX not installed: its row is skipped"]),
    )
    return render_table("vectorize: per-example gradients, vectorized_map vs map_fn",
                        ["workload", "baseline", "graphc", "ratio", "target", "met?"],
                        rows, notes)


if __name__ == "__main__":
    print(run(Settings(quick=True)))
