"""Private ops of the saving loop of a ``while_loop`` gradient (``ops/control/grad.py``): a stack
of one loop variable's values, one row per iteration, pushed in amortized O(1).

``tensor_array_write`` is functional (a write copies the buffer), so saving ``n``
iterations with it moves O(n^2) rows. These two ops give the saving loop a buffer that it
*owns* and may update in place:

* ``save_stack_empty(dtype, element_shape)``: a buffer of capacity 0, shape
  ``(0, *element_shape)`` (unknown dims as 0). Nothing is ever written into it;
* ``save_stack_push(buffer, index, value)``: the buffer with row ``index`` set to
  ``value``. While ``index < capacity`` the row is written **into ``buffer`` itself** and
  ``buffer`` is returned; otherwise a new buffer of ``max(2 * capacity, index + 1,
  initial)`` rows gets the old rows and the value (capacity doubling: O(log n) growths,
  O(n) rows copied in all, see ``GROWTHS``). Rows at and past ``index`` are garbage
  until pushed; the loop's counter is the stack's size.

Why writing in place is safe, although every other op is functional:

* The only buffer ever written is one a push *allocated* (a capacity-0 buffer has no row
  to write), so it is never a user's value, a program input, a constant or a view of
  one. Therefore CSE merging two ``save_stack_empty`` nodes, or constant folding one
  (``extra["no_fold"]`` forbids it anyway; its leading dim is unknown too), cannot make
  two stacks share memory: the first push of each allocates its own.
* The saving loop (``control/grad.py`` ``_saving_loop``) makes one stack per loop variable, a
  loop variable that only its own push reads inside the body; after the loop, only the
  backward loop reads it (``tensor_array_read``, which does not write). So the old
  value of ``buffer`` is dead the moment the push runs, which is what makes overwriting
  it unobservable. The saving loop is staged with ``unrecorded()``, so no tape holds it.
  A second derivative differentiates a saving loop: the outer saving loop recomputes the
  stacks (from capacity 0 again, so into buffers of its own), and the outer backward loop
  replays iteration ``k``'s push onto that loop's final stack, writing at row ``k`` the
  value it already holds (``control/grad.py`` ``_saving_loop``); the push's rule reads nothing
  of the old buffer but its shape.
* Two pushes in one body cannot be CSE-merged: their buffers are different loop
  variables. The interpreter's free lists only drop references (they never hand memory
  to another op), and the Numba backend writes into no operand of any other op, so
  nothing else writes into a stack either.

Do not use these ops outside that pattern: a push whose input buffer is still read
afterwards would see it change. Their Numba emitters are in
``graphc/runtime/cpu/kernels_save_stack.py``.
"""

from __future__ import annotations

import numpy as np

from graphc.core.attr_types import DTYPE, INT, SHAPE
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.ir.graph import Aval
from graphc.ops.creation import zeros_like
from graphc.ops.tensor_array.grad import _cut_to
from graphc.ops.tensor_array.ops import READ, WRITE

# Rows a stack's first growth allocates (later growths double). Tests lower it to 1 to
# exercise many doublings on short loops.
INITIAL_CAPACITY = 16

# Buffer growths (allocations) done by the interpreter's push since import; a debug
# counter for tests (the compiled program's growths are not counted).
GROWTHS = [0]


def _shape_text(shape) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


# --------------------------------------------------------------------------- empty
def _empty_infer(*, dtype, element_shape):
    return Aval((None, *element_shape), dtype)


def _empty_ref(*, dtype, element_shape):
    return np.zeros((0, *(0 if d is None else d for d in element_shape)), dtype)


EMPTY = register(OpDef(
    name="save_stack_empty",
    attrs={"dtype": DTYPE, "element_shape": SHAPE},
    infer=_empty_infer, ref=_empty_ref, extra={"no_fold": True},
    grad=NOT_DIFFERENTIABLE))


# --------------------------------------------------------------------------- push
def _push_infer(buffer, index, value, *, initial):
    if buffer.shape is None or len(buffer.shape) < 1:
        raise TypeError(f"a save stack must have rank >= 1, got {buffer}")
    if index.dtype.kind not in "iu" or index.shape != ():
        raise TypeError(f"a save stack index must be an integer scalar, got {index}")
    if value.dtype != buffer.dtype or value.shape is None \
            or len(value.shape) != len(buffer.shape) - 1:
        raise TypeError(f"cannot push {value} onto a save stack {buffer}")
    elem = [b if b == v else None for b, v in zip(buffer.shape[1:], value.shape)]
    return Aval((None, *elem), buffer.dtype)


def _push_ref(buffer, index, value, *, initial):
    i, cap = int(index), buffer.shape[0]
    if i < 0:
        raise ValueError(f"save stack index {i} is negative")
    value = np.asarray(value)
    if cap and buffer.shape[1:] != value.shape:
        raise ValueError(f"a loop variable of shape {_shape_text(value.shape)} cannot be "
                         f"saved in a stack of elements of shape "
                         f"{_shape_text(buffer.shape[1:])}: its shape changes across "
                         "iterations, which a while_loop gradient does not support")
    if i >= cap:
        GROWTHS[0] += 1
        # zeros, not empty: the rows past ``index`` are never read, but a garbage row
        # would make a finite-difference check of the gradient rule meaningless
        grown = np.zeros((max(2 * cap, i + 1, initial), *value.shape), buffer.dtype)
        if cap:  # a capacity-0 stack may have 0 for its unknown element dims
            grown[:cap] = buffer
        buffer = grown
    buffer[i] = value  # in place: see the module docstring for why this is safe
    return buffer


def _push_grad(cts, args, outputs, *, initial):
    """The pushed value gets the result's cotangent at row ``index``; the old buffer the
    rest with that row zeroed, cut back to its own rows (a grown buffer's new rows were
    never its). Used by a second derivative through a loop: the outer gradient
    differentiates the saving loop (``ops/control/grad.py``)."""
    buffer, index, value = args
    ct = cts[0]
    if ct is None:
        return None, None, None
    size = index + np.asarray(1, index.dtype)
    got = bind(READ, ct, size, index)
    cleared = bind(WRITE, ct, size, index, zeros_like(value), mode="one",
                   dynamic=False)[0]
    return _cut_to(cleared, buffer), None, got


PUSH = register(OpDef(
    name="save_stack_push", attrs={"initial": INT}, infer=_push_infer, ref=_push_ref,
    grad=_push_grad, extra={"updates_operand0": True}))


def empty_like_aval(aval):
    """A capacity-0 stack for values of ``aval``, bound in the current context."""
    return bind(EMPTY, dtype=aval.dtype, element_shape=tuple(aval.shape))


def push(buffer, index, value):
    """Bind a push with the current :data:`INITIAL_CAPACITY`."""
    return bind(PUSH, buffer, index, value, initial=INITIAL_CAPACITY)
