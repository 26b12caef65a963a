"""Numba kernels for the compiled CPU runtime, as *source text* the code generator splices in.

* :func:`scalar_expr` — the per-element expression of an elementwise op, shared with the
  CUDA backend: it lives in ``graphc/runtime/scalar_templates.py`` and is re-exported
  here with its table ``SCALAR_OVERRIDES`` and the dtype helpers.
* :data:`EMITTERS` — for every other supported op, a function that writes the node's
  statements (reductions, matmul, shape ops, creation ops).

Everything is text: a generated program is one source file (Numba can cache only code
that lives in a file); longer shared pieces are compiled helpers it calls as ``H.name``
(``numba_helpers``). This module does not import Numba.

Emitters by family: shape and creation ops in ``kernels_shape.py``, reductions in
``kernels_reduce.py``, matmul in ``kernels_matmul.py``, control flow in
``kernels_control.py``, and so on (``kernels_*.py``, the save stack's and TensorArray's
included); this module keeps the table and the helpers they share. :data:`EMITTERS` is
the backend's own lowering table, keyed by op name: ``codegen`` imports every
``kernels_*`` module, which registers into it, and the ops in ``graphc/ops/`` know
nothing of it.
"""

from __future__ import annotations

import math

from graphc.runtime.scalar_templates import (  # noqa: F401  (re-exported for the emitters)
    COMPLEX_DTYPES,
    SCALAR_OVERRIDES,
    SUPPORTED_DTYPES,
    Unsupported,
    cast,
    check_dtype,
    literal,
    loop_dtypes,
    np_type,
    scalar_expr,
)


class Val:
    """A value in generated code: ``name`` holds a Numba scalar (rank 0) or an array.

    ``contig`` says the array is known C-contiguous at compile time (Numba typed it 'C'),
    which allows flat loops and free reshapes.
    """

    __slots__ = ("name", "aval", "contig")

    def __init__(self, name, aval, contig=True):
        self.name = name
        self.aval = aval
        self.contig = contig

    @property
    def scalar(self) -> bool:
        return self.aval.shape == ()

    def dim(self, i) -> str:
        """Dimension ``i`` as source, read at run time even when known statically: loop
        bounds that are literals let LLVM unroll small loops completely, which made
        single compiles take 10+ s (measured); the runtime read costs nothing."""
        return f"{self.name}.shape[{i}]"


class FortranVal(Val):
    """A 2-D array known F-contiguous (the ``.T`` of a C-contiguous one): not ``contig``,
    but BLAS reads it as it is, so ``matmul`` passes it without a copy."""

    __slots__ = ()


class ViewVal(Val):
    """A view (basic slicing with run-time bounds: ``x[:, i:]``) of the C-contiguous 2-D
    array named ``base``: not ``contig``, but a helper given ``base`` too can read the
    view's rows as slices of base's rows, typed contiguous (``H.vecmat_view``)."""

    __slots__ = ("base",)

    def __init__(self, name, aval, base):
        super().__init__(name, aval, contig=False)
        self.base = base


def strided_view(x: Val, name: str, aval) -> Val:
    """``name``, a view of ``x`` not known C-contiguous: a :class:`ViewVal` when ``x`` is
    a C-contiguous 2-D array and the view 2-D too, else a plain non-contiguous Val."""
    if x.contig and len(x.aval.shape) == len(aval.shape) == 2:
        return ViewVal(name, aval, x.name)
    return Val(name, aval, contig=False)


class WindowVal(Val):
    """A view ``base[a0:a0 + n0, ..., ak:ak + nk]`` (every dim a step-1 slice) of the
    C-contiguous array ``base`` of static shape ``base_shape``: not ``contig``, but each
    of its rows is a run of one of ``base``'s rows, so a rows x last-dim loop reads (or
    writes) it as ``base``'s row :meth:`row` at ``starts[-1] + k``: contiguous
    accesses that vectorize, where the view's run-time strides do not
    (``loop_shapes._row_loop``; stencils ``A[1:-1, 2:]``, a GRU's gates ``g[:, :H]``)."""

    __slots__ = ("base", "starts", "base_shape")

    def __init__(self, name, aval, base, starts, base_shape):
        super().__init__(name, aval, contig=False)
        self.base, self.starts, self.base_shape = base, tuple(starts), tuple(base_shape)

    @property
    def start(self) -> int:
        return self.starts[-1]

    def same_window(self, other) -> bool:
        return isinstance(other, WindowVal) and (other.base, other.starts) == (
            self.base, self.starts) and other.aval.shape == self.aval.shape

    def row(self, r: str) -> str:
        """Source for the row of ``base.reshape(-1, base_shape[-1])`` that holds the
        window's (flattened) row ``r``."""
        lead, starts, dims = self.aval.shape[:-1], self.starts[:-1], self.base_shape[:-1]
        if all(s == 0 for s in starts[1:]) and lead[1:] == dims[1:]:
            off = starts[0] * math.prod(dims[1:]) if starts else 0
            return f"{r} + {off}" if off else r
        terms, inner, stride = [], 1, 1
        for d in range(len(lead) - 1, -1, -1):
            i = f"{r} // {inner}" if inner != 1 else r
            if d:
                i = f"({i}) % {lead[d]}"
            terms.append(f"({i} + {starts[d]}) * {stride}" if stride != 1
                         else f"{i} + {starts[d]}")
            inner *= lead[d]
            stride *= dims[d]
        return " + ".join(reversed(terms))


