"""Every registry op compiled by the Numba backend and compared with the interpreter.

For every op in ``graphc.core.registry.all_ops()`` (minus the ops tests/ops/test_registry.py
does not walk, ``COVERED_ELSEWHERE``, and the stateful ones), the *first* sample of that
file's ``SAMPLES`` is bound on symbolic inputs:

* the ops the code generator has a kernel for are spread over ``CHUNKS`` graphs (one node
  per op, the union of the samples' inputs, every result an output), each compiled once;
  each output must match ``interpreter.run_graph`` (exact for ints and bools, a few ULP
  for transcendental floats, as in test_numba_backend.py);
* an op whose one-node program has ``reasons`` must be listed in :data:`NOT_COMPILED`
  with exactly that reason, and every op listed there must still fail to generate: a
  newly unsupported op fails loudly, and an op that starts compiling must leave the table.
"""

from __future__ import annotations

import pathlib
import re
import sys
import warnings

import numpy as np
import pytest
from test_numba_backend import ULP_TOL, compare

from graphc.core.interpreter import run_graph
from graphc.core.registry import all_ops, bind
from graphc.core.tensor import _symbolic
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval
from graphc.ir.printer import node_signature
from graphc.runtime.cpu import numba_cpu
from graphc.runtime.cpu.codegen import generate

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "ops"))
from test_registry import COVERED_ELSEWHERE, SAMPLES  # noqa: E402

# Ops the Numba backend does not compile yet, with the reason codegen gives (the node's
# signature and source location stripped). Such a node runs on the interpreter (as its
# own segment, see graphc/runtime/cpu/segments.py).
NOT_COMPILED = {
    # the incomplete gamma and beta functions (graphc/ops/special_fns.py): SciPy only
    **{name: f"elementwise op {name} has no scalar template"
       for name in ("igamma", "igammac", "betainc")},
    # gc.random.stateless_* (graphc/ops/random_draw.py): NumPy's Philox, run in Python
    "random_stateless": "no Numba kernel for op random_stateless",
    # tf.linalg's matrix functions (graphc/ops/linalg_tf.py): SciPy's Schur/Pade algorithms
    **{name: f"no Numba kernel for op {name}" for name in ("expm", "logm", "sqrtm")},
    "eig": "eig's result has dtype complex128, which the Numba backend compiles only in "
           "arithmetic, indexing, shape ops, matmul and solve/inv (docs/runtime.md, complex "
           "numbers)",
    # numpy.fft (graphc/ops/fft.py): complex results, and Numba has no FFT
    "fft": "fft's result has dtype complex128, which the Numba backend compiles only in "
           "arithmetic, indexing, shape ops, matmul and solve/inv (docs/runtime.md, complex "
           "numbers)",
    # tf.bitcast (graphc/ops/bitcast.py): its emitter would need a line in codegen.py
    "bitcast": "no Numba kernel for op bitcast",
}

OPS = sorted(name for name, op in all_ops().items()
             if name not in COVERED_ELSEWHERE and not op.stateful)


pytestmark = pytest.mark.usefixtures("eager_compile")


def _bind_sample(ctx, name, k=0):
    """Bind ``name`` on fresh inputs shaped like its ``k``-th sample; (args, results)."""
    args, attrs = SAMPLES[name][k]
    syms = [_symbolic(ctx.new_input(Aval(a.shape, a.dtype))) for a in args]
    out = bind(all_ops()[name], *syms, **attrs)
    results = out if isinstance(out, list) else [out]
    return list(args), [r._sym for r in results]


def _reason(name, k=0) -> str | None:
    """The reason the one-node program of ``name`` (``k``-th sample) does not generate,
    or None."""
    with TraceContext(name) as ctx:
        _, results = _bind_sample(ctx, name, k)
    graph = ctx.finish(results)
    program = generate(graph)
    if not program.reasons:
        return None
    assert len(program.reasons) == len(program.blocked) == 1, program.reasons
    (node, reason), = program.blocked
    sig = node_signature(graph, node) + ": "
    assert reason.startswith(sig), reason
    return re.sub(r" \(traced at .*\)$", "", reason[len(sig):])


REASONS = {name: _reason(name) for name in OPS}
COMPILED = [name for name in OPS if REASONS[name] is None]

