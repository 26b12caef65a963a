"""``gnp.random.default_rng``: NumPy's ``Generator`` with its methods, eager and traced.

A graphc ``Generator`` names a random state (:mod:`graphc.ops.random_draw`); each method
is one ``random_draw`` op calling the NumPy ``Generator`` method of that name on the state,
so the numbers are NumPy's own:

* made outside any trace, ``gnp.random.default_rng(seed)`` wraps
  ``numpy.random.default_rng(seed)``: the same seed draws exactly NumPy's numbers, and
  a ``gc.function`` that uses (captures) it advances it on every call (as TensorFlow's
  ``tf.random.Generator``);
* made while tracing (``default_rng(seed)`` inside the function), the graph creates the
  state afresh on every call, as the Python code would: each call draws the same numbers
  for an int seed (NumPy's), new ones for ``seed=None``.
"""

from __future__ import annotations

import numpy as np

from graphc.core import contexts
from graphc.core.tensor import Tensor
from graphc.ops import inplace as _inplace
from graphc.ops.random_draw import CallRng, HeldRng, draw, reseed

I64 = np.dtype(np.int64)


def _seed_words(seed):
    """An int seed (or a sequence of them) as SeedSequence's 32-bit entropy words."""
    words = []
    for s in np.atleast_1d(np.asarray(seed, dtype=object)).ravel():
        s = int(s)
        if s < 0:
            raise ValueError(f"expected non-negative integer, got {s}")
        while True:
            words.append(s & 0xFFFFFFFF)
            s >>= 32
            if not s:
                break
    return np.array(words, np.int64)


