"""Numba emitters for the TensorArray ops (``graphc/ops/tensor_array/ops.py``).

Each writes the same steps as the op's NumPy ``ref``: a write copies the buffer into a
new one (grown by doubling when a dynamic array needs room), checks every index, and
writes the rows; where nobody reads the old buffer again (``ownership.py``: a
loop-carried array, say) a write that fits writes the buffer itself, so appends cost
amortized O(1). A failed check raises inside the program; the executor then reruns the
graph on the interpreter, whose ``ref`` raises the user-facing ``InvalidArgumentError``
naming the node and the user's line.
"""

from __future__ import annotations

from graphc.runtime.cpu.kernels import Val, emitter, np_type, shape_expr


def _raise(g, cond: str, what: str, indent: str = "") -> None:
    g.line(f"{indent}if {cond}:")
    g.line(f"{indent}    raise ValueError('TensorArray: {what}')")


@emitter("tensor_array_zeros")
def zeros(g, node, ins, outs):
    """``np.zeros((capacity, *element_shape))``."""
    (cap,) = ins
    aval = node.outputs[0].aval
    n = g.tmp("n")
    g.line(f"{n} = np.int64({cap.name})")
    _raise(g, f"{n} < 0", "negative size")
    dims = [n, *(str(d) for d in node.attrs["element_shape"])]
    g.line(f"{outs[0]} = np.zeros({shape_expr(dims)}, {np_type(aval.dtype)})")
    return [Val(outs[0], aval)]


@emitter("tensor_array_write")
def write(g, node, ins, outs):
    """A new buffer of ``max(2 * capacity, need)`` rows when the write needs more room
    (``dynamic``), else of ``capacity`` rows; the rows below the size copied, rows the
    write skips zeroed, the value's rows written."""
    b, s, ix, v = ins
    mode, dynamic = node.attrs["mode"], node.attrs["dynamic"]
    provisional = node.attrs.get("provisional", False)
    aval = node.outputs[0].aval
    rank = len(b.aval.shape)
    skip = 0 if mode == "one" else 1  # value dims before its element dims
    vdims = [f"{v.name}.shape[{skip + k}]" for k in range(rank - 1)]
    cap, lo, need, k = g.tmp("cap"), g.tmp("lo"), g.tmp("need"), g.tmp("k")
    g.line(f"{cap} = {b.name}.shape[0]")
    if mode == "one":
        g.line(f"{lo} = np.int64({ix.name})")
        g.line(f"{need} = {lo} + 1")
    elif mode == "block":
        g.line(f"{k} = {v.name}.shape[0]")
        g.line(f"{lo} = np.int64({ix.name})")
        g.line(f"{need} = {lo} + {k} if {k} > 0 else 0")
    else:
        r = g.tmp("r")
        g.line(f"{k} = {ix.name}.shape[0]")
        _raise(g, f"{v.name}.shape[0] != {k}", "scatter: as many rows as indices needed")
        g.line(f"{lo} = np.int64(0)")
        g.line(f"{need} = np.int64(0)")
        g.line(f"for {r} in range({k}):")
        g.line(f"    {lo} = min({lo}, np.int64({ix.name}[{r}]))")
        g.line(f"    {need} = max({need}, np.int64({ix.name}[{r}]) + 1)")
    _raise(g, f"{lo} < 0", "negative index")
    same = " and ".join(f"{b.name}.shape[{j + 1}] == {d}" for j, d in enumerate(vdims))
    same = same or "True"
    keep = g.tmp("same")
    g.line(f"{keep} = {same}")
    if provisional:
        _raise(g, f"not {keep} and {b.name}.size != 0", "value shape differs from the "
               "element shape")
    else:
        _raise(g, f"not {keep}", "value shape differs from the element shape")
    new = g.tmp("cap")
    g.line(f"{new} = {cap}")
    g.line(f"if {need} > {cap}:")
    if dynamic:
        g.line(f"    {new} = max(2 * {cap}, {need})")
    else:
        g.line("    raise ValueError('TensorArray: index out of bounds (dynamic_size=False)')")
    out, size = outs[0], g.tmp("size")
    # Rows past the size are never read (reads and stacks stop there): a new buffer gets
    # only the written rows, and the rows a write skips become zeros (as the ref's).
    g.line(f"{size} = min(np.int64({s.name}), {cap}) if {keep} else 0")
    if node in g.ownership.in_place:  # nobody reads the old buffer: reuse it if it fits
        g.line(f"if {keep} and {new} == {cap}:")
        g.line(f"    {out} = {b.name}")
        g.line("else:")
        g.depth += 1
    g.line(f"{out} = np.empty({shape_expr([new, *vdims])}, {np_type(aval.dtype)})")
    g.line(f"{out}[:{size}] = {b.name}[:{size}]")
    if node in g.ownership.in_place:
        g.depth -= 1
    gap = need if mode == "many" else f"min({lo}, {need})"  # many: rows between indices
    g.line(f"if {gap} > {size}:")
    g.line(f"    {out}[{size}:{gap}] = 0")
    if mode == "one":
        g.line(f"{out}[{lo}] = {v.name}")
    elif mode == "block":
        g.line(f"{out}[{lo}:{lo} + {k}] = {v.name}")
    else:
        r = g.tmp("r")
        g.line(f"for {r} in range({k}):")
        g.line(f"    {out}[{ix.name}[{r}]] = {v.name}[{r}]")
    g.line(f"{outs[1]} = max(np.int64({s.name}), {need})")
    return [Val(out, aval), Val(outs[1], node.outputs[1].aval)]


