"""``gc.random``: TensorFlow's random ops, stateful and stateless (docs/random.md).

Stateful ops (``uniform``, ``normal``, ``truncated_normal``, ``categorical``, ``gamma``,
``poisson``, ``shuffle``) draw from graphc's global state (``gc.random.set_seed``; an
op ``seed`` gives the op a stream of its own), afresh on every call. ``stateless_*`` ops
are deterministic functions of ``(shape, seed)``: a ``seed`` of shape [2] keys NumPy's
``Philox`` counter-based generator, so the same seed gives the same numbers in graphc
(not TensorFlow's numbers: its Philox streams need TensorFlow). Location/scale
parameters are applied as TensorFlow applies them (``standard * stddev + mean``), so
gradients reach ``mean``, ``stddev``, ``minval``, ``maxval`` and ``beta`` as in TF.
"""

from __future__ import annotations

import numpy as np

from graphc.ops import random as _base
from graphc.ops.convert import convert_to_tensor
from graphc.ops.creation import zeros_like
from graphc.ops.random_draw import RngRef, draw, stateless

F32, I32, I64 = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.int64)
FLOATS = tuple(np.dtype(n) for n in ("float16", "float32", "float64"))
ALGS = {"philox": 1, "threefry": 2, "auto_select": 3, 1: 1, 2: 2, 3: 3}


class GlobalRng(RngRef):
    """The state of ``gc.random``'s stateful ops: the global stream, or the op ``seed``'s
    stream (``gc.random.set_seed`` resets both)."""

    def __init__(self, seed):
        self.seed = seed

    def generator(self):
        return _base._rng.get(self.seed)

    def __eq__(self, other):
        return type(other) is GlobalRng and other.seed == self.seed

    def __hash__(self):
        return hash(("global rng", self.seed))

    def __repr__(self):
        return "<global rng>" if self.seed is None else f"<global rng seed={self.seed}>"


def _dtype(dtype, allowed, what):
    d = np.dtype(getattr(dtype, "as_numpy_dtype", dtype))
    if d not in allowed:
        names = ", ".join(a.name for a in allowed)
        raise TypeError(f"{what}: dtype {d.name} is not in the list of allowed values: "
                        f"{names}")
    return d


def _plain(x) -> bool:
    """A Python or NumPy scalar: the existing ``random_uniform``/``random_normal`` ops
    take it as an attr (no gradient to flow)."""
    return isinstance(x, int | float | np.number) and not isinstance(x, bool)


def _as(x, dtype):

    t = convert_to_tensor(x)
    return t if t.dtype == dtype else t.astype(dtype)


def _seed(seed, what):

    t = convert_to_tensor(seed)
    if t.dtype not in (I32, I64) or tuple(t.shape) != (2,):
        raise ValueError(f"{what}: seed must be an int32 or int64 tensor of shape [2], got "
                         f"{t.dtype} of shape {list(t.shape)}")
    return t


def _alg(alg):
    key = getattr(alg, "value", alg)
    key = key.lower() if isinstance(key, str) else key
    if key not in ALGS:
        raise ValueError(f"Unsupported algorithm id: {alg}")
    return ALGS[key]


# --------------------------------------------------------------------------- stateful
def uniform(shape, minval=0, maxval=None, dtype=np.float32, seed=None, name=None):
    """``tf.random.uniform``: values in ``[minval, maxval)`` (float32 in ``[0, 1)`` by
    default; integer dtypes need ``maxval``)."""
    d = _dtype(dtype, FLOATS + (I32, I64), "random.uniform")
    if maxval is None:
        if d.kind in "iu":
            raise ValueError(f"Must specify maxval for integer dtype {d.name}")
        maxval = 1
    if _plain(minval) and _plain(maxval):
        return _base._uniform(shape, minval, maxval, d, seed)
    if d.kind in "iu":
        return draw(GlobalRng(seed), "tf_uniform_int", (_as(minval, d), _as(maxval, d)),
                    shape, "random.uniform", dtype=d)
    lo, hi = _as(minval, d), _as(maxval, d)
    return draw(GlobalRng(seed), "tf_uniform", (), shape, "random.uniform",
                dtype=d) * (hi - lo) + lo


def normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None, name=None):
    """``tf.random.normal``: normal values (``standard * stddev + mean``)."""
    d = _dtype(dtype, FLOATS, "random.normal")
    if _plain(mean) and _plain(stddev):
        return _base._normal(shape, mean, stddev, d, seed)
    z = draw(GlobalRng(seed), "tf_normal", (), shape, "random.normal", dtype=d)
    return z * _as(stddev, d) + _as(mean, d)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None, name=None):
    """``tf.random.truncated_normal``: normal values redrawn until within two standard
    deviations of the mean."""
    d = _dtype(dtype, FLOATS, "random.truncated_normal")
    z = draw(GlobalRng(seed), "tf_truncated_normal", (), shape, "random.truncated_normal",
             dtype=d)
    return z * _as(stddev, d) + _as(mean, d)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``tf.random.categorical``: ``[batch, num_samples]`` class indices drawn from the
    unnormalized log-probabilities ``logits`` ``[batch, classes]`` (int64 by default)."""
    return _categorical(GlobalRng(seed), None, logits, num_samples, dtype)


def _categorical(rng, seed, logits, num_samples, dtype):

    d = I64 if dtype is None else _dtype(dtype, (I32, I64), "random.categorical")
    logits = convert_to_tensor(logits)
    if logits.ndim != 2:
        raise ValueError(f"logits should be a matrix, got shape {list(logits.shape)}")
    n = int(num_samples)
    if n < 0:
        raise ValueError(f"num_samples should be nonnegative, got {n}")
    if seed is not None:
        return stateless(seed, "tf_categorical", (logits,), None, "stateless_categorical",
                         out_dtype=d, num_samples=n)
    return draw(rng, "tf_categorical", (logits,), None, "random.categorical",
                out_dtype=d, num_samples=n)


def gamma(shape, alpha, beta=None, dtype=np.float32, seed=None, name=None):
    """``tf.random.gamma``: ``shape + broadcast(alpha, beta).shape`` gamma values of
    concentration ``alpha`` and rate ``beta``."""
    d = _dtype(dtype, FLOATS, "random.gamma")
    a = _as(alpha, d)
    if beta is not None:

        b = _as(beta, d)
        a = a + zeros_like(b)  # alpha broadcast with beta, as TensorFlow does
    out = draw(GlobalRng(seed), "tf_gamma", (a,), shape, "random.gamma", out_dtype=d)
    return out if beta is None else out / b


def poisson(shape, lam, dtype=np.float32, seed=None, name=None):
    """``tf.random.poisson``: ``shape + lam.shape`` Poisson counts (float32 by default)."""
    d = _dtype(dtype, FLOATS + (I32, I64), "random.poisson")
    return draw(GlobalRng(seed), "tf_poisson", (_as(lam, np.dtype(np.float64)),), shape,
                "random.poisson", out_dtype=d)


def shuffle(value, seed=None, name=None):
    """``tf.random.shuffle``: ``value`` with its first dimension randomly permuted."""

    value = convert_to_tensor(value)
    if value.ndim == 0:
        raise ValueError("random.shuffle: value must be at least 1-D")
    return draw(GlobalRng(seed), "tf_shuffle", (value,), None, "random.shuffle")


# --------------------------------------------------------------------------- stateless
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=np.float32, name=None,
                      alg="auto_select"):
    """``tf.random.stateless_uniform``: a deterministic function of ``(shape, seed)``;
    integer dtypes need ``maxval``, or neither bound for the full range."""
    _alg(alg)
    s = _seed(seed, "stateless_uniform")
    ints = tuple(np.dtype(n) for n in ("int32", "int64", "uint32", "uint64"))
    d = _dtype(dtype, FLOATS + ints, "stateless_uniform")
    if d.kind in "iu":
        if minval is None and maxval is None:
            return stateless(s, "tf_full_int", (), shape, "stateless_uniform", dtype=d)
        if minval is None or maxval is None:
            raise ValueError("For integer dtypes, minval and maxval must be both None or "
                             "both not None")
        return stateless(s, "tf_uniform_int", (_as(minval, d), _as(maxval, d)), shape,
                         "stateless_uniform", dtype=d)
    lo, hi = _as(minval, d), _as(1 if maxval is None else maxval, d)
    return stateless(s, "tf_uniform", (), shape, "stateless_uniform",
                     dtype=d) * (hi - lo) + lo


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=np.float32, name=None,
                     alg="auto_select"):
    """``tf.random.stateless_normal``: deterministic normal values for ``seed``."""
    _alg(alg)
    d = _dtype(dtype, FLOATS, "stateless_normal")
    z = stateless(_seed(seed, "stateless_normal"), "tf_normal", (), shape,
                  "stateless_normal", dtype=d)
    return z * _as(stddev, d) + _as(mean, d)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=np.float32,
                               name=None, alg="auto_select"):
    """``tf.random.stateless_truncated_normal``: deterministic truncated normal values
    (within two standard deviations)."""
    _alg(alg)
    d = _dtype(dtype, FLOATS, "stateless_truncated_normal")
    z = stateless(_seed(seed, "stateless_truncated_normal"), "tf_truncated_normal", (),
                  shape, "stateless_truncated_normal", dtype=d)
    return z * _as(stddev, d) + _as(mean, d)


def stateless_categorical(logits, num_samples, seed, dtype=np.int64, name=None):
    """``tf.random.stateless_categorical``: deterministic class indices for ``seed``."""
    return _categorical(None, _seed(seed, "stateless_categorical"), logits, num_samples,
                        dtype)


def stateless_binomial(shape, seed, counts, probs, output_dtype=np.int32, name=None):
    """``tf.random.stateless_binomial``: binomial counts; ``counts`` and ``probs``
    broadcast to ``shape``."""
    d = _dtype(output_dtype, FLOATS + (I32, I64), "stateless_binomial")
    f64 = np.dtype(np.float64)
    return stateless(_seed(seed, "stateless_binomial"), "tf_binomial",
                     (_as(counts, f64), _as(probs, f64)), shape, "stateless_binomial",
                     out_dtype=d)


def stateless_gamma(shape, seed, alpha, beta=None, dtype=np.float32, name=None):
    """``tf.random.stateless_gamma``: gamma values of concentration ``alpha`` and rate
    ``beta`` (both broadcast to the trailing dims of ``shape``)."""
    d = _dtype(dtype, FLOATS, "stateless_gamma")
    out = stateless(_seed(seed, "stateless_gamma"), "standard_gamma",
                    (_as(alpha, np.dtype(np.float64)),), shape, "stateless_gamma",
                    out_dtype=d)
    return out if beta is None else out / _as(beta, d)


def stateless_poisson(shape, seed, lam, dtype=np.int32, name=None):
    """``tf.random.stateless_poisson``: Poisson counts; ``lam`` broadcast to ``shape``."""
    d = _dtype(dtype, FLOATS + (I32, I64), "stateless_poisson")
    return stateless(_seed(seed, "stateless_poisson"), "poisson",
                     (_as(lam, np.dtype(np.float64)),), shape, "stateless_poisson",
                     out_dtype=d)


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0,
                                             minvals=-2.0, maxvals=2.0, name=None):
    """``tf.random.stateless_parameterized_truncated_normal``: normal values of ``means``
    and ``stddevs`` truncated to ``[minvals, maxvals]`` (all broadcast to ``shape``); the
    dtype is ``means``'."""

    d = _dtype(convert_to_tensor(means).dtype, FLOATS, "parameterized_truncated_normal")
    ps = tuple(_as(p, np.dtype(np.float64)) for p in (means, stddevs, minvals, maxvals))
    return stateless(_seed(seed, "parameterized_truncated_normal"), "tf_ptn", ps, shape,
                     "stateless_parameterized_truncated_normal", out_dtype=d)


def fold_in(seed, data, alg="auto_select"):
    """``tf.random.fold_in``: a new seed (shape [2], ``seed``'s dtype), a deterministic
    function of ``seed`` and the integer ``data``."""
    _alg(alg)
    s = _seed(seed, "fold_in")
    return stateless(s, "tf_fold_in", (_as(data, I64),), None, "fold_in", out_dtype=s.dtype)


def split(seed, num=2, alg="auto_select"):
    """``tf.random.split``: ``num`` new seeds (shape ``[num, 2]``, ``seed``'s dtype)."""
    _alg(alg)
    s = _seed(seed, "split")
    num = int(num)
    if num < 0:
        raise ValueError(f"num must be non-negative, got {num}")
    return stateless(s, "tf_split", (), None, "split", out_dtype=s.dtype, num=num)
