"""Calling NumPy and Python from graphs: gc.numpy_function, gc.py_function, gc.print.

Inside a gc.function, tensors are symbolic: `np.sqrt(x)` or `x.numpy()` has no value to
work on while tracing. `gc.numpy_function` / `gc.py_function` put a call to your Python
function into the graph; it runs on real values every time the graph runs.

Run: python examples/numpy_interop.py
"""

import numpy as np

import graphc as gc


# 1. A NumPy function on ndarrays: np.sqrt through numpy_function.
@gc.function
def numpy_sqrt(x):
    return gc.numpy_function(np.sqrt, [x], gc.float32)


print("sqrt:\n", numpy_sqrt(gc.constant([[4.0, 9.0], [16.0, 25.0]])))


# 2. py_function hands your function eager tensors: call .numpy() yourself.
def numpy_mean(x):
    return np.mean(x.numpy())


@gc.function
def mean_of(x):
    return gc.py_function(numpy_mean, [x], gc.float32)


print("mean:", mean_of(gc.constant([1.0, 2.0, 3.0, 6.0])))


# 3. A threshold mask computed by NumPy, with a tensor threshold.
def threshold_mask(data, threshold):
    return np.where(data > threshold, data, 0)


@gc.function
def keep_above(data, threshold):
    return gc.numpy_function(threshold_mask, [data, threshold], gc.float32)


print("above 0.5:", keep_above(gc.constant([0.2, 0.7, 0.4, 0.9]), gc.constant(0.5)))


# 4. A percentile score through py_function.
def percentile_75(values):
    return np.percentile(values.numpy(), 75, method="nearest")


@gc.function
def score(values):
    return gc.py_function(percentile_75, [values], gc.float32)


print("75th percentile of 10..100:", score(gc.constant(np.arange(10, 101, 10), gc.float32)))


# 5. A circular mask built by NumPy inside one gc.function, used from another.
def circle_mask(size, radius):
    size = int(size)
    yy, xx = np.mgrid[:size, :size]
    center = (size - 1) / 2
    inside = (yy - center) ** 2 + (xx - center) ** 2 <= float(radius) ** 2
    return inside.astype(np.float32)[:, :, None]  # (size, size, 1): broadcasts over RGB


@gc.function
def make_mask(size, radius):
    return gc.numpy_function(circle_mask, [size, radius], gc.float32)


@gc.function
def apply_mask(image):
    return image * make_mask(128, 40.0)  # the inner function is traced into this graph


image = gc.ones([1, 128, 128, 3])
masked = apply_mask(image)
print("masked image:", masked.shape, "pixels kept per channel:",
      int(masked.numpy()[0, :, :, 0].sum()))
print("the mask's shape is unknown in the graph:",
      apply_mask.get_concrete_function(image).output_shapes)


# 6. Python control flow on values inside py_function: log_huber.
def log_huber(x, m):
    if gc.abs(x) <= m:  # x and m are eager tensors here, so a Python `if` works
        return x ** 2
    return m ** 2 * (1 - 2 * gc.math.log(m) + gc.math.log(x ** 2))


@gc.function
def huber_loss(x, m):
    return gc.py_function(log_huber, [x, m], gc.float32)


for value in (0.5, 4.0):
    print(f"log_huber({value}, 1.0) =", huber_loss(gc.constant(value), gc.constant(1.0)))


# 7. gc.print runs on every call, in order with the other effects; Python print does not.
calls = gc.Variable(0)


@gc.function
def traced_step(x):
    print("python print: only while tracing")
    calls.assign_add(1)
    gc.print("call", calls, "got", x)
    return gc.numpy_function(np.cumsum, [x], gc.int64)


for i in range(3):
    traced_step(gc.constant([i, 1], gc.int64))


# 8. Errors raised inside your function keep their type, with a note saying where.
def reject(x):
    raise ValueError("negative values are not allowed")


@gc.function
def checked(x):
    return gc.numpy_function(reject, [x], gc.float32)


try:
    checked(gc.constant([-1.0]))
except ValueError as e:
    traced_at = e.__notes__[0].rsplit("traced at ", 1)[-1].rstrip(")")
    print("ValueError:", e, "| note: traced at", traced_at.rsplit("/", 1)[-1])

print("\nThe graph of traced_step:")
print(traced_step.get_concrete_function(gc.constant([0, 1], gc.int64)).graph)
