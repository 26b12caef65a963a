"""One walk over the op registry checks every gradient rule against finite differences.

Every registered op that gives floating results either passes no gradient by nature
(``grad=NOT_DIFFERENTIABLE``) or has a rule, and each rule is checked here on the op's
samples from tests/ops/test_registry.py (float inputs promoted to float64; int and bool
inputs are indices, masks or shapes and stay as they are) plus the extra samples below
(broadcasting, duplicate indices, diagonals, ...): for a random cotangent ``v`` of each
float result, ``v . J`` from the rule (through ``GradientTape.gradient`` with
``output_gradients=v``) must equal the central differences of ``sum(v * f(x))``, eagerly
and inside a ``gc.function`` run by the NumPy interpreter. An op with float results and
neither a rule nor the marker fails ``test_every_float_op_declares_its_gradient``,
naming it; the ops whose rules other tests own are listed with where.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import graphc as gc
from graphc.core.registry import NOT_DIFFERENTIABLE, all_ops, bind
from graphc.core.trace import freeze

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "ops"))
from test_registry import SAMPLES, _getitem, mixed, pos, s  # noqa: E402

F64, I64 = np.dtype(np.float64), np.dtype(np.int64)

# Ops whose gradient rules other tests check (control flow and Python callbacks carry
# subgraphs or user functions).
RULES_TESTED_ELSEWHERE = {
    "cond": "control-flow gradients (graphc/ops/control/grad.py)",
    "switch_case": "control-flow gradients (graphc/ops/control/grad.py)",
    "while_loop": "control-flow gradients (graphc/ops/control/grad.py)",
    "py_function": "tests/state/test_pyfunc.py (py_function's gradient)",
    "eig": "tests/numpy_api/test_linalg_eig.py (complex results: the rule refuses)",
}


def f64(shape, lo=-1.5, hi=1.5, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


# Samples beyond the registry's: broadcasting, duplicate indices (their cotangents must
# add), diagonals and summed-away labels, negative steps, several axes.
EXTRA = {
    "arccosh": [s(pos((2, 3), F64) + 0.5), s(pos((3,), F64) * 0.5 + 1.25)],
    "remainder": [s(f64((2, 3), -3, 3), f64((3,), 0.3, 0.9, seed=1))],
    "cast": [s(f64((2, 3)), dtype=F64)],
    "add": [s(f64((4, 1, 3)), f64((2, 1), seed=1))],
    "multiply": [s(f64((2, 1, 3)), f64((4, 1), seed=1))],
    "true_divide": [s(f64((3,)), f64((2, 3), 1, 2, seed=1))],
    "power": [s(f64((2, 3), 0.5, 2), f64((3,), seed=1))],
    "maximum": [s(f64((2, 3)), f64((3,), seed=1))],
    "where": [s(mixed((2, 1), np.dtype(bool)) > 0, f64((1, 3)), f64((2, 3), seed=1))],
    "clip": [s(f64((2, 3), -2, 2), f64((3,), -1, -0.5, seed=1), f64((2, 1), 0.5, 1, seed=2))],
    "sum": [s(f64((2, 3, 4)), axis=(0, 2), keepdims=True, dtype=None)],
    "prod": [s(f64((3, 4), 0.5, 1.5), axis=1, keepdims=False, dtype=None)],
    "max": [s(f64((3, 4)), axis=0, keepdims=True)],
    "cumprod": [s(f64((3, 4), 0.5, 1.5), axis=1, dtype=None)],
    "matmul": [s(f64((2, 1, 2, 3)), f64((4, 3, 2), seed=1)), s(f64((3,)), f64((3,), seed=1))],
    "dot": [s(f64((2, 3)), f64((2, 3, 4), seed=1))],
    "einsum": [s(f64((3, 4)), subscripts="ij->i"),
               s(f64((3, 3)), subscripts="ii"),
               s(f64((2, 3, 4)), f64((2, 4, 5), seed=1), subscripts="bij,bjk->bik"),
               s(f64((2, 1, 3)), f64((4, 3), seed=1), subscripts="...i,...i->..."),
               s(f64((2, 3)), f64((3, 4), seed=1), subscripts="ij,jk"),
               s(f64((3, 3, 2)), f64((2,), seed=1), subscripts="iij,j->i")],
    "tensordot": [s(f64((2, 3, 4)), f64((4, 3, 5), seed=1), axes=((1, 2), (1, 0))),
                  s(f64((2,)), f64((3,), seed=1), axes=0)],
    "inner": [s(f64((2, 3)), f64((4, 3), seed=1)), s(f64(()), f64((3,), seed=1))],
    "outer": [s(f64((2, 2)), f64((3,), seed=1))],
    "vdot": [s(f64((2, 3)), f64((3, 2), seed=1))],
    "trace": [s(f64((2, 3, 4)), offset=-1, axis1=2, axis2=0)],
    "getitem": [_getitem(f64((4, 3)), np.array([0, 2, 0, 0])),
                _getitem(f64((4, 3)), (slice(3, 0, -2), None, np.array([[1, 1], [0, 2]]))),
                _getitem(f64((2, 3, 4)), (Ellipsis, 1)),
                _getitem(f64((3,)), ())],
    "take": [s(f64((2, 3)), np.array([[1, 1], [2, 1]]), axis=1, mode="raise"),
             s(f64((4,)), np.array([1, 1, 1]), axis=None, mode="clip")],
    "take_along_axis": [s(f64((2, 3)), np.array([[2, 2], [0, 2]]), axis=1)],
    "gather": [s(f64((3, 2)), np.array([[0, 2], [0, 0]]), axis=0, batch_dims=0)],
    "tensor_scatter_nd_update": [  # duplicates: the last write wins, earlier get nothing
        s(f64((4, 2)), np.array([[1], [3], [1]]), f64((3, 2), seed=1)),
        s(f64((2, 3)), np.array([[0, 0], [1, 2], [0, 0]]), f64((3,), seed=1))],
    "unsorted_segment_sum": [s(f64((4, 2)), np.array([1, -1, 1, 0]), num_segments=3)],
    "concatenate": [s(f64((2, 1)), f64((2, 3), seed=1), f64((2, 2), seed=2), axis=-1)],
    "stack": [s(f64((2, 3)), f64((2, 3), seed=1), axis=2)],
    "split": [s(f64((6, 2)), indices_or_sections=(1, 4), axis=0)],
    "tile": [s(f64((2, 1)), reps=(2, 1, 3))],
    "repeat": [s(f64((2, 3)), repeats=(1, 0, 3), axis=1)],
    "pad": [s(f64((2, 3)), pad_width=((2, 1), (0, 3)), mode="symmetric", constant_values=0),
            s(f64((2, 3)), pad_width=((1, 1), (2, 0)), mode="edge", constant_values=0),
            s(f64((2, 3)), np.array(1.5), pad_width=((1, 0), (0, 2)), mode="constant",
              constant_values=None)],
    "sort": [s(f64((3, 4)), axis=0), s(f64((2, 3)), axis=None)],
    "full": [s(f64((3,)), shape=(2, 3), dtype=F64)],
    # TensorArray ops (no registry samples: their leading dims depend on values). Writes:
    # of one element, growing a dynamic buffer, a scatter whose duplicate index the last row
    # wins, a block (unstack); reads: one element, a gather with a duplicate index.
    "tensor_array_write": [
        s(f64((4, 2)), np.asarray(3, I64), np.asarray(1, I64), f64((2,), seed=1),
          mode="one", dynamic=False),
        s(f64((2, 3)), np.asarray(2, I64), np.asarray(3, I64), f64((3,), seed=1),
          mode="one", dynamic=True),
        s(f64((4, 2)), np.asarray(4, I64), np.array([0, 2, 0]), f64((3, 2), seed=1),
          mode="many", dynamic=False),
        s(f64((5,)), np.asarray(2, I64), np.asarray(1, I64), f64((3,), seed=1),
          mode="block", dynamic=False)],
    # a saving loop's push, growing a full stack and onto a capacity-0 stack (a push that
    # fits writes into its operand, which an eager constant forbids: the second-derivative
    # loop tests in tests/autodiff/test_second_derivative_loops.py cover it)
    "save_stack_push": [
        s(f64((2, 3)), np.asarray(3, I64), f64((3,), seed=1), initial=2),
        s(f64((0, 3)), np.asarray(0, I64), f64((3,), seed=1), initial=3)],
    "tensor_array_read": [s(f64((4, 3)), np.asarray(4, I64), np.asarray(2, I64)),
                          s(f64((4, 2)), np.asarray(3, I64), np.array([1, 2, 1]))],
    "tensor_array_stack": [s(f64((5, 2)), np.asarray(3, I64)),
                           s(f64((4, 2, 3)), np.asarray(3, I64), concat=True)],
}


# Ops whose registry samples sit where the derivative is not finite: only EXTRA is used.
NOT_DIFFERENTIABLE_AT_SAMPLES = {
    "arccosh": "arccosh' is infinite at 1, where the registry's samples start",
    "remainder": "integer x over integral y: x % y jumps there (x/y is an integer)",
}


# --------------------------------------------------------------------------- the check
def promoted(args, attrs):
    """The sample with float inputs (and float dtype attrs) in float64."""
    args = [a.astype(F64) if a.dtype.kind == "f" else a for a in args]
    attrs = {k: (F64 if isinstance(v, np.dtype) and v.kind == "f" else v)
             for k, v in attrs.items()}
    return args, attrs


def samples_of(name):
    out = []
    base = [] if name in NOT_DIFFERENTIABLE_AT_SAMPLES else SAMPLES.get(name, [])
    for args, attrs in base + EXTRA.get(name, []):
        args, attrs = promoted(args, attrs)
        floats = [a for a in args if a.dtype.kind == "f"]
        if floats and all(np.isfinite(a).all() for a in floats):
            out.append((args, attrs))
    return out


def _outputs(op, result):
    return list(result) if op.multiple_results else [result]


def objective(op, args, attrs, wrt, seeds, at):
    """``sum(v * f(x))`` with ``args[at]`` replaced by ``at[1]``."""
    args = list(args)
    args[at[0]] = at[1]
    outs = _outputs(op, op.ref(*args, **attrs))
    return sum(float(np.sum(v * np.asarray(outs[k]))) for k, v in seeds.items())


def finite_differences(op, args, attrs, i, seeds):
    x = args[i]
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        eps = 1e-6 * max(1.0, abs(float(x[idx])))
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        out[idx] = (objective(op, args, attrs, None, seeds, (i, up))
                    - objective(op, args, attrs, None, seeds, (i, down))) / (2 * eps)
    return out


def rule_gradients(op, args, attrs, wrt, seeds, traced):
    """``v . J`` through the tape: eagerly, or in a gc.function on the interpreter
    (the float inputs are its arguments; indices stay constants, so shapes are known)."""
    keys = sorted(seeds)

    def grads(*floats):
        full = list(args)
        for i, t in zip(wrt, floats):
            full[i] = t
        with gc.GradientTape() as tape:
            tape.watch(list(floats))
            outs = _outputs(op, bind(op, *full, **attrs))
            if traced:  # a mask's result has an unknown dim in a graph: v enters as a
                # product (output_gradients must match the target's traced shape)
                products = [outs[k] * seeds[k] for k in keys]
        if traced:
            return tape.gradient(products, list(floats))
        return tape.gradient([outs[k] for k in keys], list(floats),
                             output_gradients=[gc.constant(seeds[k]) for k in keys])

    floats = [args[i] for i in wrt]
    if traced:
        got = gc.function(grads, backend="numpy")(*floats)
    else:
        got = grads(*[gc.constant(a) for a in floats])
    return [None if g is None else np.asarray(g.numpy()) for g in got]


def check_rule(name, args, attrs, traced):
    """Assert the rule of ``name`` on one sample; False when the sample has no float
    result (so nothing to check)."""
    op = all_ops()[name]
    frozen = {k: freeze(v) for k, v in attrs.items()}
    with np.errstate(all="ignore"):
        outs = _outputs(op, op.ref(*args, **frozen))
    rng = np.random.default_rng(len(args))
    seeds = {k: rng.normal(size=np.shape(o)) for k, o in enumerate(outs)
             if np.asarray(o).dtype.kind == "f"}
    wrt = [i for i, a in enumerate(args) if a.dtype.kind == "f"]
    if not seeds:
        return False
    got = rule_gradients(op, args, frozen, wrt, seeds, traced)
    for i, g in zip(wrt, got):
        want = finite_differences(op, args, frozen, i, seeds)
        what = f"{name}: gradient of input {i} ({'traced' if traced else 'eager'})"
        if g is None:
            assert not want.any(), f"{what} is None, finite differences give {want}"
            continue
        assert g.shape == args[i].shape and g.dtype == args[i].dtype, (
            f"{what}: {g.dtype}{g.shape} for a {args[i].dtype}{args[i].shape} input")
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6, err_msg=what)
    return True


# --------------------------------------------------------------------------- tests
def _float_results(name) -> bool:
    op = all_ops()[name]
    if name not in SAMPLES:  # no sample to tell: it must declare itself
        return True
    for args, attrs in SAMPLES[name]:
        with np.errstate(all="ignore"):
            out = op.ref(*args, **{k: freeze(v) for k, v in attrs.items()})
        if any(np.asarray(o).dtype.kind in "fc" for o in _outputs(op, out)):
            return True
    return False


def test_every_float_op_declares_its_gradient():
    missing = sorted(name for name, op in all_ops().items()
                     if op.grad is None and name not in RULES_TESTED_ELSEWHERE
                     and _float_results(name))
    assert not missing, (f"ops with float results and neither a gradient rule nor "
                         f"grad=NOT_DIFFERENTIABLE: {missing}")
    for name in RULES_TESTED_ELSEWHERE:
        assert name in all_ops(), f"{name} is listed but not registered"


RULED = sorted(name for name, op in all_ops().items()
               if op.grad is not None and op.grad is not NOT_DIFFERENTIABLE
               and name not in RULES_TESTED_ELSEWHERE)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", RULED)
def test_rule_matches_finite_differences(name, traced):
    samples = samples_of(name)
    checked = 0
    for k, (args, attrs) in enumerate(samples):
        try:
            checked += check_rule(name, args, attrs, traced)
        except AssertionError as e:
            shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in args)
            raise AssertionError(f"sample {k}: {name}({shapes}, {attrs}): {e}") from None
    assert checked, f"{name} has a gradient rule but no float64 sample to check it on"


def test_a_wrong_rule_is_caught(monkeypatch):
    """The check fails for a rule that is wrong (sin's with the sign flipped, and a
    selection's that forgets to add duplicates)."""
    from graphc.ops import elementwise, indexing

    monkeypatch.setattr(elementwise.SIN, "grad", elementwise._unary(
        lambda g, x, o: -g * gc.numpy.cos(x)))
    with pytest.raises(AssertionError, match="sin"):
        check_rule("sin", [f64((3,))], {}, traced=False)

    def overwrite(cts, args, outs, **attrs):  # duplicates overwrite instead of adding
        x, idx = args
        return gc.tensor_scatter_nd_update(gc.numpy.zeros_like(x), idx[:, None], cts[0]), None

    monkeypatch.setattr(indexing.TAKE, "grad", overwrite)
    with pytest.raises(AssertionError, match="take"):
        check_rule("take", [f64((4,)), np.array([1, 1, 2])], {"axis": 0, "mode": "raise"},
                   traced=True)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_differentiable_op_without_rule_raises_lookup_error(monkeypatch, traced):
    from graphc.ops import elementwise

    monkeypatch.setattr(elementwise.TANH, "grad", None)

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gc.numpy.tanh(x * 2.0)  # the user's line the error names
        return tape.gradient(y, x)

    fn = gc.function(grad, backend="numpy") if traced else grad
    with pytest.raises(LookupError, match=r"'tanh' has no gradient rule.*test_grad_registry"
                                          r"\.py:\d+"):
        fn(gc.constant(np.array([0.5, 1.0])))
