"""AutoGraph statements: each case runs as Python and as graph ops, with the same results."""

import numpy as np
from ag_testing import as_tensor, assert_transformed, op_names

import graphc as gc
import graphc.numpy as gnp


# ------------------------------------------------------------------ SPEC section 3
def simple_relu(x):
    if gc.greater(x, 0):
        return x
    else:
        return 0


def test_simple_relu():
    f = gc.function(simple_relu)
    assert f(gc.constant(1)).numpy() == 1
    assert f(gc.constant(-1)).numpy() == 0
    assert f(gc.constant(-1)).dtype == np.int32  # `return 0` takes the other branch's dtype
    assert_transformed(simple_relu, [1, -1, 0, 2.5, -2.5], graph_ops={"cond"})


# ------------------------------------------------------------------ if
def elif_chain(x):
    if x < 0:
        r = -1
    elif x == 0:
        r = 0
    elif x < 10:
        r = x * 2
    else:
        r = 100
    return r


def test_if_elif_chain():
    assert_transformed(elif_chain, [-5, 0, 3, 50], graph_ops={"cond"})


def if_without_else(x):
    y = x
    if x > 3:
        y = y * 10
    return y + 1


def test_if_without_else():
    assert_transformed(if_without_else, [1, 4])


def python_condition_stays_python(x, flag):
    if flag:
        return x + 1
    return x - 1


def test_python_condition_is_not_staged():
    f = assert_transformed(python_condition_stays_python, [(1, True), (1, False)])
    graph = f.get_concrete_function(as_tensor(1), True).graph
    assert "cond" not in op_names(graph)  # only the taken branch was traced


def nested_ifs(x, y):
    if x > 0:
        if y > 0:
            r = x + y
        else:
            r = x - y
    else:
        r = -x
    return r


def test_nested_ifs():
    assert_transformed(nested_ifs, [(1, 2), (1, -2), (-1, 5)])


def conditional_expression(x):
    return x * 2 if x > 0 else -x


def test_conditional_expression():
    assert_transformed(conditional_expression, [3, -3, 0], graph_ops={"cond"})


def logical_operators(a, b):
    if a > 0 and b > 0 or not (a < -5):
        return a + b
    return a - b


def test_and_or_not():
    assert_transformed(logical_operators, [(1, 2), (-1, 2), (-10, 2), (3, -4)])


def lazy_and(x, i):
    # the right operand indexes x only when i is in range: it must stay lazy
    return i < gc.size(x) and x[i] > 0


def test_and_is_lazy_on_tensors():
    x = gnp.asarray([1, -2, 3])
    f = gc.function(lazy_and)
    assert bool(f(x, gnp.asarray(0)).numpy()) is True
    assert bool(f(x, gnp.asarray(1)).numpy()) is False
    assert bool(f(x, gnp.asarray(7)).numpy()) is False  # x[7] never runs


def casts_and_len(x, v):
    return int(x) + 1, float(x) / 2, bool(x), len(v)


def test_int_float_bool_len():
    for args in [(3.7, [1, 2, 3]), (0.0, [4])]:
        want = casts_and_len(*args)
        got = gc.function(casts_and_len)(*[as_tensor(a) for a in args])
        assert [np.asarray(g).item() for g in got] == list(want)
    t = gc.function(casts_and_len)(gnp.asarray(2.5), gnp.asarray([1, 2]))
    assert t[0].dtype == np.int64 and t[1].dtype == np.float64 and t[2].dtype == np.bool_
    assert t[3] == 2  # len() of a known dim stays a Python int


# ------------------------------------------------------------------ while
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_collatz_data_dependent_trip_count():
    f = assert_transformed(collatz_steps, [1, 6, 27, 97], graph_ops={"while_loop", "cond"})
    assert f(gnp.asarray(837799)).numpy() == 524
    assert f.tracing_count == 1


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-10:
        x = 0.5 * (x + a / x)
    return x


def test_newton_iterations():
    assert_transformed(newton_sqrt, [2.0, 9.0, 1e6], graph_ops={"while_loop"})


def vector_newton(a):
    x = a
    while gnp.max(gnp.abs(x * x - a)) >= 1e-9:
        x = 0.5 * (x + a / x)
    return x


def test_vector_wide_while_loop():
    a = gnp.asarray([2.0, 9.0, 16.0, 1e4])
    out = gc.function(vector_newton)(a)
    np.testing.assert_allclose(out.numpy(), np.sqrt(a.numpy()))


def while_with_break_and_continue(n):
    i = 0
    total = 0
    while True:
        i += 1
        if i > n:
            break
        if i % 3 == 0:
            continue
        total += i
    return total


def test_while_true_with_break_and_continue():
    assert_transformed(while_with_break_and_continue, [0, 5, 10], graph_ops={"while_loop"})


def while_else(n):
    i = 0
    while i < n:
        if i == 7:
            break
        i += 1
    else:
        i = -i
    return i


def test_while_else():
    assert_transformed(while_else, [3, 10])


# ------------------------------------------------------------------ for
def sum_rows(m):
    total = gnp.zeros(m.shape[1])
    for row in m:
        total = total + row * 2
    return total


def test_for_over_tensor_rows():
    m = gnp.asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    f = gc.function(sum_rows)
    np.testing.assert_allclose(f(m).numpy(), sum_rows(m.numpy()))
    assert "while_loop" in op_names(f.get_concrete_function(m).graph)


def test_for_over_rows_of_unknown_length():
    f = gc.function(sum_rows, input_signature=[gc.TensorSpec([None, 2], gc.float64)])
    for n in (0, 1, 4):
        m = np.arange(2 * n, dtype=np.float64).reshape(n, 2)
        np.testing.assert_allclose(f(m).numpy(), sum_rows(m))


