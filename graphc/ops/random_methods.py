"""What each random method draws: its result's shape and dtype, and how it calls NumPy.

Used by the ops of :mod:`graphc.ops.random_draw`. A method is a ``numpy.random.Generator``
method name (called as NumPy calls it: parameters positionally, then ``size=`` and the
static keywords), or one of graphc's own ``tf_*`` methods below, which give TensorFlow's
ops their meaning on a NumPy generator (docs/random.md says how each draws).
"""

from __future__ import annotations

import numpy as np

I64, F64 = np.dtype(np.int64), np.dtype(np.float64)

# numpy.random.Generator methods that take parameters, then size=, and draw one value per
# element of ``size`` (or of the parameters' broadcast shape)
FLOAT_METHODS = frozenset(
    "beta chisquare exponential f gamma gumbel laplace logistic lognormal "
    "noncentral_chisquare noncentral_f normal pareto power rayleigh standard_cauchy "
    "standard_exponential standard_gamma standard_normal standard_t triangular uniform "
    "vonmises wald weibull random".split())
INT_METHODS = frozenset(
    "binomial geometric hypergeometric logseries negative_binomial poisson zipf "
    "integers".split())
# methods drawing a vector per element: the last dim comes from a parameter
EVENT_METHODS = frozenset(
    "multinomial dirichlet multivariate_normal multivariate_hypergeometric".split())
ARRAY_METHODS = frozenset("choice permutation permutation_n permuted".split())
TF_METHODS = frozenset(
    "tf_uniform tf_uniform_int tf_full_int tf_normal tf_truncated_normal tf_gamma "
    "tf_poisson tf_categorical tf_binomial tf_ptn tf_shuffle tf_fold_in tf_split "
    "tf_candidates".split())
ALL = FLOAT_METHODS | INT_METHODS | EVENT_METHODS | ARRAY_METHODS | TF_METHODS


# --------------------------------------------------------------------------- shapes
def broadcast(*shapes):
    """NumPy's broadcast of shape templates (``None`` dims unknown); None: unknown rank."""
    if any(s is None for s in shapes):
        return None
    n = max((len(s) for s in shapes), default=0)
    out = []
    for dims in zip(*[(1,) * (n - len(s)) + tuple(s) for s in shapes]):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(f"shape mismatch: objects cannot be broadcast to a single "
                             f"shape: {' '.join(str(tuple(s)) for s in shapes)}")
        if known:
            out.append(known.pop())
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def _last(shape):
    return None if shape is None or not shape else (shape[-1],)


def out_shape(method, shapes, size, kw):
    """The result's shape template for parameters of ``shapes`` and ``size``."""
    if method not in ALL:
        raise ValueError(f"unknown random method {method!r}")
    size = None if size is None else tuple(size)
    if method in ("tf_gamma", "tf_poisson"):
        b = broadcast(*shapes)
        return None if b is None else size + b
    if method == "tf_categorical":
        s = shapes[0]
        return None if s is None else (s[0] if len(s) == 2 else None, kw["num_samples"])
    if method in ("tf_shuffle", "permuted"):
        return shapes[0]
    if method == "tf_fold_in":
        return (2,)
    if method == "tf_split":
        return (kw["num"], 2)
    if method == "tf_candidates":
        return (kw["num_sampled"] + 1,)
    if method == "permutation_n":
        return (kw["n"],)
    if method == "permutation":
        return shapes[0]
    if method == "choice":
        a = shapes[0]
        if a is None:
            return None
        s = () if size is None else size
        if not a:
            return s
        ax = kw["axis"] % len(a)
        return a[:ax] + s + a[ax + 1:]
    if method in EVENT_METHODS:
        event = _last(shapes[1] if method == "multinomial" else shapes[0])
        if event is None:
            return None
        if size is not None:
            return size + event
        if method == "multinomial":
            b = broadcast(shapes[0], shapes[1][:-1])
            return None if b is None else b + event
        return event
    if size is not None:
        return size
    return broadcast(*shapes)


def out_dtype(method, dtypes, kw):
    """The result's dtype (NumPy's: float64, int64, or ``dtype=``, or the input's)."""
    if "dtype" in kw:
        return np.dtype(kw["dtype"])
    if method in ("choice", "permutation", "permuted", "tf_shuffle"):
        return dtypes[0]  # a 0-d ``a`` (an int) gets ``dtype=int64`` from its caller
    if method in INT_METHODS or method in ("multinomial", "multivariate_hypergeometric",
                                           "permutation_n", "tf_fold_in", "tf_split",
                                           "tf_categorical", "tf_candidates"):
        return I64
    return F64


# --------------------------------------------------------------------------- drawing
def call(gen, method, params, size, kw):
    """Draw ``method`` from ``gen`` (a ``numpy.random.Generator``)."""
    params = [np.asarray(p) for p in params]
    if method in TF_METHODS:
        return _TF[method](gen, params, size, **kw)
    if method == "permutation_n":
        return gen.permutation(kw["n"])
    if method == "permutation":
        return gen.permutation(params[0], **kw)
    if method == "permuted":
        return gen.permuted(params[0], **kw)
    if method == "choice":
        a = params[0]
        if a.ndim == 0:
            a = int(a)
        p = params[1] if len(params) > 1 else None
        return gen.choice(a, size=size, p=p, **kw)
    return getattr(gen, method)(*params, size=size, **kw)


