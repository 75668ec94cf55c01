"""Every control of the live stepper has a name a screen reader says.

Measured in Chromium's accessibility tree before the fix: the step buttons were named by
their glyphs ("|◀", "◀"...: "vertical line, black left-pointing triangle"), Play's play
and stop buttons by the icon font's private characters (U+F04B, U+F04D), and the step
and speed sliders (``<div role="slider">``) had no name at all.
"""

from __future__ import annotations

import re

import pytest

from .accessibility import live_regions, roles_and_names
from .lab_page import live_stepper

pytestmark = pytest.mark.browser

NOTEBOOK = "stepper_access.ipynb"

LESSON_LIKE = """\
import teachgrad as torch
from teachgrad.notebook import step_backward

x = torch.tensor([2.0, -1.0], requires_grad=True)
y = x * 3
out = (y * y).sum()
step_backward(out, names=locals())"""

CONTROLS = "button, input, select, textarea, [role=slider], [role=button], [tabindex]"


@pytest.fixture(scope="module")
def stepper_view(chromium, lab_server, lessons_copy):
    with live_stepper(chromium, lab_server, lessons_copy, NOTEBOOK, LESSON_LIKE) as (_, view):
        yield view


def named(view) -> dict[str, str]:
    controls = roles_and_names(view, CONTROLS)
    assert controls, "no control found"
    unnamed = [c for c in controls if c["role"] not in ("generic", "none") and not c["name"]]
    assert not unnamed, f"controls without a name: {unnamed}"
    return {c["name"]: c["role"] for c in controls if c["name"]}


def test_every_control_has_a_spoken_name(stepper_view, screenshots):
    names = named(stepper_view)
    # Each step button says where it goes after its name: frame 0 (of 0 to 4) is on show,
    # so ◀ is the faded "Previous step 0" (nowhere to go) and ▶ "Next step 1".
    for name in ("First step 0", "Previous step 0", "Next step 1", "Last step 4", "Play"):
        assert names.get(name) in ("button", "toggleButton"), (name, names)
    for name in ("Step", "ms per step"):
        assert names.get(name) in ("spinbutton", "slider", "textbox"), (name, names)
    assert not [n for n in names if any("\ue000" <= ch <= "\uf8ff" for ch in n)], names
    screenshots.take(stepper_view, "stepper-controls-named")


def test_the_named_buttons_still_step_and_play_says_pause_while_playing(stepper_view):
    from playwright.sync_api import expect

    step = stepper_view.get_by_label("Step", exact=True)
    stepper_view.locator('button[title="Next step"]:visible').click()
    expect(step).to_have_value("1")
    expect(stepper_view.locator('.tg-panel-live[data-frame="1"]')).to_be_visible()
    stepper_view.locator('button[title="First step"]:visible').click()
    expect(step).to_have_value("0")
    play = stepper_view.locator(".tg-play")
    play.click()
    stepper_view.locator(".tg-play.mod-active").wait_for(state="attached")
    assert "Pause" in named(stepper_view)
    play.click()  # pause
    stepper_view.locator(".tg-play:not(.mod-active)").wait_for(state="attached")
    assert "Play" in named(stepper_view)


FOCUSED_BUTTON = """() => {
    const e = document.activeElement;
    return e && e.matches('.widget-toggle-button') && e.checkVisibility() ? e.title : null;
}"""


def test_enter_and_space_on_a_step_button_keep_stepping(stepper_view):
    # Before: Enter on ▶ stepped once, and the button pressed was hidden (the next ▶ is
    # another button of its group), so the focus fell back to the page and the second
    # Enter did nothing. Now the focus moves to the button on show (step_buttons.js).
    from playwright.sync_api import expect

    page = stepper_view.page
    step = stepper_view.get_by_label("Step", exact=True)
    stepper_view.locator('button[title="First step"]:visible').click()
    expect(step).to_have_value("0")
    stepper_view.locator('button[title="Next step"]:visible').focus()
    for key, frame in (("Enter", 1), ("Space", 2), ("Enter", 3)):
        page.keyboard.press(key)
        expect(step).to_have_value(str(frame))
        expect(stepper_view.locator(f'.tg-panel-live[data-frame="{frame}"]')).to_be_visible()
        page.wait_for_function(f"() => ({FOCUSED_BUTTON})() === 'Next step'", timeout=5_000)
    page.keyboard.press("Enter")  # to the last frame: ▶ is now the faded "nowhere to go"
    expect(step).to_have_value("4")
    page.keyboard.press("Enter")  # ... which changes nothing and keeps the focus
    expect(step).to_have_value("4")
    assert page.evaluate(FOCUSED_BUTTON) == "Next step"
    # Shift+Tab reaches ◀ (the step buttons are in order), and Enter steps back, twice.
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED_BUTTON) == "Previous step"
    for frame in (3, 2):
        page.keyboard.press("Enter")
        expect(step).to_have_value(str(frame))
        page.wait_for_function(f"() => ({FOCUSED_BUTTON})() === 'Previous step'",
                               timeout=5_000)


