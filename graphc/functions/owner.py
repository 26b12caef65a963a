"""A trace's reference to its ``gc.function``, weak so that no cycle keeps them alive.

A ``Function`` keeps its traces (``ConcreteFunction``) and each trace needs its function
(its name, parameters, backend; ``variable_aliasing.py`` traces through it). A strong
reference back would make a cycle that only the cycle collector frees, as TensorFlow's
function has none: ``ConcreteFunction._function`` is this descriptor, which holds the
function weakly. A trace that outlives its function (``cf = gc.function(f)
.get_concrete_function(x)``, then ``cf(x)``) gets a stand-in: a new ``Function`` of the
same Python function and options (``Function.__reduce__``), made once and held by the
trace (it holds no trace back; ``dict.setdefault`` keeps one when threads race).
"""

from __future__ import annotations

import weakref


class WeakOwner:
    """The ``_function`` attribute of a ``ConcreteFunction``: set to the ``Function``
    that traced it, read as that function while it lives, else as its stand-in."""

    def __set__(self, concrete, function) -> None:
        if not hasattr(function, "_traces"):  # keeps no traces (a loaded SavedModel's
            concrete.__dict__["_function_ref"] = lambda: function  # owner): held strongly
            return
        concrete.__dict__["_function_ref"] = weakref.ref(function)
        # what makes it anew: its Python function and options, not its traces
        concrete.__dict__["_function_reduce"] = function.__reduce__()

    def __get__(self, concrete, owner=None):
        if concrete is None:
            return self
        function = concrete.__dict__["_function_ref"]()
        if function is not None:
            return function
        stand_in = concrete.__dict__.get("_function_stand_in")
        if stand_in is None:
            make, args = concrete.__dict__["_function_reduce"]
            stand_in = concrete.__dict__.setdefault("_function_stand_in", make(*args))
        return stand_in
