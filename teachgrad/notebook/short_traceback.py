"""Errors that show the learner's cell and the message, not teachgrad's own lines.

Some errors the notebook layer raises are for the person at the notebook, and their
message already says what to do: a wrong exercise answer (``check``), a stepper cell run
a second time on a graph that is used up. In a notebook IPython prints every frame the
error went through, so the learner reads 20 lines of ``teachgrad/notebook/*.py`` before
the one sentence meant for them.

IPython asks an exception for its own traceback when it has a ``_render_traceback_``
method. :class:`ShortTraceback` gives the error one: the traceback IPython would print,
cut where it enters teachgrad, so the learner sees the cell line that raised, then the
message. The mode set by ``%xmode`` is kept (``%xmode Minimal`` still prints the message
alone). Outside IPython nothing changes: Python's own traceback is complete.

Usage: put the mixin before the error class, which stays what it was (``isinstance(e,
RuntimeError)`` is still true); :class:`ArgumentError` is the ``TypeError`` of the notebook
functions' arguments::

    class UsedGraphError(ShortTraceback, RuntimeError):
        pass
"""

from __future__ import annotations

import types
from pathlib import Path

__all__ = ["ArgumentError", "ShortTraceback", "outside_teachgrad"]

#: The folder of the teachgrad package: frames of files under it are cut.
_PACKAGE = str(Path(__file__).resolve().parents[1])


def _in_teachgrad(frame: types.FrameType) -> bool:
    return str(Path(frame.f_code.co_filename).resolve()).startswith(_PACKAGE)


def outside_teachgrad(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback ``tb`` up to (not including) the first frame in teachgrad's files.

    A new chain is built (``tb`` is left as it is); ``None`` when every frame is inside
    teachgrad.
    """
    kept = []
    while tb is not None and not _in_teachgrad(tb.tb_frame):
        kept.append(tb)
        tb = tb.tb_next
    cut = None
    for entry in reversed(kept):
        cut = types.TracebackType(cut, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return cut


class ShortTraceback:
    """Mixin for errors meant for the learner: IPython shows their cell, then the message.

    ``shown_as``: the error type to print, when the class exists only to carry this mixin
    (a learner should read PyTorch's ``RuntimeError``, not a class name of ours).
    """

    shown_as: type[BaseException] | None = None

    def _render_traceback_(self) -> list[str]:
        """What IPython prints for this error (its ``structured_traceback``, cut)."""
        from IPython import get_ipython

        shell = get_ipython()
        if shell is None:  # only IPython calls this; without one, no shortening to do
            import traceback

            return traceback.format_exception(type(self), self, self.__traceback__)
        # The first frame is IPython's own (the exec of the cell): the shell skips it
        # (tb_offset), and it is outside teachgrad, so it survives the cut.
        return shell.InteractiveTB.structured_traceback(
            self.shown_as or type(self), self, outside_teachgrad(self.__traceback__))


class ArgumentError(ShortTraceback, TypeError):
    """A ``TypeError`` for a wrong argument to ``draw``, ``step_backward``, ``inspect``...:
    the message names the function and what it got, so the cell line and it are enough."""

    shown_as = TypeError
