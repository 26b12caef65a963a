"""The CUDA backend's lowering table and the pieces its emitters share.

:data:`EMITTERS` maps an op name to the function that writes its host statements and
kernels (``emit(gen, node, ins, outs) -> [DVal, ...]``); the ``kernels_*.py`` modules of
this package register into it with :func:`emitter`, and ``codegen`` imports them all, so
the table is the backend's own, keyed by op (the ops in ``graphc/ops/`` know nothing of
it). This module also owns what those emitters share: :class:`DVal` (a value in the
generated host code), launch configuration (:data:`settings`, :func:`launch_1d`,
:func:`grid_stride`), strides and signature type names. It imports neither Numba nor
numba.cuda.
"""

from __future__ import annotations

import math

import numpy as np

EMITTERS: dict = {}


class Settings:
    """``max_grid``: the most blocks of a grid-stride launch (4096 fills an H100's 132
    SMs many times over). The tests lower it: the simulator runs blocks one after
    another, starting one Python thread per CUDA thread, so fewer blocks striding over
    the work run the same kernels much faster there."""

    max_grid = 4096


settings = Settings()


def emitter(*names):
    def deco(fn):
        for n in names:
            EMITTERS[n] = fn
        return fn
    return deco


class DVal:
    """A value in generated host code: ``name`` is a flat device array of ``aval``'s
    size; ``lit`` is an exact literal for a 0-d constant (kernels inline it)."""

    __slots__ = ("name", "aval", "lit")

    def __init__(self, name, aval, lit=None):
        self.name = name
        self.aval = aval
        self.lit = lit

    @property
    def shape(self) -> tuple:
        return self.aval.shape

    @property
    def size(self) -> int:
        return math.prod(self.aval.shape)


def numba_type(dtype) -> str:
    """The numba type name of ``dtype`` as written in a signature (``float32``)."""
    dtype = np.dtype(dtype)
    return "boolean" if dtype == np.bool_ else dtype.name


def strides(shape) -> list[int]:
    """C-order element strides of ``shape``."""
    out, step = [], 1
    for d in reversed(shape):
        out.append(step)
        step *= d
    return out[::-1]


def launch_1d(n: int, block_max: int = 256) -> tuple[int, int]:
    """``(grid, block)`` for a grid-stride loop over ``n`` elements: blocks of a multiple
    of 32 threads, no more than needed (the simulator runs every thread)."""
    block = min(block_max, max(32, -(-n // 32) * 32))
    return min(settings.max_grid, max(1, -(-n // block))), block


def grid_stride(g, n: int, body: list[str], args: list, name: str, aval) -> DVal:
    """``name`` = a new array of ``aval`` filled by one grid-stride kernel whose thread
    ``i`` runs ``body`` (reading ``a0, a1, ...`` = ``args``, writing ``o0``)."""
    val = g.alloc(name, aval)
    if n:
        loop = ["i = cuda.grid(1)", "st = cuda.gridsize(1)", f"while i < {n}:",
                *("    " + ln for ln in body), "    i += st"]
        params = [f"a{k}" for k in range(len(args))] + ["o0"]
        k = g.kernel(params, [x.aval.dtype for x in args] + [aval.dtype], loop,
                     *launch_1d(n))
        g.line(f"{k}({', '.join([x.name for x in args] + [name])})")
    return val
