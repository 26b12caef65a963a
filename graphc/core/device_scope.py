"""``gc.device(name)``: the per-thread stack of device scopes.

Each thread has its own stack (a new thread starts with none: everything on the CPU).
``placing`` holds one entry per open scope on a device other than the CPU, in any
thread, so the hot eager paths test one plain list and read the thread-local stack
only while some thread places work on an accelerator: ``if placing and local.stack``.
"""

from __future__ import annotations

import threading

from graphc.core import device_names as names


class _ThreadState(threading.local):
    def __init__(self):
        self.stack: list[str | None] = []  # short names (None: cleared), innermost last


local = _ThreadState()
placing: list[str] = []  # list.append/remove are atomic: safe across threads


def current():
    """The calling thread's innermost device scope (a short name), or ``None``."""
    stack = local.stack
    return stack[-1] if stack else None


class device:
    """Place eager ops, new tensors and ``gc.function`` calls on a device.

    ``name`` is a short name (``"cpu:0"``, ``"cuda:0"``), a TensorFlow spelling
    (``"/device:GPU:0"``, ``"/GPU:0"``, ``"GPU:0"``,
    ``"/job:localhost/replica:0/task:0/device:CPU:0"``) or a ``LogicalDevice``. A device
    that does not exist raises ``gc.errors.DeviceError`` here, listing those that do.
    Scopes nest (the innermost wins) and belong to the thread that opens them.
    ``gc.device(None)`` clears the enclosing scopes until it ends (``tf.device(None)``):
    work runs where its tensors are, new tensors on the CPU.

    >>> with gc.device("cpu:0"):
    ...     t = gc.constant([1.0, 2.0])
    >>> t.device
    'cpu:0'
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = None if name is None else names.resolve(name)

    def __enter__(self):
        local.stack.append(self.name)
        if self.name not in (names.CPU, None):
            placing.append(self.name)
        return self

    def __exit__(self, *exc):
        name = local.stack.pop()
        if name not in (names.CPU, None):
            placing.remove(name)
        return False

    def __repr__(self):
        return f"gc.device({self.name!r})"