# Helpers whose element can raise. Numba loses an exception raised inside a ``prange``
# loop (measured, Numba 0.68: the call returns, the element left unwritten), so a loop
# calling one stays serial and the exception reaches the executor.
RAISING_HELPERS = ("H.ipow_checked(",)


def parallel_safe(body) -> bool:
    """Whether the loop statements ``body`` may run under ``prange``."""
    return not any(h in line for line in body for h in RAISING_HELPERS)


# --------------------------------------------------------------------------- emitters
EMITTERS: dict = {}

# every dtype some kernel compiles; complex values only reach the elementwise templates
# (``scalar_templates_complex``: op by op) and the emitters below, each tested on complex
# operands (``tests/runtime/test_numba_complex.py``): they move values without arithmetic
# or hand them to BLAS/LAPACK, which NumPy also calls
COMPILED_DTYPES = SUPPORTED_DTYPES | COMPLEX_DTYPES
COMPLEX_EMITTERS = frozenset((
    "getitem", "setitem", "reshape", "transpose", "broadcast_to", "expand_dims", "squeeze",
    "concatenate", "stack", "shape", "flip", "full", "full_like", "cond", "while_loop",
    "switch_case", "matmul", "dot", "solve", "inv"))


def complex_ok(node) -> bool:
    """Whether ``node`` may compile with complex operands or results: a constant, an
    elementwise op or group (its templates decide) or an emitter of
    :data:`COMPLEX_EMITTERS`."""
    return (node.op.elementwise or node.op.name in ("const", "fused_elementwise")
            or node.op.name in COMPLEX_EMITTERS)


def emitter(*names):
    def deco(fn):
        for n in names:
            EMITTERS[n] = fn
        return fn
    return deco


def shape_expr(dims) -> str:
    """A tuple literal from dim sources: ``(3, x.shape[1])``; ``()`` for none."""
    if not dims:
        return "()"
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def out_dims(aval, fallbacks) -> list[str]:
    """Source for each output dim: the static value, else the given runtime expression."""
    return [str(d) if d is not None else fallbacks[i] for i, d in enumerate(aval.shape)]


def to_array(g, v: Val) -> str:
    """``v`` as an array expression (a scalar becomes a fresh 0-d array)."""
    if not v.scalar:
        return v.name
    t = g.tmp("z")
    g.line(f"{t} = np.empty((), {np_type(v.aval.dtype)})")
    g.line(f"{t}[()] = {v.name}")
    return t


def contiguous(g, v: Val) -> str:
    # ``.copy()``, not np.ascontiguousarray: Numba takes ~10 s to compile the latter on
    # a read-only array (measured, Numba 0.68), and program inputs are typed read-only
    return v.name if v.contig else f"{v.name}.copy()"


def reshape_to(g, v: Val, out_aval, dims: list[str], name: str) -> Val:
    """Bind ``name`` to ``v`` reshaped to ``dims``; a rank-0 result is a scalar."""
    if not out_aval.shape:
        if v.scalar:
            g.line(f"{name} = {v.name}")
        else:
            src = contiguous(g, v)
            g.line(f"if {v.name}.size != 1:")
            g.line("    raise ValueError('cannot reshape an array of size != 1 into shape ()')")
            g.line(f"{name} = {src}.reshape(-1)[0]")
        return Val(name, out_aval)
    if v.scalar:
        g.line(f"{name} = np.full({shape_expr(dims)}, {v.name})")
    else:
        g.line(f"{name} = {contiguous(g, v)}.reshape({shape_expr(dims)})")
    return Val(name, out_aval, contig=True)


def permuted(name: str, perm) -> str:
    """A view of array ``name`` with axes permuted (``np.transpose(name, perm)``).

    Built with ``.T`` or ``as_strided`` because Numba's ``np.transpose(a, axes)`` costs
    6 s of compile time the first time in each process (measured, Numba 0.68).
    """
    perm = list(perm)
    if perm == list(range(len(perm)))[::-1]:
        return f"{name}.T"
    shape = shape_expr([f"{name}.shape[{p}]" for p in perm])
    strides = shape_expr([f"{name}.strides[{p}]" for p in perm])
    return f"np.lib.stride_tricks.as_strided({name}, {shape}, {strides})"


# the BLAS/LAPACK helpers (``runtime/numba_helpers_blas.py``) a program may call
BLAS_HELPERS = ("dot", "dot_into", "cholesky", "solve", "det", "slogdet", "eigh", "qr",
                "svd", "lstsq")


def uses_blas(source: str) -> bool:
    """Whether a generated program calls BLAS or LAPACK (through ``H.dot`` and friends),
    so the SciPy table Numba's BLAS calls read must be loaded (``numba_start.load_blas``)."""
    return any(f"H.{name}(" in source for name in BLAS_HELPERS)
