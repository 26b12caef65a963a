"""Big node kernels as functions of their own, one per distinct kernel (compile latency).

Numba's typing and lowering of one function grow faster than its size, and a graph
often repeats a node kernel with the same types: a 3x3 convolution written as nine
``einsum`` calls on nine shifted slices generated nine copies of the same 10-line
kernel in one function, which Numba typed and lowered nine times. Here, after an
emitter wrote a node's lines, those lines become a function of the node's inputs when
they are self-contained (they read only the inputs and the module's ``np``/``H``/``V``,
rebind no input, touch no program-wide state, hold no kernel of their own: a loop
whose body has one) and long enough to pay for a call
(straight-line code calling only scalar casts, a checked scalar read or write, never is:
``_cheap``). The
function's text is the lines with the inputs renamed ``p0, p1, ...`` and every local
``t0, t1, ...`` in order, so equal kernels have equal text and are defined, typed and
compiled once, then called from each place:

    @numba.njit(error_model='numpy', nogil=True)
    def k_3f2a9c10(p0, p1):
        ...
        return t4

    v4 = k_3f2a9c10(v2, v3)

Only the program is cached (``cache=True``); these functions are compiled with it and
linked into its machine code, so the disk cache and the native loader see one program.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import textwrap

MIN_STATEMENTS = 4  # statements in a kernel worth a look (checks and raises included)
PLACEHOLDER = "#@kernel "
MODULE_NAMES = frozenset({"np", "H", "V", "math", "numba"}) | frozenset(dir(builtins))
KERNEL_DECORATOR = "@numba.njit(error_model='numpy', nogil=True)"
SCALAR_CASTS = frozenset({"bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
                          "uint32", "uint64", "float32", "float64"})


def emit(gen, node, ins, outs, emitter):
    """Run ``emitter`` (a ``kernels.EMITTERS`` entry) for ``node``; if what it wrote is a
    self-contained kernel, leave a placeholder for :func:`resolve` to fill with a call of
    the shared function or with the lines themselves."""
    start = len(gen.lines)
    state = state_of(gen)
    results = emitter(gen, node, ins, outs)
    return lines_since(gen, start, state, ins, results)


def lines_since(gen, start, state, ins, results, force=False):
    """Outline the lines written since ``start`` (``state_of`` then was ``state``) that
    compute ``results`` from ``ins``, as :func:`emit` does; returns ``results``.
    ``force``: the kernel is called even where it is used once (``loop_reuse``)."""
    block = gen.lines[start:]
    if len(block) < MIN_STATEMENTS or state_of(gen) != state or any(
            line.lstrip().startswith(PLACEHOLDER) for line in block):
        return results  # (a kernel inside: its lines are not in the block's text)
    found = _outline(gen, block, [x.name for x in ins if _is_value(x)],
                     [r.name for r in results])
    if found is not None:
        if force:
            gen.forced.add(found[0])
        indent = block[0][:len(block[0]) - len(block[0].lstrip())]
        site = len(gen.sites)
        gen.sites.append((found[0], found[1], block, indent + found[2]))
        gen.lines[start:] = [f"{indent}{PLACEHOLDER}{site}"]
    return results


def resolve(gen) -> list[str]:
    """The program's lines with each placeholder replaced: by the call where its kernel
    is used twice or more (a kernel used once costs a function of its own to compile
    and gains nothing), else by its own lines; and the definitions of the kernels called,
    to put before the program."""
    uses: dict[str, int] = {}
    for name, _work, _block, _call in gen.sites:
        uses[name] = uses.get(name, 0) + 1
    called = {name for name, work, _b, _c in gen.sites
              if uses[name] > 1 and work >= 2 or name in gen.forced}
    lines = []
    for line in gen.lines:
        text = line.lstrip()
        if text.startswith(PLACEHOLDER):
            name, _work, block, call = gen.sites[int(text[len(PLACEHOLDER):])]
            lines.extend([call] if name in called else block)
        else:
            lines.append(line)
    defs = []
    for name in sorted(called):
        defs += ["", "", KERNEL_DECORATOR, *gen.kernels[name].splitlines()]
    return defs, lines


def state_of(gen):
    return (len(gen.consts), len(gen.recycled), len(gen.variables), len(gen.written),
            tuple(sorted(gen.flags.items())))


def _is_value(x) -> bool:
    return x.name.isidentifier() and not getattr(x.aval, "is_token", False)


def _outline(gen, block, inputs, outputs):
    """``(kernel name, assignments, call line)`` for ``block`` as a kernel function (its
    definition recorded in ``gen.kernels``), or None when it cannot be one."""
    source = textwrap.dedent("\n".join(block))
    if "prange" in source:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if sum(isinstance(n, ast.stmt) for n in ast.walk(tree)) < MIN_STATEMENTS:
        return None
    stored, loaded = [], set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Store):
                stored.append(n.id)
            else:
                loaded.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal, ast.Return, ast.Yield, ast.Lambda,
                            ast.FunctionDef, ast.Delete)):
            return None
    stored_set = set(stored)
    params = list(dict.fromkeys(i for i in inputs if i in loaded))
    if stored_set & set(inputs) or not outputs or not all(
            o.isidentifier() and (o in stored_set or o in params) for o in outputs):
        return None
    if loaded - stored_set - set(params) - MODULE_NAMES:
        return None  # reads something else of the program (a constant, a variable)
    rename = {p: f"p{i}" for i, p in enumerate(params)}
    for name in stored:
        rename.setdefault(name, f"t{len(rename) - len(params)}")
    body = _Renamer(rename).visit(tree)
    results = ", ".join(rename[o] for o in outputs)
    text = ast.unparse(body)
    key = hashlib.sha1(f"{params.__len__()}|{text}|{results}".encode()).hexdigest()[:12]
    name = f"k_{key}"
    kernels = gen.kernels
    if name not in kernels:
        kernels[name] = "\n".join(
            [f"def {name}({', '.join(rename[p] for p in params)}):",
             "    V.prefer_wide_vectors()",
             textwrap.indent(text, "    "),
             f"    return {results}"])
    work = 0 if _cheap(tree) else sum(
        isinstance(n, (ast.Assign, ast.AugAssign, ast.For, ast.While)) for n in ast.walk(tree))
    return name, work, f"{', '.join(outputs)} = {name}({', '.join(params)})"


def _cheap(tree) -> bool:
    """Straight-line code that calls nothing but scalar casts (``np.int64(i)``) and
    exceptions: a checked scalar read or write. A call costs more than such a body in a
    hot loop (NPBench's seidel-2d ran 2x slower with them called), and typing a few
    statements again is cheap, so these stay inline however often they repeat."""
    for n in ast.walk(tree):
        if isinstance(n, (ast.For, ast.While)):
            return False
        if isinstance(n, ast.Call):
            f = n.func
            cast = (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id == "np" and f.attr in SCALAR_CASTS)
            if not cast and not (isinstance(f, ast.Name) and f.id.endswith("Error")):
                return False
    return True


class _Renamer(ast.NodeTransformer):
    def __init__(self, rename):
        self.rename = rename

    def visit_Name(self, node):
        if node.id in self.rename:
            return ast.copy_location(ast.Name(self.rename[node.id], node.ctx), node)
        return node
