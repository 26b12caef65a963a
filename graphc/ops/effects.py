"""Effect ops that observe values: ``print`` and ``assert``.

Both are stateful: they take and return the effect token, so in a graph they run on every
call, in program order with the other effects (variable writes, random draws,
``numpy_function``), and no pass folds, merges or prunes them. Neither has data
outputs. Eagerly, ``bind`` runs them at once.

``gc.print`` keeps its Python arguments (strings, numbers) in a *template* attr and takes
only the tensors as inputs, so one node prints a whole line::

    print %0 %3 !t0 end='\\n' file=None sep=' ' template=(('s', 'x ='), ('t', 0), ...)
"""

from __future__ import annotations

import sys

import numpy as np

from graphc import nest, source_info
from graphc.core.attr_types import NEST, NONE, OPT_INT, OPT_STR, PYOBJ, STR, one_of
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.shapes import broadcast_shapes
from graphc.core.tensor import Tensor
from graphc.errors import InvalidArgumentError

# --------------------------------------------------------------------------- templates
# A template holds one item per printed value:
#   ("s", text)                     Python value, rendered at trace time
#   ("t", index)                    the index-th tensor input
#   ("n", treedef, items)           a list/tuple/dict holding tensors; items per leaf


def _is_tensor_like(x) -> bool:
    return isinstance(x, Tensor | np.ndarray) or hasattr(x, "_graphc_tensor_")


def make_template(values, inputs: list) -> tuple:
    """The template for ``values``; appends their tensors to ``inputs``."""
    items = []
    for v in values:
        if _is_tensor_like(v):
            inputs.append(v)
            items.append(("t", len(inputs) - 1))
            continue
        leaves, td = nest.flatten(v)
        if td is not None and any(_is_tensor_like(x) for x in leaves):
            sub = []
            for x in leaves:
                if _is_tensor_like(x):
                    inputs.append(x)
                    sub.append(("t", len(inputs) - 1))
                else:
                    sub.append(("s", repr(x)))
            items.append(("n", td, tuple(sub)))
        else:
            items.append(("s", v if isinstance(v, str) else str(v)))
    return tuple(items)


def render(template, arrays, summarize=None) -> list[str]:
    """The text of each template item, with ``arrays`` for the tensor inputs."""
    return [_render_item(item, arrays, summarize) for item in template]


def _render_item(item, arrays, summarize):
    kind = item[0]
    if kind == "s":
        return item[1]
    if kind == "t":
        return format_array(arrays[item[1]], summarize)
    _, td, sub = item
    return nest.to_text(nest.unflatten(td, [_Text(_render_item(s, arrays, summarize))
                                            for s in sub]))


class _Text(str):
    """Already-rendered text that a container shows without quotes."""

    def __repr__(self):
        return str(self)


def format_array(a, summarize=None) -> str:
    """A value as ``print(ndarray)`` shows it; ``summarize`` limits elements per axis."""
    a = np.asarray(a)
    if summarize is None or a.size <= summarize:
        return str(a)
    return np.array2string(a, threshold=summarize, edgeitems=max(1, summarize // 2))


# --------------------------------------------------------------------------- print
def _print_ref(*arrays, template, sep, end, file, summarize=None):
    # sys.stdout is looked up on every call, not at trace time, so redirecting stdout
    # (or pytest's capsys) after tracing still captures the output
    out = sys.stdout if file is None else file
    if summarize is None:
        text = render(template, arrays)
    else:  # tf.print's meaning: the first and last `summarize` of each axis; -1: all
        edges = dict(threshold=sys.maxsize) if summarize < 0 else dict(
            threshold=0, edgeitems=summarize)
        with np.printoptions(**edges):
            text = render(template, arrays)
    out.write(sep.join(text) + end)
    return ()


PRINT = register(OpDef(
    name="print",
    attrs={"template": NEST, "sep": STR, "end": STR, "file": one_of(NONE, PYOBJ),
           "summarize": OPT_INT},
    infer=lambda *avals, **attrs: (), ref=_print_ref, stateful=True,
    multiple_results=True, extra={"python_side": "gc.print"},
))


def print_(*values, sep=" ", end="\n", file=None, output_stream=None, summarize=None,
           name=None) -> None:
    """Print ``values`` on every call, tensors by their run-time value (``tf.print``).

    Unlike Python's ``print`` (which runs only while a ``gc.function`` traces), this prints
    each time the function runs, in order with its other effects. It writes to
    ``sys.stdout`` by default (``tf.print`` uses stderr); ``file`` takes any object with a
    ``write`` method (``output_stream``, ``tf.print``'s spelling, is the same; ``name`` is
    accepted and unused). ``summarize=k`` prints the first and last ``k`` entries of each
    axis longer than ``2k`` (``-1``: every entry; ``None``, the default: as NumPy prints
    arrays, where ``tf.print`` would show 3). Works the same eagerly.

    >>> @gc.function
    ... def f(x):
    ...     gc.print("x =", x, "sum:", gnp.sum(x))
    ...     return x * 2
    >>> _ = f(gnp.arange(3))
    x = [0 1 2] sum: 3
    """
    if output_stream is not None:
        if file is not None:
            raise TypeError(f"gc.print: pass file= or output_stream= (the same), not both"
                            f"{source_info.where()}")
        file = output_stream
    inputs: list = []
    template = make_template(values, inputs)
    bind(PRINT, *inputs, template=template, sep=str(sep), end=str(end), file=file,
         summarize=None if summarize is None else int(summarize))


# --------------------------------------------------------------------------- assert
# kind -> (test over the inputs, condition text, input names)
CHECKS = {
    "equal": (np.equal, "x == y", ("x", "y")),
    "not_equal": (np.not_equal, "x != y", ("x", "y")),
    "less": (np.less, "x < y", ("x", "y")),
    "less_equal": (np.less_equal, "x <= y", ("x", "y")),
    "greater": (np.greater, "x > y", ("x", "y")),
    "greater_equal": (np.greater_equal, "x >= y", ("x", "y")),
    "positive": (lambda x: x > 0, "x > 0", ("x",)),
    "negative": (lambda x: x < 0, "x < 0", ("x",)),
    "non_negative": (lambda x: x >= 0, "x >= 0", ("x",)),
    "non_positive": (lambda x: x <= 0, "x <= 0", ("x",)),
    "all_finite": (np.isfinite, "all values of x are finite (no NaN or Inf)", ("x",)),
}


def _assert_infer(*avals, kind, message, template, summarize, where):
    if kind in CHECKS and len(CHECKS[kind][2]) == 2:
        broadcast_shapes(avals[0].shape, avals[1].shape)  # raises if they never can
    return ()


def _assert_ref(*arrays, kind, message, template, summarize, where):
    if kind == "assert":
        if np.all(arrays[0]):
            return ()
        data = " ".join(render(template, arrays, summarize))
        text = f"assertion failed: {data}" if data else "assertion failed"
        raise InvalidArgumentError(_with_message(text, message, where))
    test, condition, names = CHECKS[kind]
    with np.errstate(invalid="ignore"):
        ok = np.asarray(test(*arrays))
    if ok.all():
        return ()
    lines = [f"assert_{kind} failed: condition {condition} did not hold"]
    if ok.ndim:
        first = tuple(int(i) for i in np.argwhere(~ok)[0])
        values = ", ".join(f"{n} = {np.broadcast_to(a, ok.shape)[first]}"
                           for n, a in zip(names, arrays))
        lines[0] += f" element-wise ({int((~ok).sum())} of {ok.size} failed; first at " \
                    f"index {first}: {values})"
    for n, a in zip(names, arrays):
        lines.append(f"  {n} (shape={a.shape}, dtype={a.dtype.name}) = "
                     f"{format_array(a, summarize)}")
    raise InvalidArgumentError(_with_message("\n".join(lines), message, where))


def _with_message(text, message, where):
    if message:
        text = f"{message}\n{text}"
    if where:
        text += f"\n  (assertion at {where})"
    return text


# kind: what to check (a key of CHECKS, or "assert": every element of the first input)
ASSERT = register(OpDef(
    name="assert",
    attrs={"kind": STR, "message": OPT_STR, "template": NEST, "summarize": OPT_INT,
           "where": OPT_STR},
    infer=_assert_infer, ref=_assert_ref, stateful=True,
    multiple_results=True, extra={"python_side": "gc.debugging assertion"},
))


def assert_op(kind, inputs, message=None, data=(), summarize=None) -> None:
    """Bind one ``assert`` node (eagerly: check now). ``data`` is only for ``Assert``."""
    inputs = list(inputs)
    template = make_template(data, inputs) if kind == "assert" else ()
    bind(ASSERT, *inputs, kind=kind, message=None if message is None else str(message),
         template=template, summarize=summarize, where=source_info.user_location())


def Assert(condition, data, summarize=None, name=None):
    """Check that ``condition`` (a boolean scalar, or all elements of a boolean tensor) is
    true; if not, raise with ``data`` (strings and tensors) in the message.

    ``assert cond, msg`` in AutoGraph-converted code becomes ``Assert(cond, [msg])``
    (``gc.debugging.Assert``).

    >>> gc.debugging.Assert(x > 0, ["x must be positive, got", x])   # doctest: +SKIP
    """
    if isinstance(data, str):
        data = [data]
    assert_op("assert", (condition,), data=tuple(data), summarize=summarize)


# --------------------------------------------------------------------------- gradients
# Effects only: no outputs for a cotangent to arrive at.
PRINT.grad = ASSERT.grad = NOT_DIFFERENTIABLE
