"""``gc.random.Generator`` (TensorFlow's API on NumPy's Philox), the global generator,
``create_rng_state``, the candidate samplers, and random draws in compiled functions
(the Numba backend runs them in Python between compiled segments, with the
interpreter's numbers)."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu

R = gc.random


def test_create_rng_state_lays_out_words_as_tensorflow():
    np.testing.assert_array_equal(R.create_rng_state(1, "philox"), [1, 0, 0])
    np.testing.assert_array_equal(R.create_rng_state(2**64 + 5, 1), [5, 1, 0])
    np.testing.assert_array_equal(R.create_rng_state(7, "threefry"), [7, 0])
    assert R.create_rng_state(3, "auto_select").dtype == np.int64
    with pytest.raises(ValueError, match="algorithm"):
        R.create_rng_state(1, "mt19937")


def test_generator_from_seed_is_reproducible_and_advances():
    g1, g2 = R.Generator.from_seed(4), R.Generator.from_seed(4)
    a = g1.normal([3])
    np.testing.assert_array_equal(a.numpy(), g2.normal([3]).numpy())
    assert not np.array_equal(a.numpy(), g1.normal([3]).numpy())
    assert a.dtype == np.float32
    assert g1.uniform([2], maxval=5, dtype=gc.int32).dtype == np.int32
    assert g1.uniform_full_int([2]).dtype == np.uint64
    assert g1.make_seeds(3).shape == (2, 3) and g1.make_seeds().dtype == np.int64
    assert g1.binomial([4], counts=5.0, probs=0.5).dtype == np.int32
    t = g1.truncated_normal([500], stddev=2.0).numpy()
    assert np.abs(t).max() <= 4.0
    assert g1.algorithm == 1 and g1.state.shape == (3,) and g1.state.dtype == np.int64


def test_generator_state_round_trip_and_reset():
    g = R.Generator.from_state(R.create_rng_state(9, "philox"), "philox")
    copy = R.Generator(copy_from=g)
    np.testing.assert_array_equal(g.normal([4]).numpy(), copy.normal([4]).numpy())
    g.reset_from_seed(2)
    want = R.Generator.from_seed(2).uniform([3]).numpy()
    np.testing.assert_array_equal(g.uniform([3]).numpy(), want)
    g.reset(R.create_rng_state(9, "philox"))
    np.testing.assert_array_equal(
        g.normal([2]).numpy(),
        R.Generator.from_state(R.create_rng_state(9, 1), 1).normal([2]).numpy())
    h = R.Generator.from_key_counter(key=3, counter=[1, 0], alg="philox")
    np.testing.assert_array_equal(h.state, [1, 0, 3])
    kids = g.split(2)
    assert len(kids) == 2 and not np.array_equal(kids[0].normal([2]).numpy(),
                                                 kids[1].normal([2]).numpy())
    with pytest.raises(ValueError, match="state"):
        R.Generator(state=[1, 2], alg="philox")
    with pytest.raises(ValueError):
        R.Generator()


def test_generator_captured_by_a_function_advances_each_call():
    g, ref = R.Generator.from_seed(1), R.Generator.from_seed(1)
    f = gc.function(lambda: g.normal([2], mean=1.0))
    for _ in range(3):
        np.testing.assert_array_equal(f().numpy(), ref.normal([2], mean=1.0).numpy())

    @gc.function
    def reset_then_draw():
        g.reset_from_seed(5)
        return g.uniform([2])

    want = R.Generator.from_seed(5).uniform([2]).numpy()
    for _ in range(2):  # the reset happens on every call
        np.testing.assert_array_equal(reset_then_draw().numpy(), want)


def test_global_generator():
    g = R.get_global_generator()
    assert isinstance(g, R.Generator) and R.get_global_generator() is g
    mine = R.Generator.from_seed(3)
    R.set_global_generator(mine)
    try:
        assert R.get_global_generator() is mine
    finally:
        R.set_global_generator(g)
    with pytest.raises(TypeError):
        R.set_global_generator(np.random.default_rng(0))


# --------------------------------------------------------------------------- candidates
TC = np.array([[0, 2], [3, 1]], np.int64)


@pytest.mark.parametrize("unique", [False, True])
def test_uniform_candidate_sampler(unique):
    R.set_seed(0)
    s, te, se = R.uniform_candidate_sampler(TC, 2, 4, unique, 6)
    assert s.dtype == np.int64 and s.shape == (4,) and te.shape == (2, 2)
    assert te.dtype == np.float32 and se.shape == (4,)
    assert ((s.numpy() >= 0) & (s.numpy() < 6)).all()
    if unique:
        assert len(set(s.numpy())) == 4
        tries = np.log1p(-te.numpy()) / np.log1p(-1 / 6)  # te = 1 - (5/6) ** tries
        assert tries.min() >= 4 - 1e-3 and np.allclose(tries, np.round(tries), atol=1e-3)
    else:
        np.testing.assert_allclose(te.numpy(), np.full((2, 2), 4 / 6), rtol=1e-6)


def test_log_uniform_and_fixed_unigram_samplers():
    R.set_seed(1)
    s, te, se = R.log_uniform_candidate_sampler(TC, 2, 3, False, 10)
    p = (np.log(np.arange(10) + 2) - np.log(np.arange(10) + 1)) / np.log(11)
    np.testing.assert_allclose(te.numpy(), p[TC] * 3, rtol=1e-6)
    np.testing.assert_allclose(se.numpy(), p[s.numpy()] * 3, rtol=1e-6)
    s, te, _ = R.fixed_unigram_candidate_sampler(TC, 2, 2, True, 4, unigrams=[1, 2, 3, 4])
    assert len(set(s.numpy())) == 2
    s, _, _ = R.fixed_unigram_candidate_sampler(TC, 2, 5, False, 5, num_reserved_ids=1,
                                                unigrams=[1, 1, 1, 1], num_shards=2,
                                                shard=1)
    assert set(s.numpy()) <= {1, 3}
    with pytest.raises(ValueError, match="range_max"):
        R.fixed_unigram_candidate_sampler(TC, 2, 2, True, 9, unigrams=[1, 2])
    with pytest.raises(NotImplementedError):
        R.fixed_unigram_candidate_sampler(TC, 2, 2, True, 2, vocab_file="v.txt")


def test_all_candidate_sampler_and_checks():
    s, te, se = R.all_candidate_sampler(TC, 2, 3, True)
    np.testing.assert_array_equal(s.numpy(), [0, 1, 2])
    np.testing.assert_array_equal(te.numpy(), np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="int64"):
        R.uniform_candidate_sampler(TC.astype(np.int32), 2, 2, False, 5)
    with pytest.raises(ValueError, match="num_true"):
        R.uniform_candidate_sampler(TC, 3, 2, False, 5)
    with pytest.raises(ValueError, match="unique"):
        R.uniform_candidate_sampler(TC, 2, 6, True, 5)


def test_samplers_in_a_function():
    f = gc.function(lambda t: R.uniform_candidate_sampler(t, 2, 3, True, 5)[0])
    a = f(gc.constant(TC)).numpy()
    assert a.shape == (3,) and len(set(a)) == 3


# --------------------------------------------------------------------------- compiled
@pytest.fixture
def eager_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.settings, "worker", False)


def test_compiled_segments_draw_the_interpreters_numbers(eager_compile):
    def make(backend):
        rng = gnp.random.default_rng(21)

        def f(x):
            y = gnp.exp(x) * 2.0 + 1.0                        # compiled
            z = rng.normal(y, 1.0) + R.stateless_normal([3], [1, 2], dtype=gc.float64)
            return gnp.sum(z * y), gnp.tanh(z)                 # compiled again
        return gc.function(f, backend=backend)

    x = gc.constant(np.array([0.1, -0.2, 0.3]))
    fast, ref = make("numba"), make("numpy")
    for _ in range(2):  # both advance their own captured Generator alike
        for a, b in zip(fast(x), ref(x)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    runtime = fast.get_concrete_function(x).runtime
    assert runtime.backend == "segments"
    assert "random" in runtime.explain()
    with pytest.raises(gc.errors.FallbackError, match="random"):
        gc.function(lambda: gnp.random.default_rng(0).normal(size=2),
                     jit_compile=True)()
