"""Reference: `if` statements and the variables they create, change, delete or leave
undefined (TensorFlow's cond_basic_test)."""

import pytest
from ref_testing import check, expect_error, params, product

import graphc as gc
from graphc.errors import AutographError


def _variable():
    return gc.Variable(0)


def if_writes_variable(c, v):
    v.assign(0)
    if c:
        v.assign_add(1)
    return v.read_value()


def if_else_write_variable(c, v):
    v.assign(0)
    if c:
        v.assign_add(1)
    else:
        v.assign_add(2)
    return v.read_value()


def if_one_var(n):
    i = 0
    if i < n:
        i += 1
    return i


def if_else_one_var(n):
    i = 0
    if i < n:
        i += 1
    else:
        i += 2
    return i


def if_two_vars(n):
    i = 0
    j = 1
    if i < n:
        i += 1
        j *= 10
    return i, j


def if_else_two_vars(n):
    i = 0
    j = 1
    if i < n:
        i += 1
        j *= 10
    else:
        i += 2
        j *= 20
    return i, j


def defined_in_if(c):
    if c:
        i = 1
    return i  # noqa: F821


def defined_in_both(c):
    if c:
        i = 1
    else:
        i = 2
    return i


def defined_in_else(c):
    if c:
        pass
    else:
        i = 2
    return i  # noqa: F821


def deleted_in_if(c):
    i = 1
    if c:
        del i
    return i  # noqa: F821


def deleted_in_both(c):
    i = 1
    if c:
        del i
    else:
        del i
    return i  # noqa: F821


def deleted_in_else(c):
    i = 2
    if c:
        pass
    else:
        del i
    return i  # noqa: F821


def none_in_if(c):
    i = 0
    j = 1
    if c:
        i = None
        j = 2
    return i, j


def none_in_both(c):
    if c:
        i = None
        j = 1
    else:
        i = None
        j = 2
    return i, j


def none_in_else(c):
    i = 1
    j = 1
    if c:
        pass
    else:
        i = None
        j = 2
    return i, j


def local_in_if(c):
    i = 0
    if c:
        j = 1
        i = j + 1
    return i


def local_in_both(c):
    i = 0
    if c:
        j = 1
    else:
        j = 2
        i = j + 1
    return i


def modified_local(c):
    i = 0
    j = 2
    if c:
        j = j + 1
        i = j + 1
    return i


def return_in_nested_if(c1, c2):
    if c1:
        if c2:
            return 1
    return 2


def successive_ifs(n1, n2):
    s = 0
    i = 0
    if i < n1:
        s = s * 10 + i
        i += 1
    i = 0
    if i < n2:
        s = s * 10 + i
        i += 1
    return s


def successive_if_elses(n1, n2):
    s = 0
    i = 0
    if i < n1:
        s = s * 10 + i
        i += 1
    else:
        s = s * 11 + i
        i += 2
    i = 0
    if i < n2:
        s = s * 10 + i
        i += 1
    else:
        s = s * 11 + i
        i += 2
    return s


def nested_ifs(n1, n2):
    i = 0
    out = 0
    if i < n1:
        j = 0
        s = 0
        if j < n2:
            s = s * 10 + i * j
            j += 1
        out = out * 1000 + s
        i += 1
    return out


def nested_if_elses(n1, n2):
    i = 0
    out = 0
    if i < n1:
        j = 0
        s = 0
        if j < n2:
            s = s * 10 + i * j
            j += 1
        else:
            s = s * 11 + i * j
            j += 2
        out = out * 1000 + s
        i += 1
    else:
        j = 0
        s = 0
        if j < n2:
            s = s * 12 + i * j
            j += 3
        else:
            s = s * 13 + i * j
            j += 4
        out = out * 2000 + s
        i += 1
    return out


@pytest.mark.parametrize("fn, c, kind", params(product(
    (if_writes_variable, if_else_write_variable), (True, False), ("py", "t"))))
def test_only_variable_writes(fn, c, kind):
    check(fn, (c, _variable), (kind, "fresh"))


@pytest.mark.parametrize("fn, n, kind", params(product(
    (if_one_var, if_else_one_var, if_two_vars, if_else_two_vars), (0, 1, -3), ("py", "t"))))
def test_several_vars(fn, n, kind):
    check(fn, (n,), kind)


@pytest.mark.parametrize("fn, c", params([
    (defined_in_if, True), (defined_in_else, False), (deleted_in_if, False),
    (deleted_in_else, True), (defined_in_if, False), (defined_in_else, True),
    (deleted_in_if, True), (deleted_in_else, False), (deleted_in_both, True),
    (deleted_in_both, False)]))
def test_lifetime_python_condition(fn, c):
    # where Python raises UnboundLocalError, graphc must raise too
    check(fn, (c,), "py")


@pytest.mark.parametrize("c, kind", params(product((True, False), ("py", "t"))))
def test_defined_in_both_branches(c, kind):
    check(defined_in_both, (c,), kind)


@pytest.mark.parametrize("fn, c", params(product(
    (defined_in_if, defined_in_else, deleted_in_both), (True, False))))
def test_lifetime_tensor_condition_is_refused(fn, c):
    # TF: ValueError "'i' must also be initialized in the else/main branch"
    expect_error(fn, (c,), "t", (AutographError, UnboundLocalError), match="'i'")


@pytest.mark.parametrize("fn, c", params([
    (none_in_if, True), (none_in_both, False), (none_in_else, False),
    (none_in_if, False), (none_in_both, True), (none_in_else, True)]))
def test_none_python_condition(fn, c):
    check(fn, (c,), "py")


@pytest.mark.parametrize("fn, c", params(product((none_in_if, none_in_else), (True, False))))
def test_none_against_tensor_is_refused(fn, c):
    # TF: ValueError "'i' is None"
    expect_error(fn, (c,), "t", AutographError, match="'i'")


@pytest.mark.parametrize("c", [True, False])
def test_none_in_both_branches_stays_python(c):
    # TF refuses this too ("'i' is None"); graphc keeps a value that is the same Python
    # value on both sides as that value (docs/autograph.md), so it matches Python
    check(none_in_both, (c,), "t")


@pytest.mark.parametrize("fn, c, kind", params(product(
    (local_in_if, local_in_both, modified_local), (True, False), ("py", "t"))))
def test_branch_locals(fn, c, kind):
    check(fn, (c,), kind)


@pytest.mark.parametrize("c1, c2, kinds", params(product(
    (True, False), (True, False), (("py", "py"), ("t", "t"), ("py", "t"), ("t", "py")))))
def test_return_in_nested_if(c1, c2, kinds):
    # TF refuses tensor conditions here ("must also have a return"); graphc lowers
    # `return` to flags, so the result is defined on every path and must match Python
    check(return_in_nested_if, (c1, c2), kinds)


@pytest.mark.parametrize("fn, n1, k1, n2, k2", params(product(
    (successive_ifs, successive_if_elses, nested_ifs, nested_if_elses),
    (0, 1), ("py", "t"), (0, 1), ("py", "t"))))
def test_composition(fn, n1, k1, n2, k2):
    check(fn, (n1, n2), (k1, k2))
