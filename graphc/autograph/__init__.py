"""AutoGraph: Python control flow on tensors, rewritten into graph control flow.

``gc.autograph.to_graph(fn)`` returns the converted function, ``to_code(fn)`` its
source, and ``@do_not_convert`` opts a function out. ``gc.function`` converts the
functions it traces (``autograph=True``, the default). See ``docs/autograph.md``.
"""

from graphc.autograph.api import AutographWarning, do_not_convert, to_code, to_graph

__all__ = ["AutographWarning", "do_not_convert", "experimental", "to_code", "to_graph"]


def __getattr__(name):
    if name == "experimental":  # gc.autograph.experimental, imported on first use
        import importlib  # deferred: graphc.autograph.experimental, TensorFlow's spelling

        return importlib.import_module(f"{__name__}.experimental")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"experimental"})
