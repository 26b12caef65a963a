"""Loader fuzz: every mutated saved directory loads correctly or raises SavedModelError."""

import hashlib
import io
import json
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphc as gc
from graphc.errors import SavedModelError

FILES = ("graph.json", "constants.npz", "variables.npz")
X = np.array([[1.0, -2.0, 3.0]], np.float32)


@pytest.fixture(scope="module")
def saved(tmp_path_factory, branchy):
    f = branchy
    path = tmp_path_factory.mktemp("fuzz") / "base"
    gc.saved_model.save(f, path)
    return path, f(X).numpy()


def _refresh(d):
    """Rewrite the manifest for the files as they are now (so checks past it run)."""
    m = json.loads((d / "manifest.json").read_text())
    for name in FILES:
        data = (d / name).read_bytes()
        m["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    (d / "manifest.json").write_text(json.dumps(m))


def _paths(doc, prefix=()):
    """Every (container, key) position in a JSON document."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for k, v in items:
        yield doc, k
        if isinstance(v, dict | list):
            yield from _paths(v, prefix + (k,))


HOSTILE = [None, True, -1, 2 ** 70, 1.5, "", "__import__('os').system('exit 3')",
           "../../etc/passwd", [], {}, {"graph": 0}, {"graph": 99}, {"const": "nope"},
           {"variable": 7}, {"float": "nan(0)"}, {"pickle": "gASV"}, {"dtype": "object"},
           "no_such_op", [2 ** 62, 2 ** 62], {"shape": [10 ** 12] * 8, "dtype": "float64"},
           [[[[[[[]]]]]]], {"output": 5}, 10 ** 5, {"container": "type"},
           {"container": "list"}, {"tuple": [{"container": "dict"}, "a"]}]


def _npz_bytes(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _huge_header_npy():
    """An .npy whose header declares 2**40 float64s over 8 bytes of data."""
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        head, {"descr": "<f8", "fortran_order": False, "shape": (2 ** 40,)})
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("c0.npy", head.getvalue() + b"\0" * 8)
    return buf.getvalue()


def _object_npz():
    import zipfile
    buf = io.BytesIO()
    arr = io.BytesIO()
    np.save(arr, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("v0.npy", arr.getvalue())
    return buf.getvalue()


mutation = st.one_of(
    st.tuples(st.just("flip"), st.sampled_from(FILES + ("manifest.json",)),
              st.integers(0, 10 ** 6), st.integers(1, 255), st.booleans()),
    st.tuples(st.just("truncate"), st.sampled_from(FILES + ("manifest.json",)),
              st.integers(0, 10 ** 6), st.booleans()),
    st.tuples(st.just("json_delete"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("json_rename"), st.integers(0, 10 ** 6), st.sampled_from(["x", "op"])),
    st.tuples(st.just("json_replace"), st.integers(0, 10 ** 6), st.sampled_from(HOSTILE)),
    st.tuples(st.just("npz"), st.sampled_from(["object", "huge", "extra", "wrongdtype"])),
    st.tuples(st.just("symlink"), st.sampled_from(FILES)),
)


@settings(max_examples=50, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutation)
def test_mutated_directory_loads_or_raises_saved_model_error(saved, tmp_path_factory, mut):
    base, want = saved
    d = tmp_path_factory.mktemp("m") / "d"
    shutil.copytree(base, d)
    kind = mut[0]
    if kind in ("flip", "truncate"):
        f = d / mut[1]
        data = bytearray(f.read_bytes())
        pos = mut[2] % len(data)
        if kind == "flip":
            data[pos] ^= mut[3]
        else:
            data = data[:pos]
        f.write_bytes(bytes(data))
        if mut[-1] and mut[1] != "manifest.json":
            _refresh(d)
    elif kind.startswith("json_"):
        doc = json.loads((d / "graph.json").read_text())
        spots = list(_paths(doc))
        parent, key = spots[mut[1] % len(spots)]
        if kind == "json_delete":
            del parent[key]
        elif kind == "json_rename" and isinstance(parent, dict):
            parent[mut[2]] = parent.pop(key)
        else:
            parent[key] = mut[2]
        (d / "graph.json").write_text(json.dumps(doc))
        _refresh(d)
    elif kind == "npz":
        name, data = {
            "object": ("variables.npz", _object_npz),
            "huge": ("constants.npz", _huge_header_npy),
            "extra": ("constants.npz", lambda: _npz_bytes(**{"c0": np.ones(3)},
                                                          **{"../x": np.ones(1)})),
            "wrongdtype": ("variables.npz",
                           lambda: _npz_bytes(v0=np.array(["a", "b", "c"]))),
        }[mut[1]]
        (d / name).write_bytes(data())
        _refresh(d)
    else:
        (d / mut[1]).unlink()
        (d / mut[1]).symlink_to(base / mut[1])
    try:
        m = gc.saved_model.load(d)
    except SavedModelError as e:
        assert str(e)
        return
    # The mutation left a valid directory (maybe a different graph, or without f): what
    # loaded must run, or refuse an input that no longer matches its signatures.
    if not hasattr(m, "f"):
        assert "f" not in json.loads((d / "graph.json").read_text())["functions"]
        return
    try:
        got = m.f(X)
    except TypeError as e:  # a signature that changed
        assert "matches no saved signature" in str(e)
        return
    assert isinstance(got, gc.Tensor)
    if mut[0] == "flip" and mut[1] == "manifest.json":  # only the manifest's formatting
        np.testing.assert_allclose(got.numpy(), want)


def test_hostile_strings_are_never_evaluated(saved, tmp_path):
    base, _ = saved
    d = tmp_path / "d"
    shutil.copytree(base, d)
    doc = json.loads((d / "graph.json").read_text())
    doc["graphs"][-1]["nodes"][0]["op"] = "__import__('os')._exit(3)"
    (d / "graph.json").write_text(json.dumps(doc))
    _refresh(d)
    with pytest.raises(SavedModelError, match="graph.json: .*is not a registered graphc op"):
        gc.saved_model.load(d)


def test_tampered_file_fails_its_digest(saved, tmp_path):
    base, _ = saved
    d = tmp_path / "d"
    shutil.copytree(base, d)
    (d / "constants.npz").write_bytes((d / "constants.npz").read_bytes()[:-1] + b"!")
    with pytest.raises(SavedModelError, match="constants.npz: sha256 does not match"):
        gc.saved_model.load(d)


def test_unmodified_directory_loads(saved):
    base, want = saved
    np.testing.assert_allclose(gc.saved_model.load(base).f(X).numpy(), want)


@pytest.mark.parametrize("key, value, match", [
    ("axis", True, r"attr 'axis': True is not of the declared kind \(none or int or tuple"),
    ("axis", {"float": "0x1p+0"}, r"attr 'axis': a float is not of the declared kind"),
    ("axis", {"tuple": [1, "a"]}, r"attr 'axis': a tuple is not of the declared kind"),
    ("keepdims", 0, r"attr 'keepdims': 0 is not of the declared kind \(bool\)"),
    ("ddof", 1, r"op 'sum' has no attr 'ddof' \(it takes \['axis', 'dtype', 'keepdims'\]"),
    ("dtype", {"graph": 0}, r"attr 'dtype': a Graph is not of the declared kind"),
])
def test_wrong_typed_plain_attr_is_refused_at_load(saved, tmp_path, key, value, match):
    base, _ = saved
    d = tmp_path / "d"
    shutil.copytree(base, d)
    doc = json.loads((d / "graph.json").read_text())
    (node,) = [n for n in doc["graphs"][-1]["nodes"] if n["attrs"].get("axis") == 1]
    node["attrs"][key] = value
    (d / "graph.json").write_text(json.dumps(doc))
    _refresh(d)
    with pytest.raises(SavedModelError, match=r"graph.json: graphs\[\d+\]\.nodes\[\d+\] "
                       r"\(op 'sum'\).*" + match):
        gc.saved_model.load(d)


def test_missing_required_attr_is_refused_at_load(saved, tmp_path):
    base, _ = saved
    d = tmp_path / "d"
    shutil.copytree(base, d)
    doc = json.loads((d / "graph.json").read_text())
    node = next(n for g in doc["graphs"] for n in g["nodes"] if n["op"] == "cond")
    del node["attrs"]["false_fn"]
    (d / "graph.json").write_text(json.dumps(doc))
    _refresh(d)
    with pytest.raises(SavedModelError, match=r"op 'cond' needs attrs \['false_fn'\]"):
        gc.saved_model.load(d)


@pytest.mark.parametrize("name", ["__class__", "__dict__", "__call__", "__init__",
                                  "__class__.f", "signatures.f", "a.__dict__.f", "a..f"])
def test_dunder_function_names_never_become_attributes(saved, tmp_path, name):
    """A file may name a function ``__class__`` or ``__dict__``: the loaded object keeps
    its own (setting them would fail or change what the object is); the function is
    still reachable through ``functions`` (``__call__`` also by calling the object). A
    dotted name loads on sub-objects only when every part before the last is a plain
    attribute name."""
    base, want = saved
    d = tmp_path / "d"
    shutil.copytree(base, d)
    doc = json.loads((d / "graph.json").read_text())
    doc["functions"] = {name: doc["functions"]["f"]}
    (d / "graph.json").write_text(json.dumps(doc))
    _refresh(d)
    m = gc.saved_model.load(d)
    assert type(m).__name__ == "Loaded" and isinstance(m.__dict__, dict)
    np.testing.assert_allclose(m.functions[name](X).numpy(), want)
    if name == "__call__":
        np.testing.assert_allclose(m(X).numpy(), want)
    else:
        with pytest.raises(TypeError, match="this saved object has no __call__"):
            m(X)


@pytest.mark.parametrize("attr", ["a.b.v", "a.__dict__", "__class__.v", "f.v", "a.signatures"])
def test_dotted_variable_names_are_checked(saved, tmp_path, attr):
    base, _ = saved
    d = tmp_path / "d"
    shutil.copytree(base, d)
    doc = json.loads((d / "graph.json").read_text())
    doc["variables"] = [{"name": "v", "shape": [], "dtype": "float32", "trainable": True,
                         "key": "v0"}]
    doc["object_variables"] = {attr: 0}
    (d / "graph.json").write_text(json.dumps(doc))
    np.savez(d / "variables.npz", v0=np.float32(1))
    _refresh(d)
    if attr == "a.b.v":  # plain names: sub-objects made on the way
        m = gc.saved_model.load(d)
        assert float(m.a.b.v.numpy()) == 1.0 and m.a.variables == [m.a.b.v]
        return
    with pytest.raises(SavedModelError, match="object_variables|sub-object"):
        gc.saved_model.load(d)
