"""Registry samples of the random ops (graphc/ops/random_draw.py), merged into
``test_registry.SAMPLES`` so every registry walk covers them.

``random_stateless`` is a pure function of its seed: its oracle is NumPy's own ``Philox``
keyed by the seed (written here by hand). ``random_draw`` and ``random_reseed`` change a
state, so the walk checks shapes and dtypes only; their values are compared with NumPy in
tests/random/.
"""

from __future__ import annotations

import numpy as np

from graphc.ops.random_draw import CallRng, HeldRng

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))


def s(*args, **attrs):
    return (args, attrs)


def _rng():
    return HeldRng(np.random.default_rng(0))


def d(method, size=None, dtype=F64, /, **kw):
    return {"method": method, "size": size, "dyn": False, "kw": tuple(sorted(kw.items())),
            "dtype": dtype}


SEED = np.array([3, 4], I64)

RANDOM_SAMPLES = {
    "random_draw": [
        s(np.array([0.0, 1.0], F64), np.array(2.0, F64), rng=_rng(), **d("normal")),
        s(np.array(1, I64), np.array([5, 9], I64), rng=_rng(),
          **d("integers", (3, 2), I64, dtype=I64, endpoint=False)),
        s(rng=_rng(), **d("random", (2, 3), F32, dtype=F32)),
        s(np.array([1.0, 2.0], F32), rng=_rng(), **d("tf_gamma", (3,), F32)),
        s(np.arange(6, dtype=I32).reshape(3, 2), rng=_rng(),
          **d("permutation", None, I32, axis=0)),
        s(np.array(4, I64), np.array([0.25, 0.75], F64), rng=_rng(),
          **d("multinomial", (2,), I64)),
        s(np.array([2, 5], I64), np.array(9, I64), rng=_rng(),
          **d("integers", None, I32, dtype=I32, endpoint=True)),
    ],
    "random_stateless": [
        s(SEED, **d("tf_uniform", (2, 3), F32, dtype=F32)),
        s(SEED.astype(I32), np.array([0.5, 1.5], F64), **d("standard_gamma", (2, 2), F64)),
        s(SEED, np.array([[0.0, 1.0, -1.0]], F32), **d("tf_categorical", None, I32,
                                                        num_samples=4)),
        s(SEED, np.array([2, 5], I64), np.array([0.5, 0.1], F64), **d("binomial", None,
                                                                       I64)),
        s(SEED, np.array(7, I64), **d("tf_fold_in", None, I64)),
    ],
    "random_reseed": [
        s(np.array([7], I64), rng=CallRng(), how="numpy"),
        s(np.array(7, I32), rng=HeldRng(np.random.default_rng(1)), how="numpy"),
        s(np.array([1, 2, 3], I64), rng=_rng(), how="philox"),
        s(np.array([5, 6], np.dtype("uint32")), rng=CallRng(), how="numpy"),
    ],
}


def _philox(seed):
    return np.random.Generator(np.random.Philox(key=np.asarray(seed).astype(np.int64)
                                                .view(np.uint64)))


def _stateless_equiv(seed, *params, method, size, dyn, kw, dtype):
    g, kw = _philox(seed), dict(kw)
    if method == "tf_uniform":
        out = g.random(size, dtype=kw["dtype"])
    elif method == "standard_gamma":
        out = g.standard_gamma(params[0], size=size)
    elif method == "binomial":
        out = g.binomial(params[0], params[1])
    elif method == "tf_categorical":
        logits = params[0].astype(np.float64)
        noise = g.gumbel(size=(logits.shape[0], kw["num_samples"], logits.shape[1]))
        out = np.argmax(logits[:, None, :] + noise, axis=-1)
    else:  # tf_fold_in: a sub-stream whose counter starts at (data, 1)
        key = np.asarray(seed).astype(np.int64).view(np.uint64)
        counter = np.array([np.int64(params[0]).view(np.uint64), 1, 0, 0], np.uint64)
        sub = np.random.Generator(np.random.Philox(key=key, counter=counter))
        out = sub.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=2,
                           dtype=np.int64, endpoint=True)
    return np.asarray(out).astype(dtype)


RANDOM_EQUIV = {"random_stateless": _stateless_equiv}

RANDOM_UNCHECKED = {
    "random_draw": "stateful: each call advances its state; values checked against NumPy "
                   "in tests/random/",
    "random_reseed": "stateful and without a result: checked through the draws after it "
                     "in tests/random/",
}
