"""Two helpers of ``Function`` (``function.py``): the retracing warning, and a function
bound to an instance through a weak reference (``Function.__get__``)."""

from __future__ import annotations

import functools
import inspect
import weakref

from graphc import errors, source_info
from graphc.errors import RetracingWarning

RETRACE_WINDOW = 10  # calls looked at for the retracing warning
RETRACE_LIMIT = 5  # traces within the window that trigger it


def maybe_warn(fn, reason) -> None:
    """Warn (``RetracingWarning``, at the user's call) when ``fn`` traced
    ``RETRACE_LIMIT`` times in its last ``RETRACE_WINDOW`` calls; again only after as many
    more traces."""
    traced = fn._recent.count(True)  # one C call: atomic against appends
    if traced < RETRACE_LIMIT:
        return
    if fn._warned and fn._traces_since_warning < RETRACE_LIMIT:
        return
    fn._warned = True
    fn._traces_since_warning = 0
    loc = source_info.user_frame(1)
    where = f" (called at {loc[0]}:{loc[1]})" if loc else ""
    errors.warn(RetracingWarning(
        f"gc.function '{fn.__name__}' traced {traced} times in its last "
        f"{len(fn._recent)} calls{where}; tracing is slow. Latest reason: {reason}. "
        "Pass tensors instead of Python values that change, or set input_signature "
        "(or reduce_retracing=True) so one trace serves many shapes. "
        "All reasons: fn.retrace_reasons."))


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
