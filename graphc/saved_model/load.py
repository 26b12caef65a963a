"""``gc.saved_model.load``: validate a saved directory completely, then build from it.

Order: manifest (format, version, member names, sizes, sha256 of each file),
``graph.json`` parsed (JSON only), the ``.npz`` members (names; each npy header read
first and checked against the array ``graph.json`` declares for it, before its data is
decompressed: ``npz.py``), the graph document (version, every op name in the registry,
every attr by the attr table, every value, graph, constant and variable reference defined
before use), then ``verify`` on each rebuilt graph. Any problem is a
``gc.errors.SavedModelError`` naming the file. Nothing read is evaluated or imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat

from graphc.core import registry
from graphc.errors import SavedModelError
from graphc.ir.verify import VerificationError, verify
from graphc.saved_model import npz, schema
from graphc.saved_model.build import build_graph, build_object, check_calls
from graphc.saved_model.save import FILES
from graphc.variables import Variable

MAX_JSON_BYTES = 256 * 2 ** 20
MAX_NPZ_BYTES = 8 * 2 ** 30


def load(path):
    """Load a directory written by ``gc.saved_model.save``: an object with the saved
    functions as attributes, ``.signatures`` (name -> callable) and ``.variables``.

    >>> m = gc.saved_model.load("saved/f")   # doctest: +SKIP
    >>> m.f(gc.constant([1.0, 2.0]))         # doctest: +SKIP
    """
    path = os.fspath(path)
    if not os.path.isdir(path) or os.path.islink(path):
        raise SavedModelError(f"{path}: not a saved-graph directory")
    manifest = _json(_read(path, "manifest.json", None, 2 ** 20), "manifest.json")
    files = _check_manifest(manifest)
    data = {name: _read(path, name, files[name], MAX_JSON_BYTES if name.endswith(".json")
                        else MAX_NPZ_BYTES) for name in FILES}
    doc = _json(data["graph.json"], "graph.json")
    declared = npz.declared_arrays(doc)  # each member is checked against it before reading
    constants = npz.read_npz(data["constants.npz"], "constants.npz", declared, MAX_NPZ_BYTES)
    values = npz.read_npz(data["variables.npz"], "variables.npz", declared, MAX_NPZ_BYTES)
    return _from_doc(doc, constants, values, "graph.json")


def from_parts(graph_json: bytes, constants: dict, values: dict, name="graph.json"):
    """The loaded object for checked arrays and the (unchecked) ``graph.json`` bytes."""
    return _from_doc(_json(graph_json, name), constants, values, name)


def _from_doc(doc, constants, values, name):
    try:
        return _build(doc, constants, values)
    except SavedModelError as e:
        raise SavedModelError(f"{name}: {e}") from None
    except RecursionError:
        raise SavedModelError(f"{name}: nested too deeply") from None


# --------------------------------------------------------------------------- files
def _read(path, name, expected, cap) -> bytes:
    full = os.path.join(path, name)
    try:
        st = os.lstat(full)
    except OSError as e:
        raise SavedModelError(f"{name}: cannot be read ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise SavedModelError(f"{name}: not a regular file (symlinks are not followed)")
    if st.st_size > cap:
        raise SavedModelError(f"{name}: {st.st_size} bytes is over the {cap}-byte cap")
    if expected is not None and st.st_size != expected["size"]:
        raise SavedModelError(f"{name}: {st.st_size} bytes, the manifest says "
                              f"{expected['size']}")
    with open(full, "rb") as f:  # as many bytes as the file has (not the cap: a buffer of
        data = f.read(st.st_size + 1)  # cap bytes fails under an address-space limit)
    if len(data) != st.st_size:
        raise SavedModelError(f"{name}: changed while it was read")
    if expected is not None and hashlib.sha256(data).hexdigest() != expected["sha256"]:
        raise SavedModelError(f"{name}: sha256 does not match the manifest")
    return data


def _json(data: bytes, name):
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise SavedModelError(f"{name}: not valid JSON ({type(e).__name__}: {e})"[:300]) \
            from None


def _no_constant(token):
    raise ValueError(f"{token} is not allowed")


def _check_manifest(m) -> dict:
    if type(m) is not dict or m.get("format") != schema.FORMAT:
        raise SavedModelError(f"manifest.json: not a {schema.FORMAT} manifest")
    _check_version(m.get("version"), "manifest.json")
    files = m.get("files")
    if type(files) is not dict:
        raise SavedModelError("manifest.json: 'files' must be an object")
    for name in files:
        if (type(name) is not str or not name or "/" in name or "\\" in name
                or ".." in name or os.path.isabs(name) or "\0" in name):
            raise SavedModelError(f"manifest.json: bad member name {name!r}")
    if set(files) != set(FILES):
        raise SavedModelError(f"manifest.json: lists {sorted(files)}, expected "
                              f"{sorted(FILES)}")
    for name, entry in files.items():
        if (type(entry) is not dict or type(entry.get("size")) is not int
                or type(entry.get("sha256")) is not str
                or not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"])):
            raise SavedModelError(f"manifest.json: entry for {name} needs size and sha256")
    return files


def _check_version(version, name):
    if (type(version) is not list or len(version) != 2
            or not all(type(v) is int for v in version)):
        raise SavedModelError(f"{name}: 'version' must be [major, minor]")
    if version[0] != schema.VERSION[0] or version[1] > schema.VERSION[1]:
        raise SavedModelError(f"{name}: format version {version[0]}.{version[1]} cannot be "
                              f"read by this graphc (reads {schema.VERSION[0]}.0 to "
                              f"{schema.VERSION[0]}.{schema.VERSION[1]})")


# --------------------------------------------------------------------------- graph.json
def _build(doc, constants, values):
    if type(doc) is not dict or doc.get("format") != schema.FORMAT:
        raise SavedModelError(f"not a {schema.FORMAT} document")
    _check_version(doc.get("version"), "graph.json")
    for key, kind in (("graphs", list), ("signatures", dict), ("functions", dict),
                      ("variables", list), ("object_variables", dict)):
        if type(doc.get(key)) is not kind:
            raise SavedModelError(f"{key!r} must be a JSON {kind.__name__}")
    variables = [_variable(e, values, i) for i, e in enumerate(doc["variables"])]
    ops = registry.all_ops()
    refs = schema.LoadRefs([], constants, variables)
    for i, g in enumerate(doc["graphs"]):
        refs.graphs.append(build_graph(g, refs, ops, f"graphs[{i}]"))
    for i, g in enumerate(refs.graphs):
        try:
            verify(g)
        except VerificationError as e:
            raise SavedModelError(f"graphs[{i}] fails verification: {e}"[:2000]) from None
        check_calls(g, f"graphs[{i}]")
    return build_object(doc, refs)


def _variable(entry, values, i) -> Variable:
    where = f"variables[{i}]"
    if type(entry) is not dict or set(entry) != {"name", "shape", "dtype", "trainable",
                                                  "key"}:
        raise SavedModelError(f"{where}: needs exactly name, shape, dtype, trainable, key")
    if type(entry["name"]) is not str or type(entry["trainable"]) is not bool:
        raise SavedModelError(f"{where}: name must be a string, trainable a bool")
    shape = schema.shape(entry["shape"], where)
    dtype = schema.dtype(entry["dtype"], where)
    value = values.get(entry["key"]) if type(entry["key"]) is str else None
    if value is None:
        raise SavedModelError(f"{where}: value {entry['key']!r} is not in variables.npz")
    if shape is None or value.dtype != dtype or len(value.shape) != len(shape) or any(
            d is not None and d != s for d, s in zip(shape, value.shape)):
        raise SavedModelError(f"{where}: value {value.dtype}{list(value.shape)} does not "
                              f"fit the declared {dtype}{list(shape or [])}")
    return Variable(value, shape=shape, name=entry["name"], trainable=entry["trainable"])
