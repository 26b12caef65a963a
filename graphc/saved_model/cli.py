"""``python -m graphc show PATH`` and ``python -m graphc run PATH ...``.

``show`` prints what a saved directory holds: each signature's arguments and results (as
``saved_model_cli show --all`` does), which Python function each belongs to, and the
variables. ``run`` calls one signature on arrays read from ``.npy`` files (headers checked first,
nothing unpickled) and prints the results or writes them to an ``.npz``.

Exit status: 0 on success; 2 for bad usage (unknown options, a directory that does not
load, an unknown signature or input name, a missing or unreadable ``.npy``, arrays that do
not match the signature); 1 when the graph itself raises while running (a failed
``gc.debugging`` assertion, say).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from graphc import nest
from graphc.core.spec import TensorSpec, shape_compatible
from graphc.errors import SavedModelError
from graphc.saved_model import npz
from graphc.saved_model.load import load
from graphc.variables import VariableSpec


class UsageError(Exception):
    """Bad command-line usage: printed as ``error: ...`` with exit status 2."""


def add_commands(subparsers) -> None:
    """Add ``show`` and ``run`` to a ``python -m graphc`` argument parser."""
    show = subparsers.add_parser("show", help="print a saved directory's signatures")
    show.add_argument("path", help="a directory written by gc.saved_model.save")
    show.set_defaults(command=_show)
    run = subparsers.add_parser("run", help="run one signature on .npy inputs")
    run.add_argument("path", help="a directory written by gc.saved_model.save")
    run.add_argument("--signature", help="the signature to run (default: the only one, "
                     "or serving_default)")
    run.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                     help="an argument of the signature from a .npy file (repeat per input)")
    run.add_argument("--output", metavar="OUT.npz",
                     help="write the results to this .npz instead of printing them")
    run.set_defaults(command=_run)


def run_command(args, out=None) -> int:
    """Run a parsed ``show``/``run`` command; the exit status."""
    out = sys.stdout if out is None else out
    try:
        return args.command(args, out)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _load(path):
    try:
        return load(path)
    except SavedModelError as e:
        raise UsageError(f"{path} does not load: {e}") from None


# --------------------------------------------------------------------------- show
def _show(args, out) -> int:
    m = _load(args.path)
    with open(os.path.join(args.path, "manifest.json")) as f:
        version = json.load(f)["version"]  # checked by load
    print(f"Saved graphs in {args.path} (format {version[0]}.{version[1]})", file=out)
    owner = {s: fn for fn, lf in m.functions.items() for s in _signature_names(m, lf)}
    for name in sorted(m.signatures):
        cf = m.signatures[name]
        print(f"\nsignature {name!r} (function {owner.get(name, cf.name)!r}):", file=out)
        for line in cf.pretty_printed_signature().splitlines():
            print(f"  {line}", file=out)
    if m.variables:
        print("\nvariables:", file=out)
        attrs = {id(v): a for a, v in vars(m).items() if any(v is w for w in m.variables)}
        for v in m.variables:
            what = "trainable" if v.trainable else "not trainable"
            name = attrs.get(id(v), v.name)  # an object's variable: its attribute
            if name != v.name and v.name != "Variable":  # not the default name
                what += f", named {v.name!r}"
            print(f"  {name}: {v.dtype.name} shape={tuple(v.shape)} ({what})", file=out)
    return 0


def _signature_names(m, loaded_function):
    by_id = {id(cf): n for n, cf in m.signatures.items()}
    return [by_id[id(cf)] for cf in loaded_function.concrete_functions()]


# --------------------------------------------------------------------------- run
def _run(args, out) -> int:
    m = _load(args.path)
    cf = _pick(m, args.signature)
    kwargs = _inputs(cf, args.input)
    try:
        result = cf(**kwargs)
    except Exception as e:  # the graph raised while running
        print(f"error: signature raised {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    named = _named_outputs(result)
    # Python values in the output structure (None, say) are not arrays: printed, never
    # written (np.savez would pickle them, and nothing reads pickles back)
    values = {k: a for k, a in named.items() if a.dtype == object}
    arrays = {k: a for k, a in named.items() if k not in values}
    if args.output:
        try:
            np.savez(args.output, **arrays)
        except OSError as e:
            raise UsageError(f"cannot write {args.output}: {e.strerror}") from None
        path = args.output if str(args.output).endswith(".npz") else f"{args.output}.npz"
        print(f"wrote {', '.join(arrays) or 'no arrays'} to {path}", file=out)  # as savez
        for k, a in values.items():
            print(f"{k} is the Python value {a[()]!r}: not written", file=out)
        return 0
    with np.printoptions(threshold=100):
        for k, a in named.items():
            if k in values:
                print(f"{k}: the Python value {a[()]!r}", file=out)
            else:
                print(f"{k}: {a.dtype.name} shape={a.shape}\n{a}", file=out)
    return 0


def _pick(m, name):
    sigs = m.signatures
    if name is None:
        if len(sigs) == 1:
            return next(iter(sigs.values()))
        if "serving_default" in sigs:
            return sigs["serving_default"]
        raise UsageError(f"this directory has {len(sigs)} signatures: pick one with "
                         f"--signature ({', '.join(sorted(sigs))})")
    if name not in sigs:
        raise UsageError(f"no signature {name!r}; saved: {', '.join(sorted(sigs))}")
    return sigs[name]


def _inputs(cf, pairs) -> dict:
    specs = dict(zip(cf._names, cf._structured))
    tensors = [n for n, s in specs.items() if isinstance(s, TensorSpec)]
    for n, s in specs.items():
        if isinstance(s, VariableSpec) or (not isinstance(s, TensorSpec) and any(
                isinstance(x, TensorSpec | VariableSpec) for x in nest.flatten(s)[0])):
            what = "a gc.Variable" if isinstance(s, VariableSpec) else "a nest of tensors"
            raise UsageError(f"signature argument {n!r} is {what}; the command line passes "
                             "one array per argument")
    given = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--input {pair!r}: expected NAME=FILE.npy")
        if name not in tensors:
            raise UsageError(f"--input {name}: the signature's array arguments are "
                             f"{', '.join(tensors) or 'none'}")
        if name in given:
            raise UsageError(f"--input {name} is given twice")
        given[name] = _npy(name, path)
        _check_fits(name, path, given[name], specs[name])
    missing = [n for n in tensors if n not in given]
    if missing:
        raise UsageError(f"missing --input for {', '.join(missing)} (signature: "
                         f"{cf.pretty_printed_signature().splitlines()[0]})")
    # Python values are part of the signature: pass the saved ones
    return {n: given.get(n, s) for n, s in specs.items()}


def _check_fits(name, path, a, spec) -> None:
    if a.dtype != spec.dtype or not shape_compatible(spec.shape, a.shape):
        shape = "any shape" if spec.shape is None else \
            f"shape {_shape_text(spec.shape)}"
        raise UsageError(f"--input {name}: {path} holds {a.dtype.name} of shape "
                         f"{a.shape}; the signature takes {spec.dtype.name} of {shape}")


def _shape_text(shape) -> str:
    """A spec's shape as Python writes a tuple: ``(None, 2)``, ``(3,)``, ``()``."""
    return repr(tuple(None if d is None else int(d) for d in shape))