# Ops with hand-written kernels whose every sample (not only the first) is compiled in the
# same program, where it generates (their axis / keepdims / dtype variants differ in code).
ALL_SAMPLES = ("argmax", "argmin", "cumsum", "cumprod", "flip", "full", "full_like",
               "getitem", "outer", "shape", "softplus")
# ULP allowed per op beyond test_numba_backend's TRANSCENDENTAL set (libm log1p/exp in
# Numba vs NumPy's own).
# cholesky: Numba's potrf runs on the transposed triangle; svdvals: gesdd with vectors
ULP = {"softplus": ULP_TOL, "cholesky": ULP_TOL, "svdvals": ULP_TOL}
# special functions (graphc/ops/special_fns.py): libm's lgamma/tgamma/erfc and graphc's
# series against SciPy's cephes (up to 7 ULP seen)
ULP.update({name: 16 for name in ("erfc", "erfinv", "ndtri", "lgamma", "gamma", "digamma",
                                  "polygamma", "zeta", "bessel_i0", "bessel_i0e", "bessel_i1",
                                  "bessel_i1e")})
ULP["triangular_solve"] = ULP["lu"] = ULP_TOL  # loops vs OpenBLAS trsm/getrf sums
SAMPLED = [(name, k) for name in COMPILED
           for k in (range(len(SAMPLES[name])) if name in ALL_SAMPLES else (0,))
           if k == 0 or _reason(name, k) is None]


def test_not_compiled_table_is_exact():
    """Both directions: every op without a program is listed with its reason, and every
    listed op still has none (so a newly compiled op must leave the table)."""
    stale = sorted(set(NOT_COMPILED) - set(OPS))
    assert not stale, f"NOT_COMPILED lists ops that are not walked: {stale}"
    for name in OPS:
        got = REASONS[name]
        if name in NOT_COMPILED:
            assert got is not None, (
                f"{name} now compiles: remove it from NOT_COMPILED (and update docs/runtime.md)")
            assert got == NOT_COMPILED[name], f"{name}: reason changed to {got!r}"
        else:
            assert got is None, f"{name} no longer compiles: {got}"


# The sampled ops are split over a few programs: Numba's compile time grows faster than
# the size of a function (cold, one program of every op took 102 s, 4 programs 54 s,
# 8 programs 44 s), and a failure then points at a smaller group of ops.
CHUNKS = 8


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_compiled_op_matches_the_interpreter(chunk):
    """Programs holding one node per compilable op (and sample, for ALL_SAMPLES), each
    compiled once and run twice (ordinary and special values)."""
    arrays, special, outputs, labels = [], [], [], []
    with TraceContext("registry") as ctx:
        for name, k in SAMPLED[chunk::CHUNKS]:
            args, results = _bind_sample(ctx, name, k)
            arrays += args
            # getitem's later samples hold index arrays: specials there are out of bounds
            special += [_with_specials(a) if name in ALL_SAMPLES and (name != "getitem" or i == 0)
                        else a for i, a in enumerate(args)]
            outputs += results
            labels += [f"{name}:{k}:{i}" for i in range(len(results))]
    graph = ctx.finish(outputs)
    assert generate(graph).ok
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba_cpu.FallbackWarning)
        ex = numba_cpu.executor_for(graph)
    assert ex.backend == "numba", ex.explain()
    for inputs in (arrays, special):  # the second run reuses the compiled program
        with np.errstate(all="ignore"):
            want = run_graph(graph, list(inputs))
            got = ex(list(inputs))
        compare(got, [np.asarray(w) for w in want], labels,
                {label: ULP[label.split(":")[0]] for label in labels
                 if label.split(":")[0] in ULP})


def _with_specials(a):
    """``a`` with NaN, infinities, -0.0 and ties (floats) or extreme values (ints)
    written over its first elements: argmax must pick the first NaN, cumsum must wrap."""
    a = np.array(a)
    flat = a.reshape(-1)
    if a.dtype.kind == "f":
        vals = [-0.0, np.inf, np.nan, -np.inf, np.nan]
    elif a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        vals = [info.max, 0, info.max, info.min, info.min]
    else:
        return a
    n = min(len(vals), flat.size - 1)  # keep one ordinary value
    flat[:n] = vals[:n]
    return a
