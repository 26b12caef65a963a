"""``gc.print`` takes ``tf.print``'s ``output_stream=`` (and ``name=``) as ported code
spells them; ``file=`` and ``output_stream=`` together are refused."""

import io

import numpy as np
import pytest

import graphc as gc


def test_output_stream_is_file():
    out = io.StringIO()

    @gc.function
    def f(x):
        gc.print("x:", x, output_stream=out, name="show_x")
        return x + 1

    np.testing.assert_array_equal(f(np.arange(2)).numpy(), [1, 2])
    f(np.arange(2))
    assert out.getvalue() == "x: [0 1]\nx: [0 1]\n"
    with pytest.raises(TypeError, match="not both"):
        gc.print(1, file=out, output_stream=out)
