"""The seed workloads shared by several tables, each written once: graphc and NumPy forms."""

from __future__ import annotations

import numpy as np

import graphc as gc


def power(x, y):
    """The seed's ``power(x, y)``: ``y`` chained 10x10 int32 matmuls (unrolled in a trace)."""
    result = gc.eye(10, dtype=gc.int32)
    for _ in range(y):
        result = gc.matmul(x, result)
    return result


def np_power(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = np.matmul(x, result)
    return result


def newton_sqrt(a):
    """Newton's square root of a vector until max|x*x - a| < 1e-6 (AutoGraph: a while)."""
    x = a
    while gc.reduce_max(gc.abs(x * x - a)) >= 1e-6:
        x = 0.5 * (x + a / x)
    return x


def np_newton_sqrt(a):
    x = a
    while np.max(np.abs(x * x - a)) >= 1e-6:
        x = 0.5 * (x + a / x)
    return x


def collatz_steps(n):
    """Collatz steps of ``n`` (AutoGraph: a scalar while with an if inside)."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps
