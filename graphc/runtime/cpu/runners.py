"""The hot path around a compiled program: ``runner(dispatcher, program, graph)`` returns
``arrays -> list`` with ``interpreter.run_graph``'s contract.

Two shapes: one output and nothing passed after the inputs (``run_one``, the entry point
called directly), and everything else (``run``: constants, the values of the variables
the program uses (``kernels_state``), last call's big results to write into
(``recycle.py``); the new variable values come back after the outputs and are stored
only when the call succeeded). Any exception from the program reruns the graph on the
interpreter, whose error names the node and the user's line.
"""

from __future__ import annotations

import numpy as np

from graphc.core.interpreter import run_graph
from graphc.runtime.cpu import codegen, threads
from graphc.runtime.cpu.recycle import Spares


def runner(dispatcher, program, graph):
    """The hot path: one call of the compiled program, 0-d results wrapped as arrays.

    The compiled entry point is called itself (0.2 us for a scalar program, against
    0.6 us through Numba's dispatcher, which matches every argument's type first). The
    entry point checks dtypes (a mismatch raises TypeError) but trusts rank and layout:
    given an array of another rank or a non-contiguous one it reads the wrong memory. So
    those two are checked here first (cheap attribute reads), and any doubt goes through
    the dispatcher; a failed match there (a non-contiguous input has another Numba type)
    retries with C-contiguous copies. Constants and last call's spare results are the
    program's own, of the types it was compiled for.

    When the program raises (a shape mismatch at run time, max of an empty array), the
    call is repeated on the interpreter, whose error names the node and the user's line.
    A program with parallel loops picks its threads per call (:mod:`threads`).
    """
    return threads.adaptive(_runner(dispatcher, program, graph),
                            codegen.PARALLEL_DECORATOR in program.source,
                            getattr(dispatcher, "thread_controls", None))


def _runner(dispatcher, program, graph):
    consts = program.consts
    # 0-d results: (index, dtype or None where Numba's boxed value gives it: _plain)
    scalars = tuple((i, None if _plain(dt) else dt)
                    for i, dt in enumerate(program.scalar_outputs) if dt is not None)
    asarray = np.array  # a 0-d array of the value: 176 ns, np.asarray 260 ns
    simple = not (consts or program.recycle or program.variables)
    if simple and len(program.scalar_outputs) == 1:
        # one output and nothing passed after the inputs, the common small case: no list
        # building or argument concatenation (0.3 us of a 2 us call)
        return _run_one(dispatcher, program, graph)

    spares = Spares(program.recycle) if program.recycle else None
    variables = [ref.deref() for ref, _aval in program.variables]
    written = [variables[k] for k in program.written]
    n_out = len(graph.outputs)
    bare = len(program.scalar_outputs) == 1
    entry = _entry_point(dispatcher)
    # the ranks of the inputs and variables: checked before calling the entry point itself
    # (constants and spare results are the program's own, of the types it was compiled for)
    ranks = tuple(len(a.shape) for a in program.input_avals)
    var_ranks = tuple(len(aval.shape) for _ref, aval in program.variables)

    def run(arrays):
        # after the inputs: constants, the variables' values, last call's spare results
        extra = consts
        try:
            fits = _fit(arrays, ranks)
            if variables:
                values = _values(variables)
                fits = fits and _fit(values, var_ranks)
                extra = (*extra, *values)
            if spares:
                extra = (*extra, *spares.take())
            out = (entry if fits else dispatcher)(*arrays, *extra)
        except TypeError:
            out = _contiguous_retry(dispatcher, arrays, extra)
            if out is None:
                return run_graph(graph, arrays)
        except Exception:  # noqa: BLE001 - the interpreter raises the user-facing error
            return run_graph(graph, arrays)  # (an uninitialized variable included)
        del extra
        out = [out] if bare else list(out)  # one value comes back bare, more as a tuple
        for i, dt in scalars:
            out[i] = asarray(out[i]) if dt is None else asarray(out[i], dt)
        if written:
            _store(written, out[n_out:], out[:n_out])
            del out[n_out:]
        if spares:
            spares.keep(out)
        return out

    return run


