"""The HTML report of one ``gc.function``: ``fn.explain(format="html", path=...)``.

One self-contained page (inline CSS, SVG and one small script, the picture viewer of
``report_view.py``; no links to anything outside it): a summary of the function, then
one section per trace in trace order with its signature, why it was traced, the time
tracing and the passes took, what runs where (compiled, in Python by design, or falling
back to Python, and why), then the details: the graph before and after the passes as
pictures (scopes and bodies as nested boxes) and listings, and the pass report. Every
string that comes from the user's program (names, reprs, source paths) is escaped.
"""

from __future__ import annotations

import inspect
from html import escape

from graphc.functions import report_view
from graphc.functions.where import short_path, where_it_runs
from graphc.ir.printer import format_graph
from graphc.passes.report import format_report

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1a1a1a; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-top: 2px solid #ccc;
  padding-top: 12px; margin-top: 28px; } h3 { font-size: 15px; margin: 18px 0 6px; }
code, pre { font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; }
table { border-collapse: collapse; } td, th { text-align: left; vertical-align: top;
  padding: 2px 12px 2px 0; }
figure.graph { margin: 0; }
.python { color: #c26a00; } .fallback { color: #b3261e; } .compiled { color: #2a6e2a; }
.legend span { display: inline-block; padding: 0 6px; margin-right: 8px; color: #1a1a1a;
  border: 1px solid; } .legend .compiled { background: #e4eefb; border-color: #41689c; }
.legend .python { background: #fde7cf; border-color: #c26a00; }
.legend .fallback { background: #f9d6d5; border-color: #b3261e; }
"""


def _e(text) -> str:
    return escape(str(text), quote=True)


def _pre(text, cls="") -> str:
    return f'<pre class="{cls}">{_e(text)}</pre>'


def _secs(s) -> str:
    return "unknown" if s is None else f"{s * 1e3:.1f} ms"


def _defined_at(fn) -> str:
    try:
        target = inspect.unwrap(fn)
        path = short_path(inspect.getsourcefile(target))
        return f"{path}:{target.__code__.co_firstlineno}"
    except (TypeError, AttributeError, OSError):
        return "unknown"


def _short(concrete) -> str:
    """``f(x, n)  x: float32 Tensor, shape=(4,); n: ...``: one line per trace."""
    lines = concrete.pretty_printed_signature().splitlines()
    args = lines[2:lines.index("  Returns:")] if lines[1:2] == ["  Args:"] else []
    return "  ".join([lines[0], "; ".join(a.strip() for a in args)]).strip()


def _summary(function) -> list:
    rows = [("Python function", getattr(function.python_function, "__qualname__", "?")),
            ("defined at", _defined_at(function.python_function)),
            ("backend", function._backend),
            ("input_signature", function._input_signature),
            ("reduce_retracing", function._reduce_retracing),
            ("jit_compile", function._jit_compile),
            ("traces (tracing_count)", function.tracing_count)]
    out = ['<table class="summary">']
    out += [f"<tr><th>{_e(k)}</th><td><code>{_e(v)}</code></td></tr>" for k, v in rows]
    out.append("</table>")
    if function.retrace_reasons:
        out.append("<h3>Why it traced, each time</h3><ol class=\"reasons\">")
        out += [f"<li>{_e(r)}</li>" for r in function.retrace_reasons]
        out.append("</ol>")
    return out


def _where_html(where) -> list:
    out = ["<table class=\"where\">",
           f'<tr><th class="compiled">compiled</th><td>{where.compiled} node(s)'
           f"{' (interpreted: numpy backend)' if where.backend == 'numpy' else ''}"
           f"{' (could be; compiling is off: GRAPHC_JIT=off)' if where.jit_off else ''}"
           "</td></tr>"]
    for kind, title in (("python", "Python (by design)"),
                        ("fallback", "fallback to Python")):
        rows = getattr(where, kind)
        items = "".join(f"<li>{_e(line)}<br><code>{_e(sig)}</code></li>"
                        for _n, sig, line in rows)
        out.append(f'<tr><th class="{kind}">{title}</th><td>{len(rows)} node(s)'
                   f"{'<ul>' + items + '</ul>' if rows else ''}</td></tr>")
    out.append("</table>")
    out.append(_pre(where.status, "runtime"))
    return out


def _trace_section(function, concrete, k: int) -> list:
    report = concrete.pass_report
    passes = sum(e.seconds for e in report if e.enabled)
    before = len(concrete.graph.nodes)
    after = len(concrete.optimized_graph.nodes)
    where = where_it_runs(function, concrete)
    facts = [("traced because", concrete.trace_reason or "unknown"),
             ("tracing took", _secs(concrete.trace_seconds)),
             ("optimization passes took", _secs(passes)),
             ("top-level ops", f"{before} traced, {after} after the passes")]
    if where.compile:
        facts.append(("Numba compile", where.compile))
    out = [f'<section class="trace" id="trace-{k}">',
           f"<h2>Trace {k}: <code>{_e(_short(concrete))}</code></h2>",
           _pre(concrete.pretty_printed_signature(), "signature"),
           '<table class="facts">']
    out += [f"<tr><th>{_e(a)}</th><td>{_e(b)}</td></tr>" for a, b in facts]
    out += ["</table>",
            f'<h3 id="trace-{k}-where">What runs where</h3>', *_where_html(where),
            f'<h3 id="trace-{k}-traced">Graph as traced</h3>',
            report_view.figure(concrete.graph, "traced", f"t{k}a", concrete.input_names),
            "<details><summary>listing</summary>",
            _pre(format_graph(concrete.graph, show_src=True), "listing"), "</details>",
            f'<h3 id="trace-{k}-passes">Optimization passes</h3>',
            _pre(format_report(report, max_lines=None, timings=True), "passes"),
            f'<h3 id="trace-{k}-optimized">Graph after the passes</h3>',
            '<p class="legend"><span class="compiled">compiled</span>'
            '<span class="python">Python by design</span>'
            '<span class="fallback">fallback to Python</span></p>',
            report_view.figure(concrete.optimized_graph, "optimized", f"t{k}b",
                               concrete.input_names, where.kinds),
            "<details><summary>listing</summary>",
            _pre(format_graph(concrete.optimized_graph, show_src=True), "listing"),
            "</details>",
            "</section>"]
    return out


def html_report(function) -> str:
    """The report page of ``function`` (a ``gc.function``) over its current traces."""
    name = function.__name__
    traces = sorted(function.concrete_functions(), key=lambda c: c.trace_number)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>graphc report: {_e(name)}</title>",
           f"<style>{CSS}{report_view.CSS}</style>",
           "</head><body>", f'<h1>gc.function <code>{_e(name)}</code></h1>',
           '<section class="summary">', *_summary(function), "</section>"]
    if not traces:
        out.append('<p class="no-traces">No traces yet: call the function (or pass '
                   "example arguments to explain) first.</p>")
    else:
        out.append('<nav><ul class="toc">')
        for c in traces:
            out.append(f'<li><a href="#trace-{c.trace_number}">Trace {c.trace_number}: '
                       f"<code>{_e(_short(c))}</code></a></li>")
        out.append("</ul></nav>")
    for concrete in traces:
        out += _trace_section(function, concrete, concrete.trace_number)
    out.append(f"<script>{report_view.SCRIPT}</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_report(function, path=None) -> str:
    """The report's HTML, also written to ``path`` (UTF-8) when one is given."""
    text = html_report(function)
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return text


def explain_html(function, format, path, args, kwargs) -> str:
    """``fn.explain(*args, format="html", path=...)``: trace for ``args`` if any are
    given (or for the input signature), then write and return the report."""
    if format != "html":
        raise ValueError(
            f"{function.__name__}.explain: format={format!r}; use 'text' (the default) or "
            "'html'. (format= and path= are explain's own keywords: pass arguments of "
            "the function with those names positionally.)")
    if args or kwargs or function._input_signature is not None:
        function.get_concrete_function(*args, **kwargs)
    return write_report(function, path)
