"""Special functions as elementwise registry ops: ``erfc``, ``erfinv``, ``ndtri``,
``lgamma``, ``gamma``, ``digamma``, ``polygamma``, ``zeta``, ``bessel_i0``/``i0e``/``i1``/
``i1e``, ``igamma``, ``igammac``, ``betainc``.

Each op's reference is SciPy's function (imported on first use: ``import graphc`` does
not load SciPy), computed in float64 and cast to the result dtype; its ``scalar``
template calls ``math.erfc`` or a compiled helper of
``graphc/runtime/numba_helpers_special.py`` (``H.digamma``...), so the Numba backend,
fusion and the CUDA backend run them. ``igamma``, ``igammac`` and ``betainc`` have no
template: they run on the interpreter (SciPy) inside compiled programs.

``erf`` itself is ``special_erf.ERF`` (re-exported here as ``ERF``).

Dtypes (``erf``'s rule): each input becomes a float as ``np.exp`` makes it (float
dtypes stay, ``int32`` -> float64, ``int8`` -> float16), several inputs promote as in
NumPy (``polygamma(n, x)`` takes ``x``'s alone); complex raises ``TypeError``. A
Python number next to a tensor is weak (NEP 50).
Edge values follow SciPy, except ``lgamma(-inf) = inf`` (TensorFlow's, JAX's and C's
value; SciPy gives ``-inf``). Gradient rules are in ``special_grad.py``.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import ALL, OpDef, register
from graphc.core.shapes import broadcast_shapes
from graphc.ir.graph import Aval
from graphc.ops.elementwise_batch import elementwise_rule
from graphc.ops.special_erf import ERF  # noqa: F401 - the family's erf (gc.nn's too)

F64 = np.dtype(np.float64)


def result_dtype(*dtypes) -> np.dtype:
    """The dtype of a special function of inputs of ``dtypes`` (see the module doc)."""
    dtypes = [np.dtype(d) for d in dtypes]
    for d in dtypes:
        if d.kind not in "biuf":
            raise TypeError(f"special functions take real numbers, got {d}")
    return np.result_type(*[np.exp.resolve_dtypes((d, None))[1] for d in dtypes])


def _infer_from(first):
    """``infer`` of an op whose result dtype comes from its inputs ``first:``
    (``polygamma``'s order, an integer count, leaves the dtype to ``x``)."""
    def infer(*avals):
        shape = broadcast_shapes(*[a.shape for a in avals])
        result_dtype(*[a.dtype for a in avals])  # every input must be real
        return Aval(shape, result_dtype(*[a.dtype for a in avals[first:]]))
    return infer


def _scipy(name):
    import scipy.special  # deferred: SciPy (about 100 ms), loaded by the first special op

    return getattr(scipy.special, name)


def _ref_of(scipy_name, fixup=None, first=0):
    """A reference: SciPy's ``scipy_name`` in float64, then ``fixup(out, *args)``."""
    def ref(*args):
        result_dtype(*[np.asarray(a).dtype for a in args])
        dtype = result_dtype(*[np.asarray(a).dtype for a in args[first:]])
        wide = [np.asarray(a, F64) for a in args]
        with np.errstate(all="ignore"):
            out = np.asarray(_scipy(scipy_name)(*wide), F64)
            if fixup is not None:
                out = fixup(out, *wide)
        return out.astype(dtype)

    ref.__name__ = scipy_name
    return ref


def _lgamma_fixup(out, x):
    return np.where(x == -np.inf, np.inf, out)


def _op(name, scipy_name, scalar=None, fixup=None, first=0):
    op = register(OpDef(
        name=name, attrs={}, infer=_infer_from(first), ref=_ref_of(scipy_name, fixup, first),
        weak=ALL, elementwise=True, scalar=scalar))
    op.batch = elementwise_rule(op)
    return op


def _helper(name, nin=1):
    """The template calling ``H.name`` on float64 operands."""
    return f"H.{name}(" + ", ".join(f"np.float64({{{i}}})" for i in range(nin)) + ")"


ERFC = _op("erfc", "erfc", "math.erfc(np.float64({0}))")
ERFINV = _op("erfinv", "erfinv", _helper("erfinv"))
NDTRI = _op("ndtri", "ndtri", _helper("ndtri"))
LGAMMA = _op("lgamma", "gammaln", _helper("lgamma"), _lgamma_fixup)
GAMMA = _op("gamma", "gamma", _helper("gamma"))
DIGAMMA = _op("digamma", "digamma", _helper("digamma"))
# (n, x): the result has x's dtype
POLYGAMMA = _op("polygamma", "polygamma", _helper("polygamma", 2), first=1)
ZETA = _op("zeta", "zeta", _helper("zeta", 2))  # Hurwitz: (s, q)
BESSEL_I0 = _op("bessel_i0", "i0", _helper("bessel_i0"))
BESSEL_I0E = _op("bessel_i0e", "i0e", _helper("bessel_i0e"))
BESSEL_I1 = _op("bessel_i1", "i1", _helper("bessel_i1"))
BESSEL_I1E = _op("bessel_i1e", "i1e", _helper("bessel_i1e"))
# the regularized incomplete gamma and beta functions: interpreter only (SciPy)
IGAMMA = _op("igamma", "gammainc")  # (a, x)
IGAMMAC = _op("igammac", "gammaincc")  # (a, x)
BETAINC = _op("betainc", "betainc")  # (a, b, x)