@emitter("tensor_array_read")
def read(g, node, ins, outs):
    """The element at a scalar index (a copy), or a new array of the elements at a
    vector of indices; every index checked against the size."""
    b, s, ix = ins
    aval = node.outputs[0].aval
    n = g.tmp("n")
    g.line(f"{n} = np.int64({s.name})")
    if ix.scalar:
        i = g.tmp("i")
        g.line(f"{i} = np.int64({ix.name})")
        _raise(g, f"{i} < 0 or {i} >= {n}", "read index out of range")
        tail = "" if len(b.aval.shape) == 1 else ".copy()"
        g.line(f"{outs[0]} = {b.name}[{i}]{tail}")
        return [Val(outs[0], aval)]
    k, r, i = g.tmp("k"), g.tmp("r"), g.tmp("i")
    dims = [f"{b.name}.shape[{j}]" for j in range(1, len(b.aval.shape))]
    g.line(f"{k} = {ix.name}.shape[0]")
    g.line(f"{outs[0]} = np.empty({shape_expr([k, *dims])}, {np_type(aval.dtype)})")
    g.line(f"for {r} in range({k}):")
    g.line(f"    {i} = np.int64({ix.name}[{r}])")
    _raise(g, f"{i} < 0 or {i} >= {n}", "gather index out of range", "    ")
    g.line(f"    {outs[0]}[{r}] = {b.name}[{i}]")
    return [Val(outs[0], aval)]


@emitter("tensor_array_stack")
def stack(g, node, ins, outs):
    """A copy of the first ``size`` rows (``concat``: reshaped to join the elements
    along their first dim)."""
    b, s = ins
    aval = node.outputs[0].aval
    n = g.tmp("n")
    g.line(f"{n} = np.int64({s.name})")
    _raise(g, f"{n} < 0 or {n} > {b.name}.shape[0]", "size does not fit the buffer")
    if node.attrs.get("concat", False):
        rest = [f"{b.name}.shape[{j}]" for j in range(2, len(b.aval.shape))]
        g.line(f"{outs[0]} = {b.name}[:{n}].copy().reshape("
               f"{shape_expr([f'{n} * {b.name}.shape[1]', *rest])})")
    else:
        g.line(f"{outs[0]} = {b.name}[:{n}].copy()")
    return [Val(outs[0], aval)]
