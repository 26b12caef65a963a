"""Windows of C-contiguous arrays (``A[1:, 2:]``, ``A[1:-1, :-2, 1:]``: step-1 slices)
in elementwise loops (``kernels.WindowVal``, ``loop_shapes._row_loop``), read and written
in place as rows of their base, and loops that store into the region they read
(``x[1:] -= e``: ``ownership.Ownership.region_reads``). Every result is NumPy's, bit
for bit, and the same as the strided N-d loop's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import kernels_setitem, kernels_shape, numba_cpu
from graphc.runtime.cpu.ownership import Ownership

pytestmark = pytest.mark.usefixtures("eager_compile")


def fdtd(ex, ey, hz, fict, steps):  # NPBench's fdtd_2d: three in-place window updates
    for t in range(steps):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


def cube(A, B):  # rank 3, every dim cut: rows found by division and remainder
    A, B = A * 2.0, B * 2.0  # fresh buffers the program owns: written in place
    B[1:-1, 1:, 2:] = A[2:, :-1, :-2] * 0.5 + A[:-2, 1:, 2:] - B[1:-1, 1:, 2:]
    A[1:, :-1, 1:] += B[:-1, 1:, :-1]
    return A, B, A[1:, 1:3, 60:] * 2.0


def _fdtd_args():
    rng = np.random.default_rng(3)
    return [rng.random((5, 70)), rng.random((5, 70)), rng.random((5, 70)), rng.random(4),
            np.array(4)]


def _cube_args():
    rng = np.random.default_rng(4)
    return [rng.random((4, 5, 67)), rng.random((4, 5, 67))]


def _run(program, make):
    want_args, got_args = make(), make()
    want = program(*want_args)
    f = gc.function(program)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        got = f(*got_args)
    for g, w in zip(got_args, want_args, strict=True):
        np.testing.assert_array_equal(g, w)
    for g, w in zip(got or (), want or (), strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)
    concrete = f.get_concrete_function(*make())
    ex = numba_cpu.executor_for(concrete.optimized_graph)
    assert ex.backend == "numba", ex.explain()
    return concrete.optimized_graph, ex


@pytest.mark.parametrize("program,make", [(fdtd, _fdtd_args), (cube, _cube_args)])
def test_windows_are_read_and_written_as_rows_of_their_base(program, make, monkeypatch):
    graph, ex = _run(program, make)
    src = ex.program.source
    assert "_orow" in src and "[_k + 1] = " in src  # a store into a window's rows
    if program is cube:
        assert " // 4" in src and ") % 4" in src  # window rows 1:, :-1 of 4 x 5 rows
    # the same graph through the views' strides (the N-d loop): the same bits
    monkeypatch.setattr(kernels_shape, "window_of", lambda *a: None)
    monkeypatch.setattr(kernels_setitem, "window_of", lambda *a: None)
    strided = numba_cpu.Executor(graph)
    assert "_orow" not in strided.program.source
    args, again = make(), make()
    for a, b in zip(strided(args) + args, ex(again) + again, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_loop_storing_into_the_region_it_reads_has_no_temporary():
    def update(x, y):
        x = x * 2.0
        x[1:, :] -= 0.5 * (y[1:, :] - x[1:, :])   # reads the region it writes: in place
        x[1:, :] = x[:-1, :] + 1.0                # reads other rows: a temporary first
        return x

    args = (np.arange(12.0).reshape(3, 4), np.ones((3, 4)))
    f = gc.function(update)
    np.testing.assert_array_equal(f(*args), update(*args))
    plan = Ownership(f.get_concrete_function(*args).optimized_graph)
    assert len(plan.in_place) == 2 and len(plan.into_region) == 1
    assert set(plan.region_reads) == set(plan.into_region)


def floyd_warshall(path):  # NPBench's: each sweep reads row k and column k of path
    for k in range(path.shape[0]):
        path[:] = gnp.minimum(path[:], gnp.add.outer(path[:, k], path[k, :]))


@pytest.mark.parametrize("n", [20, 40])  # the N-d loop and the row loop
def test_other_views_of_the_written_buffer_are_copied_before_the_loop(n):
    # negative weights on the diagonal: a sweep that read row k and column k while
    # writing them would see new values (NumPy evaluates the right-hand side first)
    rng = np.random.default_rng(n)
    path = rng.integers(-3, 20, (n, n)).astype(np.int32)
    want, got = path.copy(), path.copy()
    for k in range(n):
        want[:] = np.minimum(want[:], np.add.outer(want[:, k], want[k, :]))
    f = gc.function(floyd_warshall)
    f(got)
    np.testing.assert_array_equal(got, want)
    graph = f.get_concrete_function(path).optimized_graph  # one fused loop
    (loop,) = [m for m in graph.nodes if m.op.name == "while_loop"]
    body = Ownership(loop.attrs["body"], Ownership(graph).loops[loop][0])
    (maker,) = body.into_region
    assert len(body.snapshots[maker]) == 2 and len(body.region_reads[maker]) == 1


def test_views_bigger_than_half_the_region_keep_the_temporary():
    def halves(x):
        x = x * 2.0
        x[:, :4] = x[:, :4] + x[:, 2:6] * x[:, 4:8]  # other views: 2x the region
        return x

    x = np.arange(24.0).reshape(3, 8)
    f = gc.function(halves)
    np.testing.assert_array_equal(f(x), halves(x))
    plan = Ownership(f.get_concrete_function(x).optimized_graph)
    assert len(plan.in_place) == 1 and not plan.into_region


@pytest.mark.parametrize("width", [8, 80])  # the N-d loop and the row loop
def test_a_region_read_in_place_is_not_recomputed_after_a_fast_variant_fails(width):
    # float32 sin's fast variant gives up past |x| = 65536 and the exact loop runs again
    # (scalar_templates.FAST_VARIANTS): over a region already overwritten, the second
    # pass would take the sine of sines
    def waves(x):
        x = x * 2.0
        x[1:, :] = gnp.sin(x[1:, :]) * 2.0
        return x

    x = np.linspace(-1e6, 1e6, 3 * width, dtype=np.float32).reshape(3, width)
    want = waves(x)
    got = gc.function(waves)(x)
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=2e-7)


# windows of one shape at random offsets, written in place: B[reg] = A[src] * 2 + B[reg];
# A[src] -= B[reg]; A[reg] += A[src][:1] * 0.5
DIMS = st.tuples(st.integers(1, 3), st.integers(1, 3), st.sampled_from([3, 64, 66]))


@settings(max_examples=8, deadline=None)
@given(DIMS, st.data())
def test_random_windows_agree_with_numpy(dims, data):
    base = tuple(n + 2 for n in dims)
    offs = [tuple(data.draw(st.integers(0, b - n)) for b, n in zip(base, dims))
            for _ in range(2)]
    reg, src = (tuple(slice(o, o + n) for o, n in zip(off, dims)) for off in offs)

    def program(A, B):
        A, B = A * 2.0, B * 2.0  # owned: the writes go in place
        B[reg] = A[src] * 2.0 + B[reg]
        A[src] -= B[reg]
        A[reg] += A[src][:1] * 0.5  # another view of A: copied first when it is small
        return A, B

    rng = np.random.default_rng(len(base))
    make = lambda: [rng.random(base), rng.random(base)]  # noqa: E731
    state = rng.bit_generator.state
    want = program(*make())
    rng.bit_generator.state = state
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.FallbackWarning)
        got = gc.function(program)(*make())
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
