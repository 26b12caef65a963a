"""A hypothesis strategy that writes small random Python functions over int arguments.

The programs use what AutoGraph converts: assignments and augmented assignments,
arithmetic, comparisons joined by ``and``/``or``/``not``, nested ``if``/``elif``/``else``,
``while`` loops with a bounded counter, ``for`` loops over ``range``, ``break``,
``continue`` and early ``return``. Every program is total (loops are bounded, no
division) and returns the tuple of its state variables and composite names (a dict
entry, a list element), so a value that leaks from one traced branch or iteration into
another shows up in the result.

``programs()`` draws the source text of one ``def prog(a, b, c): ...``.
"""

from __future__ import annotations

from hypothesis import strategies as st

ARGS = ("a", "b", "c")
STATE = ("x", "y", "z")  # always defined: assigned at the top of every program
COMPOSITE = ("d['k']", "l[1]")  # composite names: a dict entry and a list element
RESULT = "return (x, y, z, d['k'], l[1])"
MAX_DEPTH = 3            # nesting of compound statements
LOOP_LIMIT = 4           # a while loop runs at most this many times


class _Writer:
    """Draws statements one by one; ``draw`` is hypothesis' draw function."""

    def __init__(self, draw):
        self.draw = draw
        self.loops = 0  # counter/loop names are fresh per loop: k0, j1, ...

    # ------------------------------------------------------------ expressions
    def atom(self, names) -> str:
        kind = self.draw(st.sampled_from(["name", "name", "const", "composite"]))
        if kind == "name":
            return self.draw(st.sampled_from(sorted(names)))
        if kind == "composite":
            return self.draw(st.sampled_from(COMPOSITE))
        return str(self.draw(st.integers(-3, 5)))

    def expr(self, names, depth=0) -> str:
        if depth >= 2 or self.draw(st.booleans()):
            return self.atom(names)
        form = self.draw(st.sampled_from(["+", "-", "*c", "neg"]))
        if form == "*c":  # multiply by a small constant only: values stay far from 2**63
            return f"{self.draw(st.integers(-2, 3))} * ({self.expr(names, depth + 1)})"
        if form == "neg":
            return f"-({self.expr(names, depth + 1)})"
        return f"({self.expr(names, depth + 1)} {form} {self.expr(names, depth + 1)})"

    def cond(self, names, depth=0) -> str:
        form = self.draw(st.sampled_from(["cmp", "cmp", "cmp", "and", "or", "not"]))
        if form == "cmp" or depth >= 2:
            op = self.draw(st.sampled_from(["<", "<=", "==", "!=", ">", ">="]))
            return f"{self.expr(names, 1)} {op} {self.expr(names, 1)}"
        if form == "not":
            return f"not ({self.cond(names, depth + 1)})"
        return f"({self.cond(names, depth + 1)}) {form} ({self.cond(names, depth + 1)})"

    # ------------------------------------------------------------ statements
    def block(self, names, depth, in_loop, size=None) -> list[str]:
        n = size if size is not None else self.draw(st.integers(1, 3))
        lines: list[str] = []
        for _ in range(n):
            lines += self.stmt(names, depth, in_loop)
        return lines

    def stmt(self, names, depth, in_loop) -> list[str]:
        kinds = ["assign", "assign", "assign"]
        if depth < MAX_DEPTH:
            kinds += ["if", "if", "while", "for"]
        if in_loop:
            kinds += ["break", "continue"]
        kinds += ["return"]
        kind = self.draw(st.sampled_from(kinds))
        return getattr(self, f"_{kind}")(names, depth, in_loop)

    def _assign(self, names, depth, in_loop):
        target = self.draw(st.sampled_from(STATE + COMPOSITE))
        op = self.draw(st.sampled_from(["=", "=", "+=", "-="]))
        return [f"{target} {op} {self.expr(names)}"]

    def _guarded(self, names, line):
        """``line`` (a jump) under an ``if``, or bare (the rest of the block is dead)."""
        if self.draw(st.integers(0, 3)):
            return [f"if {self.cond(names)}:", f"    {line}"]
        return [line]

    def _break(self, names, depth, in_loop):
        return self._guarded(names, "break")

    def _continue(self, names, depth, in_loop):
        return self._guarded(names, "continue")

    def _return(self, names, depth, in_loop):
        return self._guarded(names, RESULT)

    def _if(self, names, depth, in_loop):
        lines = [f"if {self.cond(names)}:"]
        lines += _indent(self.block(names, depth + 1, in_loop))
        for _ in range(self.draw(st.integers(0, 2))):
            lines.append(f"elif {self.cond(names)}:")
            lines += _indent(self.block(names, depth + 1, in_loop))
        if self.draw(st.booleans()):
            lines.append("else:")
            lines += _indent(self.block(names, depth + 1, in_loop))
        return lines

    def _while(self, names, depth, in_loop):
        k = f"k{self.loops}"
        self.loops += 1
        inner = names | {k}
        limit = self.draw(st.sampled_from([str(LOOP_LIMIT), "a", "b"]))
        test = f"{k} < {LOOP_LIMIT} and {k} < {limit}"
        if self.draw(st.booleans()):
            test += f" and ({self.cond(names)})"
        body = [f"{k} += 1"] + self.block(inner, depth + 1, True)
        return [f"{k} = 0", f"while {test}:", *_indent(body)]

    def _for(self, names, depth, in_loop):
        j = f"j{self.loops}"
        self.loops += 1
        bound = self.draw(st.sampled_from(["3", "a", "b", "c", "x"]))
        if bound != "3":
            bound = f"{bound} % {LOOP_LIMIT}"  # a tensor argument gives a graph loop
        body = self.block(names | {j}, depth + 1, True)
        return [f"for {j} in range({bound}):", *_indent(body)]


def _indent(lines):
    return ["    " + ln for ln in lines]


@st.composite
def programs(draw) -> str:
    """The source of ``def prog(a, b, c)``: a random program returning ``(x, y, z)``."""
    w = _Writer(draw)
    names = set(ARGS) | set(STATE)
    head = ["x = a", "y = 0", f"z = {draw(st.integers(-2, 2))}", "d = {'k': b}",
            "l = [c, 1]"]
    body = w.block(names, 0, False, size=draw(st.integers(1, 5)))
    lines = ["def prog(a, b, c):", *_indent(head + body + [RESULT])]
    return "\n".join(lines) + "\n"
