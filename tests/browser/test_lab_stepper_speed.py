"""One step at the 400-frame limit (``live.CLIENT_SIDE_LIMIT``), measured in JupyterLab.

Each of the step buttons |◀ ◀ ▶ ▶| is a ToggleButtons group with one button per frame
(see ``teachgrad/notebook/live.py``). ipywidgets redraws every button of a group whose
labels differ from the buttons' values, which were their indices: with blank labels,
every step redrew the three groups that were not clicked, 1,200 buttons. Profiled in
Chromium (CDP ``Profiler``, a 399-step chain, 1280 x 900 window, loaded 2-core machine),
per step: 50 ms of JavaScript (``Performance.getMetrics`` ScriptDuration), 26 ms of style
recalculation, the new frame on screen 106 ms after the click. With each button labelled
by its frame (``frame_labels``): 23 ms, 10 ms and 49 ms. ``-s`` prints the figures.
"""

from __future__ import annotations

import statistics

import pytest

from .lab_page import live_stepper

pytestmark = pytest.mark.browser

NOTEBOOK = "stepper_speed.ipynb"

CHAIN = """\
import teachgrad as torch
from teachgrad.notebook import step_backward
from teachgrad.notebook.live import CLIENT_SIDE_LIMIT

x = torch.tensor(1.0, requires_grad=True)
h = x
for _ in range(CLIENT_SIDE_LIMIT - 2):
    h = h * 1.001
stepper = step_backward(h, names=locals())
assert stepper.n_frames == CLIENT_SIDE_LIMIT
stepper"""

# Click ▶ n times; per click: ms until the click handlers returned, until the new panel
# is in the page, and until the frame after that.
STEPS = """async ([root, n]) => {
    const shown = () => root.querySelector('.tg-panel-live').dataset.frame;
    const times = [];
    for (let i = 0; i < n; i++) {
        const before = shown();
        const next = [...root.querySelectorAll('.tg-go-next button')].find(b => b.offsetParent);
        const t0 = performance.now();
        next.click();
        const handled = performance.now() - t0;
        while (shown() === before) await new Promise(r => setTimeout(r, 0));
        const inPage = performance.now() - t0;
        await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
        times.push([handled, inPage, performance.now() - t0]);
    }
    return times;
}"""

STEP_BUTTONS = "root => [...root.querySelectorAll('.tg-go button')]"


@pytest.fixture(scope="module")
def big(chromium, lab_server, lessons_copy):
    with live_stepper(chromium, lab_server, lessons_copy, NOTEBOOK, CHAIN) as opened_view:
        yield opened_view


def test_a_step_keeps_the_step_buttons_it_does_not_redraw_them(big):
    notebook, view = big
    page = notebook.page
    before = view.evaluate_handle(STEP_BUTTONS)
    assert view.evaluate(f"root => ({STEP_BUTTONS})(root).length") == 4 * 400
    page.evaluate(STEPS, [view.element_handle(), 3])
    assert view.evaluate("root => root.querySelector('.tg-panel-live').dataset.frame") == "3"
    kept = page.evaluate(
        f"([root, before]) => {{ const now = new Set(({STEP_BUTTONS})(root));"
        " return before.filter(b => now.has(b)).length; }", [view.element_handle(), before])
    assert kept == 4 * 400, f"{4 * 400 - kept} step buttons were drawn again"


def test_time_of_a_step(big):
    # Figures for the record (printed with -s); the bounds only catch a gross regression,
    # such as every group redrawn at every step.
    notebook, view = big
    page = notebook.page
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Performance.enable")

        def metrics():
            return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

        n = 20
        before = metrics()
        times = page.evaluate(STEPS, [view.element_handle(), n])
        after = metrics()
    finally:
        cdp.detach()
    per_step = {key: (after[key] - before[key]) * 1000 / n for key in (
        "ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration")}
    medians = [statistics.median(t[i] for t in times) for i in range(3)]
    print("\nper step, ms:", {k: round(v, 1) for k, v in per_step.items()},
          "median click handled / frame in page / painted:", [round(m, 1) for m in medians])
    assert per_step["ScriptDuration"] < 150
