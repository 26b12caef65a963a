"""Tiny arrays as scalars: values of a few elements kept in Numba scalar variables.

A loop over a 3-vector state (an ODE step: ``stack`` of three scalars, a few elementwise
ops on the vector, ``s[0]``, ``s[1]``...) made every such value an array: an allocation
and a loop per op, per iteration, where JAX's compiled loop keeps registers. Here a
value of static shape with at most ``TINY_MAX`` elements made by

* ``stack`` of 0-d values (of the result's dtype),
* an elementwise op or ``fused_elementwise`` group whose operands are 0-d values, tiny
  values or contiguous arrays of its shape,

is a :class:`TinyVal`: one scalar variable per element (C order), the loop unrolled.
A ``while_loop`` state of such a shape whose body makes it that way is carried in
scalar variables across iterations (:func:`carried`).
``getitem`` with a static int key on one is the element itself. Any other reader gets
an array, built once where it is first needed (``materialize``), so a loop body that
carries the vector builds one array per iteration instead of one per op. The element
statements are the loop's own (``Loops.loop_body``: NumPy's casts), so results are the
same bits as the array loops'.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.runtime.cpu.kernels import Unsupported, Val, np_type
from graphc.runtime.fused_groups import fused_steps

TINY_MAX = 8  # elements; each op's statements are repeated once per element


class TinyVal(Val):
    """A value of static shape held as ``elems``, one scalar variable per element in C
    order; ``name`` is the array variable ``materialize`` assigns if a reader needs one."""

    __slots__ = ("elems",)

    def __init__(self, name, aval, elems):
        super().__init__(name, aval, contig=False)
        self.elems = elems


def _tiny_shape(aval) -> bool:
    shape = aval.shape
    return (shape is not None and len(shape) > 0 and None not in shape
            and 0 < math.prod(shape) <= TINY_MAX)


def emit(gen, node) -> bool:
    """Emit ``node`` with tiny values when it is one of the cases above; False (nothing
    emitted) otherwise."""
    lower = LOWERINGS.get(node.op.name)
    if lower is None and node.op.elementwise and not node.op.multiple_results:
        lower = _elementwise
    if lower is None or not node.outputs or any(
            v.aval.is_token for v in (*node.inputs, *node.outputs)):
        return False
    ins = [gen.vals.get(v.id) for v in node.inputs]
    return None not in ins and lower(gen, node, ins)  # each lowering checks its shapes


def materialize(gen, node) -> None:
    """Give each tiny operand of ``node`` an array (built here, once)."""
    for v in node.inputs:
        x = gen.vals.get(v.id)
        if isinstance(x, TinyVal):
            gen.vals[v.id] = array(gen, x)


def array(gen, x: Val) -> Val:
    """``x`` as an array Val: a tiny value's elements stored into a new array."""
    if not isinstance(x, TinyVal):
        return x
    shape = x.aval.shape
    flat = gen.tmp("tiny")
    gen.line(f"{flat} = np.empty({len(x.elems)}, {np_type(x.aval.dtype)})")
    for k, e in enumerate(x.elems):
        gen.line(f"{flat}[{k}] = {e}")
    gen.line(f"{x.name} = {flat}" if len(shape) == 1 else
             f"{x.name} = {flat}.reshape({tuple(shape)})")
    return Val(x.name, x.aval, contig=True)


def size(aval) -> int:
    return math.prod(aval.shape)


def elements(x: Val) -> list[str]:
    """Source for each element of ``x`` (static shape) in C order."""
    if isinstance(x, TinyVal):
        return list(x.elems)
    shape = tuple(x.aval.shape)
    return [f"{x.name}[{', '.join(map(str, np.unravel_index(k, shape)))}]"
            for k in range(math.prod(shape))]


def carried(body, written) -> list[int]:
    """The state slots of a ``while_loop`` with body ``body`` kept in scalar variables
    (the loop's output is then a tiny value too), so no iteration allocates an array for
    its state (an RK4 step over a 3-vector state did): a tiny static shape of a number
    dtype, not written in place (``written``), whose next value the body makes tiny
    (``stack`` of scalars, or an elementwise op on a tiny value) given the slots kept.
    A state the body makes otherwise (a matmul's result) stays an array: carried as
    scalars it would cost an array per iteration where its reader needs one."""
    slots = {k for k, v in enumerate(body.outputs)
             if k not in written and not v.aval.is_token and _tiny_shape(v.aval)
             and v.aval.dtype.kind in "biuf"}
    while True:
        tiny = {body.inputs[k].id for k in slots}
        for node in body.nodes:
            if _makes_tiny(node, tiny):
                tiny.add(node.outputs[0].id)
        keep = {k for k in slots if body.outputs[k].id in tiny}
        if keep == slots:
            return sorted(slots)
        slots = keep


