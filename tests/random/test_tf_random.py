"""``gc.random``'s stateless and stateful ops: TensorFlow's signatures, dtypes and checks;
stateless draws are deterministic functions of ``(shape, seed)`` (NumPy's Philox keyed
by the seed: the oracle here), equal eagerly and traced; moments on fixed seeds (so
deterministic, with generous bounds); gradients reach mean/stddev/minval/maxval/beta
and match finite differences on a fixed seed."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

R = gc.random
LIST = pathlib.Path(__file__).resolve().parents[3] / "shared/api_targets/tf.random.txt"
ABSENT = {"learned_unigram_candidate_sampler"}  # docs/random.md says why


def philox(seed):
    return np.random.Generator(np.random.Philox(key=np.asarray(seed, np.int64)
                                                .view(np.uint64)))


def test_every_listed_name_exists_or_is_documented_absent():
    names = [n.strip() for n in LIST.read_text().splitlines()[1:] if n.strip()]
    assert len(names) == 27
    missing = [n for n in names if not hasattr(R, n)]
    assert missing == sorted(ABSENT)
    docs = (pathlib.Path(__file__).resolve().parents[2] / "docs/random.md").read_text()
    assert all(n in docs for n in ABSENT)
    assert all(getattr(R, n).__doc__ for n in names if n not in ABSENT)


# --------------------------------------------------------------------------- stateless
STATELESS = [
    lambda s: R.stateless_uniform([2, 3], s),
    lambda s: R.stateless_uniform([4], s, minval=-2.0, maxval=3.0, dtype=gc.float64),
    lambda s: R.stateless_uniform([4], s, minval=3, maxval=9, dtype=gc.int32),
    lambda s: R.stateless_uniform([3], s, minval=None, maxval=None, dtype=np.uint32),
    lambda s: R.stateless_normal([3], s, mean=1.0, stddev=2.0),
    lambda s: R.stateless_truncated_normal([50], s),
    lambda s: R.stateless_categorical([[0.0, 1.0, -np.inf]], 6, s),
    lambda s: R.stateless_binomial([2, 3], s, counts=[10.0, 20.0, 30.0], probs=0.5),
    lambda s: R.stateless_gamma([2, 2], s, alpha=[1.0, 3.0], beta=2.0),
    lambda s: R.stateless_poisson([3], s, lam=4.0),
    lambda s: R.stateless_parameterized_truncated_normal([5], s, minvals=0.5, maxvals=1.0),
    lambda s: R.fold_in(s, 7),
    lambda s: R.split(s, 3),
]


@pytest.mark.parametrize("k", range(len(STATELESS)))
def test_stateless_is_a_function_of_shape_and_seed(k):
    fn = STATELESS[k]
    a, b = fn([1, 2]), fn([1, 2])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), fn([1, 3]).numpy()) or a.numpy().size <= 1
    traced = gc.function(fn)
    for s in ([1, 2], np.array([1, 2], np.int32)):
        got = traced(gc.constant(s))
        assert got.dtype == a.dtype and got.shape == a.shape
        np.testing.assert_array_equal(got.numpy(), a.numpy())


def test_stateless_values_are_philox_keyed_by_the_seed():
    seed = [5, -6]
    np.testing.assert_array_equal(R.stateless_uniform([3], seed).numpy(),
                                  philox(seed).random(3, dtype=np.float32))
    np.testing.assert_allclose(R.stateless_normal([3], seed, mean=1.0, stddev=2.0,
                                                  dtype=gc.float64).numpy(),
                               philox(seed).standard_normal(3) * 2.0 + 1.0, rtol=1e-15)
    np.testing.assert_array_equal(R.stateless_poisson([4], seed, lam=[1.0, 9.0, 2.0, 3.0],
                                                      dtype=gc.int64).numpy(),
                                  philox(seed).poisson([1.0, 9.0, 2.0, 3.0]))
    np.testing.assert_array_equal(
        R.stateless_uniform([3], seed, minval=0, maxval=10, dtype=gc.int64).numpy(),
        philox(seed).integers(0, 10, size=3, dtype=np.int64))


def test_stateless_dtypes_and_ranges():
    s = [3, 4]
    assert R.stateless_uniform([2], s).dtype == np.float32
    assert R.stateless_normal([2], s, dtype=gc.float16).dtype == np.float16
    assert R.stateless_poisson([2], s, lam=1.0).dtype == np.int32
    assert R.stateless_binomial([2], s, 5, 0.5).dtype == np.int32
    assert R.stateless_categorical([[1.0, 2.0]], 2, s).dtype == np.int64
    assert R.fold_in(np.array(s, np.int32), 3).dtype == np.int32
    assert R.split(np.array(s, np.int64), 4).shape == (4, 2)
    u = R.stateless_uniform([1000], s, minval=-1.0, maxval=3.0).numpy()
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.15
    z = R.stateless_normal([4000], s, dtype=gc.float64).numpy()
    assert abs(z.mean()) < 0.1 and abs(z.std() - 1.0) < 0.1
    t = R.stateless_truncated_normal([4000], s).numpy()
    assert np.abs(t).max() <= 2.0 and abs(t.std() - 0.88) < 0.05
    g = R.stateless_gamma([4000], s, alpha=3.0, beta=2.0, dtype=gc.float64).numpy()
    assert abs(g.mean() - 1.5) < 0.1
    c = R.stateless_categorical(np.log([[0.2, 0.8]]), 4000, s).numpy()
    assert set(np.unique(c)) == {0, 1} and abs(c.mean() - 0.8) < 0.05
    p = R.stateless_parameterized_truncated_normal([2000], s, means=1.0, stddevs=2.0,
                                                   minvals=0.0, maxvals=0.5).numpy()
    assert p.min() >= 0.0 and p.max() <= 0.5 and p.dtype == np.float32


@pytest.mark.parametrize("call,err,match", [
    (lambda: R.stateless_uniform([2], [1, 2, 3]), ValueError, "shape \\[2\\]"),
    (lambda: R.stateless_uniform([2], [1.0, 2.0]), ValueError, "int32 or int64"),
    (lambda: R.stateless_uniform([2], [1, 2], maxval=None, dtype=gc.int32), ValueError,
     "both None"),
    (lambda: R.stateless_uniform([2], [1, 2], minval=5, maxval=5, dtype=gc.int32),
     ValueError, "minval < maxval"),
    (lambda: R.stateless_normal([2], [1, 2], dtype=gc.int32), TypeError, "allowed"),
    (lambda: R.stateless_normal([2], [1, 2], alg="bogus"), ValueError, "algorithm"),
    (lambda: R.stateless_categorical([1.0, 2.0], 2, [1, 2]), ValueError, "matrix"),
    (lambda: R.stateless_gamma([2], [1, 2], alpha=-1.0), ValueError, "shape < 0"),
    (lambda: R.stateless_poisson([2], [1, 2], lam=-1.0), ValueError, "lam"),
    (lambda: R.stateless_normal([-1], [1, 2]), ValueError, "negative"),
])
def test_stateless_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_traced_seed_shape_checked_when_run():
    f = gc.function(lambda s: R.stateless_normal([2], s))
    with pytest.raises(ValueError, match="shape"):
        f(gc.constant([1, 2, 3]))


# --------------------------------------------------------------------------- stateful
def test_stateful_shapes_dtypes_and_fresh_draws():
    R.set_seed(3)
    assert R.truncated_normal([2, 3]).dtype == np.float32
    assert R.categorical([[0.0, 1.0]], 5).shape == (1, 5)
    assert R.categorical([[0.0, 1.0]], 5, dtype=gc.int32).dtype == np.int32
    assert R.gamma([4], [1.0, 2.0], beta=[[1.0], [2.0]]).shape == (4, 2, 2)
    assert R.poisson([3, 2], [1.0, 9.0]).shape == (3, 2, 2)
    assert R.poisson([3], 2.0, dtype=gc.int64).dtype == np.int64
    x = np.arange(12).reshape(6, 2)
    sh = R.shuffle(x).numpy()
    np.testing.assert_array_equal(np.sort(sh[:, 0]), x[:, 0])
    np.testing.assert_array_equal(sh[:, 1] - sh[:, 0], np.ones(6))
    f = gc.function(lambda: R.truncated_normal([8], stddev=3.0))
    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b) and np.abs(a).max() <= 6.0


def test_stateful_seeds_reproduce():
    def draws():
        R.set_seed(11)
        return [R.truncated_normal([3], seed=1).numpy(), R.poisson([2], 3.0).numpy(),
                R.uniform([2], minval=gc.constant(1.0), maxval=2.0).numpy()]

    for a, b in zip(draws(), draws()):
        np.testing.assert_array_equal(a, b)


def test_stateful_moments_on_a_fixed_seed():
    R.set_seed(5)
    g = R.gamma([4000], 2.0, beta=4.0, dtype=gc.float64).numpy()
    assert abs(g.mean() - 0.5) < 0.05
    p = R.poisson([4000], 3.0).numpy()
    assert abs(p.mean() - 3.0) < 0.15
    n = R.normal([4000], mean=gc.constant(2.0), stddev=gc.constant(0.5)).numpy()
    assert abs(n.mean() - 2.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    i = R.uniform([4000], minval=gc.constant(2), maxval=gc.constant(5), dtype=gc.int32)
    assert set(np.unique(i.numpy())) == {2, 3, 4}


@pytest.mark.parametrize("call,err,match", [
    (lambda: R.normal([2], dtype=gc.int32), TypeError, "allowed"),
    (lambda: R.uniform([2], dtype=gc.int64), ValueError, "maxval"),
    (lambda: R.categorical([[1.0]], -1), ValueError, "nonnegative"),
    (lambda: R.shuffle(3.0), ValueError, "1-D"),
    (lambda: R.gamma([2], 0.0), ValueError, "alpha"),
])
def test_stateful_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


# --------------------------------------------------------------------------- gradients
def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("make", [
    lambda m, s: gnp.sum(R.stateless_normal([5], [1, 2], mean=m, stddev=s,
                                            dtype=gc.float64) ** 2),
    lambda m, s: gnp.sum(R.stateless_truncated_normal([5], [1, 2], mean=m, stddev=s,
                                                      dtype=gc.float64) ** 2),
    lambda m, s: gnp.sum(R.stateless_uniform([5], [1, 2], minval=m, maxval=m + s,
                                             dtype=gc.float64) ** 2),
    lambda m, s: gnp.sum(R.stateless_gamma([5], [1, 2], alpha=2.0, beta=s,
                                           dtype=gc.float64) * m),
])
def test_reparameterized_gradients_match_finite_differences(make):
    m0, s0 = 0.7, 1.3
    for traced in (False, True):
        f = gc.function(make) if traced else make
        m, s = gc.Variable(m0, dtype=gc.float64), gc.Variable(s0, dtype=gc.float64)
        with gc.GradientTape() as tape:
            y = f(m, s)
        gm, gs = tape.gradient(y, [m, s])
        def val(a, b):
            return float(make(gc.constant(a, dtype=gc.float64),
                              gc.constant(b, dtype=gc.float64)).numpy())
        np.testing.assert_allclose(gm.numpy(), _fd(lambda a: val(a, s0), m0), rtol=1e-6)
        np.testing.assert_allclose(gs.numpy(), _fd(lambda b: val(m0, b), s0), rtol=1e-6)


def test_stateful_normal_gradient_is_the_draw():
    R.set_seed(2)
    m, s = gc.Variable(1.0), gc.Variable(2.0)
    with gc.GradientTape() as tape:
        y = R.normal([4], mean=m, stddev=s)
        total = gnp.sum(y)
    gm, gs = tape.gradient(total, [m, s])
    z = (y.numpy() - 1.0) / 2.0
    np.testing.assert_allclose(gm.numpy(), 4.0)
    np.testing.assert_allclose(gs.numpy(), z.sum(), rtol=1e-5)
