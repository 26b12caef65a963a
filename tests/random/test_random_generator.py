"""``gnp.random.default_rng`` Generators draw exactly NumPy's numbers for the same seed,
eagerly and inside ``gc.function`` (a captured Generator advances on every call; one
created inside the function starts afresh on every call), and check parameters as NumPy
does. The oracle is ``numpy.random.default_rng`` with the same seed."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

LIST = pathlib.Path(__file__).resolve().parents[3] / "shared/api_targets/numpy.random.Generator.txt"

# (method, args, kwargs): small draws of every method, as NumPy is called
CALLS = [
    ("random", (), {"size": (2, 3)}),
    ("random", (), {"size": 3, "dtype": np.float32}),
    ("integers", (5,), {"size": 4}),
    ("integers", (-3, 3), {"size": (2, 2), "dtype": np.int32, "endpoint": True}),
    ("integers", ([1, 10], [5, 20]), {}),
    ("choice", (5, 3), {"replace": False}),
    ("choice", ([1.5, 2.5, 3.5],), {"size": (2, 2), "p": [0.2, 0.3, 0.5]}),
    ("choice", (np.arange(6).reshape(2, 3), 2), {"axis": 1, "shuffle": False}),
    ("permutation", (6,), {}),
    ("permutation", (np.arange(6).reshape(3, 2),), {}),
    ("permutation", (np.arange(6).reshape(2, 3),), {"axis": 1}),
    ("permuted", (np.arange(6).reshape(2, 3),), {"axis": 1}),
    ("permuted", (np.arange(6).reshape(2, 3),), {}),
    ("standard_normal", (), {"size": (2, 2)}),
    ("standard_normal", (), {"size": 3, "dtype": np.float32}),
    ("normal", (1.0, 2.0), {"size": 3}),
    ("normal", ([0.0, 10.0], [[1.0], [2.0]]), {}),
    ("normal", (), {}),
    ("uniform", (-1.0, 2.0), {"size": (3,)}),
    ("standard_exponential", (), {"size": 3}),
    ("standard_exponential", (), {"size": 2, "method": "inv", "dtype": np.float32}),
    ("exponential", (2.0,), {"size": 3}),
    ("standard_gamma", ([0.5, 2.0],), {}),
    ("standard_gamma", (1.5,), {"size": 2, "dtype": np.float32}),
    ("gamma", (2.0, 3.0), {"size": 3}),
    ("beta", (0.5, 2.0), {"size": 3}),
    ("chisquare", (3.0,), {"size": 3}),
    ("noncentral_chisquare", (3.0, 1.5), {"size": 3}),
    ("f", (3.0, 5.0), {"size": 3}),
    ("noncentral_f", (3.0, 5.0, 1.0), {"size": 3}),
    ("standard_t", (4.0,), {"size": 3}),
    ("standard_cauchy", (), {"size": 3}),
    ("gumbel", (1.0, 2.0), {"size": 3}),
    ("laplace", (1.0, 2.0), {"size": 3}),
    ("logistic", (1.0, 2.0), {"size": 3}),
    ("lognormal", (0.5, 0.25), {"size": 3}),
    ("pareto", (3.0,), {"size": 3}),
    ("power", (3.0,), {"size": 3}),
    ("rayleigh", (2.0,), {"size": 3}),
    ("triangular", (0.0, 1.0, 3.0), {"size": 3}),
    ("vonmises", (0.5, 2.0), {"size": 3}),
    ("wald", (1.0, 2.0), {"size": 3}),
    ("weibull", (1.5,), {"size": 3}),
    ("binomial", (10, 0.3), {"size": 4}),
    ("binomial", ([5, 50], 0.5), {}),
    ("negative_binomial", (5, 0.5), {"size": 3}),
    ("poisson", (3.0,), {"size": 4}),
    ("poisson", ([1.0, 100.0],), {}),
    ("geometric", (0.3,), {"size": 3}),
    ("hypergeometric", (10, 5, 6), {"size": 3}),
    ("logseries", (0.6,), {"size": 3}),
    ("zipf", (2.5,), {"size": 3}),
    ("multinomial", (10, [0.2, 0.3, 0.5]), {"size": 2}),
    ("multinomial", ([5, 20], [[0.5, 0.5], [0.1, 0.9]]), {}),
    ("multivariate_hypergeometric", ([3, 4, 5], 6), {"size": 2}),
    ("multivariate_hypergeometric", ([3, 4, 5], 6), {"method": "count"}),
    ("dirichlet", ([0.5, 1.0, 2.0],), {"size": 2}),
    ("multivariate_normal", ([0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]]), {"size": 3}),
    ("multivariate_normal", ([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]]),
     {"method": "cholesky"}),
]
IDS = [f"{m}-{i}" for i, (m, _, _) in enumerate(CALLS)]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def test_every_listed_name_exists():
    names = [n.strip() for n in LIST.read_text().splitlines()[1:] if n.strip()]
    assert len(names) == 43
    rng = gnp.random.default_rng(0)
    missing = [n for n in names if not callable(getattr(gnp.random, n, None))
               and not callable(getattr(rng, n, None))]
    assert not missing
    for n in names:
        if hasattr(rng, n):
            assert getattr(rng, n).__doc__, n


@pytest.mark.parametrize("method,args,kw", CALLS, ids=IDS)
def test_eager_draws_are_numpys(method, args, kw):
    rng, ref = gnp.random.default_rng(12345), np.random.default_rng(12345)
    for _ in range(2):  # the state advances as NumPy's
        _same(getattr(rng, method)(*args, **kw).numpy(), getattr(ref, method)(*args, **kw))


@pytest.mark.parametrize("method,args,kw", CALLS, ids=IDS)
def test_traced_draws_advance_a_captured_generator(method, args, kw):
    rng, ref = gnp.random.default_rng(7), np.random.default_rng(7)
    f = gc.function(lambda: getattr(rng, method)(*args, **kw))
    for _ in range(2):  # each call draws the next numbers
        _same(f().numpy(), getattr(ref, method)(*args, **kw))
    _same(getattr(rng, method)(*args, **kw).numpy(), getattr(ref, method)(*args, **kw))


def test_tensor_parameters_traced_and_eager():
    rng, ref = gnp.random.default_rng(3), np.random.default_rng(3)
    loc = np.array([0.0, 5.0])

    @gc.function
    def f(mu, s):
        return rng.normal(mu, s, size=(3, 2)), rng.binomial(gnp.asarray([4, 8]), 0.5)

    a, b = f(gc.constant(loc), gc.constant(2.0, dtype=gc.float64))
    _same(a.numpy(), ref.normal(loc, 2.0, size=(3, 2)))
    _same(b.numpy(), ref.binomial([4, 8], 0.5))
    _same(rng.normal(gnp.asarray(loc), 1.0).numpy(), ref.normal(loc, 1.0))


def test_default_rng_inside_a_function_starts_afresh_each_call():
    @gc.function
    def f():
        rng = gnp.random.default_rng(42)
        return rng.normal(size=2), rng.integers(10, size=3)

    want = np.random.default_rng(42)
    w = (want.normal(size=2), want.integers(10, size=3))
    for _ in range(2):
        got = f()
        _same(got[0].numpy(), w[0])
        _same(got[1].numpy(), w[1])

    @gc.function
    def g(seed):
        return gnp.random.default_rng(seed).random(2)

    _same(g(gc.constant(9)).numpy(), np.random.default_rng(9).random(2))
    _same(g(gc.constant(10)).numpy(), np.random.default_rng(10).random(2))

    big = gc.function(lambda: gnp.random.default_rng([2**40 + 3, 5]).random(2))
    _same(big().numpy(), np.random.default_rng([2**40 + 3, 5]).random(2))
    fresh = gc.function(lambda: gnp.random.default_rng().random(4))
    assert not np.array_equal(fresh().numpy(), fresh().numpy())


def test_run_functions_eagerly_gives_the_same_numbers():
    def f():
        return gnp.random.default_rng(1).gamma(2.0, size=3)

    traced = gc.function(f)()
    gc.run_functions_eagerly(True)
    try:
        eager = gc.function(f)()
    finally:
        gc.run_functions_eagerly(False)
    _same(traced.numpy(), eager.numpy())


def test_default_rng_accepts_numpys_seeds_and_generators():
    g = gnp.random.default_rng(0)
    assert gnp.random.default_rng(g) is g
    np_gen = np.random.default_rng(4)
    wrapped = gnp.random.default_rng(np_gen)
    want = np.random.default_rng(4).random(3)
    _same(wrapped.random(3).numpy(), want)
    _same(np_gen.random(2), np.random.default_rng(4).random(5)[3:])  # it advanced NumPy's
    _same(gnp.random.default_rng(np.random.SeedSequence(8)).random(2).numpy(),
          np.random.default_rng(np.random.SeedSequence(8)).random(2))
    _same(gnp.random.default_rng(np.random.PCG64(8)).random(2).numpy(),
          np.random.default_rng(np.random.PCG64(8)).random(2))
    assert isinstance(g, gnp.random.Generator)
    assert isinstance(g.bit_generator, np.random.PCG64)
    kids, ref = g.spawn(2), np.random.default_rng(0).spawn(2)
    _same(kids[1].random(2).numpy(), ref[1].random(2))


def test_shuffle_in_place():
    rng, ref = gnp.random.default_rng(5), np.random.default_rng(5)
    t = gnp.arange(10)
    assert rng.shuffle(t) is None
    a = np.arange(10)
    ref.shuffle(a)
    _same(t.numpy(), a)
    arr = np.arange(6).reshape(3, 2)
    rng.shuffle(arr)
    b = np.arange(6).reshape(3, 2)
    ref.shuffle(b)
    _same(arr, b)
    lst = ["a", "b", "c", "d"]
    rng.shuffle(lst)
    lst2 = ["a", "b", "c", "d"]
    ref.shuffle(lst2)
    assert lst == lst2

    @gc.function
    def f(x):
        rng.shuffle(x, axis=1)
        return x * 1

    x = np.arange(6).reshape(2, 3)
    got = f(gc.constant(x))
    c = x.copy()
    ref.shuffle(c, axis=1)
    _same(got.numpy(), c)
    with pytest.raises(TypeError, match="tracing"):
        gc.function(lambda: rng.shuffle(np.arange(3)))()


def test_out_arguments():
    rng, ref = gnp.random.default_rng(2), np.random.default_rng(2)
    out = gnp.zeros((2, 2))
    assert rng.random(out=out) is out
    _same(out.numpy(), ref.random((2, 2)))
    o2 = np.zeros(3, np.float32)
    rng.standard_normal(out=o2, dtype=np.float32)
    _same(o2, ref.standard_normal(3, dtype=np.float32))
    with pytest.raises(ValueError, match="out must have"):
        rng.random(size=3, out=gnp.zeros(2))


@pytest.mark.parametrize("method,args,match", [
    ("normal", (0.0, -1.0), "scale < 0"),
    ("binomial", (5, 1.5), "p > 1"),
    ("poisson", (-1.0,), "lam < 0"),
    ("beta", (0.0, 1.0), "a <= 0"),
    ("integers", (5, 2), "low >= high"),
    ("choice", (3, 5, False), "Cannot take a larger sample"),
    ("dirichlet", ([-1.0, 1.0],), "alpha"),
    ("hypergeometric", (2, 2, 10), "ngood \\+ nbad < nsample"),
    ("zipf", (0.5,), "a <= 1"),
    ("triangular", (2.0, 1.0, 3.0), "left > mode"),
])
def test_parameters_are_checked_as_numpy_checks_them(method, args, match):
    with pytest.raises(ValueError, match=match):
        getattr(np.random.default_rng(0), method)(*args)
    rng = gnp.random.default_rng(0)
    with pytest.raises(ValueError, match=match):
        getattr(rng, method)(*args)
    with pytest.raises(ValueError, match=match):  # static parameters: while tracing
        gc.function(lambda: getattr(rng, method)(*args))()


def test_traced_parameters_are_checked_when_the_graph_runs():
    rng = gnp.random.default_rng(0)
    f = gc.function(lambda s: rng.normal(0.0, s, size=2))
    assert f(gc.constant(1.0, dtype=gc.float64)).shape == (2,)
    with pytest.raises(ValueError, match="scale < 0"):
        f(gc.constant(-1.0, dtype=gc.float64))


def test_size_errors():
    rng = gnp.random.default_rng(0)
    with pytest.raises(ValueError, match="negative"):
        rng.random(size=(2, -1))
    with pytest.raises(TypeError):
        rng.normal(size="abc")
    with pytest.raises(ValueError):  # NumPy: size does not fit the parameters' shape
        rng.normal([0.0, 1.0, 2.0], 1.0, size=(2,))


def test_draws_have_no_gradient():
    rng = gnp.random.default_rng(0)
    x = gc.Variable(np.array([1.0, 2.0]))
    with gc.GradientTape() as tape:
        y = gnp.sum(rng.normal(x, 1.0) * x)
    g = tape.gradient(y, x)  # only the product's own dependence on x
    want = np.random.default_rng(0).normal([1.0, 2.0], 1.0)
    np.testing.assert_allclose(g.numpy(), want)


def test_vectorized_map_draws_per_example():
    rng, ref = gnp.random.default_rng(11), np.random.default_rng(11)
    with pytest.warns(Warning):  # no batching rule: a documented loop
        got = gc.vectorized_map(lambda m: rng.normal(m, 1.0), gc.constant([0.0, 10.0, 20.0],
                                                                          dtype=gc.float64))
    _same(got.numpy(), np.array([ref.normal(m, 1.0) for m in (0.0, 10.0, 20.0)]))
