"""Tracebacks that show the learner's code and the message, with teachgrad's own frames folded.

PyTorch's internals are C++, so a PyTorch user's traceback shows their cell, two or three
Python frames of ``torch``, and the message. teachgrad is all Python: an error from
``out.backward()`` went through ``_tensor.py``, ``engine.py``, ``graph.py``... and IPython
printed 40 lines of them before the one sentence meant for the learner.

While the extension is loaded, IPython's traceback printer (``shell.InteractiveTB``) folds
every *run* of consecutive frames inside teachgrad into one line::

    Cell In[4], line 2
          1 out.backward()
    ----> 2 out.backward()

    [... 3 frames inside teachgrad hidden; %teachgrad frames shows them]

    RuntimeError: Trying to backward through the graph a second time ...

The learner's frames stay, also the ones teachgrad calls back (a custom
``Function.backward``, a hook, a module's ``forward``, an optimizer's closure): that is
where their bug usually is. Only the *display* changes: the traceback object is whole, so
``%debug`` and ``%pdb`` see every frame. ``%xmode`` still chooses the format of the kept
frames (``Minimal`` prints the message alone), and each exception of a chain
(``raise ... from ...``) is folded the same way.

How: IPython turns a traceback into a list of frame records (``get_records`` for the
``Context`` and ``Verbose`` modes, ``_extract_tb`` for ``Plain``), then formats each record
(``format_record``, ``_format_list``). :class:`FrameFolding` puts its own version of those
four methods on the one printer object, merging each run of teachgrad's records into a
:class:`FoldedFrames` record that formats as the line above; ``uninstall`` removes them.

Errors raised *for* the learner by the notebook layer (a wrong exercise answer, a wrong
argument to ``draw``) carry the :class:`ShortTraceback` mixin: they are folded even in an
IPython where the extension is not loaded.
"""

from __future__ import annotations

import os
import site
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for the annotations: importing the notebook layer stays light
    from IPython.core.ultratb import FormattedTB

__all__ = ["ArgumentError", "FoldedFrames", "FrameFolding", "ShortTraceback",
           "frame_folding", "inside_teachgrad"]

#: The folder of the teachgrad package: frames of files under it are folded.
_PACKAGE = str(Path(__file__).resolve().parents[1]) + os.sep

#: Where the standard library and installed packages live. Their frames, when teachgrad
#: called them (NumPy, contextlib...), are folded with teachgrad's: not the learner's code.
_LIBRARIES = tuple({str(Path(p).resolve()) + os.sep for key in ("stdlib", "platstdlib", "purelib",
                                                       "platlib")
                    if (p := sysconfig.get_paths().get(key))}
                   | {str(Path(site.getusersitepackages()).resolve()) + os.sep})

#: The four methods of IPython's traceback printer that :class:`FrameFolding` replaces.
_HOOKS = ("get_records", "format_record", "_extract_tb", "_format_list")


def _resolved(filename: str | None) -> str:
    return str(Path(filename).resolve()) if filename else ""


def inside_teachgrad(filename: str | None) -> bool:
    """Whether a frame of the file ``filename`` is one of teachgrad's own."""
    return _resolved(filename).startswith(_PACKAGE)


def _in_a_library(filename: str | None) -> bool:
    return filename is not None and (filename.startswith("<frozen ")
                                     or _resolved(filename).startswith(_LIBRARIES))


class FoldedFrames:
    """A run of consecutive frames inside teachgrad, shown as one line.

    ``records``: what IPython would have shown for them (its records, or
    ``traceback.FrameSummary`` items in ``Plain`` mode). It stands in for them in
    IPython's list, so it answers the attributes IPython reads from the last record.
    """

    def __init__(self, records: list[Any]) -> None:
        self.records = records
        last = records[-1]
        self.filename, self.lineno = last.filename, last.lineno
        self.frame, self._sd = getattr(last, "frame", None), None

    def line(self, colors: Any = None, indent: str = "") -> str:
        """``[... 3 frames inside teachgrad hidden; %teachgrad frames shows them]``."""
        count = len(self.records)
        frames, them = ("frame", "it") if count == 1 else ("frames", "them")
        # (IPython 8's printer has a colour table; IPython 9 themes work otherwise, and
        # there the line is written without colour.)
        start, end = (getattr(colors, "excName", ""), getattr(colors, "Normal", ""))
        return (f"{indent}{start}[... {count} {frames} inside teachgrad hidden; "
                f"%teachgrad frames shows {them}]{end}\n")


