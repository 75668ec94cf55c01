"""The IPython extension: ``%load_ext teachgrad`` shows every tensor as an inspector table.

IPython decides how to show a cell's result by asking one *formatter* per MIME type.
Loading the extension registers one more: for ``text/html`` and the types
:class:`teachgrad.Tensor`, ``nn.Module`` and ``optim.Optimizer`` (subclasses such as
``nn.Parameter`` or ``nn.Linear`` included, since IPython looks types up along the class
hierarchy). ``text/plain`` is left alone, so ``print(x)`` and plain consoles still show
exactly PyTorch's ``tensor(...)``, ``Sequential(...)``; Jupyter picks the richest format
it can show, which is the table. A module shows its structure beside a table of its
parameters (with their gradients), an optimizer its parameter groups and state (see
:mod:`teachgrad.notebook.module_view`). One formatter object serves the three types, so
one ``%teachgrad plain`` switches them all back to PyTorch's text.

Loading it also folds teachgrad's own frames in error tracebacks into one line each, so
an error shows the learner's code and the message, as PyTorch's do (see
:mod:`teachgrad.notebook.short_traceback`).

The ``%teachgrad`` line magic switches the display::

    %teachgrad table        # tensors, modules, optimizers show as tables (the default)
    %teachgrad plain        # they show as PyTorch's text again
    %teachgrad frames       # errors show every frame inside teachgrad
    %teachgrad frames off   # errors fold teachgrad's frames into one line (the default)
    %teachgrad              # say which modes are on

The current mode lives on the registered formatter object itself, not in a module-level
variable, so loading the extension twice or reloading it just replaces that one object.
``%unload_ext teachgrad`` removes the formatter, the folding and the magic.
"""

from __future__ import annotations

import sys

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class

from .._tensor import Tensor
from ..nn.modules.module import Module
from ..optim.optimizer import Optimizer
from .inspector import names_in, tensor_html
from .module_view import module_html, optimizer_html
from .short_traceback import FrameFolding, frame_folding

__all__ = ["TensorDisplay", "TeachgradMagics", "load_ipython_extension", "unload_ipython_extension"]

#: The display modes and what each one does (``%teachgrad`` prints this).
MODES = {
    "table": "tensors display as a table of data, requires_grad, grad, grad_fn, is_leaf;"
             " modules with their parameters' grads, optimizers with their groups",
    "plain": "tensors, modules and optimizers display as PyTorch's text, tensor(...)",
}
DEFAULT_MODE = "table"

#: ``%teachgrad frames`` / ``%teachgrad frames off``: what each does with errors.
FRAMES = {
    "off": "errors fold teachgrad's own frames into one line",
    "on": "errors show every frame inside teachgrad",
}


class TensorDisplay:
    """The ``text/html`` formatter IPython calls for every tensor, module and optimizer
    it displays (:data:`SHOWN_TYPES`).

    Returning ``None`` tells IPython "no HTML for this one", which is how ``plain`` mode
    falls back to PyTorch's text without unregistering anything.

    ``shell`` is the IPython that displays: a cell ending with ``z`` shows a table titled
    ``z`` (the notebook's variables are looked up in ``shell.user_ns``), as ``inspect(z)``
    would; a value no variable holds (``z * 2``) is titled ``Tensor``.
    """

    def __init__(self, mode: str = DEFAULT_MODE, shell=None) -> None:
        self.mode = mode
        self.shell = shell

    def __call__(self, obj: Tensor | Module | Optimizer) -> str | None:
        """The object's HTML view (titled with its name in the notebook), or None in plain mode."""
        if self.mode == "plain":
            return None
        namespace = getattr(self.shell, "user_ns", None)
        name = names_in(obj, namespace) if namespace is not None else None
        if isinstance(obj, Module):
            return module_html(obj, name)
        if isinstance(obj, Optimizer):
            return optimizer_html(obj, name, namespace)
        if namespace is None:
            return tensor_html(obj, None)
        return tensor_html(obj, name or _grad_of(obj, namespace))


#: The types the display shows as HTML (their subclasses too).
SHOWN_TYPES = (Tensor, Module, Optimizer)


def _grad_of(t: Tensor, namespace) -> str | None:
    """``"a.grad"`` when ``t`` is the gradient of the notebook's variable ``a`` (a cell
    ending with ``a.grad`` showed a table titled "Tensor")."""
    for name, value in list(namespace.items()):
        # ._grad, not .grad: reading a non-leaf's .grad would print a warning here
        if isinstance(value, Tensor) and value._grad is t and not str(name).startswith("_"):
            return f"{name}.grad"
    return None


def _html_formatter(ipython):
    return ipython.display_formatter.formatters["text/html"]


def current_display(ipython) -> TensorDisplay | None:
    """The :class:`TensorDisplay` registered in this IPython, or ``None`` if not loaded."""
    printer = _html_formatter(ipython).type_printers.get(Tensor)
    return printer if isinstance(printer, TensorDisplay) else None


