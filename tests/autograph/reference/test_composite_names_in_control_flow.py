"""Reference: dict items and list elements (composite names) assigned under `if`,
`while` and `for` (TensorFlow's composite_names_in_control_flow_test).

graphc documents that only names are state (docs/autograph.md): ``d[k] = v`` under a
tensor condition or loop is unsupported. These cases measure that gap."""

import pytest
from ref_testing import check, expect_error, params, product


def if_sets_dict_item(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    else:
        x["b"] = -1
    return x


def if_sets_list_item(a):
    x = [a, 0]
    if x[0] > 0:
        x[1] = 1
    else:
        x[1] = -1
    return x


def only_if_adds_key(a):
    x = {"a": a}
    if x["a"] > 0:
        x["b"] = 1
    return x


def only_else_adds_key(a):
    x = {"a": a}
    if x["a"] > 0:
        pass
    else:
        x["b"] = 1
    return x


def only_if_adds_nested_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["a"]["b"] = 1
    return x


def only_else_adds_nested_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        pass
    else:
        x["a"]["b"] = 1
    return x


def writes_into_missing_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["b"]["a"] = 1
    else:
        x["b"]["a"] = -1
    return x


def if_writes_into_missing_key(a):
    x = {"a": {"a": a}}
    if x["a"]["a"] > 0:
        x["b"]["a"] = 1
    return x


def while_dict(x, a, b):
    y = {"a": a, "b": b}
    while x > 0:
        x -= 1
        y["a"] += 1
    return y


def while_list(x, a, b):
    y = [a, b]
    while x > 0:
        x -= 1
        y[0] += 1
    return y


def while_on_dict_only(a, b):
    y = {"a": a, "b": b}
    while y["b"] <= 10:
        y["a"] += 1
        y["b"] *= 2
    return y


def while_on_list_only(a, b):
    y = [a, b]
    while y[1] <= 10:
        y[0] += 1
        y[1] *= 2
    return y


def while_adds_key(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y


def for_dict(n, x, a, b):
    y = {"a": a, "b": b}
    for i in range(n):
        x -= 1
        y["a"] += i
    return y


def for_list(n, x, a, b):
    y = [a, b]
    for i in range(n):
        x -= 1
        y[0] += i
    return y


def for_dict_only(n, a, b):
    y = {"a": a, "b": b}
    for _ in range(n):
        y["a"] += 1
    return y


def for_list_only(n, a, b):
    y = [a, b]
    for _ in range(n):
        y[0] += 1
    return y


def for_adds_key(n, x):
    y = {}
    for i in range(n):
        x -= i
        y["a"] = x
    return y


@pytest.mark.parametrize("fn, a, kind", params(product(
    (if_sets_dict_item, if_sets_list_item), (0, 1), ("py", "t"))))
def test_if_sets_item(fn, a, kind):
    check(fn, (a,), kind)


@pytest.mark.parametrize("fn, a", params(product(
    (only_if_adds_key, only_else_adds_key, only_if_adds_nested_key,
     only_else_adds_nested_key), (0, 1))))
def test_one_branch_adds_key_python(fn, a):
    check(fn, (a,), "py")


@pytest.mark.parametrize("fn, a", params(product(
    (only_if_adds_key, only_else_adds_key, only_if_adds_nested_key,
     only_else_adds_nested_key), (0, 1))))
def test_one_branch_adds_key_tensor_is_refused(fn, a):
    # TF: ValueError "'x['b']' must also be initialized in the else/main branch"
    expect_error(fn, (a,), "t", match="x")


@pytest.mark.parametrize("fn, a, kind", params([
    (writes_into_missing_key, 1, "py"), (writes_into_missing_key, 1, "t"),
    (writes_into_missing_key, 0, "t"), (if_writes_into_missing_key, 1, "py"),
    (if_writes_into_missing_key, 1, "t"), (if_writes_into_missing_key, 0, "t")]))
def test_missing_key_raises_key_error(fn, a, kind):
    expect_error(fn, (a,), kind, KeyError, match="'b'")


@pytest.mark.parametrize("fn, x, kind, a", params(product(
    (while_dict, while_list), (0, 1, 2), ("py", "t"), (3, 7))))
def test_while_updates_item(fn, x, kind, a):
    check(fn, (x, a, 0), (kind, "py", "py"))


@pytest.mark.parametrize("fn, kind, b", params(product(
    (while_on_dict_only, while_on_list_only), ("py", "t"), (3, 4, 5, 6))))
def test_while_state_only_in_items(fn, kind, b):
    check(fn, (0, b), ("py", kind))


@pytest.mark.parametrize("b, kind", params([
    (5, "py"), (10, "py"), (11, "py"), (5, "t"), (10, "t")]))
def test_while_adds_key(b, kind):
    check(while_adds_key, (b,), kind)


def test_while_adds_key_zero_iterations_tensor_is_refused():
    # TF: InvalidArgumentError, the loop must iterate at least once to initialize y['a']
    expect_error(while_adds_key, (11,), "t")


@pytest.mark.parametrize("fn, n, kind", params(product(
    (for_dict, for_list), (0, 1, 2), ("py", "t"))))
def test_for_updates_item(fn, n, kind):
    check(fn, (n, 1, 1, 1), (kind, "py", "py", "py"))


@pytest.mark.parametrize("fn, n, kind", params(product(
    (for_dict_only, for_list_only), (0, 1, 2), ("py", "t"))))
def test_for_state_only_in_items(fn, n, kind):
    check(fn, (n, 1, 1), (kind, "py", "py"))


@pytest.mark.parametrize("n, kind", params([(0, "py"), (1, "py"), (2, "py"), (1, "t"),
                                            (2, "t")]))
def test_for_adds_key(n, kind):
    check(for_adds_key, (n, 0), (kind, "py"))


def test_for_adds_key_zero_iterations_tensor_is_refused():
    # TF: InvalidArgumentError, the loop must iterate at least once to initialize y['a']
    expect_error(for_adds_key, (0, 0), ("t", "py"))
