"""``erf``: the error function as an elementwise registry op (``gc.nn.gelu``'s exact form,
``tf.math.erf``).

Its reference is SciPy's ``scipy.special.erf`` (imported on the first eager call, so
``import graphc`` does not load SciPy), its ``scalar`` template ``math.erf`` gives the
backends and fusion their per-element code (float32 is computed in float64 and rounded,
as SciPy's float32 loop does); float loops use vmath's branch-free ``erf`` instead
(``scalar_templates``: vectorized, within 1 ULP of libm's, 3 of SciPy's; docs/vmath.md),
its gradient is ``2 / sqrt(pi) * exp(-x**2)`` and it batches with the shared elementwise
rule.

Dtypes: a float input keeps its dtype (float16 included); bools and integers become
floats as ``np.exp`` makes them (``int32`` -> ``float64``); complex inputs raise
``TypeError`` (``math.erf`` is real only).
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import OpDef, bind, register
from graphc.ir.graph import Aval
from graphc.ops import elementwise as _ew
from graphc.ops.convert import asarray
from graphc.ops.elementwise_batch import elementwise_rule

_TWO_OVER_SQRT_PI = 2.0 / float(np.sqrt(np.pi))


def _erf_dtype(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype.kind == "c" or dtype.kind not in "biuf":
        raise TypeError(f"erf is not defined for dtype {dtype} (real inputs only)")
    return np.exp.resolve_dtypes((dtype, None))[1]


def _erf_infer(x):
    return Aval(x.shape, _erf_dtype(x.dtype))


def _erf_ref(x):
    from scipy import special  # deferred: SciPy, loaded by the first eager erf

    x = np.asarray(x)
    out = _erf_dtype(x.dtype)
    # float16 and the small ints go through SciPy's float32 loop, the rest float64
    work = np.float32 if out.itemsize <= 4 else np.float64
    return np.asarray(special.erf(x.astype(work, copy=False))).astype(out, copy=False)


ERF = register(OpDef(
    name="erf", attrs={}, infer=_erf_infer, ref=_erf_ref, elementwise=True,
    scalar="math.erf(float({0}))",
))
ERF.batch = elementwise_rule(ERF)
ERF.grad = lambda cts, args, outs, **_: (
    cts[0] * (_TWO_OVER_SQRT_PI * bind(_ew.EXP, -bind(_ew.SQUARE, args[0]))),)


def erf(x, name=None):
    """``tf.math.erf`` / ``scipy.special.erf``: ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``,
    elementwise."""
    return bind(ERF, asarray(x))
