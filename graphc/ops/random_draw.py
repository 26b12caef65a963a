"""The ops behind every random draw of ``gnp.random`` Generators and ``gc.random``.

Three ops, all computing their values with NumPy's ``numpy.random.Generator`` (so an
eager draw and a traced one give the same numbers for the same state):

* ``random_draw`` (stateful): one call of a Generator method (``method``: ``"normal"``,
  ``"integers"``, ``"tf_truncated_normal"``, ...; the table :data:`METHODS`) on the state
  that the attr ``rng`` names (a :class:`RngRef`). Distribution parameters are operands,
  the draw's static options (``size``, ``dtype=``, ``endpoint=``, ...) attrs. Threaded by
  the effect token: never folded or merged, and drawn afresh on every call.
* ``random_stateless`` (pure): the same methods on a fresh counter-based generator
  (NumPy's ``Philox`` keyed by the ``seed`` operand, two int words): a deterministic
  function of ``(seed, params)``, TensorFlow's ``stateless_*`` contract (graphc's own
  stream, not TensorFlow's numbers).
* ``random_reseed`` (stateful, no result): sets the state ``rng`` names from a seed
  operand, in program order (``default_rng(seed)`` inside a ``gc.function``,
  ``Generator.reset_from_seed``).

Draws have no gradient: the reparameterized TensorFlow draws (``normal(mean, stddev)``)
are compositions ``standard * stddev + mean`` of a draw with ordinary ops, so the
gradient reaches ``mean`` and ``stddev`` through those ops (docs/random.md).
"""

from __future__ import annotations

import threading

import numpy as np

from graphc.core import contexts
from graphc.core.attr_types import BOOL, DTYPE, NEST, NONE, PYOBJ, SHAPE, STR, one_of
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.tensor import Tensor
from graphc.ir.graph import Aval
from graphc.ops import random_methods as _m
from graphc.ops import shape_args


# --------------------------------------------------------------------------- states
class RngRef:
    """What a draw's ``rng`` attr names: a random state a graph reads when it runs."""

    def generator(self):
        raise NotImplementedError

    def reseed(self, how, seed):
        raise TypeError(f"{type(self).__name__} cannot be reseeded")


class HeldRng(RngRef):
    """A state held by a Python object (a Generator made eagerly, or captured by a
    ``gc.function``): each draw, eager or in any call of a graph, advances it."""

    def __init__(self, gen):
        self.gen = gen

    def generator(self):
        return self.gen

    def reseed(self, how, seed):
        self.gen = make_generator(how, seed)

    def __repr__(self):
        return f"<rng state {type(self.gen.bit_generator).__name__} at {id(self):#x}>"


class CallRng(RngRef):
    """A Generator created while tracing: each call of the graph makes its state afresh
    (``random_reseed`` at the point of creation), as the Python code would on each call.
    Per thread, so concurrent calls of one graph never share it."""

    def __init__(self):
        self._local = threading.local()

    def generator(self):
        gen = getattr(self._local, "gen", None)
        if gen is None:
            raise RuntimeError("a Generator created inside a gc.function was used before "
                               "the graph created it")
        return gen

    def reseed(self, how, seed):
        self._local.gen = make_generator(how, seed)

    def __repr__(self):
        return f"<per-call rng state at {id(self):#x}>"


def make_generator(how, seed):
    """A NumPy Generator from a seed array: ``"numpy"``: ``default_rng(seed)`` (an int or
    1-D array of entropy words); ``"entropy"``: fresh OS entropy; ``"philox"``: Philox
    with the counter and key words of a graphc state (``gc.random.create_rng_state``)."""
    seed = np.asarray(seed)
    if how == "entropy":
        return np.random.default_rng()
    if how == "numpy":
        return np.random.default_rng(seed.astype(np.int64).tolist())
    if how == "philox":
        words = seed.astype(np.int64).view(np.uint64).reshape(-1)
        counter = np.zeros(4, np.uint64)
        counter[:2] = words[:2]
        key = np.array([words[2], 0], np.uint64)
        return np.random.Generator(np.random.Philox(counter=counter, key=key))
    raise ValueError(f"unknown seeding {how!r}")


def stateless_generator(seed):
    """The generator of a stateless draw: NumPy's Philox keyed by the two seed words."""
    seed = np.asarray(seed)
    if seed.shape != (2,) or seed.dtype.kind not in "iu":
        raise ValueError(f"seed must be an integer tensor of shape [2], got {seed.dtype} "
                         f"of shape {list(seed.shape)}")
    key = seed.astype(np.int64).view(np.uint64)
    return np.random.Generator(np.random.Philox(key=key))


# --------------------------------------------------------------------------- the ops
def _size(shape_operand, size, dyn):
    if dyn:
        return shape_args.dims(shape_operand[0], size, "random draw")
    return size


def _split(args, dyn):
    return (args[:-1], args[-1:]) if dyn else (args, ())


def _draw_infer(*args, rng, method, size, dyn, kw, dtype):
    params, _ = _split(args, dyn)
    return Aval(_m.out_shape(method, [p.shape for p in params], size, dict(kw)), dtype)