def _npy(name, path) -> np.ndarray:
    """The array of one ``--input`` file: its npy header checked before its data is read
    (``npz.read_npy``: a plain dtype, the bytes its shape needs); never unpickled."""
    bad = f"--input {name}: {path} is not a plain .npy array"
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if f.read(4) == b"PK\x03\x04":
                raise UsageError(f"--input {name}: {path} is an .npz archive; pass one .npy "
                                 "per input")
            f.seek(0)
            return npz.read_npy(f, size, "it")
    except SavedModelError as e:
        raise UsageError(f"{bad}: {e}") from None
    except OSError as e:
        raise UsageError(f"--input {name}: cannot read {path} ({e.strerror or e})") from None


def _named_outputs(result) -> dict:
    """The result's arrays by name: dict keys and positions joined by ``_``
    (``output_0``, ``output_1``, ... for a tuple; ``logits``, ``aux_0``, ... for a dict)."""
    out: dict = {}
    _name_leaves(result if isinstance(result, dict) else {"output": result}, "", out)
    if list(out) == ["output"]:
        out = {"output_0": out["output"]}
    return out


def _name_leaves(x, prefix, out) -> None:
    if isinstance(x, dict):
        for k in sorted(x, key=str):
            _name_leaves(x[k], f"{prefix}_{k}" if prefix else str(k), out)
    elif isinstance(x, list | tuple):
        for i, v in enumerate(x):
            _name_leaves(v, f"{prefix}_{i}", out)
    else:
        out[prefix] = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
