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

CHAIN = """\
import teachgrad as torch
from teachgrad.notebook import step_backward

x = torch.tensor(1.0, requires_grad=True)
h = x
for _ in range({frames} - 2):
    h = h * 1.001
stepper = step_backward(h, names=locals())
assert stepper.n_frames == {frames}
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
# Back to the first frame (|◀), and wait until it is on show.
FIRST = """async root => {
    [...root.querySelectorAll('.tg-go-first button')].find(b => b.offsetParent).click();
    while (root.querySelector('.tg-panel-live').dataset.frame !== '0')
        await new Promise(r => setTimeout(r, 0));
}"""


@pytest.fixture(scope="module")
def big(chromium, lab_server, lessons_copy):
    """A chain of ``CLIENT_SIDE_LIMIT`` frames, the most that step in the browser."""
    from teachgrad.notebook.live import CLIENT_SIDE_LIMIT

    code = CHAIN.format(frames=CLIENT_SIDE_LIMIT)
    with live_stepper(chromium, lab_server, lessons_copy, "stepper_speed.ipynb",
                      code) as opened_view:
        yield opened_view


@pytest.fixture(scope="module")
def small(chromium, lab_server, lessons_copy):
    """A chain of 50 frames, a lesson's size."""
    code = CHAIN.format(frames=50)
    with live_stepper(chromium, lab_server, lessons_copy, "stepper_speed_50.ipynb",
                      code) as opened_view:
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


# Where step_buttons.js has not run (or before it), each group searches its buttons as
# ipywidgets does; "plain" puts that back for a measurement, "direct" undoes it.
PLAIN = """root => root.querySelectorAll('.tg-go > div').forEach(group => {
    delete group.querySelector; delete group.querySelectorAll; })"""
DIRECT = "root => { root.querySelector('.tg-controls').tgAwake = false; }"

# Counts the searches made in the step buttons' groups while ``steps`` run.
SEARCHES = """async ([root, n]) => {
    const steps = STEPS;
    const search = Element.prototype.querySelector;
    let searches = 0;
    Element.prototype.querySelector = function (selector) {
        if (this.closest('.tg-go')) searches++;
        return search.call(this, selector);
    };
    try { await steps([root, n]); } finally { Element.prototype.querySelector = search; }
    return searches;
}""".replace("STEPS", STEPS)


def test_a_step_searches_no_button(big):
    # ipywidgets' view of a group looks up each of its buttons at every step with a
    # querySelector, a search through the buttons before it (4 x 400 searches of up to
    # 400 buttons per step); step_buttons.js lets each group answer directly.
    notebook, view = big
    page = notebook.page
    root = view.element_handle()
    page.evaluate(STEPS, [root, 1])  # (the first click lets step_buttons.js find them)
    assert page.evaluate(SEARCHES, [root, 3]) == 0
    view.evaluate(PLAIN)  # the measurement is honest: without the script, it searches
    try:
        assert page.evaluate(SEARCHES, [root, 1]) >= 4 * 400
    finally:
        view.evaluate(DIRECT)
    page.evaluate(STEPS, [root, 1])
    assert page.evaluate(SEARCHES, [root, 1]) == 0


# Counts the changes of a class attribute among the step buttons while ``steps`` run.
CLASS_CHANGES = """async ([root, n]) => {
    const steps = STEPS;
    const records = [];
    const observer = new MutationObserver(found => records.push(...found));
    root.querySelectorAll('.tg-go > div').forEach(group => observer.observe(
        group, {attributes: true, attributeFilter: ['class'], subtree: true}));
    await steps([root, n]);
    records.push(...observer.takeRecords());
    observer.disconnect();
    return records.length;
}""".replace("STEPS", STEPS)


def test_a_step_changes_the_class_of_two_buttons_per_group(big):
    # ipywidgets' view removes .mod-active from every button of each group at every step
    # (4 x 400 changes of a class attribute for the browser, though one button per group
    # had it); step_buttons.js touches only the button losing it and the one gaining it.
    notebook, view = big
    page = notebook.page
    root = view.element_handle()
    page.evaluate(STEPS, [root, 1])  # (the first click lets step_buttons.js find them)
    assert page.evaluate(CLASS_CHANGES, [root, 3]) == 3 * 4 * 2
    view.evaluate(PLAIN)  # the measurement is honest: without the script, every button
    try:
        assert page.evaluate(CLASS_CHANGES, [root, 1]) >= 4 * 400
    finally:
        view.evaluate(DIRECT)


@pytest.mark.parametrize("size", ["small", "big"])
def test_time_of_a_step(size, request):
    # Figures for the record (printed with -s), with the groups' direct lookup
    # (step_buttons.js) and without it ("plain"), in turns, so that both see the same
    # load; the bound only catches a gross regression, such as every group redrawn at
    # every step.
    notebook, view = request.getfixturevalue(size)
    page = notebook.page
    root = view.element_handle()
    page.evaluate(STEPS, [root, 1])  # (the first click lets step_buttons.js find them)
    cdp = page.context.new_cdp_session(page)
    keys = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration")
    totals = {way: {key: 0.0 for key in keys} for way in ("direct", "plain")}
    times: dict[str, list] = {"direct": [], "plain": []}
    try:
        cdp.send("Performance.enable")

        def metrics():
            return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

        n, rounds = 5, 4
        for _ in range(rounds):
            for way in ("direct", "plain"):
                view.evaluate(PLAIN if way == "plain" else DIRECT)
                page.evaluate(STEPS, [root, 1])  # (the click that finds them again)
                before = metrics()
                times[way] += page.evaluate(STEPS, [root, n])
                after = metrics()
                for key in keys:
                    totals[way][key] += (after[key] - before[key]) * 1000 / (n * rounds)
                page.evaluate(FIRST, root)
    finally:
        view.evaluate(DIRECT)
        cdp.detach()
    for way in ("direct", "plain"):
        medians = [statistics.median(t[i] for t in times[way]) for i in range(3)]
        print(f"\n{size} ({way}), per step, ms:",
              {k: round(v, 1) for k, v in totals[way].items()},
              "median click handled / frame in page / painted:", [round(m, 1) for m in medians])
    assert totals["direct"]["ScriptDuration"] < 150