def _uniform(gen, params, size, dtype):
    dtype = np.dtype(dtype)
    if dtype in (np.float32, np.float64):
        return gen.random(size, dtype=dtype)
    return gen.random(size, dtype=np.float32).astype(dtype)


def _uniform_int(gen, params, size, dtype):
    low, high = params
    if np.any(low >= high):
        raise ValueError(f"Need minval < maxval, got {low} >= {high}")
    return gen.integers(low, high, size=size, dtype=dtype)


def _full_int(gen, params, size, dtype):
    info = np.iinfo(dtype)
    return gen.integers(info.min, info.max, size=size, dtype=dtype, endpoint=True)


def _normal(gen, params, size, dtype):
    dtype = np.dtype(dtype)
    if dtype in (np.float32, np.float64):
        return gen.standard_normal(size, dtype=dtype)
    return gen.standard_normal(size, dtype=np.float32).astype(dtype)


def _truncated(gen, params, size, dtype):
    """Standard normal values redrawn until they lie within two standard deviations."""
    out = np.asarray(_normal(gen, params, size, dtype))
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = _normal(gen, params, int(bad.sum()), dtype)
        bad = np.abs(out) > 2
    return out


def _gamma(gen, params, size):
    (alpha,) = params
    if np.any(alpha <= 0):
        raise ValueError("alpha must be positive")
    return gen.standard_gamma(alpha, size=tuple(size) + alpha.shape)


def _poisson(gen, params, size):
    (lam,) = params
    if np.any(lam < 0) or np.isnan(lam).any():
        raise ValueError("lam must be non-negative")
    return gen.poisson(lam, size=tuple(size) + lam.shape)


def _categorical(gen, params, size, num_samples):
    """One class per sample, by the Gumbel-max rule: ``argmax(logits + Gumbel noise)``
    (``-inf`` logits are never drawn)."""
    (logits,) = params
    if logits.ndim != 2:
        raise ValueError(f"logits should be a matrix, got shape {list(logits.shape)}")
    n, k = logits.shape
    if k == 0:
        raise ValueError("num_classes should be positive, got 0")
    noise = gen.gumbel(size=(n, num_samples, k))
    return np.argmax(logits[:, None, :].astype(np.float64) + noise, axis=-1)


def _binomial(gen, params, size):
    counts, probs = params
    return gen.binomial(counts.astype(np.int64), probs, size=size)


def _ptn(gen, params, size):
    """Normal values truncated to ``[minval, maxval]`` by the inverse CDF on the side of
    the mean nearer the interval (scipy's ``ndtr``/``ndtri``)."""
    from scipy import special  # deferred: SciPy, only for this distribution

    means, stddevs, lo, hi = (np.broadcast_to(p, size).astype(np.float64) for p in params)
    if np.any(stddevs <= 0) or np.any(lo >= hi):
        raise ValueError("stddevs must be positive and minvals < maxvals")
    a, b = (lo - means) / stddevs, (hi - means) / stddevs
    flip = a > 0  # draw -x on [-b, -a], where the CDF has more precision
    a2, b2 = np.where(flip, -b, a), np.where(flip, -a, b)
    u = gen.random(size)
    fa, fb = special.ndtr(a2), special.ndtr(b2)
    x = special.ndtri(fa + u * (fb - fa))
    x = np.clip(np.where(flip, -x, x), a, b)
    return means + stddevs * x


def _shuffle(gen, params, size):
    return gen.permutation(params[0])


def _fold_in(gen, params, size):
    key = gen.bit_generator.state["state"]["key"]
    data = np.asarray(params[0]).astype(np.int64).view(np.uint64)
    counter = np.array([data, 1, 0, 0], np.uint64)
    sub = np.random.Generator(np.random.Philox(key=key, counter=counter))
    return sub.integers(-(2**63), 2**63 - 1, size=2, dtype=np.int64, endpoint=True)


def _split(gen, params, size, num):
    return gen.integers(-(2**63), 2**63 - 1, size=(num, 2), dtype=np.int64, endpoint=True)


def _candidates(gen, params, size, dist, num_sampled, unique, range_max, weights=None):
    """``num_sampled`` classes from ``dist`` (``"uniform"``, ``"log_uniform"``,
    ``"weights"``), without repeats when ``unique``; the last entry is the number of
    draws made (for the expected counts)."""
    if dist == "uniform":
        p = None
    elif dist == "log_uniform":
        c = np.arange(range_max, dtype=np.float64)
        p = (np.log(c + 2) - np.log(c + 1)) / np.log(range_max + 1)
    else:
        p = np.asarray(weights, np.float64) / np.sum(weights)
    if not unique:
        got = gen.choice(range_max, size=num_sampled, p=p)
        return np.append(got, num_sampled)
    seen, tries = [], 0
    while len(seen) < num_sampled:
        c = int(gen.choice(range_max, p=p))
        tries += 1
        if c not in seen:
            seen.append(c)
    return np.array(seen + [tries], np.int64)


_TF = {
    "tf_uniform": _uniform, "tf_uniform_int": _uniform_int, "tf_full_int": _full_int,
    "tf_normal": _normal, "tf_truncated_normal": _truncated, "tf_gamma": _gamma,
    "tf_poisson": _poisson, "tf_categorical": _categorical, "tf_binomial": _binomial,
    "tf_ptn": _ptn, "tf_shuffle": _shuffle, "tf_fold_in": _fold_in, "tf_split": _split,
    "tf_candidates": _candidates,
}
