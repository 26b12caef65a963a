"""The screenshots of docs/inspecting.md: the HTML report of an MLP training step (about
150 ops traced: five dense layers, a nested ``gc.function`` loss, the backward pass the
tape adds and the SGD updates), drawn by headless Chromium.

    pip install playwright        # the Python driver; any Chromium does
    python -m benchmarks.report_screenshots [--chromium /usr/bin/chromium] [--out docs]

Writes ``inspecting_report_150ops.png`` (the report's first picture at fit-to-screen,
scopes collapsed), ``inspecting_report_150ops_zoomed.png`` (the ``gradients`` scope
opened by a click, zoomed to it); the report itself goes to a temporary folder (or
``--html PATH``). ``--chromium``
names the browser (default: ``$GRAPHC_CHROMIUM``, else Playwright's own download,
``python -m playwright install chromium``). Nothing in graphc or its tests needs this.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

import graphc as gc
import graphc.numpy as gnp

SIZES = [32, 64, 64, 64, 32, 2]


def training_step(seed: int = 0):
    """``(train_step, x, y)``: an MLP's SGD step as a ``gc.function``."""
    rng = np.random.default_rng(seed)
    params = []
    for i, (a, b) in enumerate(zip(SIZES, SIZES[1:])):
        params.append(gc.Variable(rng.normal(size=(a, b)).astype(np.float32) * 0.1,
                                  name=f"w{i}"))
        params.append(gc.Variable(np.zeros(b, np.float32), name=f"b{i}"))

    def dense(x, w, b, act=True):
        y = x @ w + b
        return gnp.maximum(y, 0.0) if act else y

    @gc.function
    def loss_fn(pred, y):
        return gnp.mean((pred - y) ** 2) + 1e-4 * gnp.sum(pred * pred)

    def model(x):
        h = x
        for i in range(0, len(params) - 2, 2):
            h = dense(h, params[i], params[i + 1])
        return dense(h, params[-2], params[-1], act=False)

    @gc.function
    def train_step(x, y):
        with gc.GradientTape() as tape:
            loss = loss_fn(model(x), y)
        grads = tape.gradient(loss, params)
        for v, g in zip(params, grads):
            v.assign_sub(0.01 * g)
        return loss

    x = rng.normal(size=(128, SIZES[0])).astype(np.float32)
    y = rng.normal(size=(128, SIZES[-1])).astype(np.float32)
    return train_step, x, y


def shoot(html_path: str, out_dir: str, chromium: str | None) -> list:
    from playwright.sync_api import sync_playwright  # deferred: only this script needs it

    shots = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto("file://" + os.path.abspath(html_path))
        fig = page.locator("figure.viewer").first
        fig.scroll_into_view_if_needed()
        name = os.path.join(out_dir, "inspecting_report_150ops.png")
        page.screenshot(path=name, clip=_clip(page, fig))
        shots.append(name)
        fig.locator('svg.view.collapsed g.scope.backward').first.click()
        page.wait_for_timeout(200)
        name = os.path.join(out_dir, "inspecting_report_150ops_zoomed.png")
        page.screenshot(path=name, clip=_clip(page, fig))
        shots.append(name)
        browser.close()
    return shots


def _clip(page, fig) -> dict:
    box = fig.bounding_box()
    return {"x": 0, "y": box["y"] - 8, "width": page.viewport_size["width"],
            "height": box["height"] + 16}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "docs"))
    ap.add_argument("--chromium", default=os.environ.get("GRAPHC_CHROMIUM"))
    ap.add_argument("--html", help="where to write the report (default: a temporary file)")
    ap.add_argument("--html-only", action="store_true", help="write the report, no PNGs")
    args = ap.parse_args(argv)
    train_step, x, y = training_step()
    train_step(x, y)
    concrete = train_step.get_concrete_function(x, y)
    print(f"train_step: {len(concrete.graph.nodes)} ops traced, "
          f"{len(concrete.optimized_graph.nodes)} after the passes")
    html_path = args.html or os.path.join(tempfile.mkdtemp(prefix="graphc-report-"),
                                          "train_step.html")
    train_step.explain(format="html", path=html_path)
    print("report:", html_path)
    if not args.html_only:
        for name in shoot(html_path, args.out, args.chromium):
            print("screenshot:", name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