def fold(records: list[Any]) -> list[Any]:
    """``records`` with each run of teachgrad's frames replaced by one :class:`FoldedFrames`.

    A run starts at a frame in teachgrad's files and goes on through teachgrad's and the
    libraries' frames (NumPy called by teachgrad is not the learner's code either); the
    learner's next frame, if any, ends it.
    """
    shown: list[Any] = []
    run: list[Any] = []
    for record in records:
        filename = getattr(record, "filename", None)
        if inside_teachgrad(filename) or (run and _in_a_library(filename)):
            run.append(record)
            continue
        if run:
            shown.append(FoldedFrames(run))
            run = []
        shown.append(record)
    if run:
        shown.append(FoldedFrames(run))
    return shown


class FrameFolding:
    """Folds teachgrad's frames in what one IPython traceback printer shows.

    ``enabled`` is the switch of ``%teachgrad frames`` (show them: ``False``) and
    ``%teachgrad frames off`` (fold them: ``True``, the default).
    """

    def __init__(self, printer: FormattedTB) -> None:
        self.printer = printer
        self.enabled = True

    # -- installing: instance attributes shadow the printer class's methods ------------
    def install(self) -> None:
        """Put the folding methods on the printer (``shell.InteractiveTB``).

        An IPython whose printer lacks one of the four methods (another major version)
        is left as it is: complete tracebacks rather than a broken error display.
        """
        if not all(callable(getattr(type(self.printer), name, None)) for name in _HOOKS):
            return
        for name in _HOOKS:
            setattr(self.printer, name, getattr(self, name))

    def uninstall(self) -> None:
        """Give the printer its own methods back."""
        for name in _HOOKS:
            self.printer.__dict__.pop(name, None)

    def _original(self, name: str):
        """The printer's own method ``name`` (its class's), bound to it."""
        return getattr(type(self.printer), name).__get__(self.printer)

    # -- Context and Verbose modes -----------------------------------------------------
    def get_records(self, etb, number_of_lines_of_context, tb_offset):
        """IPython's frame records for ``etb``, teachgrad's runs folded."""
        records = self._original("get_records")(etb, number_of_lines_of_context, tb_offset)
        return fold(records) if self.enabled else records

    def format_record(self, frame_info) -> str:
        """One frame as IPython shows it; a folded run as its one line."""
        if isinstance(frame_info, FoldedFrames):
            return frame_info.line(getattr(self.printer, "Colors", None))
        return self._original("format_record")(frame_info)

    # -- Plain mode ----------------------------------------------------------------------
    def _extract_tb(self, tb):
        """``Plain`` mode's frame list for ``tb``, teachgrad's runs folded."""
        summaries = self._original("_extract_tb")(tb)
        return fold(summaries) if self.enabled and summaries else summaries

    def _format_list(self, extracted_list) -> list[str]:
        """``Plain`` mode's lines, one string per entry; a folded run as its one line."""
        # IPython formats the list at once (the last entry is emphasised) and returns one
        # string per entry: format the real frames, then put the fold lines back in place.
        frames = [entry for entry in extracted_list if not isinstance(entry, FoldedFrames)]
        formatted = iter(self._original("_format_list")(frames))
        colors = getattr(self.printer, "Colors", None)
        return [entry.line(colors, indent="  ") if isinstance(entry, FoldedFrames)
                else next(formatted) for entry in extracted_list]


def frame_folding(shell) -> FrameFolding | None:
    """The :class:`FrameFolding` installed in this IPython, or ``None``."""
    method = vars(shell.InteractiveTB).get("get_records")
    folding = getattr(method, "__self__", None)
    return folding if isinstance(folding, FrameFolding) else None


class ShortTraceback:
    """Mixin for errors meant for the learner: IPython shows their cell, then the message.

    Such an error is folded as above even where the extension is not loaded (someone
    imported ``teachgrad.notebook`` in a plain IPython); where it is, ``%teachgrad frames``
    shows its frames like any other error's.

    ``shown_as``: the error type to print, when the class exists only to carry this mixin
    (a learner should read PyTorch's ``RuntimeError``, not a class name of ours).
    """

    shown_as: type[BaseException] | None = None

    def _render_traceback_(self) -> list[str]:
        """What IPython prints for this error (its ``structured_traceback``, folded)."""
        from IPython import get_ipython

        shell = get_ipython()
        if shell is None:  # only IPython calls this; without one, no folding to do
            import traceback

            return traceback.format_exception(type(self), self, self.__traceback__)
        shown_as = self.shown_as or type(self)
        if frame_folding(shell) is not None:  # the extension's folding, on or off
            return shell.InteractiveTB.structured_traceback(shown_as, self, self.__traceback__)
        folding = FrameFolding(shell.InteractiveTB)
        folding.install()
        try:
            return shell.InteractiveTB.structured_traceback(shown_as, self, self.__traceback__)
        finally:
            folding.uninstall()


class ArgumentError(ShortTraceback, TypeError):
    """A ``TypeError`` for a wrong argument to ``draw``, ``step_backward``, ``inspect``...:
    the message names the function and what it got, so the cell line and it are enough."""

    shown_as = TypeError