def test_the_static_stepper_names_its_controls_too(chromium):
    # The CSS-only copy (exports, viewers without widgets): its controls are one radio
    # button per frame (named by the frame's title; Tab reaches them, the arrow keys step)
    # and <label>s that check them (the numbered strip, |◀ ◀ ▶ ▶|).
    import teachgrad as torch
    from teachgrad.notebook import step_backward

    x = torch.tensor([2.0, -1.0], requires_grad=True)
    out = ((x * 3) * (x * 3)).sum()
    static = step_backward(out, names={"x": x, "out": out}).static_html()
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_content(f"<!doctype html><meta charset=utf-8><body>{static}</body>")
        page.locator(".tg-f0 label.tg-btn").first.click()  # to step 1: all four buttons
        page.locator(".tg-f1").wait_for(state="visible")
        controls = roles_and_names(page.locator(".tg-static"), CONTROLS + ", label")
        unnamed = [c for c in controls if not c["name"]]
        assert not unnamed, f"controls without a name: {unnamed}"
        names = {c["name"] for c in controls}
        assert {"First step", "Previous step", "Next step", "Last step"} <= names, names
        assert sum(c["role"] == "radio" for c in controls) == len(static.split('type="radio"')) - 1
    finally:
        context.close()


def test_a_screen_reader_hears_each_step(stepper_view):
    # Nothing was said when a step happened: the new panel replaced the old one, out of
    # any live region. Now each step's words go into a polite live region (role=status):
    # the node, what arrived, the chain rule with its numbers, what changed.
    from playwright.sync_api import expect

    page = stepper_view.page
    step = stepper_view.get_by_label("Step", exact=True)
    say = stepper_view.locator(".tg-say")
    stepper_view.locator('button[title="First step"]:visible').click()
    expect(step).to_have_value("0")
    stepper_view.locator('button[title="Next step"]:visible').focus()
    page.keyboard.press("Enter")
    expect(say).to_have_text(re.compile(
        r"^Step 1 of 4: SumBackward0 \(out\); Gradient arriving ∂out/∂out .*: 1\.; "
        r"a → MulBackward0: 1\. × \(∂\(Σa\)/∂aᵢ = 1\) = \[1\., 1\.\]$"))
    page.wait_for_function(f"() => ({FOCUSED_BUTTON})() === 'Next step'", timeout=5_000)
    page.keyboard.press("Space")
    expect(say).to_contain_text("Step 2 of 4: MulBackward0; ")
    expect(say).to_contain_text("a → MulBackward0 (y): [1., 1.] × (∂(a·b)/∂a = b = [ 6., -3.])"
                                " = [ 6., -3.]")
    # What Chromium hands a screen reader: one polite status region, saying step 2.
    regions = [r for r in live_regions(page) if "Step 2 of 4" in r["text"]]
    assert [(r["role"], r["live"]) for r in regions] == [("status", "polite")], regions
    # The step box steps too, and is heard: to the last step, AccumulateGrad.
    step.fill("4")
    step.press("Enter")
    expect(say).to_have_text(re.compile(
        r"^Step 4 of 4: AccumulateGrad \(x\); .*; x\.grad: None → \[ 36\., -18\.\]$"))
    # The words are the reader's only: out of sight.
    assert say.evaluate("e => e.getBoundingClientRect().width") <= 1


def test_the_static_stepper_is_heard_too(chromium):
    # The CSS-only copy: the arrow keys move the checked radio (one per frame), and its
    # polite status region shows, to a screen reader only, the checked frame's words.
    import teachgrad as torch
    from teachgrad.notebook import step_backward

    x = torch.tensor([2.0, -1.0], requires_grad=True)
    y = x * 3
    out = (y * y).sum()
    static = step_backward(out, names={"x": x, "y": y, "out": out}).static_html()
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_content(f"<!doctype html><meta charset=utf-8><body>{static}</body>")
        say = page.locator(".tg-say")

        def spoken() -> str:
            return say.evaluate("e => e.innerText")

        page.locator(".tg-r:checked").focus()
        assert spoken().startswith("Start: backward() from out")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert spoken().startswith("Step 2 of 4: MulBackward0; ")
        regions = [r for r in live_regions(page) if r["role"] == "status"]
        assert len(regions) == 1 and regions[0]["live"] == "polite", regions
        assert regions[0]["text"].startswith("Step 2 of 4: MulBackward0; "), regions
        assert "Step 1 of 4" not in regions[0]["text"]  # the other frames' words are hidden
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert spoken().startswith("Step 4 of 4: AccumulateGrad (x); ")
        assert say.evaluate("e => e.getBoundingClientRect().width") <= 1
    finally:
        context.close()
