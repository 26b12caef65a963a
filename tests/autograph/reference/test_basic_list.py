"""Reference: Python lists built, read and updated in a function (TensorFlow's
basic_list_test). graphc has no list-to-TensorList conversion: lists stay Python lists
and are stacked with ``gc.stack``; appending inside a tensor loop is unsupported."""

import pytest
from ref_testing import check, params, product

import graphc as gc


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


LIST_APPEND = "list append in loop: the list is a Python list appended once at trace time"


@pytest.mark.parametrize("fn", [read_an_element, write_an_element])
def test_no_arguments(fn):
    check(fn)


@pytest.mark.parametrize("n, kind", params(product((0, 1, 3, 5), ("py", "t")), {
    "1-t": LIST_APPEND, "3-t": LIST_APPEND, "5-t": LIST_APPEND}))
def test_append_in_loop(n, kind):
    # n == 0: stacking an empty list fails in Python; graphc must fail too
    check(append_in_range, (n,), kind)


@pytest.mark.parametrize("m, n, kinds", params(product(
    (0, 1, 5), (0, 3), (("py", "py"), ("t", "py"), ("py", "t"), ("t", "t"))), {
    "1-3-(t,py)": LIST_APPEND, "5-3-(t,py)": LIST_APPEND,
    "1-3-(py,t)": LIST_APPEND, "5-3-(py,t)": LIST_APPEND,
    "1-3-(t,t)": LIST_APPEND, "5-3-(t,t)": LIST_APPEND}))
def test_nested_appends(m, n, kinds):
    check(matrix_by_rows, (m, n), kinds)


@pytest.mark.parametrize("n, kind", params(product((2, 4, 6), ("py", "t")), {
    "2-t": LIST_APPEND + " (indexing it by the loop counter needs a Python int)",
    "4-t": LIST_APPEND, "6-t": LIST_APPEND}))
def test_read_and_write_in_loop(n, kind):
    check(fibonacci_list, (n,), kind)


POP = ("list append in loop: list.pop() in a tensor loop pops at trace time "
       "(WRONG ANSWER, no error)")


@pytest.mark.parametrize("n, kind", params(product((0, 2, 3), ("py", "t")), {
    "0-t": POP, "2-t": POP, "3-t": POP}))
def test_pop_in_loop(n, kind):
    check(pop_n, (n,), kind)


@pytest.mark.parametrize("n, kind", params([(10, "py"), (4, "py"), (4, "t")], {
    "4-t": "composite names as state: t[i] = i on a Python list in a tensor loop"}))
def test_item_assignment_in_loop(n, kind):
    check(fill_in_place, ([0] * 10, n), ("py", kind))
