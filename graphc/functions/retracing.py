"""Two helpers of ``Function`` (``function.py``): the retracing warning, and a function
bound to an instance through a weak reference (``Function.__get__``).

The warning looks at a window of recent calls shared by every ``gc.function`` of one
Python function (keyed by its code, through ``__wrapped__``, as TensorFlow keys it): a
``gc.function`` made anew for each call traces each time, and that warns too, as do
the bound functions of many instances of a class that each trace once.
"""

from __future__ import annotations

import collections
import functools
import inspect
import threading
import weakref

from graphc import errors, source_info
from graphc.errors import RetracingWarning

RETRACE_WINDOW = 10  # calls looked at for the retracing warning
RETRACE_LIMIT = 5  # traces within the window that trigger it


class Window:
    """The recent calls of the ``gc.function``s of one Python function: whether each
    traced (``recent``, appended by ``Function``), and the warning's state."""

    __slots__ = ("recent", "warned", "since_warning", "__weakref__")

    def __init__(self):
        self.recent = collections.deque(maxlen=RETRACE_WINDOW)
        self.warned, self.since_warning = False, 0


_windows: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # code -> Window
_lock = threading.Lock()  # guards _windows and every Window's warning state


def window_for(python_function) -> Window:
    """The ``Window`` shared by the ``gc.function``s of ``python_function``'s code (a
    new one for a callable without code)."""
    target = python_function
    for _ in range(100):  # a __wrapped__ chain (bound methods: ``weak_method``)
        inner = getattr(target, "__wrapped__", None)
        if inner is None:
            break
        target = inner
    code = getattr(getattr(target, "__func__", target), "__code__", None)
    if code is None:
        return Window()
    with _lock:
        window = _windows.get(code)
        if window is None:
            window = _windows[code] = Window()
        return window


def maybe_warn(fn, reason) -> None:
    """Warn (``RetracingWarning``, at the user's call) when the ``gc.function``s of
    ``fn``'s Python function traced ``RETRACE_LIMIT`` times in their last
    ``RETRACE_WINDOW`` calls; again only after as many more traces."""
    window = fn._window
    with _lock:
        window.since_warning += 1
        traced = window.recent.count(True)  # one C call: atomic against appends
        if traced < RETRACE_LIMIT:
            return
        if window.warned and window.since_warning < RETRACE_LIMIT:
            return
        window.warned, window.since_warning = True, 0
    loc = source_info.user_frame(1)
    where = f" (called at {loc[0]}:{loc[1]})" if loc else ""
    errors.warn(RetracingWarning(
        f"gc.function '{fn.__name__}' traced {traced} times in its last "
        f"{len(window.recent)} calls{where}; tracing is slow. Latest reason: {reason}. "
        "Pass tensors instead of Python values that change, or set input_signature "
        "(or reduce_retracing=True) so one trace serves many shapes; make the "
        "gc.function once, not for each call. All reasons: fn.retrace_reasons."))


def weak_method(fn, instance):
    """``fn`` bound to ``instance`` through a weak reference (no instance leaks)."""
    ref = weakref.ref(instance)

    @functools.wraps(fn)
    def method(*args, **kwargs):
        obj = ref()
        if obj is None:
            raise ReferenceError(f"the instance {fn.__qualname__} was bound to is gone")
        return fn(obj, *args, **kwargs)

    sig = inspect.signature(fn)
    method.__signature__ = sig.replace(parameters=list(sig.parameters.values())[1:])
    return method
