"""graphc in one minute: eager NumPy-style code, then the same code traced into a graph.

Run: python examples/quickstart.py
"""

import numpy as np

import graphc as gc
import graphc.numpy as gnp

# Eager: graphc.numpy behaves like NumPy and returns gc.Tensor values.
x = gnp.linspace(-2.0, 2.0, 5)
print("x        =", x)
print("relu(x)  =", gnp.maximum(x, 0))
print("x.dtype  =", x.dtype, " (NumPy's float64 default)")
print("promote  =", (gnp.ones(2, dtype=gc.float32) * 2.0).dtype, "(Python numbers are weak)")


# Traced: the same code as a graph, keyed by input signature.
@gc.function
def dense_relu(x, w, b):
    return gnp.maximum(x @ w + b, 0.0)


rng = np.random.default_rng(0)
w = gc.constant(rng.normal(size=(3, 2)))
b = gc.constant([0.1, -0.1], dtype=gc.float64)
batch = rng.normal(size=(4, 3))
print("dense_relu(batch) =\n", dense_relu(batch, w, b))
print("eager result equal:", np.allclose(dense_relu(batch, w, b), dense_relu.python_function(
    gc.constant(batch), w, b)))

concrete = dense_relu.get_concrete_function(gc.TensorSpec([None, 3], gc.float64), w, b)
print("\nThe traced graph:")
print(concrete.graph)
print("\nSignatures:")
print(dense_relu.pretty_printed_concrete_signatures())
