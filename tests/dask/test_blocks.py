"""gc.functions over Dask arrays on the threaded scheduler: each result equals the same
gc.function on the NumPy array; graphs that cannot be split raise naming the op."""

import io
import pickle
import subprocess
import sys

import dask
import dask.array as da
import numpy as np
import pytest

import graphc as gc
from graphc.dask import programs

RNG = np.random.default_rng(0)
X1 = RNG.standard_normal(50).astype(np.float32)
X2 = RNG.standard_normal((9, 7)).astype(np.float32)


def _same(fn, *args, chunks=None, rtol=1e-6):
    """fn on Dask versions of ``args`` (chunked by ``chunks``) vs fn on the arrays."""
    dargs = [da.from_array(a, chunks=c) if c is not None else a
             for a, c in zip(args, chunks)]
    out = fn(*dargs)
    assert isinstance(out, da.Array)
    want = fn(*args).numpy()
    assert out.shape == want.shape and out.dtype == want.dtype
    with dask.config.set(scheduler="threads"):
        got = out.compute()
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-5)
    return out


@gc.function
def chain(x):
    y = gc.maximum(x * 1.5 - 0.25, -1.0)
    return gc.sqrt(gc.abs(y) + 1.0) * 2.0


@gc.function
def affine(x, w, b):
    return gc.numpy.tanh(x * w + b)


@gc.function
def total(x):
    return gc.reduce_sum(x * x)


@gc.function
def col_mean(x):
    return gc.reduce_mean(x, axis=0)


@gc.function
def row_max(x):
    return gc.reduce_max(x, axis=1, keepdims=True)


@gc.function
def centered(x):
    return (x - gc.reduce_mean(x)) / (gc.reduce_max(gc.abs(x)) + 1.0)


@gc.function
def newton(x):
    y = x
    for _ in gc.range(6):
        y = 0.5 * (y + x / y)
    return y


def test_elementwise_uneven_chunks_1d_and_2d():
    _same(chain, X1, chunks=[(20, 20, 10)])
    out = _same(chain, X2, chunks=[(4, 3)])
    assert out.chunks == ((4, 4, 1), (3, 3, 1))


def test_broadcasting_against_unchunked_and_chunked_operands():
    w = RNG.standard_normal(7).astype(np.float32)           # broadcasts: chunked alike
    b = np.float32(0.5) * np.ones((9, 1), np.float32)       # size-1 dim: unchunked
    _same(affine, X2, w, b, chunks=[(4, 3), None, None])
    _same(affine, X2, w, b, chunks=[(4, 7), (7,), (3, 1)])


def test_reductions_all_axes_one_axis_keepdims_and_two_stages():
    _same(total, X2, chunks=[(2, 3)], rtol=1e-5)
    _same(col_mean, X2, chunks=[(2, 3)], rtol=1e-5)
    _same(row_max, X2, chunks=[(4, 2)])
    _same(centered, X1, chunks=[(8,)], rtol=1e-5)
    ints = np.arange(40, dtype=np.int32).reshape(8, 5)
    _same(gc.function(lambda x: gc.reduce_prod(x % 3 + 1, axis=1)), ints, chunks=[(3, 2)])


@pytest.mark.parametrize("fn", [
    lambda x: gc.numpy.var(x),
    lambda x: gc.numpy.std(x, axis=0),
    lambda x: gc.numpy.var(x, axis=1, keepdims=True, ddof=1),
    lambda x: (x - gc.numpy.mean(x, axis=0)) / gc.numpy.std(x, axis=0, ddof=1),
])
def test_var_and_std_in_two_passes(fn):
    f = gc.function(fn)
    _same(f, X2 * 3.0 + 7.0, chunks=[(4, 3)], rtol=2e-5)
    ints = np.arange(63, dtype=np.int32).reshape(9, 7) % 11
    _same(f, ints, chunks=[(2, 5)], rtol=1e-12)  # float64 results: as exact as NumPy


