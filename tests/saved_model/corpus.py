"""Small traced graphs that reach the ops a one-op registry walk cannot bind alone.

``CORPUS`` maps a name to ``(build, args)``: ``build()`` returns a fresh ``gc.function``
(so each test traces its own), ``args`` the NumPy arguments it is called with. Control
flow, variables, effects, Python callbacks, TensorArrays, the saving loop of a loop
gradient and shape operands known only at run time are all here; the attr-declaration
walk traces them and the round-trip test saves and reloads those without callbacks.
"""

from __future__ import annotations

import numpy as np

import graphc as gc
import graphc.numpy as gnp

F32 = np.float32


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(F32)


def _branches():
    @gc.function
    def f(x, i):
        y = x
        n = gc.constant(0)
        while n < 2:  # a cond and a switch_case inside a while body
            if gc.reduce_max(y) > 1.0:
                y = y * 0.5
            else:
                y = y + gc.switch_case(i, [lambda: gc.abs(y), lambda: -y])
            n += 1
        return y
    return f


def _variables():
    v = gc.Variable(np.arange(3, dtype=F32), name="acc")

    @gc.function
    def f(x):
        v.assign_add(x)
        v.assign(v * 0.5)
        return v.read_value() + 1.0
    return f


def _effects():
    @gc.function
    def f(x):
        gc.print("x:", x, [x, 1], end="\n")
        gc.debugging.assert_less(x, 100.0, message="small")
        gc.debugging.Assert(gc.reduce_all(x < 100.0), ["x is", x])
        return x + 1.0
    return f


def _callbacks():
    @gc.function
    def f(x):
        a = gc.numpy_function(np.sin, [x], gc.float32)
        b = gc.numpy_function(np.cos, [x], gc.float32, stateful=False)
        c = gc.py_function(lambda t: t * 2.0, [x], gc.float32)
        return a + b + c
    return f


def _tensor_array():
    @gc.function
    def f(x):
        ta = gc.TensorArray(gc.float32, size=0, dynamic_size=True)
        for i in gc.range(3):
            ta = ta.write(i, x * gc.cast(i, gc.float32))
        return ta.stack() + ta.read(1)
    return f


def _loop_gradient():
    @gc.function
    def f(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in gc.range(3):
                y = gc.sqrt(y * y + 1.0)
            loss = gc.reduce_sum(y)
        return tape.gradient(loss, x)
    return f


def _dynamic_shapes():
    @gc.function(input_signature=[gc.TensorSpec([None, 2], gc.float32),
                                  gc.TensorSpec([], gc.int32)])
    def f(x, n):
        rows = gc.shape(x)[0]
        flat = gc.reshape(x, [rows * 2])
        filled = gc.fill([n, 2], 1.5)
        wide = gc.broadcast_to(gc.constant([1.0, 2.0]), [rows, 2])
        tiled = gc.tile(x, [n, 1])
        padded = gc.pad(x, [[0, n], [1, 1]])
        return flat, filled, wide + x, tiled, padded
    return f


def _numpy_api():
    @gc.function
    def f(x):
        y = gnp.cumsum(x, axis=1) + gnp.flip(x, axis=0)
        z = gnp.concatenate([y, x], axis=0)[1:, ::-1]
        s = gnp.std(z, axis=0, ddof=1) + gnp.mean(z, axis=1, keepdims=True)[0]
        return gnp.round(gnp.where(s > 0, s, -s), 2), gnp.argsort(x, axis=-1)
    return f


CORPUS = {
    "branches": (_branches, (_x(4), np.array(1, np.int32))),
    "variables": (_variables, (_x(3),)),
    "effects": (_effects, (_x(3),)),
    "callbacks": (_callbacks, (_x(3),)),
    "tensor_array": (_tensor_array, (_x(2),)),
    "loop_gradient": (_loop_gradient, (_x(3),)),
    "dynamic_shapes": (_dynamic_shapes, (_x(3, 2), np.array(2, np.int32))),
    "numpy_api": (_numpy_api, (_x(3, 4),)),
}
CALLBACKS = {"callbacks"}  # graphs that call back into Python (they refuse to save)


def traced(name):
    """``(gc.function, args)`` with the function traced on ``args``."""
    build, args = CORPUS[name]
    fn = build()
    fn.get_concrete_function(*args)
    return fn, args
