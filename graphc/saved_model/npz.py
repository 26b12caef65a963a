"""Reading ``.npy`` data without trusting it: saved ``.npz`` members and command-line inputs.

Every size a file states is checked before memory is set aside for it:

* the npy header is read by hand (magic, version, a header length of at most
  :data:`MAX_HEADER` bytes), then parsed by NumPy's header reader (``ast.literal_eval``:
  nothing is evaluated); only plain dtypes of the saved-graph table are accepted;
* an ``.npz`` member's header is checked against the array ``graph.json`` declares for it
  (a ``const`` node's output aval, a variable's shape and dtype) *before* its data is
  decompressed: a member the graph does not declare, or of another dtype or shape, is
  refused;
* a compressed member whose size the graph does not pin down (a variable with a ``None``
  dim) may expand to at most :data:`MAX_EXPANSION` times its compressed size (``np.savez``
  stores members uncompressed; ``np.savez_compressed`` deflates them); other compression
  methods are refused;
* data is read in pieces of :data:`CHUNK` bytes straight into the array it fills, so a
  hostile file costs at most about its own size, or the arrays its graph declares.
"""

from __future__ import annotations

import io
import math
import re
import zipfile

import numpy as np

from graphc.errors import SavedModelError
from graphc.saved_model import schema

MAX_HEADER = 10_000      # bytes of npy header text (NumPy's own default limit)
CHUNK = 1 << 22          # bytes read (and decompressed) at a time
MAX_EXPANSION = 2        # uncompressed / compressed bytes of a member the graph leaves open
_MEMBER = re.compile(r"^[A-Za-z0-9_]{1,64}\.npy$")
_MAGIC = b"\x93NUMPY"
_START = "the npy magic number and version"


# --------------------------------------------------------------------------- declared
def declared_arrays(doc) -> dict:
    """``{member key: (shape or None, dtype)}`` for the arrays ``graph.json`` uses: each
    ``const`` node's value (its output aval) and each variable's value. Tolerant of a
    malformed document: what cannot be read here is refused later, when it is built."""
    out: dict = {}
    if type(doc) is not dict:
        return out
    graphs = doc.get("graphs")
    for g in graphs if type(graphs) is list else ():
        nodes = g.get("nodes") if type(g) is dict else None
        for n in nodes if type(nodes) is list else ():
            if type(n) is not dict or n.get("op") != "const" or type(n.get("attrs")) \
                    is not dict or type(n.get("outputs")) is not list \
                    or len(n["outputs"]) != 1:
                continue
            ref = n["attrs"].get("value")
            if type(ref) is dict and type(ref.get("const")) is str:
                aval = n["outputs"][0]
                if type(aval) is dict and set(aval) == {"shape", "dtype"}:
                    _declare(out, ref["const"], aval["shape"], aval["dtype"], "a constant")
    variables = doc.get("variables")
    for i, e in enumerate(variables if type(variables) is list else ()):
        if type(e) is dict and type(e.get("key")) is str:
            _declare(out, e["key"], e.get("shape"), e.get("dtype"), f"variables[{i}]")
    return out


def _declare(out, key, shape, dtype, what) -> None:
    try:
        entry = (schema.shape(shape, what), schema.dtype(dtype, what))
    except SavedModelError:
        return  # refused with its own message when the graph is built
    if out.setdefault(key, entry) != entry:
        raise SavedModelError(f"graph.json: {key} is declared both as "
                              f"{_text(*out[key])} and as {_text(*entry)}")


def _text(shape, dtype) -> str:
    dims = "?" if shape is None else ", ".join("?" if d is None else str(d) for d in shape)
    return f"{dtype.name}[{dims}]"


# --------------------------------------------------------------------------- .npz
def read_npz(data: bytes, name: str, declared: dict, max_total: int) -> dict:
    """The arrays of one saved ``.npz`` (``data``: its bytes), each member checked against
    ``declared`` (:func:`declared_arrays`) before its data is read."""
    out = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            if sum(i.file_size for i in infos) > max_total:
                raise SavedModelError(f"{name}: members expand past the size cap")
            for info in infos:
                if not _MEMBER.match(info.filename):
                    raise SavedModelError(f"{name}: bad member name {info.filename!r}")
                key = info.filename[:-4]
                if key in out:
                    raise SavedModelError(f"{name}: member {info.filename} is there twice")
                if key not in declared:
                    raise SavedModelError(f"{name}: member {info.filename} is not an array "
                                          "graph.json uses")
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise SavedModelError(f"{name}: member {info.filename} uses compression "
                                          f"method {info.compress_type}; only stored "
                                          "(np.savez) and deflated members are read")
                with z.open(info) as f:
                    out[key] = _member(f, info, f"{name}: {info.filename}", declared[key])
    except SavedModelError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError, KeyError) as e:
        raise SavedModelError(f"{name}: unreadable ({type(e).__name__}: {e})"[:300]) \
            from None
    return out


