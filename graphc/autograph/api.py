"""``to_graph``, ``to_code``, ``do_not_convert`` and which functions get converted.

Converted code is cached per code object (the parse, transform and compile happen once)
and the converted function per function object (closures made in a loop share the
code). A function whose source cannot be read runs unconverted, with one warning.

Not converted (called as they are): graphc, NumPy, Numba, SciPy, networkx and standard
library functions, builtins, ``gc.function`` objects (they apply their own ``autograph``
setting), generators and coroutines, and anything marked ``@do_not_convert``.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
import types
import weakref

from graphc import errors, source_info
from graphc.autograph import origin
from graphc.errors import AutographError

_SKIP_PACKAGES = {"graphc", "numpy", "numba", "scipy", "networkx", "builtins", "pytest",
                  "_pytest", "pluggy"}
_MARK = "__graphc_do_not_convert__"


class AutographWarning(UserWarning):
    """AutoGraph ran a function unconverted; the message says why and what to do."""


class _Entry:
    """One converted code object: its compiled-from AST and readable source."""

    __slots__ = ("node", "ag_name", "source", "error")

    def __init__(self, node=None, ag_name=None, source=None, error=None):
        self.node, self.ag_name, self.source, self.error = node, ag_name, source, error


_by_code: dict[types.CodeType, _Entry] = {}
_by_function: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
# to_graph's wrapper is kept on the converted function itself: a weak-keyed table would
# leak, as the wrapper's closure holds its key (and with it every object the user's
# closure captured) for good
_FILTERED = "__graphc_filtered__"


def do_not_convert(fn=None):
    """Mark ``fn`` so AutoGraph calls it as written (works with and without parentheses).

    >>> @gc.autograph.do_not_convert
    ... def helper(x):
    ...     return x
    """
    if fn is None:
        return do_not_convert
    target = getattr(fn, "python_function", fn)
    setattr(target, _MARK, True)
    return fn


def to_graph(fn, recursive=True):
    """The converted version of ``fn``: the same function with control flow on tensors
    rewritten into ``gc.cond``/``gc.while_loop`` calls (``tf.autograph.to_graph``).

    Errors raised in it hide graphc's internal frames (``GRAPHC_SHOW_INTERNAL_FRAMES=1``
    keeps them).
    """
    fn = getattr(fn, "python_function", fn)
    conv = converted(fn)
    if conv is fn:
        return fn
    if not isinstance(conv, types.FunctionType):  # a bound method, made anew each time
        return _filtering(conv)
    wrapper = conv.__dict__.get(_FILTERED)
    if wrapper is None:
        wrapper = _filtering(conv)
        setattr(conv, _FILTERED, wrapper)  # a cycle, freed with conv
    return wrapper


def to_code(fn, recursive=True) -> str:
    """The converted source of ``fn`` as a string (``tf.autograph.to_code``).

    >>> print(gc.autograph.to_code(simple_relu))   # doctest: +SKIP
    """
    fn = getattr(fn, "python_function", fn)
    func = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(func, types.FunctionType):
        raise TypeError(f"to_code expects a Python function, got {fn!r}")
    entry = _entry(func)
    if entry.error is not None:
        raise AutographError(f"to_code({func.__qualname__}): {entry.error}") from entry.error
    return entry.source


def converted(func):
    """What converted code calls in place of ``func``: its converted version for user
    functions, methods and callable objects, else ``func`` itself."""
    if isinstance(func, types.FunctionType):
        return _convert(func) if _is_user(func) else func
    if isinstance(func, types.MethodType):
        f = func.__func__
        if isinstance(f, types.FunctionType) and _is_user(f):
            conv = _convert(f)
            return func if conv is f else types.MethodType(conv, func.__self__)
        return func
    call = getattr(type(func), "__call__", None)
    if (isinstance(call, types.FunctionType) and not isinstance(func, type)
            and _is_user(call) and not hasattr(func, "python_function")):
        conv = _convert(call)
        return func if conv is call else types.MethodType(conv, func)
    return func


def call(func, /, *args, **kwargs):
    """``func(*args, **kwargs)`` from converted code: the builtins ``operators.call_builtin``
    handles become ops on tensors; user functions, methods and callable objects are
    converted first."""
    out = (_namespace or namespace()).call_builtin(func, args, kwargs)
    return converted(func)(*args, **kwargs) if out is NotImplemented else out


_namespace = None


def namespace() -> types.SimpleNamespace:
    """What converted code sees as ``ag__``: the operators, and ``call`` (which converts);
    built when the first function is converted (also ``api.NAMESPACE``)."""
    global _namespace
    if _namespace is None:
        from graphc.autograph import operators  # deferred: until the first conversion

        _namespace = types.SimpleNamespace(
            **{name: getattr(operators, name) for name in operators.__all__}, call=call)
    return _namespace


def __getattr__(name):
    if name == "NAMESPACE":  # the same object, built on first use
        return namespace()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _is_user(f) -> bool:
    code = f.__code__
    if getattr(f, _MARK, False) or code in origin.generated_codes:
        return False
    if source_info.is_internal(code.co_filename):
        # graphc's own functions run as written, except wrappers of user functions (the
        # bound-method wrapper of gc.function): converting them converts the inner call
        wrapped = getattr(f, "__wrapped__", None)
        return isinstance(wrapped, types.FunctionType) and _is_user(wrapped)
    top = (getattr(f, "__module__", None) or "").split(".")[0]
    if top in _SKIP_PACKAGES or top in sys.stdlib_module_names:
        return False
    return not (inspect.isgeneratorfunction(f) or inspect.iscoroutinefunction(f)
                or inspect.isasyncgenfunction(f))


def _convert(f):
    conv = _by_function.get(f)
    if conv is not None:
        return conv
    entry = _entry(f)
    if entry.error is not None:
        conv = f
    else:
        conv = origin.compile_function(entry.node, f, entry.ag_name, namespace())
    _by_function[f] = conv
    return conv


def _entry(f) -> _Entry:
    entry = _by_code.get(f.__code__)
    if entry is None:
        entry = _by_code[f.__code__] = _transform(f)
    return entry


def _transform(f) -> _Entry:
    try:
        node = origin.function_node(f)
    except origin.SourceUnavailable as e:
        return _unconverted(f, str(e), e)
    from graphc.autograph import transformer  # deferred: the AST rewriter, first conversion

    try:
        namer = transformer.Namer(node)
        ag_name = namer.new("ag__")
        node = ast.fix_missing_locations(transformer.convert(node, ag_name, namer))
        source = ast.unparse(node)
        return _Entry(node, ag_name, source)
    except Exception as e:  # noqa: BLE001 - a converter bug must not break the user's code
        return _unconverted(f, f"AutoGraph failed on it ({type(e).__name__}: {e})", e)


def _unconverted(f, why: str, error) -> _Entry:
    errors.warn(AutographWarning(
        f"AutoGraph could not convert {f.__qualname__}: {why}. It runs unconverted, so an "
        "`if`, `while` or `for` on a tensor inside it will fail; define it in a .py file, "
        "or use gc.cond / gc.while_loop directly."))
    return _Entry(error=error)


def _filtering(conv):
    @functools.wraps(conv)
    def converted_call(*args, **kwargs):
        try:
            return conv(*args, **kwargs)
        except Exception as e:  # the user's frames only; a bare raise adds none of ours
            e.with_traceback(source_info.filter_traceback(e.__traceback__))
            raise
    return converted_call
