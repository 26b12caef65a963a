"""Complex numbers' parts: the ops ``conjugate``, ``real`` and ``imag`` and NumPy's names
over them (``conj``/``conjugate``, ``real``, ``imag``, ``angle``, ``iscomplex``,
``isreal``, ``real_if_close``).

The three ops are elementwise: the batching rule is the elementwise family's; on real
dtypes their scalar templates are the identity or zero, and on complex ones the Numba
backend's own table (``runtime/scalar_templates_complex.py``) takes the parts.
Gradients follow JAX's convention for complex values (the one graphc's other rules
use, ``d(x*y)/dx = y`` with no conjugate): ``conjugate`` sends ``g`` back as
``conj(g)``, ``real`` as ``g + 0j``, ``imag`` as ``-1j * g``.
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.registry import OpDef, fast_unary, register
from graphc.core.tensor import Tensor
from graphc.ir.graph import Aval
from graphc.ops import elementwise as _ew
from graphc.ops import ufuncs as _u
from graphc.ops.convert import asarray
from graphc.ops.creation import zeros
from graphc.ops.elementwise_batch import elementwise_rule
from graphc.ops.reduce import all as _all


def _part_dtype(dtype):
    """The dtype of ``z.real``/``z.imag``: the complex dtype's float, else itself."""
    dtype = np.dtype(dtype)
    return np.dtype(f"f{dtype.itemsize // 2}") if dtype.kind == "c" else dtype


def _part_infer(x):
    return Aval(x.shape, _part_dtype(x.dtype))


def _real_ref(x):
    return np.array(np.real(x), copy=True)


def _imag_ref(x):
    return np.array(np.imag(x), copy=True)


CONJUGATE = _ew.CONJUGATE  # an elementwise ufunc, declared with the others
REAL = register(OpDef(name="real", attrs={}, infer=_part_infer, ref=_real_ref,
                      elementwise=True, scalar="{0}"))
IMAG = register(OpDef(name="imag", attrs={}, infer=_part_infer, ref=_imag_ref,
                      elementwise=True, scalar="0"))


def _complex(x):
    return isinstance(x, Tensor) and x.dtype.kind == "c"


def _real_grad(cts, args, outs, **_):
    x = args[0]
    return (cts[0].astype(x.dtype) if _complex(x) else cts[0],)


def _imag_grad(cts, args, outs, **_):
    x = args[0]
    return ((cts[0] * -1j).astype(x.dtype) if _complex(x) else None,)


REAL.grad, IMAG.grad = _real_grad, _imag_grad
for _op in (CONJUGATE, REAL, IMAG):
    _op.batch = elementwise_rule(_op)
del _op

# ``np.conjugate``: a ufunc like the others (``gnp.conjugate.nin``, ``isinstance(...,
# gnp.ufunc)``); ``conj`` is the same object, as in NumPy
conjugate = _u._wrap(CONJUGATE, "conjugate", 1)
conj = conjugate
_fast_real, _fast_imag = fast_unary(REAL), fast_unary(IMAG)


def _scalar(val):
    return not isinstance(val, Tensor | list | tuple | np.ndarray)


def real(val):
    """``np.real``: the real part (``float32`` for ``complex64``). A real tensor is
    returned as it is (NumPy returns the array itself); a Python or NumPy scalar gives
    NumPy's scalar."""
    if _scalar(val):
        return np.real(val)
    val = asarray(val)
    return _fast_real(val) if val.dtype.kind == "c" else val


def imag(val):
    """``np.imag``: the imaginary part (``float32`` for ``complex64``; zeros of the same
    dtype for real tensors); a Python or NumPy scalar gives NumPy's scalar."""
    if _scalar(val):
        return np.imag(val)
    return _fast_imag(asarray(val))


def angle(z, deg=False):
    """``np.angle``: ``arctan2(imag(z), real(z))`` (for real ``z``, ``arctan2(0, z)``:
    ``0`` or ``pi``), in degrees with ``deg=True``; NumPy's dtypes (``float32`` for
    ``float32``/``complex64``, ``float64`` for ints)."""
    z = asarray(z)
    if z.dtype.kind == "c":
        a = _u.arctan2(imag(z), real(z))
    else:
        a = _u.arctan2(0, z)
    if deg:
        a = a * (180 / np.pi)
    return a


def iscomplex(x):
    """``np.iscomplex``: elementwise, is the imaginary part nonzero (all ``False`` for
    real dtypes); a bool tensor of ``x``'s shape."""
    x = asarray(x)
    if x.dtype.kind == "c":
        return _u.not_equal(imag(x), 0)
    return zeros(x.shape, dtype=np.bool_)


def isreal(x):
    """``np.isreal``: elementwise, is the imaginary part zero (all ``True`` for real
    dtypes, where NumPy compares the zero ``imag`` too)."""
    return _u.equal(imag(asarray(x)), 0)


def real_if_close(a, tol=100):
    """``np.real_if_close``: the real part of a complex ``a`` when every imaginary part is
    below ``tol`` (machine epsilons when ``tol > 1``), else ``a``; real input is returned
    as it is. The result's dtype depends on the values: inside ``gc.function`` a complex
    ``a`` raises ``TypeError``."""
    a = asarray(a)
    if a.dtype.kind != "c":
        return a
    if a.is_symbolic:
        raise TypeError(
            f"real_if_close: the result's dtype (real or complex) depends on the values of "
            f"a traced tensor{source_info.where()}; call gnp.real(a) (or keep a complex) "
            "inside gc.function")
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    if bool(_all(_u.absolute(imag(a)) < tol)):
        return real(a)
    return a

