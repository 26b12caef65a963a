"""How a ``ConcreteFunction`` shows its inputs, as TensorFlow 2.21 does.

* ``structured_input_signature`` is ``(args, kwargs)``: the positional parameters and
  then each element of ``*args`` in ``args``; keyword-only parameters and the items of
  ``**kwargs`` in ``kwargs`` (a dict by name). The trace itself keeps one entry per
  parameter (``ConcreteFunction._structured``); this is only how it is shown.
* A spec without a name of its own is named after its parameter (``x``; ``x_0``,
  ``x_1``, ... for the leaves of a nest), an element of ``*args`` after its position
  (``args_0``, ``args_1``; ``args_0_0`` inside a nest) and an item of ``**kwargs``
  after its key.
"""

from __future__ import annotations

from graphc import nest


def _names(name, arg) -> list:
    n = len(nest.flatten(arg)[0])
    return [name] if n == 1 else [f"{name}_{i}" for i in range(n)]


def leaf_names(param, arg) -> list:
    """The default spec name of each leaf of ``arg``, the value bound to ``param``
    (in ``nest.flatten`` order)."""
    if param.kind == param.VAR_POSITIONAL and isinstance(arg, tuple):
        return [n for j, item in enumerate(arg) for n in _names(f"{param.name}_{j}", item)]
    if param.kind == param.VAR_KEYWORD and isinstance(arg, dict):
        keys = sorted(arg, key=repr)  # nest.flatten's order of a dict
        return [n for k in keys for n in _names(str(k), arg[k])]
    return _names(param.name, arg)


def split_call(params, values) -> tuple:
    """``(positional, keywords)``: ``values`` (one per parameter, in order) as a call
    passes them: ``*args`` spread, ``**kwargs`` and keyword-only parameters by name."""
    pos, kw = [], {}
    for p, v in zip(params, values):
        if p.kind == p.VAR_POSITIONAL:
            pos.extend(v)
        elif p.kind == p.VAR_KEYWORD:
            kw.update(v)
        elif p.kind == p.KEYWORD_ONLY:
            kw[p.name] = v
        else:
            pos.append(v)
    return pos, kw


def args_and_kwargs(params, structured) -> tuple:
    """``(args, kwargs)`` of the per-parameter ``structured`` signature."""
    if params is None:  # made elsewhere (a loaded SavedModel): one entry per parameter
        return tuple(structured), {}
    args, kwargs = split_call(params, structured)
    return tuple(args), kwargs