def nested_loops(n):
    total = 0
    for i in gc.range(n):
        if i % 2 == 0:
            continue
        for j in gc.range(n):
            if j > i:
                break
            total += j
    return total


def test_nested_for_loops_with_break_and_continue():
    for n in (0, 3, 6):
        assert gc.function(nested_loops)(gnp.asarray(n)).numpy() == nested_loops(n)
    concrete = gc.function(nested_loops).get_concrete_function(gnp.asarray(3))
    # gc.range(n) loops count: the range is never read (pruned), never indexed
    assert "getitem" not in op_names(concrete.graph)
    assert "range" not in op_names(concrete.optimized_graph)


def range_of_tensor(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def test_range_of_a_tensor_is_a_graph_loop():
    assert_transformed(range_of_tensor, [0, 1, 5], graph_ops={"while_loop"})


def python_list_loop(x):
    for k in [1, 2, 3]:
        x = x * k
    return x


def test_for_over_python_list_is_unrolled():
    f = assert_transformed(python_list_loop, [1.5])
    assert "while_loop" not in op_names(f.get_concrete_function(as_tensor(1.5)).graph)


def fibonacci(n):
    a, b = 0, 1
    for _ in gc.range(n):
        a, b = b, a + b
    return a


def test_tuple_assignment_in_loop():
    for n in (0, 1, 10, 30):
        assert gc.function(fibonacci)(gnp.asarray(n)).numpy() == fibonacci(n)


def for_else(x):
    s = 0
    for v in x:
        if v > 10:
            break
        s += v
    else:
        s = -s
    return s


def test_for_else():
    for v in ([1, 2, 3], [1, 20, 3]):
        assert gc.function(for_else)(gnp.asarray(v)).numpy() == for_else(v)


# ------------------------------------------------------------------ return
def first_negative(x):
    for i in gc.range(gc.size(x)):
        if x[i] < 0:
            return i
    return -1


def test_early_return_from_loop():
    f = gc.function(first_negative)
    assert f(gnp.asarray([1, 2, -3, 4])).numpy() == 2
    assert f(gnp.asarray([1, 2, 3])).numpy() == -1
    assert f.tracing_count == 2  # one per shape


def find(x, target):
    i = 0
    while i < gc.size(x):
        if x[i] == target:
            return i
        i += 1
    return -1


def test_early_return_from_while():
    f = gc.function(find)
    assert f(gnp.asarray([4, 5, 6]), gnp.asarray(6)).numpy() == 2
    assert f(gnp.asarray([4, 5, 6]), gnp.asarray(9)).numpy() == -1


def return_in_nested_branches(x):
    for i in gc.range(10):
        if i > 2:
            if x > 0:
                return i * x
            else:
                return i - x
    return 0


def test_return_in_nested_branches_inside_loop():
    assert_transformed(return_in_nested_branches, [3, -3])


def find_pair(x):
    for i in gc.range(gc.size(x)):
        if x[i] < 0:
            return i, x[i] * 2
    return -1, x[0] * 0


def test_early_return_of_a_tuple_from_loop():
    f = gc.function(find_pair)
    i, v = f(gnp.asarray([1, 2, -3]))
    assert (i.numpy(), v.numpy()) == (2, -6)
    i, v = f(gnp.asarray([1, 2, 3]))
    assert (i.numpy(), v.numpy()) == (-1, 0)


def return_none_or_value(x, flag):
    if flag:
        return
    return x


def test_bare_return():
    assert gc.function(return_none_or_value)(as_tensor(1), True) is None
    assert gc.function(return_none_or_value)(as_tensor(1), False).numpy() == 1


# ------------------------------------------------------------------ calls
def _helper(y):
    if y > 0:
        return y
    return -y


def calls_user_function(x):
    return _helper(x) + _helper(-x)


def test_called_user_functions_are_converted():
    assert_transformed(calls_user_function, [3, -2], graph_ops={"cond"})


def nested_definition(x):
    def inner(y):
        while y > 10:
            y = y - 10
        return y
    return inner(x)


def test_nested_function_definitions_are_converted():
    assert_transformed(nested_definition, [5, 37], graph_ops={"while_loop"})


class Scaler:
    def __init__(self, k):
        self.k = k

    def clip(self, x):
        if x > self.k:
            return self.k
        return x

    @gc.function
    def __call__(self, x):
        return self.clip(x) * 2


def test_methods_are_converted():
    s = Scaler(3)
    assert s(gnp.asarray(5)).numpy() == 6
    assert s(gnp.asarray(1)).numpy() == 2


def test_lambda_is_converted():
    f = gc.function(lambda x: x + 1 if x > 0 else x - 1)
    assert f(gnp.asarray(2)).numpy() == 3
    assert f(gnp.asarray(-2)).numpy() == -3


def count_positive(t):
    count = 0
    total = 0.0
    for x in t:
        if x > 0:
            count += 1
            total += x
    return count, total


def test_weak_python_numbers_in_loops_take_the_body_dtype():
    count, total = gc.function(count_positive)(gc.constant([1.0, -2.0, 3.0]))
    assert (count.numpy(), total.numpy()) == (2, 4.0)
    assert count.dtype == np.int64  # 0 + 1: Python ints only, NumPy's default int
    assert total.dtype == np.float32  # 0.0 + float32 row: the row's dtype wins


def test_python_loop_state_in_nested_structures():
    def acc(x):
        state = (x, 0)
        while state[0] > 1:
            state = (state[0] // 2, state[1] + 1)
        return state[1]

    assert gc.function(acc)(gnp.asarray(32)).numpy() == 5
