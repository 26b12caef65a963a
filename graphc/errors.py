"""User-facing exceptions and warnings. Each says what went wrong and what to do about it.

Every graphc warning is issued through :func:`warn`, which attributes it to the user's own
line (the innermost frame outside graphc, lines of AutoGraph-generated code mapped back
to the user's source), so ``warnings`` filters by module and the ``file:line`` shown are
the user's, never graphc's.
"""

from __future__ import annotations

import warnings

from graphc import source_info

_registries: dict = {}  # user file of a mapped (generated-code) frame -> warning registry


def warn(message, category=None, at=None) -> None:
    """Issue ``message`` (a string with ``category``, or a Warning instance) at the user's
    call site: the innermost frame that is not graphc's own code; ``at=(file, line)``
    names the site instead (a warning from a background thread: where the user's code
    was traced)."""
    site = source_info.user_site(2) if at is None else (at[0], at[1], None)
    if site is None:  # no user frame (graphc calling itself): the caller's line
        warnings.warn(message, category, stacklevel=3)
        return
    filename, lineno, frame = site
    if frame is not None and frame.f_code.co_filename == filename:
        g = frame.f_globals
        module, registry = g.get("__name__", "<string>"), g.setdefault(
            "__warningregistry__", {})
    else:  # generated code mapped back to the user's file
        module, registry = filename, _registries.setdefault(filename, {})
    if isinstance(message, Warning):
        category = type(message)
    warnings.warn_explicit(message, category or UserWarning, filename, lineno,
                           module=module, registry=registry)


class InvalidArgumentError(ValueError):
    """An op got a value it cannot work on, found while it ran.

    Example: ``gc.gather(gnp.arange(3), [5])`` -> index 5 is out of range for an axis of
    size 3. The message names the op, the shapes involved and the line of your code.
    Fix the value (or guard the op with ``gc.cond``/an ``if`` on a tensor).
    """


class InvalidIndexError(InvalidArgumentError, IndexError):
    """An index was out of range (also an ``IndexError``, so NumPy-style
    ``except IndexError`` code keeps working)."""


class SymbolicTensorError(TypeError):
    """A traced (symbolic) tensor was asked for its concrete value.

    While ``gc.function`` traces, tensors stand for values of future calls, so
    ``.numpy()``, ``float(t)``, ``bool(t)`` or ``np.asarray(t)`` have nothing to return.
    Use graphc ops instead, or ``gc.numpy_function`` / ``gc.py_function`` to run
    NumPy/Python code at run time, ``gc.print`` to print values, or
    ``gc.run_functions_eagerly(True)`` to debug.
    """


class RetracingWarning(UserWarning):
    """A ``gc.function`` traced many times in a short window.

    The warning names the argument that changed (e.g. ``argument 'n': Python int 3 -> 4``).
    Pass tensors instead of Python numbers, or set ``input_signature`` /
    ``reduce_retracing=True``.
    """


class AliasError(ValueError):
    """A write (``t[k] = v``, ``t += u``, ...) that graphc cannot give NumPy's meaning while
    tracing: through a view whose aliasing depends on memory layout, a use of such a view
    after its base was written, or a write inside a tensor-dependent branch or loop into a
    tensor made outside it. The message names the lines involved."""


class AutographError(ValueError):
    """AutoGraph could not convert a Python construct on tensors.

    The message names the variable, file and line, e.g. a variable defined in only one
    branch of an ``if`` on a tensor: define it before the ``if``.
    """


class AutographDtypeError(AutographError, TypeError):
    """A loop variable changed its dtype in one iteration: an ``AutographError`` that is
    also a ``TypeError``, the type TensorFlow raises for it."""


class AutographStructureError(AutographError, TypeError):
    """The branches of a ``cond`` / ``switch_case`` return different structures: an
    ``AutographError`` that is also a ``TypeError``, the type TensorFlow raises for it."""


class DeviceError(RuntimeError):
    """A device was requested that does not exist; the message lists those that do."""


class FallbackWarning(RuntimeWarning):
    """A gc.function runs on the NumPy interpreter because some op cannot be compiled.

    The message lists each blocking node and its source line. To silence it, use
    ``backend="numpy"`` for that function, or ``warnings.simplefilter("ignore",
    FallbackWarning)``.
    """


class FallbackError(RuntimeError):
    """Raised instead of falling back when strict compilation was asked for."""


class VectorizationWarning(RuntimeWarning):
    """gc.vectorized_map met ops with no batching rule (or a case their rule does not
    cover) and runs each of them in a loop over the batch inside the program.

    One warning per call lists every such op; ``fallback_to_while_loop=False`` raises
    ``ValueError`` instead.
    """


class SavedModelError(ValueError):
    """A saved-graph directory cannot be written or read.

    Saving: a graph holds something the format cannot represent (a Python callback, an
    attr type without an entry in the attr table); the message names the op and attr.
    Loading: the directory is malformed, truncated, tampered with or from a newer format
    version, e.g. ``graph.json: graphs[0].nodes[3]: op 'frobnicate' is not a registered
    graphc op``. Nothing from a saved directory is evaluated, so re-save it with a
    graphc that can write it.
    """
