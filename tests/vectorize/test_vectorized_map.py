"""gc.vectorized_map and gc.map_fn against stacking ``fn`` over the slices.

Each case compares values, dtypes and shapes with ``np.stack([fn(x_i) ...])`` (``fn``
called eagerly on each slice), eagerly and inside ``gc.function`` (interpreter), and
checks that no op fell back to the loop where a rule exists (warnings are errors).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
from graphc import numpy as gnp

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 3, 4)).astype(np.float32)
W = gc.constant(RNG.standard_normal((4, 2)).astype(np.float32))
V = gc.constant(RNG.standard_normal((4,)).astype(np.float32))
XI = gc.constant(np.arange(5 * 4, dtype=np.int32).reshape(5, 4) - 7)


def _stacked(fn, elems):
    leaves = elems if isinstance(elems, tuple) else (elems,)
    n = np.shape(leaves[0])[0]
    outs = []
    for i in range(n):
        sl = tuple(gc.constant(np.asarray(x)[i]) for x in leaves)
        outs.append(fn(sl if isinstance(elems, tuple) else sl[0]))
    return outs


def _check(got, want_list):
    if isinstance(want_list[0], (tuple, list, dict)):
        if isinstance(want_list[0], dict):
            assert set(got) == set(want_list[0])
            for k in got:
                _check(got[k], [w[k] for w in want_list])
            return
        for j in range(len(want_list[0])):
            _check(got[j], [w[j] for w in want_list])
        return
    want = np.stack([np.asarray(w) for w in want_list])
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _both(fn, elems):
    """vectorized_map eagerly and in a gc.function, each against the slice loop."""
    want = _stacked(fn, elems)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gc.errors.VectorizationWarning)
        _check(gc.vectorized_map(fn, elems), want)
        _check(gc.function(lambda e: gc.vectorized_map(fn, e))(elems), want)


CASES = {
    "elementwise": lambda x: gnp.tanh(x) * 2.0 + gnp.exp(-x * x),
    "closure_broadcast": lambda x: x * V + 1.0,
    "comparison_where": lambda x: gnp.where(x > 0, x, V),
    "cast_clip": lambda x: gnp.clip(gc.cast(x * 3, gc.int32), -1, 2),
    "reductions": lambda x: (gnp.sum(x), gnp.mean(x, axis=0), gnp.max(x, axis=-1,
                                                                        keepdims=True)),
    "arg_and_scan": lambda x: (gnp.argmax(x), gnp.argmin(x, axis=1), gnp.cumsum(x, axis=0)),
    "std_var": lambda x: (gnp.std(x, axis=1), gnp.var(x)),
    "matmul_closure": lambda x: x @ W,
    "matmul_vector": lambda x: (x[0] @ W, x @ V, x[1] @ V),
    "matmul_both_batched": lambda x: gnp.matmul(x, gnp.transpose(x)),
    "shape_ops": lambda x: (gnp.reshape(x, (-1,)), gnp.transpose(x), gnp.expand_dims(x, 1),
                            gnp.squeeze(gnp.reshape(x, (3, 1, 4)), 1),
                            gnp.broadcast_to(x[0], (2, 4))),
    "join": lambda x: (gnp.concatenate([x, x * 2], axis=1), gnp.stack([x[0], V], axis=1),
                       gnp.concatenate([gnp.expand_dims(V, 0), x], axis=0)),
    "getitem": lambda x: (x[1], x[:, ::-1], x[..., None, 1:3]),
    "sort_flip": lambda x: (gnp.sort(x, axis=0), gnp.flip(x)),
    "pad_tile_repeat_split": lambda x: (gnp.pad(x, ((1, 0), (0, 2))), gnp.tile(x, (2, 1, 1)),
                                        gnp.repeat(x, 2, axis=1), gnp.split(x, 2, axis=1)),
    "dot_family": lambda x: (gnp.dot(x, V), gnp.einsum("ij,jk->ik", x, W),
                             gnp.tensordot(x, W, axes=1), gnp.inner(x, x),
                             gnp.outer(x[0], V)),
    "gathers": lambda x: (gnp.take(x, gc.cast(gnp.argmax(x, axis=1), gc.int32), axis=1),
                          gnp.take_along_axis(x, gnp.argsort(x, axis=1), axis=1),
                          gc.gather(x, [2, 0], axis=1),
                          gnp.take(V, gnp.argmax(x, axis=1))),
    "mlp": lambda x: gnp.sum(gnp.tanh(gnp.reshape(x, (12,))[:4] @ W) ** 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_families_match_stacking_slices(name):
    _both(CASES[name], gc.constant(X))


def test_integer_and_bool_elems():
    _both(lambda r: (r * 2 + 1, r % 3 == 0, gnp.sum(r)), XI)
    _both(lambda m: gnp.logical_not(m) & m[::-1], gc.constant(X[:, 0] > 0))


def test_nests_in_and_out():
    def fn(pair):
        a, b = pair
        return {"s": a + b[0], "p": (a * b[1], gnp.sum(a))}

    elems = (gc.constant(X[:, 0]), gc.constant(X[:, 1:3]))
    want = [fn((gc.constant(X[i, 0]), gc.constant(X[i, 1:3]))) for i in range(5)]
    _check(gc.vectorized_map(fn, elems), want)
    _check(gc.function(lambda e: gc.vectorized_map(fn, e))(elems), want)


def test_unbatched_outputs_are_broadcast_over_the_batch():
    _both(lambda x: (V * 2.0, gc.constant(3)), gc.constant(X))


def test_closure_over_a_traced_tensor_and_a_dynamic_batch():
    @gc.function(input_signature=[gc.TensorSpec([None, 3, 4], gc.float32),
                                  gc.TensorSpec([4], gc.float32)])
    def f(x, v):
        return gc.vectorized_map(lambda r: gnp.sum(r * v, axis=1) + gnp.reshape(r, (-1,))[0],
                                 x)

    for n in (5, 2):
        want = np.stack([np.sum(X[i] * V.numpy(), axis=1) + X[i].reshape(-1)[0]
                         for i in range(n)])
        got = f(X[:n], V)
        assert got.shape == (n, 3)
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_fallback_warns_once_listing_every_op():
    fn = lambda x: gnp.trace(x) + gnp.vdot(x, x)  # noqa: E731
    want = _stacked(fn, gc.constant(X))
    for run in (lambda: gc.vectorized_map(fn, gc.constant(X)),
                lambda: gc.function(lambda e: gc.vectorized_map(fn, e))(gc.constant(X))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = run()
        mine = [w for w in caught if issubclass(w.category, gc.errors.VectorizationWarning)]
        assert len(mine) == 1
        assert "trace" in str(mine[0].message) and "vdot" in str(mine[0].message)
        _check(got, want)


def test_fallback_loop_is_one_while_loop_node_in_the_graph():
    f = gc.function(lambda e: gc.vectorized_map(lambda x: gnp.trace(x) * 2.0, e))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gc.errors.VectorizationWarning)
        text = str(f.get_concrete_function(gc.TensorSpec([5, 3, 4], gc.float32)).graph)
    assert text.count("while_loop") == 1 and "trace" in text


def test_strict_mode_raises_naming_the_op():
    with pytest.raises(ValueError, match="vdot"):
        gc.vectorized_map(lambda x: gnp.vdot(x, x), gc.constant(X),
                          fallback_to_while_loop=False)


def test_bad_elems():
    with pytest.raises(ValueError, match="dimension 0"):
        gc.vectorized_map(lambda p: p[0], (gc.constant(X), gc.constant(X[:2])))
    with pytest.raises(ValueError, match="0-d"):
        gc.vectorized_map(lambda p: p, gc.constant(1.0))


# --------------------------------------------------------------------------- map_fn
def test_map_fn_matches_the_loop_eagerly_and_traced():
    fn = lambda x: gnp.sum(x * x, axis=0) - x[0]  # noqa: E731
    want = _stacked(fn, gc.constant(X))
    _check(gc.map_fn(fn, gc.constant(X)), want)
    _check(gc.function(lambda e: gc.map_fn(fn, e))(gc.constant(X)), want)


def test_map_fn_output_signature_for_other_dtypes_and_nests():
    def fn(pair):
        a, b = pair
        return gnp.sum(a) > 0, gc.cast(b, gc.int64) * 2

    sig = (gc.bool, gc.TensorSpec(None, gc.int64))
    elems = (gc.constant(X), XI)
    want = [fn((gc.constant(X[i]), gc.constant(XI.numpy()[i]))) for i in range(5)]
    _check(gc.map_fn(fn, elems, fn_output_signature=sig), want)
    _check(gc.function(lambda e: gc.map_fn(fn, e, fn_output_signature=sig))(elems), want)


def test_map_fn_without_signature_rejects_another_dtype():
    with pytest.raises(TypeError, match="fn_output_signature"):
        gc.map_fn(lambda x: x > 0, gc.constant(X))


def test_map_fn_zero_elements_with_a_signature():
    out = gc.map_fn(lambda x: x * 2, gc.constant(np.zeros((0, 3), np.float32)),
                    fn_output_signature=gc.TensorSpec([3], gc.float32))
    assert out.shape == (0, 3) and out.dtype == np.float32
    f = gc.function(lambda e: gc.map_fn(lambda x: x * 2, e),
                    input_signature=[gc.TensorSpec([None, 3], gc.float32)])
    assert f(np.zeros((0, 3), np.float32)).shape == (0, 3)
    np.testing.assert_array_equal(f(X[:, 0, :3]), X[:, 0, :3] * 2)


def test_per_example_gradients_with_a_tape_inside_fn():
    w = gc.constant(np.linspace(-1, 1, 4).astype(np.float32))

    def grad(row):
        with gc.GradientTape() as tape:
            tape.watch(w)
            loss = gnp.sum(gnp.tanh(row @ w) ** 2)
        return tape.gradient(loss, w)

    _both(grad, gc.constant(X))


def test_unbatched_results_and_joins_with_a_batch_known_at_run_time():
    @gc.function(input_signature=[gc.TensorSpec([None, 4], gc.float32)])
    def f(x):
        return gc.vectorized_map(lambda r: (V * 2.0, gnp.stack([r, V])), x)

    for n in (3, 1):
        const, joined = f(X[:n, 0])
        np.testing.assert_allclose(const, np.broadcast_to(V.numpy() * 2, (n, 4)))
        np.testing.assert_allclose(joined, np.stack([np.stack([X[i, 0], V.numpy()])
                                                     for i in range(n)]))


# ------------------------------------------------------------------ control flow
def _per_example_if(x):
    if gnp.sum(x) > 0:
        y = x * 2.0 + V
    else:
        y = gnp.tanh(x)
    return y


def _per_example_while(x):
    s = x[0]
    n = 0
    while gnp.sum(s) < 6.0:
        s = s + gnp.abs(x[1]) + 0.25
        n += 1
    return s, n


def _nested(x):
    t = gc.constant(0.0)
    for k in range(3):  # an unbatched loop condition around a per-example if
        if x[k, 0] > 0:
            t = t + gnp.sum(x[k])
        else:
            t = t - 1.0
    return t


@pytest.mark.parametrize("fn", [_per_example_if, _per_example_while, _nested],
                         ids=["if", "while", "for_if"])
def test_per_example_control_flow_matches_stacking_slices(fn):
    _both(fn, gc.constant(X))


def test_switch_case_with_a_per_example_index():
    def fn(x):
        i = gc.cast(gnp.argmax(x[0]), gc.int32)
        return gc.switch_case(i, [lambda: x[1], lambda: x[2] * 2.0, lambda: -x[0]])

    _both(fn, gc.constant(X))


def test_effects_in_a_per_example_branch_still_run_once_per_example():
    def fn(x):
        if gnp.sum(x) > 0:
            gc.print("pos")
            y = x
        else:
            y = -x
        return y

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = gc.function(lambda e: gc.vectorized_map(fn, e))(gc.constant(X))
    assert any("cond" in str(w.message) for w in caught
               if issubclass(w.category, gc.errors.VectorizationWarning))
    _check(got, [x if x.sum() > 0 else -x for x in X])


def test_the_per_example_cond_rule_refuses_branch_effects():
    from graphc.ops.control.flow import COND

    def fn(x):
        if gnp.sum(x) > 0:
            gc.print("pos")
            x = x + 1.0
        return x

    graph = gc.function(fn).get_concrete_function(gc.TensorSpec([4], gc.float32)).graph
    node = next(n for n in graph.nodes if n.op is COND)
    pred = gc.constant(np.array([True, False]))
    with pytest.raises(ValueError, match="cond.*effects"):
        COND.batch([pred, gc.constant(X[:2, 0])], [0, 0], **node.attrs)