def _draw_ref(*args, rng, method, size, dyn, kw, dtype):
    params, shape = _split(args, dyn)
    out = _m.call(rng.generator(), method, params, _size(shape, size, dyn), dict(kw))
    return np.asarray(out).astype(dtype, copy=False)


def _stateless_infer(seed, *args, method, size, dyn, kw, dtype):
    return _draw_infer(*args, rng=None, method=method, size=size, dyn=dyn, kw=kw,
                       dtype=dtype)


def _stateless_ref(seed, *args, method, size, dyn, kw, dtype):
    params, shape = _split(args, dyn)
    out = _m.call(stateless_generator(seed), method, params, _size(shape, size, dyn),
                  dict(kw))
    return np.asarray(out).astype(dtype, copy=False)


def _reseed_infer(seed, *, rng, how):
    return ()


def _reseed_ref(seed, *, rng, how):
    rng.reseed(how, seed)
    return ()


_OPT_SHAPE = one_of(NONE, SHAPE)
RANDOM_DRAW = register(OpDef(
    name="random_draw",
    attrs={"rng": PYOBJ, "method": STR, "size": _OPT_SHAPE, "dyn": BOOL, "kw": NEST,
           "dtype": DTYPE},
    infer=_draw_infer, ref=_draw_ref, stateful=True,
    extra={"python_side": "a random draw (gnp.random Generator / gc.random)"},
))
RANDOM_STATELESS = register(OpDef(
    name="random_stateless",
    attrs={"method": STR, "size": _OPT_SHAPE, "dyn": BOOL, "kw": NEST, "dtype": DTYPE},
    infer=_stateless_infer, ref=_stateless_ref,
    extra={"python_side": "gc.random.stateless_*"},
))
RANDOM_RESEED = register(OpDef(
    name="random_reseed", attrs={"rng": PYOBJ, "how": STR},
    infer=_reseed_infer, ref=_reseed_ref, stateful=True, multiple_results=True,
    extra={"python_side": "a random Generator's seeding"},
))
RANDOM_DRAW.grad = RANDOM_STATELESS.grad = RANDOM_RESEED.grad = NOT_DIFFERENTIABLE


# --------------------------------------------------------------------------- binding
def _static(x):
    """``x`` as a NumPy array when its value is known now, else None."""
    if isinstance(x, Tensor):
        return x._np if x._np is not None else None
    return np.asarray(x)


def _operand(x):
    return x if isinstance(x, Tensor) else np.asarray(x)


def _dtypes(params):
    return [p.dtype if isinstance(p, Tensor) else np.asarray(p).dtype for p in params]


def _template(size, what):
    if size is None:
        return None, ()
    template, operand = shape_args.shape_arg(size, what)
    if any(d is not None and d < 0 for d in template):
        raise ValueError(f"{what}: negative dimensions are not allowed (size {template})")
    return template, (() if operand is None else (operand,))


def _check_now(method, params, size, kw, seed=None):
    """Trace-time check of parameters known now, with NumPy's own checks and messages
    (an invalid ``scale`` raises while tracing, as the eager draw would)."""
    if not contexts.active() or size is not None and None in size:
        return
    values = [_static(p) for p in params]
    if any(v is None for v in values):
        return
    probe = (list(size) if size is not None else None)
    if probe is not None and int(np.prod(probe, dtype=np.int64)) > 4096:
        probe = [0] * len(probe)
    gen = np.random.Generator(np.random.Philox(key=0))
    _m.call(gen, method, values, None if probe is None else tuple(probe), kw)


def draw(rng, method, params=(), size=None, what="random", /, out_dtype=None, **kw):
    """One draw of ``method`` on ``rng`` (a :class:`RngRef`): a tensor."""
    template, shape_op = _template(size, what)
    _check_now(method, params, template, kw)
    dtype = np.dtype(out_dtype) if out_dtype is not None else _m.out_dtype(
        method, _dtypes(params), kw)
    return bind(RANDOM_DRAW, *map(_operand, params), *shape_op, rng=rng, method=method,
                size=template, dyn=bool(shape_op), kw=tuple(sorted(kw.items())), dtype=dtype)


def stateless(seed, method, params=(), size=None, what="random", /, out_dtype=None,
              **kw):
    """One stateless draw of ``method`` keyed by ``seed`` (shape [2] ints): a tensor."""
    template, shape_op = _template(size, what)
    s = _static(seed)
    if s is not None:
        stateless_generator(s)  # the seed's shape and dtype, checked now
    _check_now(method, params, template, kw)
    dtype = np.dtype(out_dtype) if out_dtype is not None else _m.out_dtype(
        method, _dtypes(params), kw)
    return bind(RANDOM_STATELESS, _operand(seed), *map(_operand, params), *shape_op,
                method=method, size=template, dyn=bool(shape_op),
                kw=tuple(sorted(kw.items())), dtype=dtype)


def reseed(rng, how, seed):
    """Set ``rng``'s state from ``seed`` (eagerly now; in a trace, on every call)."""
    bind(RANDOM_RESEED, _operand(seed), rng=rng, how=how)