def test_per_block_tensor_while():
    x = np.abs(X1) + 0.5
    _same(newton, x, chunks=[(16,)])

    @gc.function
    def halve(x):
        i = gc.constant(0)
        while i < 4:  # the trip count reads no chunked value
            x = gc.where(x > 1.0, x * 0.5, x)
            i += 1
        return x

    _same(halve, X2 * 8, chunks=[(3, 3)])


def test_matmul_with_a_whole_contracted_dim():
    rng = np.random.default_rng(5)
    w1, b1 = rng.standard_normal((7, 16)).astype(np.float32), np.ones(16, np.float32)
    w2 = rng.standard_normal((16, 3)).astype(np.float32)

    @gc.function
    def predict(x, w1, b1, w2):
        return gc.maximum(x @ w1 + b1, 0.0) @ w2

    out = _same(predict, X2, w1, b1, w2, chunks=[(4, 7), None, None, None], rtol=1e-5)
    assert out.chunks == ((4, 4, 1), (3,))
    cols = rng.standard_normal((7, 10)).astype(np.float32)
    _same(gc.function(lambda a, b: a @ b), X2, cols, chunks=[None, (7, 4)], rtol=1e-5)


def test_map_blocks_python_function_and_structures():
    y = gc.dask.map_blocks(lambda x: {"a": x + 1.0, "n": 3}, da.from_array(X1, chunks=10))
    assert y["n"] == 3
    np.testing.assert_allclose(y["a"].compute(), X1 + 1.0)


@pytest.mark.parametrize("fn, op, why", [
    (lambda x: gc.numpy.cumsum(x, axis=0), "cumsum", "split into chunks"),
    (lambda x: gc.matmul(x, x), "matmul", "contracts an axis that is split"),
    (lambda x: gc.reshape(x, (-1,)), "reshape", "no block rule"),
    (lambda x: x[x > 0], "getitem", "its index is chunked data"),
    (lambda x, w=np.array([1.0, -1.0, 2.0]): (x + 1.0, w[w > 0]), "getitem",
     "shape that depends on data"),
])
def test_unsplittable_graphs_name_the_op(fn, op, why):
    with pytest.raises(gc.dask.BlockSplitError, match=why) as info:
        gc.function(fn)(da.from_array(X2[:7], chunks=3))
    assert f"op {op!r}" in str(info.value)
    assert "test_blocks.py" in str(info.value)  # the user's line


def test_unknown_chunk_sizes_are_refused():
    x = da.from_array(X1, chunks=10)
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        chain(x[x > 0])


def test_data_dependent_trip_count_is_refused():
    @gc.function
    def shrink(x):
        while gc.reduce_max(x) > 1.0:
            x = x * 0.5
        return x

    with pytest.raises(gc.dask.BlockSplitError, match="inside a loop"):
        shrink(da.from_array(X1, chunks=10))


def test_meta_and_chunks_come_from_shape_inference():
    @gc.function
    def fresh(x):
        return gc.cast(x > 0, np.int8) + 2

    before = programs.stats()
    y = fresh(da.from_array(X2, chunks=(4, 7)))
    assert programs.stats() == before  # nothing ran while building the Dask array
    assert y.dtype == np.int8 and y._meta.dtype == np.int8 and y.chunks == ((4, 4, 1), (7,))
    assert fresh.experimental_get_tracing_count() == 1
    y.compute()
    assert fresh.experimental_get_tracing_count() == 1


def test_numpy_backend_functions_run_blocks_on_the_interpreter():
    f = gc.function(lambda x: x * 2.0 + 1.0, backend="numpy")
    y = f(da.from_array(X1, chunks=20))
    found = []

    class Finder(pickle.Pickler):
        def reducer_override(self, obj):
            if type(obj) is programs.GraphProgram:
                found.append(obj)
            return NotImplemented

    Finder(io.BytesIO()).dump(dict(y.__dask_graph__()))
    assert found and not any(p.compiled for p in found)
    np.testing.assert_allclose(y.compute(), X1 * 2.0 + 1.0)


