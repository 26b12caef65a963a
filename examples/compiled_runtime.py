"""The Numba runtime: a whole training loop, variables included, as one compiled program.

Run ``python examples/compiled_runtime.py``. It fits a linear model by gradient descent
inside one ``gc.function``: AutoGraph turns the ``for`` over a tensor range into a
``while_loop``, the variable updates compile into the same program (docs/runtime.md,
"Variables"), and ``jit_compile=True`` makes any fallback to Python an error instead of
a warning. Then it shows how the call runs (``explain``) and what the compiled-program
cache holds (``gc.cache.info()``). Run it twice: the second run links the program's
machine code from the cache at its first call, without importing Numba.
"""

from __future__ import annotations

import numpy as np

import graphc as gc

rng = np.random.default_rng(0)
X = rng.standard_normal((256, 3))
true_w = np.array([2.0, -1.0, 0.5])
y = X @ true_w + 0.3 + 0.01 * rng.standard_normal(256)

w = gc.Variable(np.zeros(3), name="w")
b = gc.Variable(0.0, name="b")


@gc.function(jit_compile=True)  # compiled on the first call; a fallback would raise
def fit(X, y, steps, lr):
    n = gc.cast(gc.shape(X)[0], gc.float64)
    for _ in gc.range(steps):                  # a while_loop in the graph, native in Numba
        err = gc.matmul(X, w) + b - y
        w.assign_sub(lr * gc.matmul(gc.transpose(X), err) / n)
        b.assign_sub(lr * gc.reduce_mean(err))
    return gc.reduce_mean((gc.matmul(X, w) + b - y) ** 2)


loss = fit(X, y, gc.constant(200), gc.constant(0.1))
print(f"loss after 200 steps: {float(loss):.6f}")
print("w =", np.round(w.numpy(), 3), " b =", round(float(b.numpy()), 3))
loss = fit(X, y, gc.constant(100), gc.constant(0.1))  # same trace: the variables carry on
print(f"loss after 300 steps: {float(loss):.6f}")

print("\nHow the call runs:")
print(fit.get_concrete_function(X, y, gc.constant(1), gc.constant(0.1)).runtime.explain())
info = gc.cache.info()
print(f"\nprogram cache: {info['programs']} program(s) on disk ({info['native']} with machine "
      f"code a later run links without importing Numba), {info['in_memory']} in memory")
