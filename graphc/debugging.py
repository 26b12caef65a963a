"""``gc.debugging``: run-time assertions (``tf.debugging``).

Each check runs where it is written: eagerly it checks at once; inside ``gc.function`` it
becomes an ``assert`` node that checks on every call, in order with the function's other
effects, and is never pruned even though nothing uses its result. A failed check raises
``gc.errors.InvalidArgumentError`` with your message, the condition, the values and the
line of the check.

>>> @gc.function
... def safe_log(x):
...     gc.debugging.assert_greater(x, 0.0, message="log needs positive input")
...     return gnp.log(x)
>>> safe_log(gnp.asarray([1.0, -2.0]))
Traceback (most recent call last):
InvalidArgumentError: log needs positive input
assert_greater failed: condition x > y did not hold element-wise ...
"""

from __future__ import annotations

from graphc.ops.effects import Assert, assert_op  # noqa: F401 - Assert: gc.debugging.Assert


def assert_equal(x, y, message=None, summarize=None, name=None):
    """Check ``x == y`` element-wise (with broadcasting)."""
    assert_op("equal", (x, y), message, summarize=summarize)


def assert_none_equal(x, y, message=None, summarize=None, name=None):
    """Check ``x != y`` element-wise."""
    assert_op("not_equal", (x, y), message, summarize=summarize)


def assert_less(x, y, message=None, summarize=None, name=None):
    """Check ``x < y`` element-wise."""
    assert_op("less", (x, y), message, summarize=summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    """Check ``x <= y`` element-wise."""
    assert_op("less_equal", (x, y), message, summarize=summarize)


def assert_greater(x, y, message=None, summarize=None, name=None):
    """Check ``x > y`` element-wise."""
    assert_op("greater", (x, y), message, summarize=summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    """Check ``x >= y`` element-wise."""
    assert_op("greater_equal", (x, y), message, summarize=summarize)


def assert_positive(x, message=None, summarize=None, name=None):
    """Check ``x > 0`` element-wise."""
    assert_op("positive", (x,), message, summarize=summarize)


def assert_negative(x, message=None, summarize=None, name=None):
    """Check ``x < 0`` element-wise."""
    assert_op("negative", (x,), message, summarize=summarize)


def assert_non_negative(x, message=None, summarize=None, name=None):
    """Check ``x >= 0`` element-wise."""
    assert_op("non_negative", (x,), message, summarize=summarize)


def assert_non_positive(x, message=None, summarize=None, name=None):
    """Check ``x <= 0`` element-wise."""
    assert_op("non_positive", (x,), message, summarize=summarize)


def assert_all_finite(x, message=None, name=None):
    """Check that ``x`` has no NaN or Inf; returns ``x`` (``tf.debugging`` does too).

    >>> y = gc.debugging.assert_all_finite(x, "x must be finite")   # doctest: +SKIP
    """
    assert_op("all_finite", (x,), message)
    return x
