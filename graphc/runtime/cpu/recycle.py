"""Output buffer recycling: a program writes a big result into last call's result array
when nobody but graphc holds that array any more.

Why: a fresh result of more than ~32 MiB comes from ``mmap`` (glibc), so every call pays
the kernel for zeroed pages on first write: for ``x + 1`` on 2^24 float32 values that was
9.8-13.8 ms of a call that takes 5.9-7.1 ms writing into an existing array (measured
with two threads; ``benchmarks/README.md``). TensorFlow and XLA avoid it with their own
allocator pools; graphc instead keeps each big result of the last call as a *spare* and
passes it back to the program (``codegen``: parameter ``rK``, used when its shape is
right). The program writes into it only when it is provably unobserved:

* ``sys.getrefcount`` says only the local variable holds the Python object: no Tensor,
  no NumPy view (a view's ``base`` is the array), no memoryview, no argument of this
  call (the argument list holds it) refers to it;
* its buffer's Numba ``MemInfo`` has refcount 1: no *other* array returned by the same
  call (a view made inside the program) shares the memory.

Anything else (a user keeping the result, or a view of it, or passing it back in) simply
means a fresh array, as without recycling. Taking a spare empties its slot first, so two
threads never get the same buffer. At most :data:`MAX_HELD_BYTES` are held as spares in
the whole process; only results of at least :data:`MIN_BYTES` are kept (smaller ones
are served by malloc's free lists without page faults).
"""

from __future__ import annotations

import sys
import weakref

import numpy as np

from graphc.runtime.cpu import native_runtime

MIN_BYTES = 1 << 22          # keep results of 4 MiB and more
MAX_HELD_BYTES = 1 << 30     # at most 1 GiB of spares in the process

_all_spares: "weakref.WeakSet[Spares]" = weakref.WeakSet()


def held_bytes() -> int:
    """Bytes currently held as spares by every live program."""
    return sum(s.nbytes() for s in list(_all_spares))


class Spares:
    """The spare result arrays of one compiled program, one slot per ``rK`` parameter.

    ``slots`` are ``(output_index, dtype, ndim)``; :meth:`take` returns the arrays to
    pass (a spare or a zero-size dummy of the right type), :meth:`keep` stores the
    call's results.
    """

    def __init__(self, slots):
        # the type of the memory owner of Numba's results, whether or not Numba is imported
        self._meminfo = native_runtime.nrt_module()._MemInfo
        self.slots = tuple(slots)
        self._dummies = [np.empty((0,) * nd, dt) for _i, dt, nd in self.slots]
        self._spare = [None] * len(self.slots)
        _all_spares.add(self)

    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._spare if a is not None)

    def take(self) -> list:
        bufs = []
        spare, getrefcount, meminfo = self._spare, sys.getrefcount, self._meminfo
        for k, dummy in enumerate(self._dummies):
            buf = spare[k]
            spare[k] = None
            if buf is not None:
                base = buf.base
                # 2 = the local ``buf`` + getrefcount's argument: nobody else holds it
                if getrefcount(buf) == 2 and type(base) is meminfo and base.refcount == 1:
                    bufs.append(buf)
                    continue
            bufs.append(dummy)
        return bufs

    def keep(self, outputs) -> None:
        budget = None
        for k, (i, _dt, _nd) in enumerate(self.slots):
            out = outputs[i]
            if out.nbytes < MIN_BYTES or type(out.base) is not self._meminfo:
                continue
            if budget is None:
                budget = MAX_HELD_BYTES - held_bytes()
            if out.nbytes <= budget:
                self._spare[k] = out
                budget -= out.nbytes

    def release(self) -> None:
        """Drop every spare (``gc.cache.clear()`` calls this on all programs)."""
        self._spare = [None] * len(self.slots)


def release_all() -> None:
    for s in list(_all_spares):
        s.release()
