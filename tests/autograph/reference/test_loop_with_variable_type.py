"""Reference: loop variables whose shape grows every iteration: vectors, matrix rows,
columns, padding, inside an `if`, with `break` (TensorFlow's
loop_with_variable_type_test).

TF needs ``set_loop_options(shape_invariants=...)`` for these; graphc relaxes the dims
that change to ``None`` by itself (docs/autograph.md), so the cases have no such call.
TF appends ``[i]`` (a list holding the loop counter, packed into a tensor by TF); here
``gnp.reshape(i, (1,))``, and one case keeps the list to measure the packing.
TF's SparseTensor and dataset variants are not ported (graphc has neither)."""

import collections

import pytest
from ref_testing import check, params, product

import graphc as gc
import graphc.numpy as gnp


def _ints(v):
    return gnp.asarray(v, dtype=gc.int64)


def while_grows_vector(n):
    v = _ints([0, 0])
    i = 0
    while i < n:
        v = gc.concat((v, gnp.reshape(i, (1,))), 0)
        i += 1
    return v


def for_grows_vector(items):
    v = _ints([0, 0])
    for i in items:
        v = gc.concat((v, gnp.reshape(i, (1,))), 0)
    return v


def while_grows_rows(n):
    m = _ints([[0]])
    i = 0
    while i < n:
        m = gc.concat((m, gnp.reshape(i, (1, 1))), 0)
        i += 1
    return m


def for_grows_rows(items):
    m = _ints([[0]])
    for i in items:
        m = gc.concat((m, gnp.reshape(i, (1, 1))), 0)
    return m


def while_grows_cols(n):
    m = _ints([[0, 0]])
    i = 0
    while i < n:
        m = gc.concat((m, gnp.reshape(i, (1, 1))), 1)
        i += 1
    return m


def for_grows_cols(items):
    m = _ints([[0, 0]])
    for i in items:
        m = gc.concat((m, gnp.reshape(i, (1, 1))), 1)
    return m


def while_pads(n):
    m = _ints([[0, 0], [0, 0]])
    i = 0
    while i < n:
        m = gnp.pad(m, [[1, 1], [1, 1]], constant_values=i)
        i += 1
    return m


def for_pads(items):
    m = _ints([[0, 0], [0, 0]])
    for i in items:
        m = gnp.pad(m, [[1, 1], [1, 1]], constant_values=i)
    return m


def while_grows_inside_if(n):
    v = _ints([0, 0])
    i = 0
    if n > 1:
        while i < n:
            v = gc.concat((v, gnp.reshape(i, (1,))), 0)
            i += 1
    else:
        v = _ints([1, 2, 3])
    return v


def for_grows_inside_if(n):
    v = _ints([0, 0])
    if n > 1:
        for i in range(n):
            v = gc.concat((v, gnp.reshape(i, (1,))), 0)
            i += 1
    else:
        v = _ints([1, 2, 3])
    return v


Holder = collections.namedtuple("Holder", ["var"])


def for_grows_with_namedtuple_inside_if(n):
    t = Holder(var=_ints([0]))
    v = _ints([0, 0])
    if n > 1:
        for i in range(n):
            v = gc.concat((v, gnp.reshape(i, (1,))), 0)
            t = Holder(var=t.var + 1)
            i += 1
    else:
        v = _ints([1, 2, 3])
        t = Holder(var=_ints([3]))
    return v


def while_grows_then_breaks(n):
    v = _ints([0, 0])
    i = 0
    if n > 1:
        while i < n:
            v = gc.concat((v, gnp.reshape(i, (1,))), 0)
            i += 1
            if i > 3:
                break
    else:
        v = _ints([1, 2, 3])
    return v


def for_grows_then_breaks(n):
    v = _ints([0, 0])
    if n > 1:
        for i in range(n):
            v = gc.concat((v, gnp.reshape(i, (1,))), 0)
            i += 1
            if i > 3:
                break
    else:
        v = _ints([1, 2, 3])
    return v


def while_grows_by_list(n):
    v = _ints([0, 0])
    i = 0
    while i < n:
        v = gc.concat((v, [i]), 0)
        i += 1
    return v


WHILES = (while_grows_vector, while_grows_rows, while_grows_cols, while_pads)
FORS = (for_grows_vector, for_grows_rows, for_grows_cols, for_pads)


@pytest.mark.parametrize("n, kind", params([(0, "py"), (2, "py"), (0, "t"), (2, "t")]))
def test_while_grows_by_list(n, kind):
    # [i] with a traced i is packed into a tensor by gc.concat, as TensorFlow does
    check(while_grows_by_list, (n,), kind)


@pytest.mark.parametrize("fn, n, kind", params(product(WHILES, (0, 1, 2, 3), ("py", "t"))))
def test_while_grows(fn, n, kind):
    # while_pads: constant_values=i with a traced i is an operand of the pad node
    check(fn, (n,), kind)


@pytest.mark.parametrize("fn, n, kind", params(product(
    FORS, (0, 1, 2, 3), ("range", "gcrange", "t"))))
def test_for_grows(fn, n, kind):
    # "t": the tensor [0, 1, ..., n-1]
    check(fn, (list(range(n)) if kind == "t" else n,), kind)


@pytest.mark.parametrize("fn, n, kind", params(product(
    (while_grows_inside_if, for_grows_inside_if, for_grows_with_namedtuple_inside_if,
     while_grows_then_breaks, for_grows_then_breaks), (0, 1, 2, 5), ("py", "t"))))
def test_grows_inside_if(fn, n, kind):
    check(fn, (n,), kind)
