"""Per-example gradients, the TensorFlow NumPy guide's scenario.

The guide's MLP, ``pred = relu(x @ w1 + b) @ w2`` with a squared-error loss: the gradient
of each example's loss with respect to the weights, for every example of a batch. With
``gc.map_fn`` that is a loop over the examples; with ``gc.vectorized_map`` the per-example
function (a GradientTape inside) is traced once and rewritten into one computation over
the whole batch (matmuls become batched matmuls). Both run compiled in a gc.function;
they must agree, and the timings show what vectorizing buys.
"""

import time

import numpy as np

import graphc as gc
import graphc.numpy as gnp

rng = np.random.default_rng(0)
x = rng.standard_normal((128, 32)).astype(np.float32)
labels = rng.standard_normal((128, 2)).astype(np.float32)
w1 = gc.constant((rng.standard_normal((32, 64)) * 0.2).astype(np.float32))
b = gc.constant((rng.standard_normal(64) * 0.1).astype(np.float32))
w2 = gc.constant((rng.standard_normal((64, 2)) * 0.2).astype(np.float32))


def example_grads(example):
    """Gradients of one example's loss with respect to (w1, b, w2)."""
    xi, yi = example
    with gc.GradientTape() as tape:
        tape.watch([w1, b, w2])
        pred = gnp.maximum(xi @ w1 + b, 0.0) @ w2
        loss = gnp.sum((pred - yi) ** 2)
    return tuple(tape.gradient(loss, [w1, b, w2]))


signature = (gc.float32, gc.float32, gc.float32)


@gc.function
def vectorized(x, labels):
    return gc.vectorized_map(example_grads, (x, labels))


@gc.function
def looped(x, labels):
    return gc.map_fn(example_grads, (x, labels), fn_output_signature=signature)


def timed(fn, runs=20):
    fn(x, labels)   # trace and compile outside the timing
    start = time.perf_counter()
    for _ in range(runs):
        out = fn(x, labels)
    return out, (time.perf_counter() - start) / runs


(g_vec, t_vec), (g_loop, t_loop) = timed(vectorized), timed(looped)
for name, a, c in zip(("w1", "b", "w2"), g_vec, g_loop):
    np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-4, atol=1e-5)
    print(f"per-example d loss / d {name}: shape {tuple(a.shape)}, vectorized_map == map_fn")

# the same gradients one example at a time, eagerly, for the first two examples
for i in range(2):
    want = example_grads((gc.constant(x[i]), gc.constant(labels[i])))
    for a, w in zip(g_vec, want):
        np.testing.assert_allclose(a.numpy()[i], w.numpy(), rtol=1e-4, atol=1e-5)

print(f"vectorized_map: {t_vec * 1e3:.3f} ms per batch of 128")
print(f"map_fn:         {t_loop * 1e3:.3f} ms per batch of 128 "
      f"({t_loop / t_vec:.1f}x the vectorized time)")
