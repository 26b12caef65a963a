"""gnp.random's legacy global-state functions (``seed``, ``rand``, ``randn``, ``random``,
``standard_normal``, ``uniform``, ``normal``, ``poisson``, ``randint``): after
``gnp.random.seed(s)`` they draw exactly NumPy's legacy stream (``np.random.seed(s)``),
eagerly and inside gc.function (every call advances the state; a seed inside the function
reseeds on every call); NumPy's shapes, dtypes and errors."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

R = gnp.random


def _draws(lib):
    r = lib.random
    return [r.rand(2, 3), r.rand(), r.randn(3), r.random(4), r.random(), r.random((2, 1)),
            r.standard_normal((2, 2)), r.standard_normal(), r.uniform(-1, [1, 2, 3]),
            r.uniform(size=2), r.normal(1.0, 2.0, 5), r.normal([0.0, 10.0], 0.5),
            r.poisson(3.0, 4), r.poisson([1.0, 20.0]), r.poisson(), r.randint(10, size=3),
            r.randint(-5, 5, (2, 2), dtype=np.int8), r.randint(0, [3, 30, 300]),
            r.randint(7), r.randint(2**40, 2**41, 2, dtype=np.uint64)]


def _check(got, want):
    for g, w in zip(got, want, strict=True):
        w = np.asarray(w)
        assert isinstance(g, gc.Tensor)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_array_equal(g.numpy(), w)


@pytest.fixture(autouse=True)
def _restore():
    state = np.random.get_state()
    yield
    np.random.set_state(state)
    R.seed(None)


@pytest.mark.parametrize("seed", [0, 1234, 2**32 - 1, [1, 2, 3], np.uint32(5)])
def test_eager_draws_equal_numpys_legacy_stream(seed):
    R.seed(seed)
    np.random.seed(seed)
    _check(_draws(gnp), _draws(np))
    _check(_draws(gnp), _draws(np))  # the streams stay together


def test_traced_draws_advance_the_state_on_every_call():
    f = gc.function(lambda: _draws(gnp))
    R.seed(42)
    np.random.seed(42)
    for _ in range(3):
        _check(f(), _draws(np))
    _check(_draws(gnp), _draws(np))  # eager draws continue the same stream
    assert f.tracing_count == 1


def test_seed_inside_a_function_reseeds_on_every_call():
    @gc.function
    def f(s):
        R.seed(s)
        return R.rand(3), R.randint(0, 100, size=2)

    for s in (9, 9, 10):
        np.random.seed(s)
        _check(f(gnp.asarray(s)), [np.random.rand(3), np.random.randint(0, 100, size=2)])

    @gc.function
    def g():
        R.seed(3)
        return R.randn(2)

    np.random.seed(3)
    want = np.random.randn(2)
    _check([g()], [want])
    _check([g()], [want])


def test_shape_known_at_run_time():
    @gc.function(input_signature=[gc.TensorSpec([None, 2], gc.float32)])
    def f(x):
        return R.random(gc.shape(x)), R.randint(0, 4, size=gc.shape(x))

    R.seed(1)
    np.random.seed(1)
    _check(f(np.zeros((3, 2), np.float32)),
           [np.random.random((3, 2)), np.random.randint(0, 4, size=(3, 2))])


def test_seed_also_resets_gc_random():
    R.seed(5)
    a = gc.random.uniform([3]).numpy()
    gc.random.set_seed(5)
    np.testing.assert_array_equal(gc.random.uniform([3]).numpy(), a)


def test_none_seed_draws_fresh_entropy():
    R.seed(None)
    a = R.rand(4).numpy()
    R.seed(None)
    assert not np.array_equal(a, R.rand(4).numpy())


def test_errors_are_numpys():
    for bad in (-1, 2**32):
        with pytest.raises(ValueError, match="Seed must be between"):
            R.seed(bad)
    with pytest.raises(TypeError):
        R.seed(1.5)
    with pytest.raises(ValueError, match="randint"):
        R.randint(5, 2)
    with pytest.raises(ValueError, match="high <= 0"):
        R.randint(0, [3, 0])
    with pytest.raises(ValueError, match="out of bounds"):
        R.randint(0, 300, dtype=np.int8)
    with pytest.raises(ValueError, match="lam < 0"):
        R.poisson(-1.0)
    with pytest.raises(ValueError, match="scale < 0"):
        R.normal(0.0, -1.0, 2)
    with pytest.raises(ValueError, match="negative"):
        R.rand(-1)
    with pytest.raises(ValueError, match="lam"):  # checked while tracing, known values
        gc.function(lambda: R.poisson(-2.0))()


def test_draws_are_not_differentiable():
    loc = gnp.asarray(1.0)
    with gc.GradientTape() as tape:
        tape.watch(loc)
        y = gnp.sum(R.normal(loc, 1.0, 3))
    assert tape.gradient(y, loc) is None
