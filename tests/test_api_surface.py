"""The public API surface of SPEC 1.1: every listed name exists and computes what NumPy
(for ``graphc.numpy``) or TensorFlow's documentation (for the top-level ``graphc`` names)
says, eagerly and inside ``gc.function``."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp

# --------------------------------------------------------------------------- the lists
CREATION = ("asarray array zeros ones full empty eye identity arange linspace zeros_like "
            "ones_like full_like copy").split()
ELEMENTWISE = ("add subtract multiply divide true_divide floor_divide mod remainder power "
               "negative positive abs absolute sign exp exp2 expm1 log log2 log10 log1p sqrt "
               "cbrt square reciprocal sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh "
               "arcsinh arccosh arctanh floor ceil round rint trunc maximum minimum fmax fmin "
               "clip where isnan isinf isfinite hypot").split()
LOGIC = ("equal not_equal less less_equal greater greater_equal logical_and logical_or "
         "logical_not logical_xor").split()
REDUCTIONS = ("sum prod mean std var max min amax amin argmax argmin any all cumsum "
              "cumprod").split()
LINALG = "matmul dot vdot inner outer tensordot einsum transpose trace".split()
SHAPE = ("reshape ravel transpose swapaxes moveaxis expand_dims squeeze concatenate stack "
         "hstack vstack split broadcast_to tile repeat flip take take_along_axis sort argsort "
         "pad").split()
RANDOM = "seed randn rand uniform normal randint".split()
DTYPES = ("float16 float32 float64 int8 int16 int32 int64 uint8 bool_ complex64 "
          "complex128").split()
GNP_NAMES = CREATION + ELEMENTWISE + LOGIC + REDUCTIONS + LINALG + SHAPE

GC_NAMES = ("constant convert_to_tensor cast matmul add multiply maximum minimum pow abs sqrt "
            "exp eye zeros ones fill range reshape transpose concat stack gather where greater "
            "less equal reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_any "
            "reduce_all argmax shape size rank identity tensor_scatter_nd_update "
            "TensorArray").split()
TENSOR_ARRAY_METHODS = "write read stack unstack size gather scatter concat".split()
GC_MATH = "log sigmoid softplus tanh".split()
GC_RANDOM = "uniform normal set_seed".split()


def test_gnp_names_exist():
    missing = [n for n in GNP_NAMES if not callable(getattr(gnp, n, None))]
    assert not missing, missing
    assert not [n for n in RANDOM if not callable(getattr(gnp.random, n, None))]
    assert gnp.newaxis is None
    assert isinstance(gnp.ones(1), gnp.ndarray) and issubclass(gc.Tensor, gnp.ndarray)
    assert callable(gnp.result_type)
    for n in DTYPES:
        assert getattr(gnp, n) == np.dtype(n.rstrip("_")), n


def test_gc_names_exist():
    missing = [n for n in GC_NAMES if not callable(getattr(gc, n, None))]
    assert not missing, missing
    assert not [n for n in GC_MATH if not callable(getattr(gc.math, n, None))]
    assert not [n for n in GC_RANDOM if not callable(getattr(gc.random, n, None))]
    assert issubclass(gc.Tensor, gnp.ndarray)
    ta = gc.TensorArray(gc.float32, size=1, element_shape=())
    assert not [n for n in TENSOR_ARRAY_METHODS if not callable(getattr(ta, n, None))]
    assert (ta.dtype, ta.element_shape, ta.dynamic_size) == (gc.float32, (), False)


# --------------------------------------------------------------------------- gnp vs NumPy
X = np.array([[0.25, -1.5, 2.0], [3.5, -0.75, 1.0]])
P = np.array([[0.25, 0.5, 0.75], [0.1, 0.9, 0.3]])  # inside (0, 1): every domain is fine
Q = np.array([1.5, 2.0, 0.5])
XI = np.array([[3, -1, 4], [1, -5, 9]], dtype=np.int32)
QI = np.array([2, 7, 1], dtype=np.int64)
B = np.array([[True, False, True], [False, False, True]])

UNARY_DOMAIN = {"log": P, "log2": P, "log10": P, "log1p": P, "sqrt": P, "arcsin": P,
                "arccos": P, "arctanh": P, "arccosh": 1 + P, "reciprocal": Q}
UNARY = [n for n in ELEMENTWISE if n in (
    "negative positive abs absolute sign exp exp2 expm1 log log2 log10 log1p sqrt cbrt square "
    "reciprocal sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh floor "
    "ceil round rint trunc isnan isinf isfinite").split()] + ["logical_not"]
BINARY = [n for n in ELEMENTWISE + LOGIC if n not in UNARY and n not in ("clip", "where")]

# name -> (args, kwargs): the same call made on gnp and on NumPy.
CALLS = {
    "asarray": ([[1, 2], [3, 4]], {}), "array": ([1.5, 2], {}), "zeros": (((2, 3),), {}),
    "ones": ([3], {"dtype": np.int32}), "full": (((2, 2), 7.5), {}), "empty": (((2,),), {}),
    "eye": (3, {"k": 1}), "identity": (2, {}), "arange": ((1, 7, 2), {}),
    "linspace": ((0, 1, 5), {}), "zeros_like": (XI, {}), "ones_like": (X, {}),
    "full_like": ((XI, 4), {}), "copy": (X, {}),
    "clip": ((X, -1, 1), {}), "where": ((B, X, -X), {}),
    "sum": (X, {"axis": 0}), "prod": (XI, {"axis": 1, "keepdims": True}), "mean": (XI, {}),
    "std": (X, {"ddof": 1}), "var": (X, {"axis": 1}), "max": (X, {}), "min": (XI, {"axis": 0}),
    "amax": (X, {"axis": 1}), "amin": (X, {}), "argmax": (X, {"axis": 1}), "argmin": (XI, {}),
    "any": (B, {"axis": 0}), "all": (B, {}), "cumsum": (XI, {"axis": 1}),
    "cumprod": (X, {}),
    "matmul": ((X, X.T), {}), "dot": ((X, Q), {}), "vdot": ((X, P), {}),
    "inner": ((X, P), {}), "outer": ((Q, QI), {}), "tensordot": ((X, P.T), {"axes": 1}),
    "einsum": (("ij,kj->ik", X, P), {}), "transpose": (X, {}), "trace": (X, {"offset": 1}),
    "reshape": ((X, (3, 2)), {}), "ravel": (X, {}), "swapaxes": ((X, 0, 1), {}),
    "moveaxis": ((np.ones((2, 3, 4)), 0, -1), {}), "expand_dims": ((X, 1), {}),
    "squeeze": (np.ones((1, 3, 1)), {}), "concatenate": (([X, P],), {"axis": 1}),
    "stack": (([Q, QI],), {"axis": 1}), "hstack": (([Q, QI],), {}),
    "vstack": (([Q, QI],), {}), "split": ((np.arange(6), 3), {}),
    "broadcast_to": ((Q, (2, 3)), {}), "tile": ((Q, 2), {}), "repeat": ((XI, 2), {"axis": 0}),
    "flip": (X, {"axis": 1}), "take": ((X, [4, 0]), {}),
    "take_along_axis": ((X, np.argsort(X, axis=1)), {"axis": 1}), "sort": (X, {}),
    "argsort": (XI, {"axis": 0}), "pad": ((XI, 1), {}),
}


def _call(module, name):
    if name in UNARY:
        return [getattr(module, name)(a) for a in (UNARY_DOMAIN.get(name, X),
                                                     XI if name not in UNARY_DOMAIN else P)]
    if name in BINARY:
        pairs = [(X, Q), (XI, QI), (XI, Q)] if name not in ("logical_and", "logical_or",
                                                          "logical_xor") else [(B, X), (B, B)]
        if name == "power":
            pairs = [(P, Q), (np.abs(XI), QI)]
        return [getattr(module, name)(a, b) for a, b in pairs]
    args, kwargs = CALLS[name]
    if not isinstance(args, tuple):
        args = (args,)
    return [getattr(module, name)(*args, **kwargs)]


def _flat(out):
    return list(out) if isinstance(out, list | tuple) else [out]


def _same(got, want, what):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert isinstance(g, gc.Tensor), (what, type(g))
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (what, g, w)
        if what != "empty":  # NumPy's values are arbitrary; graphc's are zeros
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, err_msg=what)


@pytest.mark.parametrize("name", sorted(set(GNP_NAMES)))
def test_gnp_matches_numpy(name):
    with np.errstate(all="ignore"):
        want = _call(np, name)
        got = _call(gnp, name)
    for g, w in zip(got, want):
        _same(g, w, name)


@pytest.mark.parametrize("name", sorted(set(GNP_NAMES) - {"empty"}))
def test_gnp_matches_numpy_traced(name):
    """The same calls inside ``gc.function`` (NumPy arguments become graph constants)."""
    with np.errstate(all="ignore"):
        want = _call(np, name)

        @gc.function
        def f():
            return _call(gnp, name)

        got = f()
    for g, w in zip(got, want):
        _same(g, w, name)


def test_gnp_traced_with_tensor_inputs():
    @gc.function
    def f(x, q):
        return (gnp.sum(gnp.exp(x) * q, axis=1), gnp.matmul(x, gnp.transpose(x)),
                gnp.where(x > 0, x, 0.0), gnp.concatenate([x, x], axis=0)[::2],
                gnp.argmax(x, axis=0), gnp.clip(x, -1, 1))

    got = f(gnp.asarray(X), gnp.asarray(Q))
    want = (np.sum(np.exp(X) * Q, axis=1), X @ X.T, np.where(X > 0, X, 0.0),
            np.concatenate([X, X])[::2], np.argmax(X, axis=0), np.clip(X, -1, 1))
    for g, w in zip(got, want):
        _same(g, w, "traced")


def test_newaxis_and_result_type():
    t = gnp.asarray(Q)
    assert t[gnp.newaxis, :].shape == (1, 3)
    assert t[:, gnp.newaxis].shape == (3, 1)
    assert gnp.result_type(gnp.int32, gnp.float32) == np.result_type(np.int32, np.float32)
    assert gnp.result_type(t, 1) == np.float64
    assert isinstance(gnp.ones(2), gnp.ndarray)


def test_gnp_where_one_argument():
    got = gnp.where(gnp.asarray(B))
    want = np.where(B)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w)


# --------------------------------------------------------------------------- gnp.random
def test_gnp_random_shapes_and_dtypes():
    assert gnp.random.rand(2, 3).shape == (2, 3) and gnp.random.rand(2).dtype == np.float64
    assert gnp.random.randn(4).shape == (4,) and gnp.random.randn(4).dtype == np.float64
    u = gnp.random.uniform(-2.0, 3.0, size=(100,))
    assert u.dtype == np.float64 and (-2 <= u.numpy()).all() and (u.numpy() < 3).all()
    n = gnp.random.normal(5.0, 0.1, size=(2, 50))
    assert n.shape == (2, 50) and abs(float(n.mean()) - 5.0) < 0.1
    r = gnp.random.randint(3, 6, size=(200,))
    assert r.dtype == np.int64 and set(np.unique(r.numpy())) == {3, 4, 5}
    assert set(np.unique(gnp.random.randint(2, size=50).numpy())) <= {0, 1}
    assert gnp.random.rand().shape == ()


def test_gnp_random_seeded_sequences_reproducible():
    def draws():
        return [gnp.random.rand(3).numpy(), gnp.random.randn(2).numpy(),
                gnp.random.uniform(size=2).numpy(), gnp.random.normal(size=2).numpy(),
                gnp.random.randint(0, 100, size=4).numpy()]

    gnp.random.seed(1234)
    first = draws()
    gnp.random.seed(1234)
    second = draws()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    gnp.random.seed(1234)
    a, b = gnp.random.rand(3).numpy(), gnp.random.rand(3).numpy()
    assert not np.array_equal(a, b)  # successive draws differ
    gnp.random.seed(4321)
    assert not np.array_equal(gnp.random.rand(3).numpy(), first[0])
    gnp.random.seed(None)


def test_gnp_random_in_function_draws_each_call():
    @gc.function
    def f():
        return gnp.random.rand(3)

    gnp.random.seed(7)
    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b)
    gnp.random.seed(7)
    np.testing.assert_array_equal(f().numpy(), a)
    gnp.random.seed(None)


# --------------------------------------------------------------------------- gc (TensorFlow)
def check(t, values, dtype):
    assert isinstance(t, gc.Tensor), type(t)
    assert t.dtype == np.dtype(dtype), (t.dtype, dtype)
    np.testing.assert_allclose(t.numpy(), np.asarray(values, dtype=dtype), rtol=1e-6)


M = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_gc_conversion():
    check(gc.constant([1, 2]), [1, 2], "int32")
    check(gc.constant(1.5), 1.5, "float32")
    check(gc.constant(0.0, shape=[2, 2]), [[0, 0], [0, 0]], "float32")
    check(gc.constant([1, 2, 3, 4], shape=[2, 2]), [[1, 2], [3, 4]], "int32")
    check(gc.convert_to_tensor([1.0, 2.0]), [1, 2], "float32")
    check(gc.convert_to_tensor(np.arange(2)), [0, 1], "int64")
    check(gc.convert_to_tensor(1, dtype_hint=gc.float32), 1, "float32")
    check(gc.cast([1.7, -1.7, 0.5], gc.int32), [1, -1, 0], "int32")
    check(gc.cast(gc.constant([1, 0]), gc.bool), [True, False], "bool")


def test_gc_math():
    check(gc.add(1, 2), 3, "int32")
    check(gc.add([1.0, 2.0], 1), [2, 3], "float32")
    check(gc.multiply(gc.constant([1, 2]), 3), [3, 6], "int32")
    check(gc.maximum([1.0, 5.0], [3.0, 2.0]), [3, 5], "float32")
    check(gc.minimum(gc.constant([1, 5]), 3), [1, 3], "int32")
    check(gc.pow(2, 3), 8, "int32")
    check(gc.pow([2.0, 3.0], 2), [4, 9], "float32")
    check(gc.abs([-1.5, 2.0]), [1.5, 2.0], "float32")
    check(gc.sqrt([4.0, 9.0]), [2, 3], "float32")
    check(gc.exp(0.0), 1.0, "float32")
    check(gc.math.log([1.0, np.e]), [0, 1], "float32")
    check(gc.math.sigmoid([0.0, 100.0, -100.0]), [0.5, 1.0, 0.0], "float32")
    check(gc.math.softplus([0.0, 100.0]), [np.log(2), 100.0], "float32")
    check(gc.math.tanh([0.0]), [0.0], "float32")
    check(gc.greater([1, 5], 3), [False, True], "bool")
    check(gc.less(gc.constant([1.0, 5.0]), 3.0), [True, False], "bool")
    check(gc.equal([1, 2], [1, 3]), [True, False], "bool")


def test_gc_creation():
    check(gc.eye(2), np.eye(2), "float32")
    check(gc.eye(2, 3), np.eye(2, 3), "float32")
    check(gc.zeros([2, 3]), np.zeros((2, 3)), "float32")
    check(gc.ones([2], dtype=gc.int32), [1, 1], "int32")
    check(gc.fill([2, 2], 7), np.full((2, 2), 7), "int32")
    check(gc.fill([2], 0.5), [0.5, 0.5], "float32")
    check(gc.range(5), np.arange(5), "int32")
    check(gc.range(1, 10, 3), [1, 4, 7], "int32")
    check(gc.range(0.0, 1.0, 0.25), [0, 0.25, 0.5, 0.75], "float32")
    check(gc.identity(gc.constant([1, 2])), [1, 2], "int32")


def test_gc_shape_ops():
    t = gc.constant(M)
    check(gc.reshape(t, [3, 2]), np.reshape(M, (3, 2)), "float32")
    check(gc.reshape(t, [-1]), np.ravel(M), "float32")
    check(gc.transpose(t), np.transpose(M), "float32")
    check(gc.transpose(gc.ones([2, 3, 4]), perm=[2, 0, 1]), np.ones((4, 2, 3)), "float32")
    check(gc.concat([t, t], axis=0), np.concatenate([M, M], 0), "float32")
    check(gc.concat([t, t], 1), np.concatenate([M, M], 1), "float32")
    check(gc.stack([gc.constant([1, 2]), gc.constant([3, 4])]), [[1, 2], [3, 4]], "int32")
    check(gc.stack([gc.constant([1, 2]), gc.constant([3, 4])], axis=1), [[1, 3], [2, 4]],
          "int32")
    check(gc.shape(t), [2, 3], "int32")
    check(gc.size(t), 6, "int32")
    check(gc.rank(t), 2, "int32")
    check(gc.rank(gc.constant(1.0)), 0, "int32")


def test_gc_matmul():
    a, b = gc.constant(M), gc.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    check(gc.matmul(a, b), np.matmul(M, [[1, 0], [0, 1], [1, 1]]), "float32")
    check(gc.matmul(a, a, transpose_b=True), np.matmul(M, np.transpose(M)), "float32")
    check(gc.matmul(a, a, transpose_a=True), np.matmul(np.transpose(M), M), "float32")
    check(gc.matmul([[1.0, 2.0]], [[3.0], [4.0]]), [[11.0]], "float32")


def test_gc_gather_where_scatter():
    params = gc.constant([[1, 2], [3, 4], [5, 6]])
    check(gc.gather(params, [2, 0]), [[5, 6], [1, 2]], "int32")
    check(gc.gather(params, [1], axis=1), [[2], [4], [6]], "int32")
    check(gc.gather(params, [[1], [0], [1]], axis=1, batch_dims=1), [[2], [3], [6]], "int32")
    cond = gc.constant([True, False, True])
    check(gc.where(cond, [1.0, 2.0, 3.0], [10.0, 20.0, 30.0]), [1, 20, 3], "float32")
    check(gc.where(cond, gc.constant([1, 2, 3]), 0), [1, 0, 3], "int32")
    check(gc.where(cond), [[0], [2]], "int64")  # one argument: indices [n, rank]
    check(gc.tensor_scatter_nd_update(gc.constant([1, 2, 3, 4, 5]), [[1], [3]], [9, 10]),
          [1, 9, 3, 10, 5], "int32")
    check(gc.tensor_scatter_nd_update(gc.zeros([2, 2]), [[0, 1]], [5.0]), [[0, 5], [0, 0]],
          "float32")


def test_gc_reductions():
    t = gc.constant(M)
    check(gc.reduce_sum(t), 21, "float32")
    check(gc.reduce_sum(t, axis=0), [5, 7, 9], "float32")
    check(gc.reduce_sum(t, axis=1, keepdims=True), [[6], [15]], "float32")
    check(gc.reduce_mean(t), 3.5, "float32")
    check(gc.reduce_mean(gc.constant([1, 2, 4])), 2, "int32")  # 7 // 3, as TensorFlow
    check(gc.reduce_max(t, axis=1), [3, 6], "float32")
    check(gc.reduce_min(t), 1, "float32")
    check(gc.reduce_prod(gc.constant([1, 2, 3])), 6, "int32")
    check(gc.reduce_any([[True, False], [False, False]], axis=1), [True, False], "bool")
    check(gc.reduce_all([[True, True], [False, True]], axis=0), [False, True], "bool")
    check(gc.argmax([[1, 5], [3, 2]]), [1, 0], "int64")  # axis defaults to 0
    check(gc.argmax(t, axis=1), [2, 2], "int64")
    check(gc.argmax(t, axis=1, output_type=gc.int32), [2, 2], "int32")


# TensorFlow converts Python lists to int32/float32 in every gc.* name.
_TF_LIST_DTYPE = {
    "reshape": lambda: gc.reshape([1, 2, 3, 4], [2, 2]),
    "transpose": lambda: gc.transpose([[1, 2]]),
    "concat": lambda: gc.concat([[1], [2]], 0),
    "stack": lambda: gc.stack([[1], [2]]),
    "gather": lambda: gc.gather([1, 2, 3], [0]),
    "identity": lambda: gc.identity([1, 2]),
    "matmul": lambda: gc.matmul([[1, 2]], [[3], [4]]),
    "reduce_sum": lambda: gc.reduce_sum([1, 2]),
    "reduce_max": lambda: gc.reduce_max([[1, 2]], axis=1),
    "where": lambda: gc.where([True], [1], [2]),
    "add": lambda: gc.add([1], [2]),
    "tensor_scatter_nd_update": lambda: gc.tensor_scatter_nd_update([1, 2], [[0]], [5]),
}
_TF_LIST_XFAIL: dict = {}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_TF_LIST_XFAIL[n]))
    if n in _TF_LIST_XFAIL else n for n in sorted(_TF_LIST_DTYPE)])
def test_gc_names_use_tensorflow_literal_dtypes(name):
    assert _TF_LIST_DTYPE[name]().dtype == np.int32


def test_tf_reshape_and_stack():
    # gc.reshape / gc.stack should be these (see _TF_LIST_XFAIL); check them directly.
    from graphc.ops.join import tf_stack
    from graphc.tf_api import tf_reshape

    check(tf_reshape([1, 2, 3, 4], [2, 2]), [[1, 2], [3, 4]], "int32")
    check(tf_reshape(gc.constant(M), [-1]), np.ravel(M), "float32")
    check(tf_stack([[1.0], [2.0]], axis=1), [[1, 2]], "float32")
    check(tf_stack([gc.constant([1, 2]), [3, 4]]), [[1, 2], [3, 4]], "int32")


# --------------------------------------------------------------------------- gc.random
def test_gc_random():
    u = gc.random.uniform([2, 50], minval=-1.0, maxval=2.0)
    assert u.shape == (2, 50) and u.dtype == np.float32
    assert (u.numpy() >= -1).all() and (u.numpy() < 2).all()
    n = gc.random.normal([1000], mean=3.0, stddev=0.5)
    assert n.dtype == np.float32 and abs(float(gc.reduce_mean(n)) - 3.0) < 0.1
    i = gc.random.uniform([100], minval=0, maxval=3, dtype=gc.int32)
    assert i.dtype == np.int32 and set(np.unique(i.numpy())) == {0, 1, 2}


def test_gc_random_seeds():
    gc.random.set_seed(5)
    a1, a2 = gc.random.uniform([3]).numpy(), gc.random.uniform([3]).numpy()
    gc.random.set_seed(5)
    b1, b2 = gc.random.uniform([3]).numpy(), gc.random.uniform([3]).numpy()
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2)  # each call draws anew
    # an op-level seed gives a reproducible sequence of its own
    gc.random.set_seed(5)
    c1, c2 = gc.random.normal([3], seed=1).numpy(), gc.random.normal([3], seed=1).numpy()
    gc.random.set_seed(5)
    d1 = gc.random.normal([3], seed=1).numpy()
    np.testing.assert_array_equal(c1, d1)
    assert not np.array_equal(c1, c2)
    gc.random.set_seed(None)
