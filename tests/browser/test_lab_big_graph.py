"""A 2,000-node graph in JupyterLab: the stepper opens and steps in reasonable time.

``step_backward`` of 2,000 nodes draws the summary box (more than ``MAX_NODES``) and has
2,001 frames, more than ``CLIENT_SIDE_LIMIT``: each step asks the kernel for its frame.
Measured on a loaded 2-core machine (``-s`` prints the figures): the cell, from Run All
to the stepper's buttons on show, 29 s, of which about 24 s were JupyterLab's table of
contents listing the static copy's 2,001 frame titles (web components, one per entry);
with the titles marked ``jp-toc-ignore`` (``test_lab_stepper_toc.py``), 3.5 to 5.6 s. One
▶, from the click to the new panel in the page, 13 to 69 ms. The kernel's part is about
1 s (``step_backward`` 0.5 s of CPU, the static HTML 0.05 s, the live widget 0.5 s). The
bounds only catch a gross regression.
"""

from __future__ import annotations

import time

import nbformat
import pytest

from .lab_page import opened, teachgrad_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "big_graph.ipynb"

# benchmarks/notebook.py's chain_graph, inline: h = tanh(h * w) + h blocks of 4 nodes
BIG = """\
import numpy as np
import teachgrad as torch
from teachgrad.notebook import step_backward

gen = np.random.default_rng(1)
x = torch.tensor(gen.uniform(-1, 1, 3).astype(np.float32), requires_grad=True)
h = x
for _ in range(499):
    w = torch.tensor(gen.uniform(-1, 1, 3).astype(np.float32), requires_grad=True)
    h = (h * w).tanh() + h
out = h.sum()
stepper = step_backward(out)
assert len(stepper.steps) == 4 * 499 + 2, len(stepper.steps)
stepper"""

# Click the ▶ on show and wait for the panel of the next frame: ms.
STEP = """async root => {
    const shown = () => root.querySelector('.tg-panel-live').dataset.frame;
    const before = shown();
    const next = [...root.querySelectorAll('.tg-go-next')].find(b => b.offsetParent);
    const t0 = performance.now();
    next.click();
    while (shown() === before) await new Promise(r => setTimeout(r, 5));
    return [Number(shown()), performance.now() - t0];
}"""


def test_a_2000_node_stepper_opens_and_steps(chromium, lab_server, lessons_copy):
    nbformat.write(teachgrad_notebook([nbformat.v4.new_code_cell(BIG)]), lessons_copy / NOTEBOOK)
    with opened(chromium, lab_server, NOTEBOOK, timeout_ms=120_000) as notebook:
        start = time.perf_counter()
        assert notebook.run_all()
        cell = notebook.cell(0)
        view = cell.locator(".jp-OutputArea-child", has=cell.page.locator(".tg-live"))
        view.locator(".jupyter-button:visible").first.wait_for(state="visible")
        opening = time.perf_counter() - start
        steps = [notebook.page.evaluate(STEP, view.element_handle()) for _ in range(3)]
        print(f"\n2,000 nodes: cell run to stepper on show {opening:.1f} s; one step, ms:",
              [round(ms) for _, ms in steps])
        assert [frame for frame, _ in steps] == [1, 2, 3]
        assert opening < 120
        assert max(ms for _, ms in steps) < 5_000
