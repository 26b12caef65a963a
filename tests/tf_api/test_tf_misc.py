"""gc.DType/as_dtype, TensorShape, broadcast_*_shape, get_static_value, is_tensor,
no_gradient, assert_rank, case, scan/foldl/foldr, hessians, recompute_grad, Module, the
forwarders to gc.linalg/gc.nn, and the coverage of ../shared/api_targets/tf.txt."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from tf_api_helpers import both, same

import graphc as gc
from graphc.core import registry
from graphc.ops import tf_elementwise

ABSENT = {"bfloat16", "edit_distance", "random_index_shuffle"}


def test_coverage_of_the_tf_list():
    path = pathlib.Path(__file__).parents[3] / "shared" / "api_targets" / "tf.txt"
    if path.exists():  # the list lives beside the repository in the work tree
        names = [n for n in path.read_text().split("\n")[1:] if n.strip()]
        assert {n for n in names if not hasattr(gc, n)} == ABSENT
    for name in ABSENT:
        assert not hasattr(gc, name)
    # the names graphc had keep their objects
    assert gc.abs is tf_elementwise.abs and gc.where is tf_elementwise.where
    assert gc.sin is gc.math.sin and gc.fftnd is gc.signal.fftnd


def test_dtypes():
    assert isinstance(gc.float32, gc.DType) and gc.DType is np.dtype
    assert gc.as_dtype("float") == gc.float32 and gc.as_dtype("double") == gc.float64
    assert gc.as_dtype(float) == gc.float32 and gc.as_dtype(np.int16) == gc.int16
    assert gc.as_dtype("half") == gc.half == gc.float16 and gc.double == gc.float64
    assert (gc.uint16, gc.uint32, gc.uint64) == (np.dtype("uint16"), np.dtype("uint32"),
                                                 np.dtype("uint64"))
    assert gc.newaxis is None
    for bad in ("bfloat16", "string", object):
        with pytest.raises(TypeError):
            gc.as_dtype(bad)


def test_tensor_shape_and_broadcast():
    s = gc.TensorShape([None, 3])
    assert s.rank == 2 and s.dims == [None, 3] and not s.is_fully_defined()
    assert s.is_compatible_with((2, 3)) and not s.is_compatible_with((2, 4))
    assert s.merge_with([2, None]) == gc.TensorShape([2, 3])
    assert s.concatenate([4]).as_list() == [None, 3, 4] and s[1] == 3 and len(s) == 2
    assert gc.TensorShape([2, 3]).num_elements() == 6 and s.num_elements() is None
    assert gc.TensorShape(None).rank is None and str(gc.TensorShape([5])) == "(5,)"
    with pytest.raises(ValueError):
        s.merge_with([2, 4])
    with pytest.raises(ValueError):
        gc.TensorShape(None).as_list()
    b = gc.broadcast_static_shape(gc.TensorShape([None, 1]), gc.TensorShape([3]))
    assert b.as_list() == [None, 3]
    assert gc.broadcast_static_shape([2, 1], [1, 4]).as_list() == [2, 4]
    with pytest.raises(ValueError):
        gc.broadcast_static_shape([2], [3])
    for got in both(gc.broadcast_dynamic_shape, np.array([2, 1], np.int32),
                    np.array([3], np.int32)):
        same(got, np.array([2, 3], np.int32))
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.broadcast_dynamic_shape([2], [3])
    f = gc.function(lambda x: gc.broadcast_dynamic_shape(gc.shape(x), [1, 3]),
                    input_signature=[gc.TensorSpec([None, None], gc.float32)])
    same(f(np.ones((4, 1), np.float32)), np.array([4, 3], np.int32))


def test_static_values_and_checks():
    seen = []

    @gc.function
    def f(x):
        seen.append((gc.get_static_value(x), gc.get_static_value(gc.constant(2) * 3),
                     gc.is_tensor(x)))
        return x

    f(np.ones(2))
    assert seen[0][0] is None and seen[0][1] == 6 and seen[0][2]
    assert gc.get_static_value([1, 2]).tolist() == [1, 2]
    assert gc.is_tensor(gc.Variable(1.0)) and not gc.is_tensor(np.ones(2))
    gc.assert_rank(np.ones((2, 3)), 2)
    with pytest.raises(ValueError, match="must have rank 1"):
        gc.assert_rank(np.ones((2, 3)), 1)
    assert gc.Assert is gc.debugging.Assert and gc.assert_equal is gc.debugging.assert_equal
    with pytest.raises(LookupError):
        gc.no_gradient("no_such_op")
    with pytest.raises(KeyError):
        gc.no_gradient("add")


def test_no_gradient_declares_an_op(monkeypatch):
    op = registry.get("argsort")
    monkeypatch.setattr(op, "grad", None)
    gc.no_gradient("argsort")
    assert op.grad is registry.NOT_DIFFERENTIABLE


def test_case():
    def pick(a, b):
        return gc.case([(a, lambda: gc.constant(1)), (b, lambda: gc.constant(2))],
                       default=lambda: gc.constant(3))

    t, f = gc.constant(True), gc.constant(False)
    for args, want in [((f, t), 2), ((t, t), 1), ((f, f), 3)]:
        for got in both(pick, *args):
            same(got, np.int32(want))
    same(gc.case([(t, lambda: gc.constant(5.0))]), np.float32(5.0))
    with pytest.raises(gc.errors.InvalidArgumentError):
        gc.case([(f, lambda: gc.constant(1))])
    with pytest.raises(gc.errors.InvalidArgumentError, match="exclusive"):
        gc.case([(t, lambda: gc.constant(1)), (t, lambda: gc.constant(2))], exclusive=True)


def test_scan_and_folds():
    v = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    for got in both(lambda x: gc.scan(lambda a, e: a + e, x), v):
        same(got, np.cumsum(v))
    for got in both(lambda x: gc.scan(lambda a, e: a * e, x, initializer=gc.constant(1.0),
                                      reverse=True), v):
        same(got, np.cumprod(v[::-1])[::-1])
    pairs = (v, 2 * v)
    for got in both(lambda a, b: gc.scan(lambda acc, e: (acc[0] + e[0], acc[1] * 0 + e[1]),
                                         (a, b), initializer=(gc.constant(0.0),
                                                              gc.constant(0.0))), *pairs):
        same(list(got), [np.cumsum(v), 2 * v])
    for got in both(lambda x: gc.foldl(lambda a, e: a * 10 + e, x), v):
        same(got, np.float32(1234))
    for got in both(lambda x: gc.foldr(lambda a, e: a * 10 + e, x), v):
        same(got, np.float32(4321))
    with pytest.raises(ValueError):
        gc.foldl(lambda a, e: a + e, np.zeros(0, np.float32))


def test_scan_gradient():
    x = gc.constant(np.array([1.0, 2.0, 3.0]))

    @gc.function
    def grad(t):
        with gc.GradientTape() as tape:
            tape.watch(t)
            y = gc.reduce_sum(gc.scan(lambda a, e: a * e, t))
        return tape.gradient(y, t)

    # y = x0 + x0 x1 + x0 x1 x2
    same(grad(x), np.array([1 + 2 + 6, 1 + 3, 2.0]))


def test_hessians_recompute_module():
    @gc.function
    def h(v):
        return gc.hessians(gc.reduce_sum(v ** 3) + v[0] * v[1], v)

    same(h(gc.constant([1.0, 2.0]))[0], np.array([[6.0, 1.0], [1.0, 12.0]], np.float32))
    f = gc.recompute_grad(lambda t: t * t)
    x = gc.constant(3.0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    same(tape.gradient(y, x), np.float32(6.0))

    class Dense(gc.Module):
        def __init__(self):
            super().__init__()
            self.w = gc.Variable(np.ones(2))
            self.frozen = gc.Variable(0.0, trainable=False)
            self.layers = [gc.Module(name="inner"), {"b": gc.Variable(1.0)}]

    m = Dense()
    assert m.name == "dense" and m.name_scope.__enter__() == "dense/"
    assert len(m.variables) == 3 and len(m.trainable_variables) == 2
    assert len(m.non_trainable_variables) == 1 and m.submodules[0].name == "inner"
    with pytest.raises(ValueError):
        gc.Module(name="bad name")


def test_forwarders_name_their_target():
    for name, target in [("eig", "linalg"), ("eigvals", "linalg"),
                         ("matrix_square_root", "linalg"), ("conv", "nn")]:
        assert callable(getattr(gc, name))
        ns = getattr(gc, target, None)
        missing = ns is None or not hasattr(ns, {"matrix_square_root": "sqrtm",
                                                 "conv": "convolution"}.get(name, name))
        if missing:
            with pytest.raises(NotImplementedError, match=f"gc.{target}"):
                getattr(gc, name)(np.eye(2))