def _run_one(dispatcher, program, graph):
    """``run`` for one output and nothing but the inputs: the entry point called directly
    when every input has the rank it was compiled for and is C-contiguous (or 0-d). One
    input, the commonest case, has a closure of its own (a zip loop cost 0.2 us)."""
    dt = program.scalar_outputs[0]
    entry = _entry_point(dispatcher)
    ranks = tuple(len(a.shape) for a in program.input_avals)
    asarray = np.array  # a 0-d array of the value: 130 ns, np.asarray 260 ns
    plain = _plain(dt)

    def retry(arrays, error):  # a TypeError: maybe a layout Numba's type did not match
        out = _contiguous_retry(dispatcher, arrays, ()) if isinstance(
            error, TypeError) else None
        return run_graph(graph, arrays) if out is None else [out if dt is None else asarray(
            out, dt)]

    if len(ranks) == 1:
        rank = ranks[0]

        def run_one(arrays):
            try:
                a = arrays[0]
                fits = a.ndim == rank and (not rank or a.flags.c_contiguous)  # 0-d: always
                out = (entry if fits else dispatcher)(*arrays)  # one value: returned bare
            except Exception as e:  # noqa: BLE001 - the interpreter raises the user's error
                return retry(arrays, e)
            return [out if dt is None else asarray(out) if plain else asarray(out, dt)]

        def single(a):  # array -> array, no lists: ConcreteFunction's hot path (_hot)
            try:
                out = entry(a) if a.ndim == rank and (not rank or a.flags.c_contiguous) \
                    else dispatcher(a)
            except Exception as e:  # noqa: BLE001
                return retry([a], e)[0]
            return out if dt is None else asarray(out) if plain else asarray(out, dt)

        run_one.one = single
        return run_one

    def run_many(arrays):
        try:
            fits = all(a.ndim == rank and (not rank or a.flags.c_contiguous)
                       for a, rank in zip(arrays, ranks))
            out = (entry if fits else dispatcher)(*arrays)
        except Exception as e:  # noqa: BLE001
            return retry(arrays, e)
        return [out if dt is None else asarray(out) if plain else asarray(out, dt)]
    return run_many


def _plain(dt) -> bool:
    """Whether a 0-d result of ``dt`` is ``np.array(value)`` without a dtype: Numba's
    boxed value (int, float, bool, complex) gives it (90 ns instead of 176 ns)."""
    return dt is not None and np.array(dt.type(0).item()).dtype == dt


def _fit(arrays, ranks) -> bool:
    """Whether each array has its rank and is C-contiguous (or 0-d): what the entry point
    trusts (a 3-input program checked by the dispatcher instead: +1.2 us a call)."""
    if len(arrays) != len(ranks):
        return False
    for a, rank in zip(arrays, ranks):
        if a.ndim != rank or (rank and not a.flags.c_contiguous):
            return False
    return True


def _contiguous_retry(dispatcher, arrays, extra):
    """The call again with C-contiguous copies (copy() keeps a 0-d array 0-d); None if it
    still fails (wrong dtype or rank, or a run-time error)."""
    fixed = [x.copy() if type(x) is np.ndarray and not x.flags.c_contiguous else x
             for x in arrays]
    try:
        return dispatcher(*fixed, *extra)
    except Exception:  # noqa: BLE001
        return None


def _values(variables) -> list:
    """The variables' current values, C-contiguous (as the program's signature says)."""
    values = []
    for var in variables:
        value = var._current()  # ValueError when uninitialized
        values.append(value if value.flags.c_contiguous else value.copy())
    return values


def _store(variables, values, outputs) -> None:
    """Give each variable its new value (``Variable._set``: read-only); an output sharing
    that memory (a read after the write) is read-only too, as it is when the interpreter
    returns the variable's array itself."""
    for var, value in zip(variables, values):
        var._set(value)
        if value.ndim:
            ptr = value.ctypes.data
            for o in outputs:
                if o.ndim and o.ctypes.data == ptr:
                    o.flags.writeable = False


def _entry_point(dispatcher):
    """The compiled function's own Python entry point (one signature per program; a
    program linked from its machine code, ``native.NativeProgram``, has it as is)."""
    if hasattr(dispatcher, "entry_point"):
        return dispatcher.entry_point
    (sig,) = dispatcher.signatures
    return dispatcher.overloads[sig].entry_point