def test_import_graphc_does_not_import_dask():
    code = "import sys, graphc; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_block_programs_are_specialized_per_block_signature_and_fused():
    from graphc.dask import wire
    from graphc.passes.specialize import for_shapes

    graph = chain.get_concrete_function(gc.TensorSpec([None], np.float32)).optimized_graph
    # unknown dims, one result: fused already; the wire carries the ops it fuses
    assert [n.op.name for n in graph.nodes if n.op.name != "const"] == ["fused_elementwise"]
    wired = wire.loads(*wire.dumps(graph))
    assert all(n.op.name != "fused_elementwise" for n in wired.nodes)
    fused = for_shapes(wired, [(20,)])
    assert [n.op.name for n in fused.nodes if n.op.name != "const"] == ["fused_elementwise"]
    assert fused.outputs[0].aval.shape == (20,)
    before = set(programs.stats())
    _same(chain, X1 + 3.0, chunks=[(16, 16, 16, 2)])
    new = [k for k in programs.stats() if k not in before]
    assert sorted(k[1] for k in new) == [((2,),), ((16,),)]  # two block signatures


def test_outputs_chunked_alike_share_one_stage():
    @gc.function
    def two(x):
        y = gc.sqrt(x + 1.0)
        return y * 2.0, y + 1.0, gc.reduce_sum(y, axis=1)

    a, b, c = two(da.from_array(X2 + 2.0, chunks=(4, 7)))
    shared = {n for n in a.__dask_graph__().layers if "shared" in n}
    assert len(shared) == 1 and shared == {n for n in b.__dask_graph__().layers
                                           if "shared" in n}
    for got, want in zip(dask.compute(a, b, c), two(X2 + 2.0)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)


def test_block_programs_are_serial(monkeypatch):
    """Dask runs blocks in parallel: no prange inside a block program, even for blocks
    big enough that a plain call's program would use one."""
    from graphc.runtime.cpu import codegen, numba_cpu, parallel

    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    monkeypatch.setattr(parallel.parallel_settings, "enabled", True)
    graph = chain.get_concrete_function(gc.TensorSpec([None], np.float32)).optimized_graph
    from graphc.passes.specialize import for_shapes

    block = for_shapes(graph, [(1 << 20,)])
    assert "prange" in codegen.generate(block).source  # a plain call's program
    ex = programs._executor(block, compiled=True)
    assert "prange" not in ex.program.source and parallel.parallel_settings.enabled


def test_loop_and_branch_results_whole_on_one_side():
    @gc.function
    def grow(x):
        acc = gc.zeros([1], np.float32)  # size 1: broadcasts in every block
        for _ in gc.range(3):
            acc = acc + x
        return acc

    _same(grow, X1, chunks=[(20, 30)])

    @gc.function
    def pick(x, flag):
        if flag > 0:
            y = x * 2.0
        else:
            y = gc.zeros([50], np.float32)  # the array's full size: not a block's
        return y

    with pytest.raises(gc.dask.BlockSplitError, match="whole .size 50. on one side"):
        pick(da.from_array(X1, chunks=10), np.array(1, np.int32))


def test_tree_reduction_combine_passes_the_ops_declared_dtype_attr():
    """The combine step of a tree reduction binds the op with every attr it declares
    (``dtype=None`` for sum: NumPy's default, so int32 partials are not widened twice);
    it used to read the attrs from ``op.extra``, where no op puts them."""
    from graphc.dask.stages import _tiny_graph

    graph = _tiny_graph("sum", np.dtype(np.int32), 2, (0,))
    (node,) = [n for n in graph.nodes if n.op.name == "sum"]
    assert "dtype" in node.attrs and node.attrs["dtype"] is None
