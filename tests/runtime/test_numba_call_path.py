"""The cached one-tensor call path: ``Function.__call__`` -> ``ConcreteFunction._hot`` ->
the compiled program's runner ``one`` (array -> array, no lists). Results equal the
interpreter's (dtype, shape, values), inputs of another rank or layout never reach the
entry point unchecked, run-time errors show the user's frames, and a change of the
optimizer options rebuilds the executor instead of running the old one."""

import traceback

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from benchmarks.workloads import collatz_steps as collatz  # the benchmark's workload
from graphc.core.interpreter import run_graph
from graphc.core.tensor import Tensor
from graphc.errors import InvalidIndexError

pytestmark = pytest.mark.usefixtures("eager_compile")


def _hot(f):
    """The armed trace's compiled one-tensor runner (after enough cached calls)."""
    assert f._one is not None, "the one-tensor path is not armed"
    return f._one[2]._hot


def test_collatz_runs_compiled_on_the_hot_path():
    f = gc.function(collatz)
    x = np.asarray(27, np.int64)
    for _ in range(11):  # a full retrace window of cached calls arms the path
        assert int(f(x)) == 111
    assert _hot(f) is not None
    for n in (1, 2, 97, 837799):
        out = f(np.asarray(n, np.int64))
        assert type(out) is Tensor and out._np.shape == () and out._np.dtype == np.int64
        assert int(out) == collatz(n)
    assert f.tracing_count == 1


@pytest.mark.parametrize("fn, dtype", [
    (lambda x: x * 2 + 1, np.float32),        # an array result
    (lambda x: gnp.sum(x * x), np.float32),   # a 0-d float32 result (dtype passed)
    (lambda x: gnp.sum(x) > 3, np.float64),   # a 0-d bool result (NumPy's default)
    (lambda x: gnp.max(x * 3), np.int32),     # a 0-d int32 result
])
def test_hot_path_agrees_with_the_interpreter(fn, dtype):
    f = gc.function(fn)
    a = np.arange(6, dtype=dtype)
    for _ in range(11):
        f(a)
    hot = _hot(f)
    assert hot is not None
    graph = f._one[2].optimized_graph
    for arg in (a + 1, a[::-1], gc.constant(a - 2)):  # a[::-1]: not C-contiguous
        got = f(arg)._np
        want = run_graph(graph, [np.asarray(arg)])[0]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    assert f.tracing_count == 1


def test_hot_runner_checks_rank_and_layout_itself():
    """Called with an array of another rank or a strided view, the runner goes through
    Numba's dispatcher (which refuses a wrong type) and then the interpreter; it never
    hands the entry point memory of another layout."""
    f = gc.function(lambda x: x * 2 + 1)
    a = np.arange(6, dtype=np.float32)
    for _ in range(11):
        f(a)
    hot = _hot(f)
    np.testing.assert_array_equal(hot(a[::2].repeat(2)), a[::2].repeat(2) * 2 + 1)
    np.testing.assert_array_equal(hot(a[::-1]), a[::-1] * 2 + 1)
    two_d = a.reshape(2, 3)
    np.testing.assert_array_equal(hot(two_d), two_d * 2 + 1)  # rank 2: the interpreter


def test_run_time_error_on_the_hot_path_shows_user_frames():
    @gc.function
    def pick(x):
        return gc.gather(x, gc.cast(x, gc.int32))  # x's values index x

    ok = np.asarray([0.0, 1.0, 1.0])
    for _ in range(11):
        np.testing.assert_array_equal(pick(ok)._np, ok)
    assert _hot(pick) is not None
    with pytest.raises(InvalidIndexError) as info:
        pick(np.asarray([0.0, 7.0, 1.0]))
    files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
    internal = [name for name in files if "/graphc/" in name and "/tests/" not in name]
    assert len(internal) <= 1  # only the re-raise in gc.function's __call__


def test_optimizer_options_change_rebuilds_the_executor():
    f = gc.function(lambda x: x * 2 + 1)
    a = np.arange(4, dtype=np.float64)
    for _ in range(11):
        f(a)
    concrete, old = f._one[2], gc.config.optimizer.get_options()
    version = gc.config.state.optimizer_version
    try:
        gc.config.optimizer.set_options({"constant_folding": False})
        np.testing.assert_array_equal(f(a)._np, a * 2 + 1)
        assert concrete._executor_version == version + 1
    finally:
        gc.config.optimizer.set_options(old)
    np.testing.assert_array_equal(f(a)._np, a * 2 + 1)


def test_rank_one_flat_loops_index_their_operands_directly():
    """A 1-d fused loop reads its operands without ``.reshape(-1)`` (whose implementation
    costs ~0.1 s of a small program's first compile); other ranks still flatten."""
    from graphc.runtime.cpu import codegen

    f = gc.function(lambda x: 1.0 / (1.0 + gc.exp(-x)))
    for shape, flattened in (((5,), False), ((2, 3), True)):
        x = np.linspace(-2, 2, int(np.prod(shape)), dtype=np.float32).reshape(shape)
        graph = f.get_concrete_function(x).optimized_graph
        assert (".reshape(-1)" in codegen.generate(graph).source) == flattened
        np.testing.assert_allclose(f(x)._np, 1 / (1 + np.exp(-x)), rtol=1e-6)
