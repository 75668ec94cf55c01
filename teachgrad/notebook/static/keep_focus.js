// teachgrad live stepper: keep the keyboard on the step buttons (see live.py).
// Each of |◀ ◀ ▶ ▶| is a group with one button per frame, of which stepper.css shows one.
// Pressing Enter or Space on ▶ selects the next frame, and the button pressed is then
// hidden (the one after it is ▶ now): the focus fell back to the page, and a keyboard
// user had to find the button again for every step. After a click on a step button that
// had the focus, this moves the focus to the button of the same group now on show.
// Installed once per page, by the onload of the live stepper's <style>.
if (!window.tgStepFocus) {
  window.tgStepFocus = true;
  // (not checkVisibility(): Safari before 17.4 has none)
  var shown = function (button) { return button.getClientRects().length > 0; };
  document.addEventListener("click", function (event) {
    var pressed = event.target.closest && event.target.closest(".tg-go .widget-toggle-button");
    if (!pressed || pressed !== document.activeElement) return;
    // After ipywidgets has handled the click (it moves .mod-active, then stepper.css
    // shows another button of the group).
    setTimeout(function () {
      if (shown(pressed)) return;
      var now = Array.prototype.find.call(pressed.parentElement.children, shown);
      if (now) now.focus();
    });
  }, true);
}