def _makes_tiny(node, tiny: set) -> bool:
    """Whether ``node``'s lowering here gives a tiny value (``tiny``: the ids of those
    before it): a ``stack`` of 0-d values, an elementwise op on a tiny value."""
    if len(node.outputs) != 1 or not _tiny_shape(node.outputs[0].aval):
        return False
    op = node.op
    if op.name == "stack":  # as _stack takes it
        dtype = node.outputs[0].aval.dtype
        return all(v.aval.shape == () and v.aval.dtype == dtype for v in node.inputs)
    return (op.name == "fused_elementwise" or op.elementwise) \
        and any(v.id in tiny for v in node.inputs)


# --------------------------------------------------------------------------- the cases
def _stack(gen, node, ins) -> bool:
    aval = node.outputs[0].aval
    if not _tiny_shape(aval) or not all(x.scalar and x.aval.dtype == aval.dtype for x in ins):
        return False
    gen.vals[node.outputs[0].id] = TinyVal(gen._var(node.outputs[0]), aval,
                                           [x.name for x in ins])
    return True


def _getitem(gen, node, ins) -> bool:
    x = ins[0]
    key = node.attrs.get("key")
    if not isinstance(x, TinyVal) or len(ins) != 1 or key is None:
        return False
    shape = x.aval.shape
    if len(key) != len(shape) or any(e[0] != "int" for e in key):
        return False
    index = []
    for (_tag, i), d in zip(key, shape):
        if not -d <= i < d:
            return False  # out of bounds: the array kernel raises NumPy's IndexError
        index.append(i % d)
    gen.vals[node.outputs[0].id] = Val(x.elems[int(np.ravel_multi_index(index, shape))],
                                       node.outputs[0].aval)
    return True


def _elementwise(gen, node, ins) -> bool:
    shape = tuple(node.outputs[0].aval.shape)
    if not _tiny_shape(node.outputs[0].aval) or not any(isinstance(x, TinyVal) for x in ins):
        return False  # nothing tiny to start from: the array loop
    for v, x in zip(node.inputs, ins):
        if x.scalar or isinstance(x, TinyVal):
            continue
        made_in_group = gen.group is not None and v.id in gen.group.made
        if not x.contig or tuple(x.aval.shape) != shape or made_in_group:
            return False
    try:
        if node.op.name == "fused_elementwise":
            steps, results = fused_steps(node, complex_ok=True)
        else:
            steps = [(node.op, node.attrs, [("in", j) for j in range(len(ins))],
                      node.outputs[0].aval)]
            results = [0]
        g, elem, body = gen.loop_body(ins, steps)
    except Unsupported:
        return False
    reads = _reads(gen, ins, shape)
    outs = [[] for _ in results]
    for k in range(math.prod(shape)):
        for j, read in enumerate(reads):
            gen.line(f"{elem[j]} = {read(k)}")
        for ln in body:
            gen.line(ln)
        for r, s in enumerate(results):
            e = gen.tmp("e")
            gen.line(f"{e} = _s{g}_{s}")
            outs[r].append(e)
    for v, elems in zip(node.outputs, outs):
        gen.vals[v.id] = TinyVal(gen._var(v), v.aval, elems)
    return True


def _reads(gen, ins, shape) -> list:
    """Per operand, ``k -> source`` of its element at the output's flat index ``k``."""
    reads = []
    for x in ins:
        if x.scalar:
            reads.append(lambda k, n=x.name: n)
        elif isinstance(x, TinyVal):
            reads.append(lambda k, x=x: x.elems[_broadcast_index(k, shape, x.aval.shape)])
        else:  # a contiguous array of the output's shape
            flat = x.name if len(shape) == 1 else gen.tmp("flat")
            if len(shape) > 1:
                gen.line(f"{flat} = {x.name}.reshape(-1)")
            reads.append(lambda k, f=flat: f"{f}[{k}]")
    return reads


def _broadcast_index(k: int, shape: tuple, operand_shape: tuple) -> int:
    """The flat index into an operand (broadcast to ``shape``) of output element ``k``."""
    index = np.unravel_index(k, shape)
    lead = len(shape) - len(operand_shape)
    mine = [0 if d == 1 else i for i, d in zip(index[lead:], operand_shape)]
    return int(np.ravel_multi_index(mine, operand_shape)) if operand_shape else 0


# ops with a lowering here, by name (elementwise ops need none: ``_elementwise``)
LOWERINGS = {"stack": _stack, "getitem": _getitem, "fused_elementwise": _elementwise}
