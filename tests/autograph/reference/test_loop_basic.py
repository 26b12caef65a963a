"""Reference: `while` and `for` loops over Python values, tensors and ranges, with zero,
one or two loop variables (TensorFlow's loop_basic_test; its dataset variants are not
ported: graphc has no tf.data)."""

import pytest
from ref_testing import check, expect_error, params, product

import graphc as gc


def _variable():
    return gc.Variable(0)


def while_on_variable(n, v):
    v.assign(0)
    while v.read_value() < n:
        v.assign_add(1)
    return v.read_value()


def for_on_variable(items, v):
    v.assign(0)
    for _ in items:
        v.assign_add(1)
    return v.read_value()


def while_one_var(n):
    i = 0
    while i < n:
        i = i * 10 + 1
    return i


def for_one_var(items):
    i = 0
    for i in items:
        pass
    return i


def while_two_vars(n):
    s = 0
    i = 0
    while i < n:
        s = s * 10 + i
        i += 1
    return s


def for_two_vars(items):
    s = 0
    for i in items:
        s = s * 10 + i
    return s


def while_else(x, y):
    s = 0
    while x > 0:
        x -= 1
        if x > y:
            break
        s += x
    else:
        s = -100
    return s


def for_else(l1, l2):
    s = 0
    for c in l1:
        if c in l2:
            break
        s = s * 10 + c
    else:
        s = -1000
    return s


def while_creates_var(n):
    i = 0
    while i < n:
        i = n + 1
        j = i + 1
    return i, j  # noqa: F821


def for_creates_var(items):
    for i in items:
        pass
    return i  # noqa: F821


def successive_whiles(n1, n2):
    s = 0
    i = 0
    while i < n1:
        s = s * 10 + i
        i += 1
    i = 0
    while i < n2:
        s = s * 10 + i
        i += 1
    return s


def successive_fors(l1, l2):
    s = 0
    for i in l1:
        s = s * 10 + i
    for i in l2:
        s = s * 10 + i
    return s


def nested_whiles_into_array(n1, n2):
    i = 0
    out = gc.TensorArray(gc.int64, size=0, dynamic_size=True, element_shape=())
    while i < n1:
        j = 0
        s = 0
        while j < n2:
            s = s * 10 + i * j
            j += 1
        out = out.write(i, s)
        i += 1
    return out.stack()


def nested_whiles_into_list(n1, n2):
    i = 0
    out = []
    while i < n1:
        j = 0
        s = 0
        while j < n2:
            s = s * 10 + i * j
            j += 1
        out.append(s)
        i += 1
    return out


def nested_fors_into_array(m):
    out = gc.TensorArray(gc.int64, size=0, dynamic_size=True, element_shape=())
    for row in m:
        s = 0
        for j in row:
            s = s * 10 + j
        out = out.write(out.size(), s)
    return out.stack()


def nested_fors_into_list(m):
    out = []
    for row in m:
        s = 0
        for j in row:
            s = s * 10 + j
        out.append(s)
    return out


LISTS = ([], [1], [1, 2], [3, 1, 2])


@pytest.mark.parametrize("n, kind", params(product((0, 1, 2), ("py", "t"))))
def test_while_on_variable(n, kind):
    check(while_on_variable, (n, _variable), (kind, "fresh"))


@pytest.mark.parametrize("items, kind", params(product(LISTS, ("py", "t"))))
def test_for_on_variable(items, kind):
    check(for_on_variable, (items, _variable), (kind, "fresh"))


@pytest.mark.parametrize("fn, n, kind", params(product(
    (while_one_var, while_two_vars), (0, 1, 2, 5), ("py", "t"))))
def test_while_loop_vars(fn, n, kind):
    check(fn, (n,), kind)


@pytest.mark.parametrize("fn, items, kind", params(product(
    (for_one_var, for_two_vars), LISTS, ("py", "t"))))
def test_for_loop_vars(fn, items, kind):
    check(fn, (items,), kind)


@pytest.mark.parametrize("l1, l2, kind", params(product(
    ([], [1, 2], [3, 4]), ([], [1, 2]), ("py",))))
def test_for_else(l1, l2, kind):
    # TF: NotImplementedError for/else; graphc converts the else clause. `c in l2` on a
    # tensor is not a graphc construct, so only Python lists here
    check(for_else, (l1, l2), kind)


@pytest.mark.parametrize("x, y, kind", params(product((0, 2, 4), (0, 2), ("py", "t"))))
def test_while_else(x, y, kind):
    # TF: NotImplementedError while/else; graphc converts the else clause
    check(while_else, (x, y), kind)


@pytest.mark.parametrize("n, kind", params([(0, "py"), (1, "py"), (2, "py"), (1, "t"),
                                            (2, "t")]))
def test_while_creates_var(n, kind):
    check(while_creates_var, (n,), kind)


def test_while_creates_var_zero_iterations_tensor_is_refused():
    # TF: InvalidArgumentError, the loop must iterate at least once
    expect_error(while_creates_var, (0,), "t")


@pytest.mark.parametrize("items, kind", params([
    ([], "py"), ([1], "py"), ([1, 2], "py"), ([1], "t"), ([1, 2], "t")]))
def test_for_creates_var(items, kind):
    check(for_creates_var, (items,), kind)


def test_for_creates_var_zero_iterations_tensor_is_refused():
    # TF: InvalidArgumentError, the loop must iterate at least once
    expect_error(for_creates_var, ([],), "t")


@pytest.mark.parametrize("n1, n2, k1, k2", params(product(
    (0, 1, 2), (0, 1, 2), ("py", "t"), ("py", "t"))))
def test_successive_whiles(n1, n2, k1, k2):
    check(successive_whiles, (n1, n2), (k1, k2))


@pytest.mark.parametrize("l1, l2, k1, k2", params(product(
    ([], [1], [1, 2]), ([], [1], [1, 2]), ("py", "t"), ("py", "t"))))
def test_successive_fors(l1, l2, k1, k2):
    check(successive_fors, (l1, l2), (k1, k2))


@pytest.mark.parametrize("n1, n2, k1, k2", params(product(
    (0, 1, 2), (0, 1, 2), ("py", "t"), ("py", "t"))))
def test_nested_whiles_into_tensor_array(n1, n2, k1, k2):
    check(nested_whiles_into_array, (n1, n2), (k1, k2), reference=nested_whiles_into_list)


@pytest.mark.parametrize("m", params([
    ([[1]],), ([[1], [2]],), ([[1, 2]],), ([[1, 2], [3, 4]],), ([[]],), ([[], []],)]))
def test_nested_fors_into_tensor_array(m):
    check(nested_fors_into_array, (m,), "t", reference=nested_fors_into_list)


@pytest.mark.parametrize("m, kind", params(product(
    ([[]], [[], [1]], [[], [1], [1, 2]]), ("py", "tlist"))))
def test_nested_fors_into_tensor_array_ragged(m, kind):
    # a Python list of rows (tensors of different lengths for "tlist"): the outer loop
    # stays Python
    check(nested_fors_into_array, (m,), kind, reference=nested_fors_into_list)
