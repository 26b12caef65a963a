"""NumPy's ways to build arrays from Python functions: ``fromfunction``, ``vectorize``
and ``frompyfunc``.

``fromfunction`` calls the function once on index tensors (``arange`` broadcast to the
shape), so it traces and compiles like any composition. ``vectorize`` and ``frompyfunc``
call a Python function once per element: eagerly on NumPy scalars, as NumPy does; inside
``gc.function`` on 0-d tensors, one call per element of a shape known while tracing, the
results stacked (unrolled: meant for small arrays; ``gc.vectorized_map`` batches a
function instead).
"""

from __future__ import annotations

import numpy as np

from graphc import source_info
from graphc.core.tensor import Tensor
from graphc.ops.convert import asarray
from graphc.ops.creation import arange
from graphc.ops.join import stack
from graphc.ops.shape import broadcast_to, reshape

_NOVALUE = np._NoValue


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """``np.fromfunction``: ``function(*indices, **kwargs)``, where ``indices[i]`` holds
    each element's coordinate along dim ``i`` (of ``dtype``, float64 by default), one
    call on whole tensors (the function's result is returned as it is)."""
    shape = tuple(int(n) for n in shape)
    args = []
    for i, n in enumerate(shape):
        line = arange(n, dtype=dtype)
        line = reshape(line, tuple(n if j == i else 1 for j in range(len(shape))))
        args.append(broadcast_to(line, shape))
    return function(*args, **kwargs)


def _symbolic(args):
    return any(isinstance(a, Tensor) and a.is_symbolic for a in args)


def _numpy(x):
    return x.numpy() if isinstance(x, Tensor) else x


def _to_tensor(r):
    if isinstance(r, tuple):
        return tuple(_to_tensor(x) for x in r)
    if isinstance(r, np.ndarray) and r.dtype == object:
        r = np.array(r.tolist())  # frompyfunc's object arrays: NumPy's dtype of the values
    return asarray(r)


def _per_element(func, args, nout, otypes):
    """``func`` on each element of the broadcast ``args`` (0-d tensors), results stacked
    into tensors of the broadcast shape (a tuple for several outputs). ``nout=None``:
    as many as the first call returns (a tuple, or one value)."""
    arrays = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*[_known_shape(a) for a in arrays])
    arrays = [broadcast_to(a, shape) for a in arrays]
    outs, single = None, nout == 1
    for idx in np.ndindex(*shape):
        r = func(*[a[idx] for a in arrays])
        if outs is None:
            single = single or (nout is None and not isinstance(r, tuple))
            outs = [[] for _ in range(1 if single else len(r))]
        r = (r,) if single else r
        if not isinstance(r, tuple) or len(r) != len(outs):
            raise ValueError(f"the function should return a tuple of {len(outs)} values")
        for k, v in enumerate(r):
            outs[k].append(asarray(v))
    if outs is None:
        if not otypes:
            raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` "
                             "is set")
        from_types = [asarray(np.zeros(shape, t)) for t in otypes]
        return from_types[0] if len(from_types) == 1 else tuple(from_types)
    results = []
    for k, vals in enumerate(outs):
        dtype = np.dtype(otypes[k]) if otypes else vals[0].dtype
        results.append(reshape(stack([v.astype(dtype) for v in vals]), shape))
    return results[0] if single else tuple(results)


def _known_shape(a):
    if None in a.shape:
        raise TypeError(f"vectorize/frompyfunc call the function once per element: inside "
                        f"gc.function the shape must be known while tracing, not "
                        f"{a.shape}{source_info.where()}")
    return tuple(a.shape)


class vectorize:  # noqa: N801 - NumPy's name
    """``np.vectorize``: ``pyfunc`` applied to each element of the broadcast arguments.

    Eagerly NumPy's own ``vectorize`` runs (``otypes``, ``excluded``, ``cache``,
    ``signature`` as NumPy), on NumPy scalars, and its result becomes tensors. Inside
    ``gc.function`` ``pyfunc`` is called once per element on 0-d tensors (shapes known
    while tracing; ``signature`` is not supported there). As in NumPy 2, ``pyfunc`` may
    be omitted to use it as a decorator with options: ``@gnp.vectorize(otypes=[float])``.
    """

    def __init__(self, pyfunc=_NOVALUE, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        self.pyfunc, self.cache, self.signature = pyfunc, cache, signature
        if isinstance(otypes, str):
            otypes = list(otypes)
        self.otypes = None if otypes is None else [np.dtype(t) for t in otypes]
        self.excluded = set() if excluded is None else set(excluded)
        self.__doc__ = doc if doc is not None else getattr(pyfunc, "__doc__", None)
        self._np = None

    def __call__(self, *args, **kwargs):
        if self.pyfunc is _NOVALUE:  # the decorator form
            (self.pyfunc,) = args
            self.__doc__ = self.__doc__ or getattr(self.pyfunc, "__doc__", None)
            return self
        if _symbolic(list(args) + list(kwargs.values())):
            return self._traced(args, kwargs)
        if self._np is None:
            self._np = np.vectorize(self.pyfunc, otypes=self.otypes, excluded=self.excluded,
                                    cache=self.cache, signature=self.signature)
        return _to_tensor(self._np(*[_numpy(a) for a in args],
                                   **{k: _numpy(v) for k, v in kwargs.items()}))

    def _traced(self, args, kwargs):
        if self.signature is not None:
            raise NotImplementedError(f"vectorize(signature=...) on traced tensors is not "
                                      f"supported{source_info.where()}; use "
                                      "gc.vectorized_map")
        names = list(kwargs)
        fixed = {k: v for k, v in kwargs.items() if k in self.excluded}
        pos_fixed = {i: a for i, a in enumerate(args) if i in self.excluded}
        moving = [a for i, a in enumerate(args) if i not in self.excluded]
        moving += [kwargs[k] for k in names if k not in self.excluded]
        n_pos = len(args) - len(pos_fixed)
        moving_names = [k for k in names if k not in self.excluded]

        def call(*vals):
            pos = iter(vals[:n_pos])
            full = [pos_fixed[i] if i in pos_fixed else next(pos) for i in range(len(args))]
            kw = dict(fixed, **dict(zip(moving_names, vals[n_pos:])))
            return self.pyfunc(*full, **kw)

        nout = None if self.otypes is None or len(self.otypes) > 1 else 1
        return _per_element(call, moving, nout, self.otypes)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """``np.frompyfunc``: a function applying ``func`` elementwise to ``nin`` broadcast
    arguments, giving ``nout`` results. NumPy's results are object arrays; graphc tensors
    hold numbers, so each result is converted as ``np.array`` converts its values
    (Python floats: float64, ...). Inside ``gc.function``: one call per element on 0-d
    tensors (see :class:`vectorize`)."""
    if nin < 0 or nout < 1:
        raise ValueError("frompyfunc: nin must be >= 0 and nout >= 1")
    np_ufunc = np.frompyfunc(func, nin, nout, identity=identity)

    def call(*args):
        if len(args) != nin:
            raise TypeError(f"{np_ufunc.__name__}: takes {nin} arguments, got {len(args)}")
        if _symbolic(args):
            return _per_element(func, args, nout, None)
        return _to_tensor(np_ufunc(*[_numpy(a) for a in args]))

    call.__name__ = call.__qualname__ = np_ufunc.__name__
    call.__doc__ = f"``{np_ufunc.__name__}``: ``func`` elementwise (from ``frompyfunc``)."
    call.nin, call.nout, call.nargs, call.identity = nin, nout, nin + nout, identity
    return call
