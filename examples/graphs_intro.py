"""Introduction to graphs and gc.function, following TensorFlow's "Intro to graphs" guide.

Run: python examples/graphs_intro.py
"""

import numpy as np

import graphc as gc


# 1. A regular Python function and its graph version give the same result.
def a_regular_function(x, y, b):
    x = gc.matmul(x, y)
    x = x + b
    return x


a_function_that_uses_a_graph = gc.function(a_regular_function)

x1 = gc.constant([[1.0, 2.0]])
y1 = gc.constant([[2.0], [3.0]])
b1 = gc.constant(4.0)
orig_value = a_regular_function(x1, y1, b1).numpy()
graph_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
print("eager:", orig_value, " graph:", graph_value)
assert orig_value == graph_value


# 2. A gc.function traces through the functions it calls: one graph.
def inner_function(x, y, b):
    x = gc.matmul(x, y)
    x = x + b
    return x


@gc.function
def outer_function(x):
    y = gc.constant([[2.0], [3.0]])
    b = gc.constant(4.0)
    return inner_function(x, y, b)


print("outer_function:", outer_function(gc.constant([[1.0, 2.0]])).numpy())
print(outer_function.get_concrete_function(gc.constant([[1.0, 2.0]])).graph)


# 3. One trace per input signature: three concrete functions for my_relu.
@gc.function
def my_relu(x):
    return gc.maximum(0.0, x)


print(my_relu(gc.constant(5.5)))
print(my_relu([1, -1]))
print(my_relu(gc.constant([3.0, -3.0])))
# These calls reuse the traces above (no new concrete function).
print(my_relu(gc.constant(-2.5)))
print(my_relu([1, -1]))
print(my_relu(gc.constant([-1.0, 1.0])))
print("traces:", my_relu.tracing_count)
print(my_relu.pretty_printed_concrete_signatures())


# 4. Python side effects run once per trace; gc.run_functions_eagerly runs them every call.
@gc.function
def get_MSE(y_true, y_pred):
    print("Calculating MSE!")
    sq_diff = gc.pow(y_true - y_pred, 2)
    return gc.reduce_mean(sq_diff)


y_true = gc.constant(np.array([1, 2, 3, 4, 5]), dtype=gc.int32)
y_pred = gc.constant(np.array([5, 4, 3, 2, 1]), dtype=gc.int32)
for _ in range(3):
    error = get_MSE(y_true, y_pred)
print("MSE:", error.numpy())
gc.run_functions_eagerly(True)
for _ in range(3):
    error = get_MSE(y_true, y_pred)
gc.run_functions_eagerly(False)


# 5. Python numbers are part of the trace key: each new value retraces, and graphc says why.
@gc.function
def scaled(x, n):
    return x * n


for n in (2, 3, 4):
    scaled(gc.constant([1.0, 2.0]), n)
print("retrace reasons:", scaled.retrace_reasons)


# 6. Asking a traced tensor for its value explains what to do instead.
@gc.function
def peek(x):
    return x.numpy()


try:
    peek(gc.constant(1.0))
except gc.errors.SymbolicTensorError as e:
    print("SymbolicTensorError:", str(e)[:120], "...")
