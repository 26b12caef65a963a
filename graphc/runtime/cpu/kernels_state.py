"""Variables inside the compiled program: ``variable``, ``read_variable``, ``assign_variable``.

A ``gc.Variable`` holds an immutable array and every write stores a new one (see
``graphc/variables.py``), so inside a program a variable is one function-wide local,
``w<k>``: the executor passes the variable's current value as parameter ``s<k>``, a read
binds the node's value to the current ``w<k>`` (an alias, never written into), a write
rebinds ``w<k>`` to a new array, and the program returns the final ``w<k>`` of every
variable it writes after its outputs. The executor stores those only when the call
succeeded, so a program that raises half-way leaves no partial write behind: the
interpreter then runs the graph again, with its effects in order, and raises the
user-facing error. Because the locals are function-wide, writes inside a branch or a
loop body (inlined by ``kernels_control``) are seen by the next iteration and after it.

What compiles: reads; ``assign`` of a value with the variable's static shape (rank 0
any dtype, cast like ``Variable._write``); ``add``/``sub`` whose value broadcasts to the
variable's static shape. Not compiled (the node runs in Python, reported): ``init``
(variables created inside a function), variables with unknown dims, and any graph where
another effect (print, assert, ``numpy_function``, random) stays in Python: then the
variable ops stay in Python too, so all effects keep their program order
(``codegen.generate``).
"""

from __future__ import annotations

from graphc.core.registry import get as get_op
from graphc.ir.graph import Aval
from graphc.runtime.cpu.kernels import Unsupported, Val, cast, emitter, np_type
from graphc.runtime.fallback import VARIABLE_ARGUMENT

TOKEN_NAME = "_token"  # the Val name of every effect token (tokens carry no data)


class Handle(Val):
    """The Val of a ``variable`` node: the variable's slot ``k`` and its declared aval."""

    __slots__ = ("slot",)

    def __init__(self, slot, aval):
        super().__init__(f"w{slot}", aval, contig=True)
        self.slot = slot


def _handle(g, v) -> Handle:
    if not isinstance(v, Handle):
        raise Unsupported(f"its variable is {VARIABLE_ARGUMENT}")
    return v


@emitter("variable")
def _variable(g, node, ins, outs):
    if not g.allow_state:
        raise Unsupported("variables run in Python when another effect in the function does")
    ref = node.attrs["ref"]
    var = ref.deref()
    if var.shape is None or None in var.shape:
        raise Unsupported(f"variable {var.name!r} has unknown dims {var.shape}")
    slots = g.variables
    if ref not in slots:
        slots[ref] = len(slots)
    return [Handle(slots[ref], Aval(tuple(var.shape), var.dtype))]


@emitter("read_variable")
def _read(g, node, ins, outs):
    h = _handle(g, ins[0])
    g.line(f"{outs[0]} = {h.name}")
    return [Val(outs[0], h.aval, contig=True), Val(TOKEN_NAME, node.outputs[1].aval)]


@emitter("assign_variable")
def _assign(g, node, ins, outs):
    h, value = _handle(g, ins[0]), ins[1]
    mode = node.attrs["mode"]
    shape, dtype = h.aval.shape, h.aval.dtype
    g.written.add(h.slot)
    token = [Val(TOKEN_NAME, node.outputs[-1].aval)]
    if mode == "assign":
        if value.aval.shape != shape:
            raise Unsupported(f"assign of a {value.aval} value to a {h.aval} variable")
        if not shape:
            same = value.aval.dtype == dtype
            g.line(f"{h.name} = {value.name if same else cast(value.name, dtype)}")
        elif value.aval.dtype != dtype:
            g.line(f"{h.name} = {value.name}.astype({np_type(dtype)})")
        else:  # a copy: the value may be (a view of) an input the caller owns
            g.line(f"{h.name} = {value.name}.copy()")
        return token
    if mode not in ("add", "sub"):
        raise Unsupported(f"assign_variable mode {mode!r}")
    vshape = value.aval.shape
    if len(vshape) > len(shape) or any(
            b not in (1, a) for a, b in zip(reversed(shape), reversed(vshape))):
        raise Unsupported(f"assign_{mode} of a {value.aval} value to a {h.aval} variable")
    op = get_op("add" if mode == "add" else "subtract")
    steps, ref = [], ("in", 1)
    if value.aval.dtype != dtype:  # Variable._write casts the value first
        steps.append((get_op("cast"), {"dtype": dtype}, [ref], Aval(vshape, dtype)))
        ref = ("step", 0)
    steps.append((op, {}, [("in", 0), ref], h.aval))
    new = g.tmp("w")
    (val,) = g.elementwise([h, value], steps, [len(steps) - 1], [new])
    g.line(f"{h.name} = {val.name}")
    return token