def default_rng(seed=None):
    """``numpy.random.default_rng``: a :class:`Generator` (see the module docstring for
    eager and traced use). ``seed``: None, an int or sequence of ints, a
    ``SeedSequence``/``BitGenerator``/NumPy ``Generator``, or a graphc Generator
    (returned as it is); inside a ``gc.function`` also an int tensor."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, np.random.Generator):
        return Generator(HeldRng(seed))
    if not contexts.active() or isinstance(seed, np.random.SeedSequence |
                                           np.random.BitGenerator):
        if isinstance(seed, Tensor):
            seed = seed.numpy()
        return Generator(HeldRng(np.random.default_rng(seed)))
    rng = CallRng()
    if seed is None:
        reseed(rng, "entropy", np.zeros(0, np.int64))
    elif isinstance(seed, Tensor):
        if seed.dtype.kind not in "iu":
            raise TypeError(f"SeedSequence expects int or sequence of ints for entropy "
                            f"not {seed.dtype}")
        reseed(rng, "numpy", seed)
    else:
        reseed(rng, "numpy", _seed_words(seed))
    return Generator(rng)


def _store(result, out, what):
    """``out=``: write ``result`` into ``out`` (a tensor or ndarray) and return ``out``."""
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape) or out.dtype != result.dtype:
        raise ValueError(f"{what}: out must have shape {tuple(result.shape)} and dtype "
                         f"{result.dtype}, got {tuple(out.shape)} {out.dtype}")
    if isinstance(out, np.ndarray):
        out[...] = result.numpy()
        return out
    _inplace.check_writable(out, what)
    _inplace.write(out, lambda cur: result)
    return out


def _size_of(size, out):
    return tuple(out.shape) if size is None and out is not None else size


class Generator:
    """NumPy's ``numpy.random.Generator`` over graphc tensors: make one with
    ``gnp.random.default_rng(seed)``. Results are tensors (0-d for one value); parameters
    may be tensors, arrays or numbers, checked as NumPy checks them."""

    def __init__(self, rng):
        self._rng = rng

    def __repr__(self):
        return f"Generator({self._rng!r})"

    def _d(self, method, params=(), size=None, /, **kw):
        return draw(self._rng, method, params, size, f"Generator.{method}", **kw)

    @property
    def bit_generator(self):
        """The NumPy bit generator behind an eagerly made Generator."""
        if not isinstance(self._rng, HeldRng):
            raise TypeError("a Generator created inside a gc.function has a new state on "
                            "every call: its bit_generator exists only while the graph runs")
        return self._rng.gen.bit_generator

    def spawn(self, n_children):
        """``Generator.spawn``: independent child Generators (eager Generators only)."""
        return [Generator(HeldRng(g)) for g in
                np.random.Generator(self.bit_generator).spawn(n_children)]

    # -- uniform, integers, choices and permutations
    def random(self, size=None, dtype=np.float64, out=None):
        """Floats in ``[0, 1)``; ``dtype`` float64 or float32."""
        r = self._d("random", (), _size_of(size, out), dtype=np.dtype(dtype))
        return _store(r, out, "Generator.random")

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Integers in ``[low, high)`` (``[low, high]`` with ``endpoint``); ``high=None``:
        ``[0, low)``."""
        if high is None:
            low, high = 0, low
        return self._d("integers", (low, high), size, dtype=np.dtype(dtype),
                       endpoint=bool(endpoint))

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Samples of ``a`` (or of ``arange(a)`` for an int) along ``axis``."""
        params = (a,) if p is None else (a, p)
        kw = {"replace": bool(replace), "axis": int(axis), "shuffle": bool(shuffle)}
        if isinstance(a, int | np.integer):
            return self._d("choice", params, size, out_dtype=I64, **kw)
        return self._d("choice", params, size, **kw)

    def permutation(self, x, axis=0):
        """A permuted copy of ``x`` along ``axis``, or of ``arange(x)`` for an int."""
        if isinstance(x, int | np.integer):
            return self._d("permutation_n", n=int(x))
        return self._d("permutation", (x,), axis=int(axis))

    def permuted(self, x, axis=None, out=None):
        """``x`` with each slice along ``axis`` permuted independently (all elements when
        ``axis`` is None)."""
        r = self._d("permuted", (x,), axis=None if axis is None else int(axis))
        return _store(r, out, "Generator.permuted")

    def shuffle(self, x, axis=0):
        """Shuffle ``x`` in place along ``axis`` (a tensor: eagerly written; inside a
        ``gc.function`` a tensor argument is rebound; an ndarray or list: eagerly only).
        Returns None."""
        if isinstance(x, list) and not contexts.active():
            perm = self._d("permutation_n", n=len(x)).numpy()
            x[:] = [x[i] for i in perm]  # the swaps that shuffle arange(len(x))
            return None
        if isinstance(x, np.ndarray):
            if contexts.active():
                raise TypeError("Generator.shuffle: shuffling a NumPy array inside a "
                                "gc.function would happen once, while tracing; pass a "
                                "tensor (a function argument) or use permutation()")
            x[...] = self._d("permutation", (x,), axis=int(axis)).numpy()
            return None
        if not isinstance(x, Tensor):
            raise TypeError(f"Generator.shuffle: x must be a tensor, ndarray or list, not "
                            f"{type(x).__name__}")
        _inplace.check_writable(x, "Generator.shuffle")
        new = self._d("permutation", (x,), axis=int(axis))
        _inplace.write(x, lambda cur: new)
        return None

    # -- continuous distributions
    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Standard normal values; ``dtype`` float64 or float32."""
        r = self._d("standard_normal", (), _size_of(size, out), dtype=np.dtype(dtype))
        return _store(r, out, "Generator.standard_normal")

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal values of mean ``loc`` and standard deviation ``scale`` (>= 0)."""
        return self._d("normal", (loc, scale), size)

    def uniform(self, low=0.0, high=1.0, size=None):
        """Uniform values in ``[low, high)``."""
        return self._d("uniform", (low, high), size)

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        """Exponential values of scale 1 (``method`` ``"zig"`` or ``"inv"``)."""
        r = self._d("standard_exponential", (), _size_of(size, out), dtype=np.dtype(dtype),
                    method=str(method))
        return _store(r, out, "Generator.standard_exponential")

    def exponential(self, scale=1.0, size=None):
        """Exponential values of ``scale`` (>= 0)."""
        return self._d("exponential", (scale,), size)

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        """Gamma values of ``shape`` (>= 0) and scale 1."""
        r = self._d("standard_gamma", (shape,), _size_of(size, out), dtype=np.dtype(dtype))
        return _store(r, out, "Generator.standard_gamma")

    def gamma(self, shape, scale=1.0, size=None):
        """Gamma values of ``shape`` and ``scale`` (both >= 0)."""
        return self._d("gamma", (shape, scale), size)

    def beta(self, a, b, size=None):
        """Beta values (``a``, ``b`` > 0)."""
        return self._d("beta", (a, b), size)

    def chisquare(self, df, size=None):
        """Chi-square values with ``df`` (> 0) degrees of freedom."""
        return self._d("chisquare", (df,), size)

    def noncentral_chisquare(self, df, nonc, size=None):
        """Noncentral chi-square values (``df`` > 0, ``nonc`` >= 0)."""
        return self._d("noncentral_chisquare", (df, nonc), size)

    def f(self, dfnum, dfden, size=None):
        """F-distribution values (``dfnum``, ``dfden`` > 0)."""
        return self._d("f", (dfnum, dfden), size)

    def noncentral_f(self, dfnum, dfden, nonc, size=None):
        """Noncentral F values (``dfnum``, ``dfden`` > 0, ``nonc`` >= 0)."""
        return self._d("noncentral_f", (dfnum, dfden, nonc), size)

    def standard_t(self, df, size=None):
        """Student's t values with ``df`` (> 0) degrees of freedom."""
        return self._d("standard_t", (df,), size)

    def standard_cauchy(self, size=None):
        """Standard Cauchy (Lorentz) values."""
        return self._d("standard_cauchy", (), size)

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        """Gumbel values (``scale`` >= 0)."""
        return self._d("gumbel", (loc, scale), size)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        """Laplace values (``scale`` >= 0)."""
        return self._d("laplace", (loc, scale), size)

    def logistic(self, loc=0.0, scale=1.0, size=None):
        """Logistic values (``scale`` >= 0)."""
        return self._d("logistic", (loc, scale), size)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        """Log-normal values (``sigma`` >= 0)."""
        return self._d("lognormal", (mean, sigma), size)

    def pareto(self, a, size=None):
        """Pareto II (Lomax) values (``a`` > 0)."""
        return self._d("pareto", (a,), size)

    def power(self, a, size=None):
        """Power-distribution values in ``[0, 1]`` (``a`` > 0)."""
        return self._d("power", (a,), size)

    def rayleigh(self, scale=1.0, size=None):
        """Rayleigh values (``scale`` >= 0)."""
        return self._d("rayleigh", (scale,), size)

    def triangular(self, left, mode, right, size=None):
        """Triangular values (``left <= mode <= right``, ``left < right``)."""
        return self._d("triangular", (left, mode, right), size)

    def vonmises(self, mu, kappa, size=None):
        """von Mises values on ``[-pi, pi]`` (``kappa`` >= 0)."""
        return self._d("vonmises", (mu, kappa), size)

    def wald(self, mean, scale, size=None):
        """Wald (inverse Gaussian) values (``mean``, ``scale`` > 0)."""
        return self._d("wald", (mean, scale), size)

    def weibull(self, a, size=None):
        """Weibull values (``a`` >= 0)."""
        return self._d("weibull", (a,), size)

    # -- discrete distributions (int64)
    def binomial(self, n, p, size=None):
        """Binomial counts (``n`` >= 0, ``0 <= p <= 1``)."""
        return self._d("binomial", (n, p), size)

    def negative_binomial(self, n, p, size=None):
        """Negative binomial counts (``n`` > 0, ``0 < p <= 1``)."""
        return self._d("negative_binomial", (n, p), size)

    def poisson(self, lam=1.0, size=None):
        """Poisson counts (``lam`` >= 0)."""
        return self._d("poisson", (lam,), size)

    def geometric(self, p, size=None):
        """Geometric counts (``0 < p <= 1``), >= 1."""
        return self._d("geometric", (p,), size)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        """Hypergeometric counts (``1 <= nsample <= ngood + nbad``)."""
        return self._d("hypergeometric", (ngood, nbad, nsample), size)

    def logseries(self, p, size=None):
        """Logarithmic series counts (``0 <= p < 1``)."""
        return self._d("logseries", (p,), size)

    def zipf(self, a, size=None):
        """Zipf counts (``a`` > 1)."""
        return self._d("zipf", (a,), size)

    # -- multivariate distributions (a vector per draw: the last axis)
    def multinomial(self, n, pvals, size=None):
        """Multinomial counts of ``n`` trials over the categories of ``pvals``."""
        return self._d("multinomial", (n, pvals), size)

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals"):
        """Counts of each color drawn without replacement (``method`` ``"marginals"`` or
        ``"count"``)."""
        return self._d("multivariate_hypergeometric", (colors, nsample), size,
                       method=str(method))

    def dirichlet(self, alpha, size=None):
        """Dirichlet vectors (``alpha`` > 0, 1-D)."""
        return self._d("dirichlet", (alpha,), size)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8, *,
                            method="svd"):
        """Multivariate normal vectors of ``mean`` (1-D) and ``cov`` (square, PSD)."""
        return self._d("multivariate_normal", (mean, cov), size,
                       check_valid=str(check_valid), tol=float(tol), method=str(method))
