"""Reference: Python lists built, read and updated in a function (TensorFlow's
basic_list_test). graphc has no list-to-TensorList conversion: lists stay Python lists
and are stacked with ``gc.stack``; changing a list made outside a tensor loop inside it
(append, pop, ...) raises an AutographError that suggests gc.TensorArray."""

import pytest
from ref_testing import check, expect_error, params, product

import graphc as gc
from graphc.errors import AutographError, SymbolicTensorError


def append_in_range(n):
    items = []
    for i in range(n):
        items.append(i)
    return gc.stack(items)


def read_an_element():
    items = []
    items.append(1)
    items.append(2)
    items.append(3)
    return 2 * items[1]


def write_an_element():
    items = []
    items.append(1)
    items.append(2)
    items.append(3)
    items[1] = 5
    return gc.stack(items)


def matrix_by_rows(m, n):
    rows = []
    for _ in range(m):
        row = []
        for j in range(n):
            row.append(j)
        rows.append(gc.stack(row))
    return gc.stack(rows)


def fibonacci_list(n):
    items = []
    items.append(1)
    items.append(1)
    for i in range(2, n):
        items.append(items[i - 1] + items[i - 2])
        items[i - 2] = -items[i - 2]
    return gc.stack(items)


def pop_n(n):
    items = [1, 2, 3, 4]
    total = 0
    for _ in range(n):
        total += items.pop()
    return gc.stack(items), total


def fill_in_place(t, n):
    for i in range(n):
        t[i] = i
    return t


def _refused(fn, args, kinds, method):
    # TensorFlow raises too (the list is not a loop variable it can turn into a
    # TensorList); graphc names the method and suggests gc.TensorArray
    err = expect_error(fn, args, kinds, AutographError, match=f"list.{method}")
    assert "gc.TensorArray" in str(err)


@pytest.mark.parametrize("fn", [read_an_element, write_an_element])
def test_no_arguments(fn):
    check(fn)


@pytest.mark.parametrize("n, kind", params([(0, "py"), (1, "py"), (3, "py"), (5, "py"),
                                            (0, "t")]))
def test_append_in_loop(n, kind):
    # n == 0: stacking an empty list fails in Python; graphc must fail too
    check(append_in_range, (n,), kind)


@pytest.mark.parametrize("n", [1, 3, 5])
def test_append_in_tensor_loop_is_refused(n):
    _refused(append_in_range, (n,), "t", "append")


_NESTED_REFUSED = [(m, 3, kinds) for m in (1, 5) for kinds in
                   (("t", "py"), ("py", "t"), ("t", "t"))]


@pytest.mark.parametrize("m, n, kinds", params([row for row in product(
    (0, 1, 5), (0, 3), (("py", "py"), ("t", "py"), ("py", "t"), ("t", "t")))
    if row not in _NESTED_REFUSED]))
def test_nested_appends(m, n, kinds):
    # with a tensor loop: Python raises too (gc.stack of an empty list), so any error
    check(matrix_by_rows, (m, n), kinds)


@pytest.mark.parametrize("m, n, kinds", params(_NESTED_REFUSED))
def test_nested_appends_in_tensor_loops_are_refused(m, n, kinds):
    _refused(matrix_by_rows, (m, n), kinds, "append")


@pytest.mark.parametrize("n", [2, 4, 6])
def test_read_and_write_in_loop(n):
    check(fibonacci_list, (n,), "py")


@pytest.mark.parametrize("n", [2, 4, 6])
def test_read_and_write_in_tensor_loop_is_refused(n):
    # `items[i - 1]` indexes a Python list by the tensor loop counter: refused before the
    # append is reached (TF: a TypeError there too)
    expect_error(fibonacci_list, (n,), "t", SymbolicTensorError, match="integer index")


@pytest.mark.parametrize("n", [0, 2, 3])
def test_pop_in_loop(n):
    check(pop_n, (n,), "py")


@pytest.mark.parametrize("n", [0, 2, 3])
def test_pop_in_tensor_loop_is_refused(n):
    # was a wrong answer: the list was popped once, at trace time
    _refused(pop_n, (n,), "t", "pop")


@pytest.mark.parametrize("n, kind", params([(10, "py"), (4, "py"), (4, "t")], {
    "4-t": "composite names as state: t[i] = i on a Python list in a tensor loop"}))
def test_item_assignment_in_loop(n, kind):
    check(fill_in_place, ([0] * 10, n), ("py", kind))
