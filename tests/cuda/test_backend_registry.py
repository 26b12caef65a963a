"""Every registry op on the CUDA backend (simulator) compared with the interpreter.

For every op that tests/ops/test_registry.py walks (minus the stateful ones), the first
sample is bound in a one-node graph; :data:`ON_HOST` lists, with the generator's reason,
the ops whose node runs on the host instead of as a kernel (exact in both directions: a
newly supported op must leave the table). The ops with kernels are spread over
:data:`CHUNKS` graphs, each run once and compared with ``interpreter.run_graph``.
``graphs()`` is also what tests/cuda/test_ptx_kernels.py compiles to PTX.
"""

from __future__ import annotations

import pathlib
import re
import sys
import warnings

import numpy as np
import pytest

from graphc.core.interpreter import run_graph
from graphc.core.registry import all_ops, bind
from graphc.core.tensor import _symbolic
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval
from graphc.ir.printer import node_signature
from graphc.runtime.cuda import codegen, executor

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "ops"))
from test_registry import COVERED_ELSEWHERE, SAMPLES  # noqa: E402

# Ops whose node runs on the host under the CUDA backend, with the reason (node signature
# and source location stripped).
ON_HOST = {
    # the incomplete gamma and beta functions (graphc/ops/special_fns.py): SciPy only
    **{name: f"elementwise op {name} has no scalar template"
       for name in ("igamma", "igammac", "betainc")},
    # gc.random.stateless_* (graphc/ops/random_draw.py): NumPy's Philox on the host
    'random_stateless': 'no CUDA kernel for op random_stateless',
    # tf.linalg's ops (graphc/ops/linalg_tf.py): SciPy/LAPACK on the host
    **{name: f'no CUDA kernel for op {name}' for name in (
        'expm', 'logm', 'lu', 'sqrtm', 'triangular_solve')},
    'argwhere': 'a value of unknown shape (i64[?,2]); CUDA kernels need static shapes',
    'range': 'a value of unknown shape (i32[?]); CUDA kernels need static shapes',
    'setitem': 'no CUDA kernel for op setitem',
    'tensor_scatter_nd_update': 'no CUDA kernel for op tensor_scatter_nd_update',
    'unsorted_segment_sum': 'no CUDA kernel for op unsorted_segment_sum',
    # numpy.linalg's factorizations and solvers (graphc/ops/linalg_decomp.py): LAPACK on
    # the host
    **{name: f'no CUDA kernel for op {name}' for name in (
        'cholesky', 'det', 'eigh', 'inv', 'linalg_conj', 'qr', 'slogdet', 'solve', 'svd',
        'svdvals')},
    'eig': 'dtype complex128 has no CUDA kernels (float16 and complex run on the host)',
    'fft': 'dtype complex128 has no CUDA kernels (float16 and complex run on the host)',
    'lstsq': '%2, %3, %4, %5 = lstsq %0 %1 rcond=None: a value of unknown shape (f64[?]); '
             'CUDA kernels need static shapes',
    # tf.bitcast (graphc/ops/bitcast.py): a byte view, run on the host
    'bitcast': 'no CUDA kernel for op bitcast',
}

OPS = sorted(name for name, op in all_ops().items()
             if name not in COVERED_ELSEWHERE and not op.stateful)
CHUNKS = 3


def bind_sample(ctx, name, k=0):
    args, attrs = SAMPLES[name][k]
    syms = [_symbolic(ctx.new_input(Aval(np.shape(a), np.asarray(a).dtype))) for a in args]
    out = bind(all_ops()[name], *syms, **attrs)
    results = out if isinstance(out, list) else [out]
    return [np.asarray(a) for a in args], [r._sym for r in results]


def _reason(name, k=0):
    with TraceContext(name) as ctx:
        _, results = bind_sample(ctx, name, k)
    graph = ctx.finish(results)
    program = codegen.generate(graph)
    if program.whole_host is not None:
        return re.sub(r"^%\S+ = .*?: ", "", program.whole_host)
    if not program.reasons:
        return None
    (reason,) = program.reasons
    sig = node_signature(graph, graph.nodes[-1]) + ": "
    return re.sub(r" \(traced at .*\)$", "", reason.removeprefix(sig))


REASONS = {name: _reason(name) for name in OPS}
ON_GPU = [name for name in OPS if REASONS[name] is None]
# Ops with hand-written kernels whose every sample runs as a kernel (where it does): their
# axis / key / batch variants generate different code.
ALL_SAMPLES = ("arange", "argmax", "argmin", "argsort", "broadcast_to", "concatenate", "cumprod",
               "cumsum", "dot", "einsum", "expand_dims", "eye", "flip", "full", "full_like",
               "gather", "getitem", "inner", "linspace", "matmul", "outer", "pad", "repeat",
               "reshape", "shape", "sort", "split", "squeeze", "stack", "std", "take",
               "take_along_axis", "tensordot", "tile", "trace", "transpose", "var", "vdot")
SAMPLED = [(name, k) for name in ON_GPU
           for k in (range(len(SAMPLES[name])) if name in ALL_SAMPLES else (0,))
           if k == 0 or _reason(name, k) is None]


def graphs():
    """``[(graph, inputs, labels)]``: the ops with kernels, ``CHUNKS`` graphs."""
    out = []
    for chunk in range(CHUNKS):
        arrays, outputs, labels = [], [], []
        with TraceContext(f"registry{chunk}") as ctx:
            for name, k in SAMPLED[chunk::CHUNKS]:
                args, results = bind_sample(ctx, name, k)
                arrays += args
                outputs += results
                labels += [f"{name}:{k}:{i}" for i in range(len(results))]
        out.append((ctx.finish(outputs), arrays, labels))
    return out


def compare(got, want, label):
    assert got.dtype == want.dtype and got.shape == want.shape, (
        label, got.dtype, got.shape, want.dtype, want.shape)
    if got.dtype.kind == "f":
        rtol = 2e-6 if got.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True,
                                   err_msg=label)
    else:
        np.testing.assert_array_equal(got, want, err_msg=label)


def test_on_host_table_is_exact():
    stale = sorted(set(ON_HOST) - set(OPS))
    assert not stale, f"ON_HOST lists ops that are not walked: {stale}"
    for name in OPS:
        if name in ON_HOST:
            assert REASONS[name] == ON_HOST[name], f"{name}: reason now {REASONS[name]!r}"
        else:
            assert REASONS[name] is None, f"{name} runs on the host: {REASONS[name]}"


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_kernel_matches_the_interpreter(chunk):
    graph, arrays, labels = graphs()[chunk]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ex = executor.Executor(graph)
    assert ex.backend == "cuda", ex.explain()
    with np.errstate(all="ignore"):
        want = run_graph(graph, list(arrays))
    got = ex(list(arrays))
    assert all(executor.is_device_array(g) for g in got)
    wrong = []  # every op that disagrees, not only the first (one GPU run shows all)
    for label, g, w in zip(labels, got, want):
        try:
            compare(g.copy_to_host(), np.asarray(w), label)
        except AssertionError as e:
            wrong.append(str(e))
    assert not wrong, f"{len(wrong)} of {len(labels)} results differ:\n" + "\n".join(wrong)