@magics_class
class TeachgradMagics(Magics):
    """The ``%teachgrad`` line magic."""

    @line_magic
    def teachgrad(self, line: str) -> None:
        """Switch how tensors display: ``%teachgrad table``, ``%teachgrad plain``;
        show or fold teachgrad's frames in errors: ``%teachgrad frames``,
        ``%teachgrad frames off``; ``%teachgrad`` alone shows the current modes."""
        display = current_display(self.shell)
        if display is None:  # someone unregistered the formatter by hand
            raise UsageError("teachgrad's display is not active: run %load_ext teachgrad")
        # IPython hands a line magic the rest of its line, comment included; a learner who
        # pastes "%teachgrad plain   # PyTorch's text" means "plain". ("Plain" means it too.)
        mode = line.split("#", 1)[0].strip().lower()
        if not mode:
            print(describe_configuration(display, frame_folding(self.shell)))
            return
        if mode.split()[0] == "frames":
            self._show_frames(mode.split()[1:])
            return
        if mode not in MODES:
            raise UsageError(
                f"unknown display mode {mode!r}: use %teachgrad {' or %teachgrad '.join(MODES)}"
                " (or %teachgrad frames, %teachgrad frames off for errors)"
            )
        display.mode = mode

    def _show_frames(self, words: list[str]) -> None:
        """``%teachgrad frames [on|off]``: show teachgrad's frames in errors, or fold them."""
        folding = frame_folding(self.shell)
        if folding is None:
            raise UsageError("teachgrad's frame folding is not active: run %load_ext teachgrad")
        if words not in ([], ["on"], ["off"]):
            raise UsageError(f"unknown frames setting {' '.join(words)!r}: "
                             "use %teachgrad frames or %teachgrad frames off")
        folding.enabled = words == ["off"]


def describe_configuration(display: TensorDisplay, folding: FrameFolding | None = None) -> str:
    """What ``%teachgrad`` prints: the active modes and the ones to switch to."""
    lines = [f"teachgrad display mode: {display.mode}"]
    for mode, meaning in MODES.items():
        marker = "*" if mode == display.mode else " "
        lines.append(f" {marker} %teachgrad {mode:<10}  {meaning}")
    if folding is not None:
        active = "off" if folding.enabled else "on"
        lines.append(f"teachgrad frames in errors: {'folded' if folding.enabled else 'shown'}")
        for setting, meaning in FRAMES.items():
            marker = "*" if setting == active else " "
            magic = "frames off" if setting == "off" else "frames"
            lines.append(f" {marker} %teachgrad {magic:<10}  {meaning}")
    return "\n".join(lines)


def load_ipython_extension(ipython) -> None:
    """Register the tensor table formatter, the frame folding and the ``%teachgrad`` magic.

    Safe to call more than once: a formatter or folding already there is kept (with its mode).
    """
    if current_display(ipython) is None:
        display = TensorDisplay(shell=ipython)
        for shown in SHOWN_TYPES:  # one object: %teachgrad plain switches them all
            _html_formatter(ipython).for_type(shown, display)
    if frame_folding(ipython) is None:
        FrameFolding(ipython.InteractiveTB).install()
    ipython.register_magics(TeachgradMagics)
    _add_tensor_conveniences()


def unload_ipython_extension(ipython) -> None:
    """Remove the formatter, the folding and the magic: tensors display as PyTorch's
    text again, and errors show every frame."""
    display = current_display(ipython)
    if display is not None:
        formatter = _html_formatter(ipython)
        for shown in SHOWN_TYPES:
            if formatter.type_printers.get(shown) is display:
                formatter.pop(shown)
    folding = frame_folding(ipython)
    if folding is not None:
        folding.uninstall()
    magics = ipython.magics_manager
    magics.magics["line"].pop("teachgrad", None)
    magics.registry.pop(TeachgradMagics.__name__, None)
    _remove_tensor_conveniences()


# ``out.draw()`` and ``out.step_backward()``: notebook conveniences the extension adds to
# Tensor while it is loaded (the core itself never imports the notebook layer).
# Without names=, they label the picture with the caller's variable names, as inspect()
# does: a learner who typed ``L.step_backward()`` wants to read ``x.grad``, not
# "the .grad of the leaf [2]".
def _draw(self: Tensor, **options):
    """Draw the backward graph of this tensor (``teachgrad.notebook.draw(self, ...)``),
    its boxes named after your variables."""
    from .graph import draw

    options.setdefault("names", _caller_names(sys._getframe(1)))
    return draw(self, **options)


def _step_backward(self: Tensor, gradient=None, **options):
    """Run backward step by step (``teachgrad.notebook.step_backward(self, ...)``),
    the boxes and panels named after your variables."""
    from .stepper import step_backward

    options.setdefault("names", _caller_names(sys._getframe(1)))
    return step_backward(self, gradient, **options)


def _caller_names(frame) -> dict:
    """The caller's variables: its globals (a notebook's), overridden by its locals."""
    return {**frame.f_globals, **frame.f_locals}


_CONVENIENCES = {"draw": _draw, "step_backward": _step_backward}


def _add_tensor_conveniences() -> None:
    for name, method in _CONVENIENCES.items():
        setattr(Tensor, name, method)


def _remove_tensor_conveniences() -> None:
    for name, method in _CONVENIENCES.items():
        if getattr(Tensor, name, None) is method:
            delattr(Tensor, name)
