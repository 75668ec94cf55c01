// teachgrad live stepper: the step buttons |◀ ◀ ▶ ▶| (see live.py). Installed once per
// page, by the onload of the live stepper's <style>; where it does not run, they still
// step, only more slowly, and the keyboard loses its place after each step.
// Each of |◀ ◀ ▶ ▶| is a group (an ipywidgets ToggleButtons) with one button per frame,
// of which stepper.css shows one.
if (!window.tgStepButtons) {
  window.tgStepButtons = true;
  // 1. A step costs what changes, not frames x frames. At every step ipywidgets' view of
  // each group finds each of its buttons with group.querySelector('[data-value="k"]'),
  // a search through the buttons before it: 4 x 400 searches of up to 400 buttons at
  // the 400-frame limit. Button k of a group is its k-th child with data-value "k"
  // (live.py, frame_labels), so each group answers that question directly.
  // The view asks for each button only to add .mod-active to the selected one and remove
  // it from all the others: 4 x 400 classList.remove per step, each a change of the
  // button's class attribute for the browser, though only the previously selected button
  // has the class. So a button is answered by a stand-in whose classList changes the
  // real button only where its class really changes (two buttons per group and step).
  var DATA_VALUE = /^\[data-value="(\d+)"\]$/;
  var standIn = function () {
    var self = {button: null};
    self.classList = {
      add: function (name) {
        if (!self.button.classList.contains(name)) self.button.classList.add(name);
      },
      remove: function (name) {
        if (self.button.classList.contains(name)) self.button.classList.remove(name);
      }
    };
    return self;
  };
  var direct = function (group) {
    var search = group.querySelector, all = group.querySelectorAll, stand = standIn();
    group.querySelector = function (selector) {
      var k = DATA_VALUE.exec(selector);
      var button = k && this.children[Number(k[1])];
      if (button && button.getAttribute("data-value") === k[1]) {
        // (one stand-in per group: the view uses each answer at once, then asks again)
        stand.button = button;
        return stand;
      }
      // (any other question: the browser's own search)
      return search.call(this, selector);
    };
    group.querySelectorAll = function (selector) {
      return selector === "button" ? this.children : all.call(this, selector);
    };
  };
  // 2. A screen reader hears each step. The frame on show carries what it says in a
  // hidden .tg-spoken; when the frame changes (a step button, the step box, Play, the
  // kernel), this copies it into the stepper's polite live region, .tg-say.
  var announce = function (controls) {
    var row = controls.parentElement && controls.parentElement.querySelector(".tg-steprow");
    var say = row && row.querySelector(".tg-say");
    if (!say) return;
    new MutationObserver(function () {
      var spoken = row.querySelector(".tg-panel-live .tg-spoken");
      if (spoken && say.textContent !== spoken.textContent) say.textContent = spoken.textContent;
    }).observe(row, {childList: true, subtree: true});
  };
  // Both are set up when a student first touches a stepper's controls (a click, a key,
  // the focus), in the capture phase: before anything of them can step.
  var wake = function (event) {
    var controls = event.target.closest && event.target.closest(".tg-controls");
    if (!controls || controls.tgAwake) return;
    var groups = controls.querySelectorAll(".tg-go > div");
    for (var i = 0; i < groups.length; i++) direct(groups[i]);
    announce(controls);
    controls.tgAwake = true;
  };
  ["pointerdown", "keydown", "focusin", "click"].forEach(function (type) {
    document.addEventListener(type, wake, true);
  });
  // 3. The keyboard stays on the step buttons. Pressing Enter or Space on ▶ selects the
  // next frame, and the button pressed is then hidden (the one after it is ▶ now): the
  // focus fell back to the page, and a keyboard user had to find the button again for
  // every step. After a click on a step button that had the focus, this moves the focus
  // to the button of the same group now on show.
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
