"""One test walks the op registry and checks every op against its own NumPy reference.

``SAMPLES`` maps every registered op name to a few ``(args, attrs)`` samples over several
dtypes and shapes; ``args`` are NumPy arrays (the op's tensor inputs), ``attrs`` its static
parameters. For each sample:

(a) tracing ``bind(op, *symbolic_inputs, **attrs)`` infers the shape and dtype that
    ``op.ref`` actually returns, and running the traced graph with the reference
    interpreter, or binding the op eagerly, gives ``ref``'s value;
(b) inference with every input dim unknown (``None``) does not crash, and whatever it
    still claims (rank, known dims, dtype) is true;
(c) ``op.ref`` agrees with NumPy's own function (``NUMPY_EQUIV``), or with an equivalent
    written here for ops NumPy has no single function for.

A new op without samples fails ``test_every_op_has_samples``; nothing is skipped silently:
each exemption is listed with its reason.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import graphc  # noqa: F401  (loads every op module, so the registry is complete)
from graphc.core.interpreter import run_graph
from graphc.core.registry import all_ops, bind
from graphc.core.tensor import Tensor, _symbolic
from graphc.core.trace import TraceContext, freeze
from graphc.ir.graph import Aval
from graphc.ops import index_keys

F32, F64, I32, I64 = (np.dtype(n) for n in ("float32", "float64", "int32", "int64"))
I8, BOOL = np.dtype("int8"), np.dtype("bool")
NUM = (F32, F64, I32, I64)


# --------------------------------------------------------------------------- inputs
def mixed(shape, dtype):
    """Values of both signs, no zeros among floats (``[-1.5, -1, ..]`` or ``[-3, -2, ..]``)."""
    n = int(np.prod(shape, dtype=np.int64))
    v = np.arange(n) - n // 2
    if np.dtype(dtype).kind == "f":
        v = (v + 0.25) * 0.5
    return v.reshape(shape).astype(dtype)


def pos(shape, dtype):
    """``1, 2, 3, ...``: positive, valid for log/sqrt/arccosh, nonzero divisors."""
    n = int(np.prod(shape, dtype=np.int64))
    return np.arange(1, n + 1).reshape(shape).astype(dtype)


def unit(shape, dtype):
    """Inside ``(-1, 1)`` for floats (arcsin, arctanh); zeros for integers."""
    if np.dtype(dtype).kind != "f":
        return np.zeros(shape, dtype)
    n = int(np.prod(shape, dtype=np.int64))
    return np.linspace(-0.9, 0.9, n).reshape(shape).astype(dtype)


def mask(shape):
    n = int(np.prod(shape, dtype=np.int64))
    return (np.arange(n) % 3 != 1).reshape(shape)


def specials(dtype):
    return np.array([np.nan, np.inf, -np.inf, 1.5, -0.0], dtype)


def s(*args, **attrs):
    """One sample: input arrays and static attrs."""
    return (args, attrs)


def unary(gen):
    """Four samples over the four main dtypes and ranks 0-2."""
    return [s(gen((2, 3), F32)), s(gen((), F64)), s(gen((4,), I32)), s(gen((2, 2), I64))]


def binary(gen1, gen2):
    """Broadcasting pairs over the main dtypes, including mixed-dtype promotion."""
    return [
        s(gen1((2, 3), F32), gen2((3,), F32)),
        s(gen1((2, 1), F64), gen2((1, 3), F64)),
        s(gen1((), I32), gen2((2,), I32)),
        s(gen1((3,), I64), gen2((3,), I64)),
        s(gen1((2,), I32), gen2((2,), F32)),  # int32 with float32 -> float64
        s(gen1((2,), I32), gen2((2,), I64)),
        s(gen1((2,), F32), gen2((), F64)),
    ]


def bitwise(gen):
    return [s(gen((2, 3), I32), gen((3,), I32)), s(gen((3,), I64), gen((), I32)),
            s(mask((4,)), mask((4,))[::-1].copy()), s(gen((2,), I8), gen((2,), I8))]


SAMPLES: dict[str, list] = {}

_MIXED_UNARY = ("negative positive absolute sign exp exp2 expm1 cbrt square sin cos tan "
                "arctan sinh cosh tanh arcsinh floor ceil rint trunc sigmoid softplus "
                "identity stop_gradient").split()
for _name in _MIXED_UNARY:
    SAMPLES[_name] = unary(mixed)
for _name in "log log2 log10 log1p sqrt reciprocal arccosh".split():
    SAMPLES[_name] = unary(pos)
for _name in "arcsin arccos arctanh".split():
    SAMPLES[_name] = unary(unit)
for _name in "isnan isinf isfinite".split():
    SAMPLES[_name] = unary(mixed) + [s(specials(F32)), s(specials(F64))]
SAMPLES["logical_not"] = unary(mixed) + [s(mask((2, 3)))]
SAMPLES["invert"] = [s(mixed((2, 3), I32)), s(mixed((), I64)), s(mask((4,))),
                     s(mixed((3,), I8))]
for _name in ("add subtract multiply maximum minimum fmax fmin arctan2 hypot equal not_equal "
              "less less_equal greater greater_equal logical_and logical_or "
              "logical_xor").split():
    SAMPLES[_name] = binary(mixed, pos)
for _name in "true_divide floor_divide remainder".split():
    SAMPLES[_name] = binary(mixed, pos)
SAMPLES["power"] = binary(pos, pos)
SAMPLES["add"] += [s(mask((3,)), mask((3,))), s(mixed((2,), I8), mixed((2,), I64))]
SAMPLES["maximum"] += [s(specials(F32), specials(F32)[::-1].copy())]
SAMPLES["fmax"] += [s(specials(F64), specials(F64)[::-1].copy())]
for _name in "bitwise_and bitwise_or bitwise_xor".split():
    SAMPLES[_name] = bitwise(mixed)
for _name in "left_shift right_shift".split():  # amounts past the width and negative too
    SAMPLES[_name] = [s(mixed((2, 3), I32), np.array([0, 3, 31, 32, 40, -1], np.int32)
                        .reshape(2, 3)), s(mixed((4,), I64), np.int64(2)),
                      s(mixed((3,), I8), np.array([1, 8, 9], np.int8)),
                      s(pos((3,), np.uint8), np.array([0, 7, 8], np.uint8))]

SAMPLES["round"] = [s(mixed((2, 3), F32)), s(mixed((4,), F64), decimals=1),
                    s(mixed((3,), I32)), s(pos((3,), I64) * 7, decimals=-1)]
SAMPLES["where"] = [
    s(mask((2, 3)), mixed((2, 3), F32), pos((3,), F64)),
    s(mask((3,)), mixed((3,), I32), pos((), I64)),
    s(np.array(True), mixed((2,), F32), pos((2,), I32)),
    s(mask((2, 1)), mixed((1, 3), I64), pos((2, 3), I64)),
]
SAMPLES["clip"] = [
    s(mixed((2, 3), F32), np.array(-0.5, F32), np.array(0.5, F32)),
    s(mixed((4,), I32), np.array(-1, I32), np.array(1, I64)),
    s(mixed((4,), F64), np.array([-1, 0, 0, -1], F64), np.array(1, F64)),
    s(mixed((3,), I64), np.array(0, I64), np.array(2, I64)),
]
SAMPLES["cast"] = [s(mixed((2, 3), F32), dtype=I32), s(mixed((4,), I64), dtype=F32),
                   s(mixed((3,), F64), dtype=BOOL), s(mixed((), I32), dtype=I64),
                   s(mask((3,)), dtype=F64)]


def _reductions(extra=None, bool_ok=False):
    extra = extra or {}
    out = [
        s(mixed((2, 3), F32), axis=None, keepdims=False, **extra),
        s(mixed((2, 3), I32), axis=1, keepdims=True, **extra),
        s(mixed((2, 3, 2), I64), axis=(0, 2), keepdims=False, **extra),
        s(mixed((4,), F64), axis=0, keepdims=False, **extra),
        s(mixed((), F32), axis=None, keepdims=True, **extra),
        s(mixed((2, 3), F64), axis=-1, keepdims=False, **extra),
    ]
    if bool_ok:
        out.append(s(mask((2, 3)), axis=0, keepdims=False, **extra))
    return out


for _name in "sum prod mean".split():
    SAMPLES[_name] = _reductions({"dtype": None}, bool_ok=_name != "mean")
    SAMPLES[_name].append(s(mixed((2, 3), I32), axis=0, keepdims=False, dtype=I32))
    SAMPLES[_name].append(s(mixed((4,), F64), axis=None, keepdims=False, dtype=F32))
for _name in "std var".split():
    SAMPLES[_name] = _reductions({"dtype": None, "ddof": 0})
    SAMPLES[_name].append(s(mixed((2, 3), F32), axis=1, keepdims=False, dtype=F64, ddof=1))
for _name in "max min any all".split():
    SAMPLES[_name] = _reductions(bool_ok=True)
for _name in "argmax argmin".split():
    SAMPLES[_name] = [s(mixed((2, 3), F32), axis=None, keepdims=False),
                      s(mixed((2, 3), I32), axis=1, keepdims=False),
                      s(mixed((2, 3), I64), axis=0, keepdims=True),
                      s(mixed((4,), F64), axis=-1, keepdims=False),
                      s(mixed((2, 2), F64), axis=None, keepdims=True)]
for _name in "cumsum cumprod".split():
    SAMPLES[_name] = [s(mixed((2, 3), F32), axis=None, dtype=None),
                      s(mixed((2, 3), I32), axis=1, dtype=None),
                      s(mixed((4,), I64), axis=0, dtype=F64),
                      s(mixed((2, 2), F64), axis=-2, dtype=None),
                      s(mask((3,)), axis=0, dtype=None)]

# shape ops
SAMPLES["reshape"] = [s(mixed((2, 3), F32), shape=(3, 2), order="C"),
                      s(mixed((6,), I32), shape=(2, -1), order="C"),
                      s(mixed((2, 3), F64), shape=(-1,), order="F"),
                      s(mixed((), I64), shape=(1, 1), order="C"),
                      s(mixed((1, 1), I64), shape=(), order="C")]
SAMPLES["transpose"] = [s(mixed((2, 3), F32), axes=None), s(mixed((2, 3, 4), I32), axes=(1, 2, 0)),
                        s(mixed((3,), F64), axes=None), s(mixed((2, 3), I64), axes=(-1, 0))]
SAMPLES["expand_dims"] = [s(mixed((2, 3), F32), axis=(0,)), s(mixed((3,), I32), axis=(-1,)),
                          s(mixed((), F64), axis=(0, 1)), s(mixed((2,), I64), axis=(0, 2))]
SAMPLES["squeeze"] = [s(mixed((1, 3, 1), F32), axis=None), s(mixed((1, 3), I32), axis=0),
                      s(mixed((2, 1, 1), F64), axis=(1, 2)), s(mixed((1,), I64), axis=None)]
SAMPLES["concatenate"] = [
    s(mixed((2, 3), F32), pos((1, 3), F32), axis=0),
    s(mixed((2, 1), I32), pos((2, 2), I64), axis=1),
    s(mixed((3,), F64), pos((2,), I32), pos((1,), F64), axis=0),
    s(mixed((2, 2), I64), pos((2, 2), F32), axis=-1),
]
SAMPLES["stack"] = [s(mixed((2, 3), F32), pos((2, 3), F32), axis=0),
                    s(mixed((3,), I32), pos((3,), I64), axis=1),
                    s(mixed((), F64), pos((), F64), pos((), I32), axis=0),
                    s(mixed((2,), I64), pos((2,), F32), axis=-1)]
SAMPLES["split"] = [s(mixed((4, 2), F32), indices_or_sections=2, axis=0),
                    s(mixed((2, 6), I32), indices_or_sections=3, axis=1),
                    s(mixed((5,), F64), indices_or_sections=(1, 3), axis=0),
                    s(mixed((3, 2), I64), indices_or_sections=(1, 10), axis=-2)]
SAMPLES["broadcast_to"] = [s(mixed((3,), F32), shape=(2, 3)), s(mixed((), I32), shape=(2,)),
                           s(mixed((2, 1), F64), shape=(3, 2, 4)), s(mixed((1,), I64), shape=(1,))]
SAMPLES["tile"] = [s(mixed((2, 3), F32), reps=(2,)), s(mixed((3,), I32), reps=(2, 2)),
                   s(mixed((), F64), reps=(3,)), s(mixed((2, 2), I64), reps=(1, 3))]
SAMPLES["repeat"] = [s(mixed((2, 3), F32), repeats=2, axis=None),
                     s(mixed((3,), I32), repeats=(1, 0, 2), axis=0),
                     s(mixed((2, 2), F64), repeats=3, axis=1),
                     s(mixed((2, 3), I64), repeats=(2, 1), axis=-2)]
SAMPLES["flip"] = [s(mixed((2, 3), F32), axis=None), s(mixed((3,), I32), axis=0),
                   s(mixed((2, 3), F64), axis=(0, 1)), s(mixed((2, 3), I64), axis=-1)]
SAMPLES["sort"] = [s(mixed((2, 3), F32)[:, ::-1].copy(), axis=-1),
                   s(mixed((4,), I32)[::-1].copy(), axis=0),
                   s(mixed((2, 3), F64)[::-1].copy(), axis=None),
                   s(mixed((3, 2), I64)[::-1].copy(), axis=0)]
SAMPLES["argsort"] = list(SAMPLES["sort"])
SAMPLES["pad"] = [
    s(mixed((2, 3), F32), pad_width=((1, 0), (0, 2)), mode="constant", constant_values=0),
    s(mixed((3,), I32), pad_width=((2, 1),), mode="edge", constant_values=0),
    s(mixed((2, 2), F64), pad_width=((1, 1), (1, 1)), mode="reflect", constant_values=0),
    s(mixed((3,), I64), pad_width=((1, 2),), mode="constant", constant_values=7),
    s(mixed((3,), F64), pad_width=((2, 2),), mode="wrap", constant_values=0),
]
SAMPLES["shape"] = [s(mixed((2, 3), F32), out_type=I32), s(mixed((), F64), out_type=I64),
                    s(mixed((4,), I32), out_type=I32), s(mixed((1, 2, 3), I64), out_type=I64)]

# creation
SAMPLES["const"] = [s(value=mixed((2, 3), F32)), s(value=mixed((), I64)),
                    s(value=mixed((4,), F64)), s(value=mixed((2,), I32)), s(value=mask((3,)))]
SAMPLES["full"] = [s(np.array(1.5, F32), shape=(2, 3), dtype=F32),
                   s(np.array(2, I64), shape=(), dtype=I64),
                   s(np.array(7, I32), shape=(4,), dtype=I32),
                   s(np.array(0.5, F64), shape=(2, 2), dtype=F64),
                   s(np.array(3, I64), shape=(2,), dtype=F32)]
SAMPLES["full_like"] = [s(mixed((2, 3), F32), value=1, dtype=None),
                        s(mixed((3,), I32), value=0, dtype=F64),
                        s(mixed((), F64), value=2.5, dtype=None),
                        s(mixed((2,), I64), value=1, dtype=I32)]
SAMPLES["eye"] = [s(N=3, M=3, k=0, dtype=F32), s(N=2, M=4, k=1, dtype=F64),
                  s(N=3, M=2, k=-1, dtype=I32), s(N=1, M=1, k=0, dtype=I64)]
SAMPLES["arange"] = [s(start=0, stop=5, step=1, dtype=I64), s(start=0.5, stop=2.0, step=0.5,
                                                             dtype=F32),
                     s(start=5, stop=0, step=-2, dtype=I32), s(start=0, stop=1, step=0.25,
                                                               dtype=F64)]
SAMPLES["range"] = [s(np.array(0, I32), np.array(5, I32), np.array(1, I32), dtype=I32),
                    s(np.array(0.5, F32), np.array(2.0, F32), np.array(0.5, F32), dtype=F32),
                    s(np.array(5, I64), np.array(0, I64), np.array(-2, I64), dtype=I64),
                    s(np.array(0, F64), np.array(1, F64), np.array(0.25, F64), dtype=F64)]
SAMPLES["linspace"] = [s(start=0, stop=1, num=5, endpoint=True, dtype=F64),
                       s(start=-1, stop=1, num=4, endpoint=False, dtype=F32),
                       s(start=0, stop=10, num=6, endpoint=True, dtype=I32),
                       s(start=2, stop=3, num=1, endpoint=True, dtype=I64)]
SAMPLES["random_uniform"] = [s(shape=(2, 3), dtype=F32, low=0, high=1, seed=None),
                             s(shape=(), dtype=F64, low=-2.0, high=2.0, seed=3),
                             s(shape=(5,), dtype=I32, low=0, high=10, seed=None),
                             s(shape=(2, 2), dtype=I64, low=-5, high=5, seed=1)]
SAMPLES["random_normal"] = [s(shape=(2, 3), dtype=F32, loc=0.0, scale=1.0, seed=None),
                            s(shape=(), dtype=F64, loc=1.0, scale=2.0, seed=3),
                            s(shape=(4,), dtype=F64, loc=0.0, scale=0.5, seed=None),
                            s(shape=(1, 2), dtype=F32, loc=-1.0, scale=1.0, seed=2),
                            s(shape=(3,), dtype=np.dtype("float16"), loc=0.0, scale=1.0,
                              seed=None)]

# linear algebra
SAMPLES["matmul"] = [s(mixed((2, 3), F32), pos((3, 4), F32)),
                     s(mixed((3,), F64), pos((3, 2), F64)),
                     s(mixed((2, 2, 3), I32), pos((3,), I32)),
                     s(mixed((2, 3), I32), pos((3, 2), F32)),
                     s(mixed((1, 2, 3), I64), pos((4, 3, 2), I64)),
                     s(mixed((3,), I64), pos((3,), I64))]
SAMPLES["dot"] = [s(mixed((2, 3), F32), pos((3,), F32)), s(mixed((3,), F64), pos((3,), F64)),
                  s(mixed((), I32), pos((2, 3), I32)), s(mixed((2, 3, 4), I64), pos((4, 2), I64)),
                  s(mixed((2, 3), F64), pos((2, 3, 4), I32))]
SAMPLES["vdot"] = [s(mixed((2, 3), F32), pos((3, 2), F32)), s(mixed((3,), F64), pos((3,), F64)),
                   s(mixed((4,), I32), pos((4,), I32)), s(mixed((2,), I64), pos((2,), F32))]
SAMPLES["inner"] = [s(mixed((2, 3), F32), pos((4, 3), F32)), s(mixed((3,), F64), pos((3,), F64)),
                    s(mixed((), I32), pos((2,), I32)), s(mixed((2, 2), I64), pos((2,), I64))]
SAMPLES["outer"] = [s(mixed((2,), F32), pos((3,), F32)), s(mixed((2, 2), F64), pos((3,), F64)),
                    s(mixed((3,), I32), pos((2,), I32)), s(mixed((2,), I64), pos((2,), F64))]
SAMPLES["tensordot"] = [s(mixed((2, 3), F32), pos((3, 4), F32), axes=1),
                        s(mixed((2, 3), F64), pos((2, 3), F64), axes=2),
                        s(mixed((3, 2), I32), pos((4, 3), I32), axes=((0,), (1,))),
                        s(mixed((2,), I64), pos((3,), I64), axes=0)]
SAMPLES["einsum"] = [s(mixed((2, 3), F32), pos((3, 4), F32), subscripts="ij,jk->ik"),
                     s(mixed((3, 3), F64), subscripts="ii->i"),
                     s(mixed((3,), I32), pos((3,), I32), subscripts="i,i->"),
                     s(mixed((2, 3), I64), subscripts="ij->ji")]
SAMPLES["trace"] = [s(mixed((3, 3), F32), offset=0, axis1=0, axis2=1),
                    s(mixed((2, 3), F64), offset=1, axis1=0, axis2=1),
                    s(mixed((2, 3, 3), I32), offset=0, axis1=1, axis2=2),
                    s(mixed((3, 2), I64), offset=-1, axis1=0, axis2=1)]

# indexing
def _getitem(x, key):
    """A ``getitem`` sample for ``x[key]``, encoded as ``Tensor.__getitem__`` encodes it."""
    entries, inputs = index_keys._encode(key)
    return s(x, *[np.asarray(i) for i in inputs], key=entries)


def _getitem_equiv(x, *arrays, key):
    """Rebuild the NumPy key from the encoded entries (see graphc/ops/index_keys.py)."""
    return np.asarray(x[_key_items(key, arrays)])


def _key_items(key, arrays):
    def bound(p):
        return arrays[p[1]] if isinstance(p, tuple) else p

    items = []
    for tag, *rest in key:
        if tag in ("int", "bool"):
            items.append(rest[0])
        elif tag == "slice":
            items.append(slice(*map(bound, rest)))
        elif tag == "array":
            items.append(arrays[rest[0]])
        else:
            items.append({"newaxis": None, "ellipsis": Ellipsis}[tag])
    return tuple(items)


def _setitem_equiv(x, v, *arrays, key):
    out = x.copy()
    out[_key_items(key, arrays)] = v
    return out


SAMPLES["getitem"] = [
    _getitem(mixed((4, 3), F32), 1),
    _getitem(mixed((4, 3), F64), (slice(None, None, -2), -1)),
    _getitem(mixed((2, 3, 4), I32), (Ellipsis, None, slice(1, 3))),
    _getitem(mixed((4,), I64), np.array([3, 0, 0])),
    _getitem(mixed((2, 3), F32), mask((2, 3))),
    _getitem(mixed((3, 4), I64), (np.array([0, 2]), slice(None), )),
    _getitem(mixed((2, 3, 4), F64), (np.array([0, 1]), slice(None), np.array([1, 3]))),
]
SAMPLES["setitem"] = [
    s(mixed((2, 3), F32), pos((3,), F32), key=(("int", 0),)),
    s(mixed((5,), I64), pos((), I64), key=(("slice", 1, None, 2),)),
    s(mixed((2, 3), F64), pos((1, 2), F64), key=(("slice", None, None, None), ("int", -1))),
    s(mixed((5,), I32), pos((2,), I32), np.array([0, 3]), key=(("array", 0),)),
    s(mixed((2, 2), F32), pos((), F64), mask((2, 2)), key=(("array", 0),)),
]
SAMPLES["take"] = [s(mixed((2, 3), F32), np.array([4, 0]), axis=None, mode="raise"),
                   s(mixed((3,), I32), np.array([[2, 1]], I32), axis=0, mode="raise"),
                   s(mixed((2, 3), F64), np.array([5, -1]), axis=1, mode="wrap"),
                   s(mixed((2, 3), I64), np.array([9]), axis=0, mode="clip")]
SAMPLES["take_along_axis"] = [
    s(mixed((2, 3), F32), np.array([[2, 0, 1], [0, 0, 1]]), axis=1),
    s(mixed((3,), I32), np.array([2, 0]), axis=0),
    s(mixed((2, 3), F64), np.array([[1, 0, 1]]), axis=0),
    s(mixed((4,), I64), np.array([3, 3, 1], I32), axis=None),
]
SAMPLES["gather"] = [s(mixed((3, 2), F32), np.array([2, 0]), axis=None, batch_dims=0),
                     s(mixed((3, 4), I32), np.array([[1], [3]], I32), axis=1, batch_dims=0),
                     s(mixed((4,), F64), np.array(3), axis=0, batch_dims=0),
                     s(mixed((2, 3), I64), np.array([[2, 0], [1, 1]]), axis=1, batch_dims=1)]
SAMPLES["tensor_scatter_nd_update"] = [
    s(mixed((5,), F32), np.array([[1], [3]]), np.array([9, 10], F32)),
    s(mixed((3, 2), I32), np.array([[2], [0]], I32), np.array([[1, 2], [3, 4]], I32)),
    s(mixed((2, 3), F64), np.array([[0, 1], [1, 2]]), np.array([7.0, 8.0])),
    s(mixed((2, 2), I64), np.array([[[1, 1]]]), np.array([[5]], I64)),
]
SAMPLES["unsorted_segment_sum"] = [  # duplicates add; a negative id drops its row
    s(mixed((5,), F32), np.array([2, 0, 2, -1, 3]), num_segments=4),
    s(mixed((3, 2), I32), np.array([1, 1, 0], I32), num_segments=2),
    s(mixed((2, 3), F64), np.array([[0, 4, 0], [1, 1, 0]]), num_segments=5),
    s(mixed((), I64), np.array(0), num_segments=1),
    s(mixed((0, 2), F64), np.zeros((0,), np.int64), num_segments=3),
]
SAMPLES["argwhere"] = [s(mixed((2, 3), F32)), s(mixed((4,), I32)), s(mask((2, 3))),
                       s(np.zeros((3,), I64)), s(mixed((), F64))]


# --------------------------------------------------------------------------- NumPy oracles
def _gather_equiv(params, indices, axis=None, batch_dims=0):
    """``tf.gather`` in NumPy: ``np.take`` per batch entry (indices already valid)."""
    axis = batch_dims if axis is None else axis
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_gather_equiv(p, i, axis - 1, batch_dims - 1)
                     for p, i in zip(params, indices)])


def _scatter_equiv(tensor, indices, updates):
    """``tf.tensor_scatter_nd_update`` in NumPy: write each update in turn."""
    k = indices.shape[-1]
    out = tensor.copy()
    upd = updates.reshape((-1,) + tensor.shape[k:])
    for idx, u in zip(indices.reshape(-1, k), upd):
        out[tuple(idx)] = u
    return out


def _segment_sum_equiv(data, ids, num_segments):
    """``tf.math.unsorted_segment_sum`` in NumPy: row by row."""
    out = np.zeros((num_segments,) + data.shape[ids.ndim:], data.dtype)
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    for i, row in zip(ids.reshape(-1), rows):
        if i >= 0:
            out[i] = out[i] + row
    return out


def _sigmoid_equiv(x):
    return 1 / (1 + np.exp(-x))


def _softplus_equiv(x):
    return np.log1p(np.exp(x))


def _fused_body(dtype, shape):
    """A fused_elementwise subgraph: (x*y, -(x*y) + x)."""
    from graphc.core.registry import get

    with TraceContext("fused") as c:
        x, y = c.new_input(Aval(shape, dtype)), c.new_input(Aval((), dtype))
        (m,) = c.add_node(get("multiply"), (x, y), {}, (Aval(shape, dtype),))
        (n,) = c.add_node(get("negative"), (m,), {}, (Aval(shape, dtype),))
        (a,) = c.add_node(get("add"), (n, x), {}, (Aval(shape, dtype),))
        return c.finish([m, a])


SAMPLES["fused_elementwise"] = [
    s(mixed((2, 3), d), np.asarray(3, d), subgraph=_fused_body(d, (2, 3))) for d in NUM]


NUMPY_EQUIV = {
    "round": lambda x, decimals=0: np.round(x, decimals),
    "where": np.where,
    "clip": np.clip,
    "cast": lambda x, dtype: np.asarray(x, dtype=dtype),
    "sigmoid": _sigmoid_equiv,
    "softplus": _softplus_equiv,
    "identity": np.copy,
    "stop_gradient": np.copy,
    "const": lambda value: np.array(value.array),
    "full": lambda value, shape, dtype: np.full(shape, value, dtype=dtype),
    "full_like": lambda x, value, dtype=None: np.full_like(x, value, dtype=dtype),
    "eye": lambda N, M, k, dtype: np.eye(N, M, k, dtype=dtype),
    "arange": lambda start, stop, step, dtype: np.arange(start, stop, step, dtype=dtype),
    "range": lambda start, stop, step, dtype: np.arange(start, stop, step, dtype=dtype),
    "linspace": lambda start, stop, num, endpoint, dtype: np.linspace(
        start, stop, num, endpoint=endpoint, dtype=dtype),
    "argmax": lambda x, axis=None, keepdims=False: np.argmax(x, axis=axis, keepdims=keepdims),
    "argmin": lambda x, axis=None, keepdims=False: np.argmin(x, axis=axis, keepdims=keepdims),
    "cumsum": lambda x, axis=None, dtype=None: np.cumsum(x, axis=axis, dtype=dtype),
    "cumprod": lambda x, axis=None, dtype=None: np.cumprod(x, axis=axis, dtype=dtype),
    "reshape": lambda x, shape, order="C": np.reshape(x, shape, order=order),
    "transpose": lambda x, axes=None: np.transpose(x, axes),
    "expand_dims": lambda x, axis: np.expand_dims(x, axis),
    "squeeze": lambda x, axis=None: np.squeeze(x, axis),
    "concatenate": lambda *xs, axis=0: np.concatenate(xs, axis=axis),
    "stack": lambda *xs, axis=0: np.stack(xs, axis=axis),
    "split": lambda x, indices_or_sections, axis=0: np.split(x, indices_or_sections, axis),
    "broadcast_to": lambda x, shape: np.broadcast_to(x, shape),
    "tile": lambda x, reps: np.tile(x, reps),
    "repeat": lambda x, repeats, axis=None: np.repeat(x, repeats, axis=axis),
    "flip": lambda x, axis=None: np.flip(x, axis),
    "sort": lambda x, axis=-1: np.sort(x, axis=axis),
    "argsort": lambda x, axis=-1: np.argsort(x, axis=axis, stable=True),
    "pad": lambda x, pad_width, mode="constant", constant_values=0: (
        np.pad(x, pad_width, mode=mode, constant_values=constant_values) if mode == "constant"
        else np.pad(x, pad_width, mode=mode)),
    "shape": lambda x, out_type: np.array(np.shape(x), dtype=out_type),
    "matmul": np.matmul,
    "dot": np.dot,
    "vdot": np.vdot,
    "inner": np.inner,
    "outer": np.outer,
    "tensordot": lambda a, b, axes=2: np.tensordot(a, b, axes),
    "einsum": lambda *ops, subscripts: np.einsum(subscripts, *ops),
    "trace": lambda x, offset=0, axis1=0, axis2=1: np.trace(x, offset, axis1, axis2),
    "getitem": _getitem_equiv,
    "setitem": _setitem_equiv,
    "take": lambda a, indices, axis=None, mode="raise": np.take(a, indices, axis=axis,
                                                                mode=mode),
    "take_along_axis": lambda arr, indices, axis: np.take_along_axis(arr, indices, axis),
    "gather": _gather_equiv,
    "tensor_scatter_nd_update": _scatter_equiv,
    "argwhere": np.argwhere,
    "unsorted_segment_sum": _segment_sum_equiv,
}
for _name in "sum prod mean std var max min any all".split():
    NUMPY_EQUIV[_name] = (lambda fn: lambda x, **kw: fn(x, **kw))(getattr(np, _name))
NUMPY_EQUIV["fused_elementwise"] = lambda x, y, subgraph: [x * y, -(x * y) + x]
NUMPY_EQUIV["logical_not"] = np.logical_not
for _name, _op in all_ops().items():
    if _op.elementwise and _name not in NUMPY_EQUIV and isinstance(_op.ref, np.ufunc):
        # The op *is* the ufunc of that name; look it up by name so a mis-wired op fails.
        NUMPY_EQUIV[_name] = getattr(np, _name)

# Ops whose values are not compared with a NumPy function, and why.
# Ops a one-op walk cannot express (they hold Python objects by reference, run user code,
# only have effects, or carry subgraphs); each is tested where named.
COVERED_ELSEWHERE = {
    "variable": "tests/state/test_variables.py",
    "read_variable": "tests/state/test_variables.py",
    "assign_variable": "tests/state/test_variables.py",
    "print": "tests/state/test_print_assert.py",
    "assert": "tests/state/test_print_assert.py",
    "numpy_function": "tests/state/test_pyfunc.py",
    "stateless_numpy_function": "tests/state/test_pyfunc.py",
    "py_function": "tests/state/test_pyfunc.py",
    "cond": "tests/autograph/test_control_ops.py",
    "while_loop": "tests/autograph/test_control_ops.py",
    "switch_case": "tests/autograph/test_control_ops.py",
    # gc.TensorArray's ops: their leading dims depend on values (capacity, size), and
    # they are checked through the class, eagerly, traced, in loops and compiled
    "tensor_array_zeros": "tests/autograph/test_tensor_array.py",
    "tensor_array_write": "tests/autograph/test_tensor_array.py",
    "tensor_array_read": "tests/autograph/test_tensor_array.py",
    "tensor_array_stack": "tests/autograph/test_tensor_array.py",
    # the saving loop's stack of a while_loop gradient: a push writes into its operand
    "save_stack_empty": "tests/autodiff/test_save_stack.py",
    "save_stack_push": "tests/autodiff/test_save_stack.py",
}

VALUE_UNCHECKED = {
    "random_uniform": "stateful: every call draws new values; shape, dtype and range checked",
    "random_normal": "stateful: every call draws new values; shape and dtype checked",
}

# Ops whose output dims depend on input *values*: a graph infers None for them.
DATA_DEPENDENT_DIMS = {
    "range": "the length of arange(start, stop, step) depends on tensor values",
    "argwhere": "the number of nonzero elements is data",
    "getitem": "a boolean mask selects a data-dependent number of elements",
}

# Ops that need known dims for some attrs; with unknown dims they must raise a clear error.
NEEDS_KNOWN_DIMS = {
    "squeeze": "squeeze without axis= cannot know which unknown dims are 1",
}


# Known bugs in ops this file does not own: the test runs and must fail (strict xfail), so
# it turns into a failure the moment the bug is fixed and the entry is stale.
KNOWN_BUGS: dict[str, str] = {}

# the linalg ops' samples (graphc/ops/linalg_decomp.py) live in a file of their own
from linalg_decomp_samples import LINALG_DATA_DEPENDENT_DIMS, LINALG_EQUIV, LINALG_SAMPLES  # noqa: E402, I001, E501

SAMPLES.update(LINALG_SAMPLES)
NUMPY_EQUIV.update(LINALG_EQUIV)
DATA_DEPENDENT_DIMS.update(LINALG_DATA_DEPENDENT_DIMS)

# numpy.fft's op (graphc/ops/fft.py)
from fft_samples import FFT_EQUIV, FFT_SAMPLES  # noqa: E402, I001

SAMPLES.update(FFT_SAMPLES)
NUMPY_EQUIV.update(FFT_EQUIV)

# conjugate / real / imag (graphc/ops/complex_parts.py)
from complex_parts_samples import COMPLEX_EQUIV, COMPLEX_SAMPLES  # noqa: E402, I001

SAMPLES.update(COMPLEX_SAMPLES)
NUMPY_EQUIV.update(COMPLEX_EQUIV)

# copysign, signbit, fmod, ldexp, nextafter, logaddexp(2) (graphc/ops/math_extra.py)
from math_extra_samples import MATH_EXTRA_EQUIV, MATH_EXTRA_SAMPLES  # noqa: E402, I001

SAMPLES.update(MATH_EXTRA_SAMPLES)
NUMPY_EQUIV.update(MATH_EXTRA_EQUIV)

# tf.linalg's triangular_solve, lu, expm, sqrtm, logm (graphc/ops/linalg_tf.py)
from linalg_tf_samples import LINALG_TF_EQUIV, LINALG_TF_SAMPLES  # noqa: E402, I001

SAMPLES.update(LINALG_TF_SAMPLES)
NUMPY_EQUIV.update(LINALG_TF_EQUIV)

# random_draw, random_stateless, random_reseed (graphc/ops/random_draw.py)
from random_samples import RANDOM_EQUIV, RANDOM_SAMPLES, RANDOM_UNCHECKED  # noqa: E402, I001

SAMPLES.update(RANDOM_SAMPLES)
NUMPY_EQUIV.update(RANDOM_EQUIV)
VALUE_UNCHECKED.update(RANDOM_UNCHECKED)

# special functions (graphc/ops/special_fns.py)
from special_samples import SPECIAL_EQUIV, SPECIAL_SAMPLES  # noqa: E402, I001

SAMPLES.update(SPECIAL_SAMPLES)
NUMPY_EQUIV.update(SPECIAL_EQUIV)

# erf (graphc/ops/special_erf.py: gc.nn.gelu's exact form, tf.math.erf)
from nn_samples import NN_EQUIV, NN_SAMPLES  # noqa: E402, I001

SAMPLES.update(NN_SAMPLES)
NUMPY_EQUIV.update(NN_EQUIV)

# tf.bitcast (graphc/ops/bitcast.py)
from bitcast_samples import BITCAST_EQUIV, BITCAST_SAMPLES  # noqa: E402, I001

SAMPLES.update(BITCAST_SAMPLES)
NUMPY_EQUIV.update(BITCAST_EQUIV)


# --------------------------------------------------------------------------- checks
def _frozen(attrs):
    return {k: freeze(v) for k, v in attrs.items()}


def _as_list(out, op):
    if op.multiple_results:
        return [np.asarray(o) for o in out]
    return [np.asarray(out)]


def _assert_values(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind in "fc":
        rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _trace(op, avals, attrs):
    """Bind ``op`` on fresh symbolic inputs of ``avals``; return (ctx, inputs, results)."""
    with TraceContext("t") as ctx:
        syms = [_symbolic(ctx.new_input(a)) for a in avals]
        out = bind(op, *syms, **attrs)
    results = out if isinstance(out, list) else [out]
    for r in results:
        assert isinstance(r, Tensor) and r.is_symbolic
    return ctx, results


def _check_sample(name, op, args, attrs):
    frozen = _frozen(attrs)
    want = _as_list(op.ref(*args, **frozen), op)

    # (a) inference matches ref's actual result
    ctx, results = _trace(op, [Aval(a.shape, a.dtype) for a in args], attrs)
    assert len(results) == len(want), f"{name}: {len(results)} outputs, ref gave {len(want)}"
    for i, (r, w) in enumerate(zip(results, want)):
        assert r.dtype == w.dtype, f"{name} output {i}: inferred {r.dtype}, ref gave {w.dtype}"
        if name in DATA_DEPENDENT_DIMS:
            assert len(r.shape) == w.ndim and all(
                d is None or d == k for d, k in zip(r.shape, w.shape)), (
                f"{name} output {i}: inferred {r.shape}, ref gave {w.shape}")
        else:
            assert r.shape == w.shape, f"{name} output {i}: inferred {r.shape}, ref {w.shape}"

    # the traced graph runs on the reference interpreter, and eager bind runs ref
    graph = ctx.finish([r._sym for r in results])
    ran = run_graph(graph, list(args))
    eager = bind(op, *args, **frozen)
    eager = eager if isinstance(eager, list) else [eager]
    for i, (g, e, w) in enumerate(zip(ran, eager, want)):
        assert isinstance(e, Tensor) and not e.is_symbolic
        if op.stateful:
            for v in (g, e.numpy()):
                assert np.shape(v) == w.shape and np.asarray(v).dtype == w.dtype
        else:
            _assert_values(g, w, f"{name} output {i} (graph vs ref)")
            _assert_values(e.numpy(), w, f"{name} output {i} (eager vs ref)")

    # (b) inference with every dim unknown
    if args:
        unknown = [Aval((None,) * a.ndim, a.dtype) for a in args]
        try:
            _, results = _trace(op, unknown, attrs)
        except (ValueError, TypeError) as e:
            reason = NEEDS_KNOWN_DIMS.get(name)
            assert reason, f"{name}: infer with unknown dims raised {type(e).__name__}: {e}"
            assert "unknown" in str(e) or "known" in str(e), e
        else:
            for i, (r, w) in enumerate(zip(results, want)):
                assert r.dtype == w.dtype, f"{name} (unknown dims) output {i}: {r.dtype}"
                assert r.shape is None or (len(r.shape) == w.ndim and all(
                    d is None or d == k for d, k in zip(r.shape, w.shape))), (
                    f"{name} (unknown dims) output {i}: inferred {r.shape}, ref {w.shape}")

    # (c) ref agrees with NumPy's own function
    if name in VALUE_UNCHECKED:
        if name == "random_uniform":
            v = want[0]
            assert ((v >= attrs["low"]) & (v < attrs["high"])).all()
        return
    expect = _as_list(NUMPY_EQUIV[name](*args, **frozen), op)
    for i, (w, x) in enumerate(zip(want, expect)):
        _assert_values(w, x, f"{name} output {i} (ref vs NumPy)")


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[n]))
    if n in KNOWN_BUGS else n for n in sorted(set(all_ops()) - set(COVERED_ELSEWHERE))])
def test_op(name):
    op = all_ops()[name]
    samples = SAMPLES.get(name)
    assert samples, f"op {name!r} has no samples in tests/ops/test_registry.py"
    with np.errstate(all="ignore"):  # reciprocal/arctanh edge values warn, as in NumPy
        for k, (args, attrs) in enumerate(samples):
            try:
                _check_sample(name, op, args, attrs)
            except AssertionError as e:
                shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in args)
                raise AssertionError(f"sample {k}: {name}({shapes}, {attrs}): {e}") from None


def test_ops_covered_elsewhere_exist_and_have_tests():
    root = pathlib.Path(__file__).resolve().parents[2]
    for name, test_file in COVERED_ELSEWHERE.items():
        assert name in all_ops(), f"{name} is listed in COVERED_ELSEWHERE but not registered"
        assert (root / test_file).is_file(), f"{name}: {test_file} does not exist"


def test_every_op_has_samples():
    ops = set(all_ops()) - set(COVERED_ELSEWHERE)
    missing = sorted(ops - set(SAMPLES))
    assert not missing, f"ops without samples in SAMPLES: {missing}"
    stale = sorted(set(SAMPLES) - ops)
    assert not stale, f"SAMPLES for ops that are not registered: {stale}"
    no_oracle = sorted(ops - set(NUMPY_EQUIV) - set(VALUE_UNCHECKED))
    assert not no_oracle, f"ops with neither NUMPY_EQUIV nor a VALUE_UNCHECKED reason: {no_oracle}"


def test_samples_cover_main_dtypes():
    """Every op that takes tensors is sampled on several dtypes, the four main ones where
    it accepts them."""
    for name, samples in SAMPLES.items():
        dtypes = {a.dtype for args, _ in samples for a in args}
        dtypes |= {v for _, attrs in samples for v in attrs.values() if isinstance(v, np.dtype)}
        dtypes |= {attrs["value"].dtype for _, attrs in samples
                   if isinstance(attrs.get("value"), np.ndarray)}
        assert len(samples) >= 4, name
        assert len(dtypes) >= 3, f"{name}: only {sorted(map(str, dtypes))}"


def test_exemptions_have_reasons():
    for table in (VALUE_UNCHECKED, DATA_DEPENDENT_DIMS, NEEDS_KNOWN_DIMS, KNOWN_BUGS):
        for name, reason in table.items():
            assert name in all_ops(), f"exemption for unknown op {name!r}"
            assert isinstance(reason, str) and reason.strip(), name
    for name in VALUE_UNCHECKED:
        assert all_ops()[name].stateful, f"{name} is exempt from value checks but not stateful"
