"""A tour of graphc.numpy, following TensorFlow's "NumPy API on TensorFlow" guide.

ND arrays and their attributes, the type promotion table, literal dtypes with and without
``prefer_float32``, broadcasting, indexing, a small model, NumPy interop and operator
precedence between graphc tensors and NumPy arrays.

Run: python examples/numpy_api_tour.py
"""

import numpy as np

import graphc as gc
import graphc.numpy as gnp


def section(title):
    print(f"\n== {title} " + "=" * (70 - len(title)))


# --------------------------------------------------------------------------- ND arrays
section("ND arrays")
ones = gnp.ones([5, 3], dtype=gnp.float32)
print(f"An ND array: shape={ones.shape}, ndim={ones.ndim}, dtype={ones.dtype}, "
      f"size={ones.size}, device={ones.device!r}")
print(f"Its transpose has shape {ones.T.shape}; its type is gc.{type(ones).__name__} "
      f"(isinstance(ones, gnp.ndarray): {isinstance(ones, gnp.ndarray)})")
print("t.numpy() is a", type(ones.numpy()).__name__, "copy; rank 0 gives a NumPy scalar:",
      repr(gnp.asarray(2.5).numpy()))
print("Methods work as in NumPy: ones.sum(axis=0) =", ones.sum(axis=0))

# --------------------------------------------------------------------------- promotion
section("Type promotion (NumPy 2, NEP 50)")
dtypes = [gnp.int32, gnp.int64, gnp.float32, gnp.float64]
values = [gnp.asarray(1, dtype=d) for d in dtypes]
print(" " * 9 + "".join(f"{gnp.dtype(d).name:>9}" for d in dtypes))
for a in values:
    print(f"{a.dtype.name:>9}" + "".join(f"{(a + b).dtype.name:>9}" for b in values))
print("Python scalars are weak: float32 * 2.0 ->", (values[2] * 2.0).dtype,
      "| int32 + 2.5 ->", (values[0] + 2.5).dtype, "| int8 + 1 ->",
      (gnp.asarray(1, dtype=gnp.int8) + 1).dtype)
gc.config.set_dtype_promotion("strict")
try:
    values[2] + values[3]
except TypeError as e:
    print("With set_dtype_promotion('strict'), mixing dtypes raises TypeError:\n   ",
          str(e).split(";")[0])
finally:
    gc.config.set_dtype_promotion("numpy")

# --------------------------------------------------------------------------- literals
section("Literal dtypes")
print("gnp.asarray(1).dtype  =", gnp.asarray(1).dtype, "  gnp.asarray(1.).dtype =",
      gnp.asarray(1.0).dtype)
gnp.experimental_enable_numpy_behavior(prefer_float32=True)
print("with prefer_float32=True:  gnp.asarray(1.) ->", gnp.asarray(1.0).dtype,
      "  gnp.add(1., 2.) ->", gnp.add(1.0, 2.0).dtype)
gnp.experimental_enable_numpy_behavior(prefer_float32=False)
print("with prefer_float32=False: gnp.asarray(1.) ->", gnp.asarray(1.0).dtype,
      "  gnp.add(1., 2.) ->", gnp.add(1.0, 2.0).dtype)
print("TensorFlow-style names use TensorFlow's defaults:\n  gc.constant(1.) ->",
      gc.constant(1.0).dtype, "  gc.constant(1) ->", gc.constant(1).dtype,
      "  gc.range(3) ->", gc.range(3).dtype)

# --------------------------------------------------------------------------- broadcasting
section("Broadcasting")
x = gnp.ones([2, 3])
y = gnp.ones([3])
z = gnp.ones([1, 2, 1])
print(f"Broadcasting shapes {x.shape}, {y.shape} and {z.shape} gives shape {(x + y + z).shape}")
try:
    gnp.ones([2, 3]) + gnp.ones([2])
except gc.errors.InvalidArgumentError as e:
    print("Incompatible shapes raise InvalidArgumentError:", str(e).split(" (at")[0])

# --------------------------------------------------------------------------- indexing
section("Indexing")
x = gnp.arange(24).reshape([2, 3, 4])
print("Basic indexing x[1, gnp.newaxis, 1:3, ...] has shape", x[1, gnp.newaxis, 1:3, ...].shape)
print("Boolean indexing x[:, (True, False, True)] =\n", x[:, (True, False, True)])
print("Advanced indexing x[1, (0, 0, 1), gnp.asarray([0, 1, 1])] =",
      x[1, (0, 0, 1), gnp.asarray([0, 1, 1])])
try:
    x[0, 0, 0] = 100
except TypeError as e:
    print("Tensors are immutable:", str(e).split(":")[0])
print("Use gnp.where instead:", gnp.where(gnp.arange(4) == 2, 100, gnp.arange(4)))


# --------------------------------------------------------------------------- a model
section("Example model: relu(x @ W + b)")


class Model:
    """A dense layer with a relu: one weight matrix and one bias, created on first use."""

    def __init__(self, units):
        self.units = units
        self.weights = None
        self.bias = None

    def predict(self, inputs):
        if self.weights is None:
            size = inputs.shape[1]
            scale = gnp.sqrt(float(size)).astype(gnp.float32)
            self.weights = gnp.random.randn(size, self.units).astype(gnp.float32) / scale
            self.bias = gnp.random.randn(self.units).astype(gnp.float32)
        y = gnp.matmul(inputs, self.weights) + self.bias
        return gnp.maximum(y, 0.0)


gnp.random.seed(0)
model = Model(units=2)
batch = gnp.ones([2, 32], dtype=gnp.float32)
eager = model.predict(batch)
print("Eager output:\n", eager)
traced = gc.function(model.predict)(batch)
print("Same under gc.function:", bool(gnp.all(gnp.abs(traced - eager) < 1e-6)),
      "| dtype stays", traced.dtype)

# --------------------------------------------------------------------------- interop
section("NumPy interoperability")
t = gnp.asarray([[1.0, 2.0], [3.0, 4.0]])
print("gnp functions accept NumPy arrays and lists: gnp.add(np.ones(2), [1, 2]) =",
      gnp.add(np.ones(2), [1, 2]))
s = np.sum(t)
print(f"NumPy functions accept tensors and return NumPy values: np.sum(t) = {s!r}")
print("np.asarray(t) is a read-only", type(np.asarray(t)).__name__, "view:",
      not np.asarray(t).flags.writeable)

# --------------------------------------------------------------------------- precedence
section("Operator precedence")
print("gc.Tensor.__array_priority__ =", gc.Tensor.__array_priority__,
      "> NumPy's", np.ones(1).__array_priority__, "so mixed operators return gc.Tensor:")
print("  type(gnp.ones([2]) + np.ones([2])) =", type(gnp.ones([2]) + np.ones([2])).__name__)
print("  type(np.ones([2]) + gnp.ones([2])) =", type(np.ones([2]) + gnp.ones([2])).__name__)
print("Python's own precedence is unchanged:")
print("  -t ** 2 =", (-t ** 2).numpy().tolist(), "(that is -(t ** 2))")
print("  (t > 1) & (t < 4) =", ((t > 1) & (t < 4)).numpy().tolist())

# --------------------------------------------------------------------------- cleanup
gnp.experimental_enable_numpy_behavior(prefer_float32=False)
gc.config.set_dtype_promotion("numpy")
gnp.random.seed(None)
print("\nDefaults restored: promotion", repr(gc.config.get_dtype_promotion()),
      "| gnp.asarray(1.) is", gnp.asarray(1.0).dtype)