def _member(f, info, where, want) -> np.ndarray:
    shape, fortran, dt, used = read_header(f, where)
    want_shape, want_dtype = want
    if dt.newbyteorder("=") != want_dtype or not _fits(shape, want_shape):
        raise SavedModelError(f"{where} holds {_text(shape, dt)}; graph.json declares "
                              f"{_text(want_shape, want_dtype)}")
    nbytes = math.prod(shape) * dt.itemsize
    pinned = want_shape is not None and None not in want_shape
    if not pinned and info.compress_type != zipfile.ZIP_STORED \
            and info.file_size > MAX_EXPANSION * info.compress_size + 4096:
        raise SavedModelError(f"{where}: {info.compress_size} compressed bytes expand to "
                              f"{info.file_size}, over {MAX_EXPANSION}x (a zip bomb?); "
                              "save it with np.savez, uncompressed")
    if nbytes > info.file_size - used:
        raise SavedModelError(f"{where} declares shape {shape} but holds only "
                              f"{info.file_size} bytes")
    return read_data(f, shape, fortran, dt, where)


def _fits(shape, want) -> bool:
    return want is None or len(shape) == len(want) and all(
        w is None or w == s for w, s in zip(want, shape))


# --------------------------------------------------------------------------- .npy
def read_npy(f, size: int, where: str) -> np.ndarray:
    """The array of one ``.npy`` file ``f`` of ``size`` bytes (a plain dtype only)."""
    shape, fortran, dt, used = read_header(f, where)
    if math.prod(shape) * dt.itemsize > size - used:
        raise SavedModelError(f"{where} declares shape {shape} of {dt.name} but holds only "
                              f"{max(size - used, 0)} bytes of data")
    return read_data(f, shape, fortran, dt, where)


def read_header(f, where):
    """``(shape, fortran_order, dtype, header bytes)`` of the npy data at ``f``'s position;
    the dtype is native-endian (the data is swapped on reading)."""
    start = _exactly(f, 8, where, _START)
    if start[:6] != _MAGIC:
        raise SavedModelError(f"{where} is not an .npy array (it does not start with "
                              "NumPy's magic number)")
    major = start[6]
    if major not in (1, 2, 3) or start[7] != 0:
        raise SavedModelError(f"{where} has npy version {major}.{start[7]}")
    width = 2 if major == 1 else 4
    length_bytes = _exactly(f, width, where, "the npy header length")
    length = int.from_bytes(length_bytes, "little")
    if length > MAX_HEADER:
        raise SavedModelError(f"{where}: an npy header of {length} bytes (at most "
                              f"{MAX_HEADER} are read)")
    text = _exactly(f, length, where, "the npy header")
    head = io.BytesIO(start + length_bytes + text)
    np.lib.format.read_magic(head)
    reader = (np.lib.format.read_array_header_1_0 if major == 1
              else np.lib.format.read_array_header_2_0)
    try:  # ast.literal_eval of the header text: nothing in it is evaluated
        shape, fortran, dt = reader(head, max_header_size=MAX_HEADER)
    except Exception as e:  # ValueError, SyntaxError, tokenize.TokenError, ...
        raise SavedModelError(f"{where} has an unreadable npy header ({type(e).__name__}: "
                              f"{e})"[:300]) from None
    if dt.name not in schema.DTYPES or dt.hasobject or dt.fields is not None \
            or dt.subdtype is not None:
        raise SavedModelError(f"{where} has dtype {dt}, not a plain numeric dtype")
    if any(d < 0 for d in shape):
        raise SavedModelError(f"{where} declares the negative shape {shape}")
    if len(shape) > schema.MAX_RANK:
        raise SavedModelError(f"{where} has {len(shape)} dims (at most "
                              f"{schema.MAX_RANK})")
    return shape, fortran, dt, 8 + width + length


def read_data(f, shape, fortran, dt, where) -> np.ndarray:
    """``shape`` elements of ``dt`` read from ``f`` in pieces into one new C-ordered,
    native-endian, writable array."""
    out = np.empty(shape[::-1] if fortran else shape, dtype=dt)
    raw = memoryview(out.reshape(-1).view(np.uint8))
    pos = 0
    while pos < len(raw):
        n = f.readinto(raw[pos:pos + CHUNK])
        if not n:
            raise SavedModelError(f"{where} is truncated ({pos} of {len(raw)} data bytes)")
        pos += n
    if fortran:
        out = np.ascontiguousarray(out.T)
    if not dt.isnative:
        out = out.astype(dt.newbyteorder("="))
    return out


def _exactly(f, n, where, what) -> bytes:
    data = f.read(n)
    if len(data) != n:
        if not data and what == _START:
            raise SavedModelError(f"{where} is empty, not an .npy array")
        raise SavedModelError(f"{where} ends inside {what} ({len(data)} of {n} bytes)")
    return data
