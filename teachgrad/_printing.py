"""How a tensor prints: ``str(t)`` and ``repr(t)``, character for character as PyTorch 2.x.

Printing a tensor takes four steps, and each has its own small function below:

1. **Summarise** (:func:`_summarize`). A tensor with more than ``threshold`` elements is
   shown only by its first and last ``edgeitems`` entries along every long dimension,
   with ``...`` in between. We cut the array down *before* formatting anything, so
   printing a 1000x1000 tensor formats 6x6 = 36 numbers, not a million.
2. **Choose one number style for the whole tensor** (:func:`_format_cells`). PyTorch
   looks at all the shown values together: if every one is a whole number it prints
   ``1.``; if they span too many orders of magnitude it switches to scientific notation
   (``5.1200e+01``); and it pads every number to one common width so columns line up.
3. **Lay out** those strings inside nested brackets (:func:`_layout`), wrapping long rows
   so that no line is wider than ``linewidth``.
4. **Wrap** the result in ``tensor(...)`` and append the suffixes PyTorch shows
   (``size=``, ``dtype=``, ``requires_grad=True``, ``grad_fn=<...>``) in :func:`tensor_repr`.

The options (:func:`set_printoptions`, :func:`get_printoptions`) are global, like PyTorch's.

This module imports only NumPy (and the default float dtype from ``_dtypes``, which imports
only NumPy too): it reads a tensor through ``t._data``, ``t.dtype``,
``t.requires_grad`` and ``t.grad_fn`` and nothing else, so it never depends on the core.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ._dtypes import _Defaults

__all__ = [
    "format_data",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
    "tensor_repr",
]


# ---------------------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class _PrintOptions:
    """The global print settings; the defaults are PyTorch's "default" profile."""

    precision: int = 4  # digits after the decimal point
    threshold: float = 1000  # more elements than this -> summarise with "..."
    edgeitems: int = 3  # entries kept at each end of a summarised dimension
    linewidth: int = 80  # rows wrap so that lines stay within this many characters
    sci_mode: bool | None = None  # None: let the data decide (see _choose_float_format)


_OPTIONS = _PrintOptions()

# PyTorch's named profiles. They set everything except sci_mode.
_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change how tensors print, like ``torch.set_printoptions``.

    Args:
        precision: digits after the decimal point (default 4).
        threshold: tensors with more elements than this are summarised (default 1000).
        edgeitems: entries shown at each end of a summarised dimension (default 3).
        linewidth: characters per line before a row wraps (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``; applied first, so the other
            arguments can override it. (Like PyTorch, an unknown name is ignored.)
        sci_mode: ``True``/``False`` forces scientific notation on/off; ``None`` lets the
            values decide.

    Note, as in PyTorch: ``sci_mode`` is *always* set, so any call that does not pass it
    puts it back to ``None`` (automatic).
    """
    if profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(_OPTIONS, name, value)
    for name, value in [
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ]:
        if value is not None:
            setattr(_OPTIONS, name, value)
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as a dict you can pass back to :func:`set_printoptions`."""
    return dataclasses.asdict(_OPTIONS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the print options inside a ``with`` block."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# ---------------------------------------------------------------------------------------
# Step 1: summarise
# ---------------------------------------------------------------------------------------


def _summarize(array: np.ndarray, edgeitems: int) -> tuple[np.ndarray, tuple[bool, ...]]:
    """Keep only the first and last ``edgeitems`` entries of every dimension that is longer
    than ``2 * edgeitems``.

    Returns the small array and, for each dimension, whether it was cut (that is where
    ``...`` will be printed). Doing this first keeps printing fast for huge tensors.
    """
    cut = tuple(n > 2 * edgeitems for n in array.shape)
    for axis, is_cut in enumerate(cut):
        if is_cut:
            n = array.shape[axis]
            kept = np.r_[0:edgeitems, n - edgeitems : n]
            array = array.take(kept, axis=axis)
    return array, cut


# ---------------------------------------------------------------------------------------
# Step 2: one number style (and one width) for the whole tensor
# ---------------------------------------------------------------------------------------


def _whole_number(value: float) -> str:
    """``3.0 -> '3.'``: the trailing dot says "this is a float", as in PyTorch.

    nan and inf have no dot: they are not whole numbers.
    """
    text = f"{value:.0f}"
    if math.isfinite(value):
        text += "."
    return text


def _choose_float_format(values: np.ndarray) -> Callable[[float], str]:
    """Pick the single format PyTorch would use for all these floating-point values.

    Only non-zero finite values have a say: a 0, nan or inf fits any style.
    """
    significant = values[np.isfinite(values) & (values != 0)]
    if significant.size == 0:
        # Only zeros, nan and inf: PyTorch prints them as whole numbers (`0.`, `nan`),
        # even when sci_mode=True was requested.
        return _whole_number

    # Compare magnitudes in float64: float16 would overflow on 1e8.
    magnitudes = np.abs(significant).astype(np.float64)
    smallest, largest = float(magnitudes.min()), float(magnitudes.max())
    if _OPTIONS.sci_mode is None:
        # Fixed-point notation with 4 decimals can't show both 1e-5 and 1e3 usefully,
        # nor a number with more than 8 digits before the point, so switch.
        # (Compared at the tensor's own precision: float32 1e-4 is 9.99999975e-05, so
        # tensor([1e-4]) prints in scientific notation while a float64 one does not.)
        use_sci = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
    else:
        use_sci = _OPTIONS.sci_mode

    precision = _OPTIONS.precision
    if use_sci:
        return lambda value: f"{value:.{precision}e}"
    if np.all(significant == np.ceil(significant)):
        return _whole_number
    return lambda value: f"{value:.{precision}f}"


def _format_cells(array: np.ndarray) -> tuple[np.ndarray, int]:
    """Turn every value into text, right-aligned to one common width.

    Returns an object array of strings (same shape as ``array``) and that width, which the
    layout step needs to decide how many entries fit on a line.
    """
    flat = array.reshape(-1)
    if np.issubdtype(array.dtype, np.floating):
        to_text = _choose_float_format(flat)
        texts = [to_text(value) for value in flat.tolist()]
        # The common width comes from the non-zero finite values only; a wider "-inf" or
        # "-0." simply sticks out (PyTorch does the same).
        has_say = (np.isfinite(flat) & (flat != 0)).tolist()
        widths = [len(text) for text, counted in zip(texts, has_say, strict=True) if counted]
    else:
        # Integers and booleans: str() of each value ("7", "True").
        texts = [str(value) for value in flat.tolist()]
        widths = [len(text) for text in texts]
    width = max(widths, default=1)

    cells = np.empty(len(texts), dtype=object)
    cells[:] = [text.rjust(width) for text in texts]
    return cells.reshape(array.shape), width


# ---------------------------------------------------------------------------------------
# Step 3: nested brackets, wrapped rows
# ---------------------------------------------------------------------------------------


def _layout_row(texts: list[str], cut: bool, width: int, indent: int) -> str:
    """One innermost row ``[a, b, c]``, wrapped so lines stay within ``linewidth``.

    ``indent`` is how far this row's opening bracket is from the left margin; wrapped
    lines start one column further, under the first entry.
    """
    if cut:
        # The summarised row holds edgeitems entries from each end; "..." goes between.
        # Its leading space makes it line up as ",  ..." like PyTorch.
        half = len(texts) // 2
        texts = texts[:half] + [" ..."] + texts[half:]
    entry_width = width + len(", ")
    per_line = max(1, math.floor((_OPTIONS.linewidth - indent) / entry_width))
    lines = [", ".join(texts[i : i + per_line]) for i in range(0, len(texts), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _layout(cells: np.ndarray, cut: tuple[bool, ...], width: int, indent: int) -> str:
    """Nest the formatted cells in brackets, one level per dimension.

    Sub-blocks of an N-d tensor are separated by N-1 newlines (so 3-d tensors get a blank
    line between matrices) and indented one column per level of nesting.
    """
    if cells.ndim == 0:
        return cells.item()
    if cells.ndim == 1:
        return _layout_row(cells.tolist(), cut[0], width, indent)

    blocks = [_layout(block, cut[1:], width, indent + 1) for block in cells]
    if cut[0]:
        half = len(blocks) // 2
        blocks = blocks[:half] + ["..."] + blocks[half:]
    separator = "," + "\n" * (cells.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(blocks) + "]"


def format_data(array: np.ndarray, indent: int = 0) -> str:
    """The bracketed body PyTorch prints inside ``tensor(...)`` for this array.

    ``indent`` is the column where the body starts (``len("tensor(") == 7`` for a tensor
    repr): continuation lines are indented by it, and it counts against ``linewidth``.
    Print options and summarisation apply. Empty arrays give ``"[]"``.
    """
    array = np.asarray(array)
    if array.size == 0:
        return "[]"

    # A single number (0-d) is never summarised: there is nothing to leave out.
    summarise = array.size > _OPTIONS.threshold and array.ndim > 0
    edgeitems = _OPTIONS.edgeitems
    if summarise and not edgeitems:
        # Nothing kept at either end: only the ellipsis remains.
        return "[...]"
    if summarise:
        array, cut = _summarize(array, edgeitems)
    else:
        cut = (False,) * array.ndim
    cells, width = _format_cells(array)
    return _layout(cells, cut, width, indent)


# ---------------------------------------------------------------------------------------
# Step 4: tensor(...) and its suffixes
# ---------------------------------------------------------------------------------------

# dtypes PyTorch does not mention in the repr: the default float dtype (float32 unless
# set_default_dtype changed it, see _unnamed_dtypes), int64 (what integer data gives) and
# bool. Compared as NumPy dtypes so we never import the core.
_DEFAULT_DTYPES = (np.dtype(np.int64), np.dtype(np.bool_))


def _default_float() -> np.dtype:
    """The NumPy dtype of ``get_default_dtype()``: what ``tensor([1.5])`` would have."""
    return _Defaults.floating.numpy


def _grad_suffix(t: Any) -> str | None:
    """``grad_fn=<MulBackward0>`` for a computed tensor, ``requires_grad=True`` for a leaf
    that requires grad (a grad_fn already implies it), otherwise nothing."""
    try:
        grad_fn = t.grad_fn
    except RuntimeError:  # a piece of split & co. whose base changed in place since
        return "grad_fn=<Invalid>"  # (reading its grad_fn raises; PyTorch prints this)
    if grad_fn is not None:
        # PyTorch prints the node's class name (``CopyBackwards``), not its ``name()``
        # (``torch::autograd::CopyBackwards``); the two differ for hand-written nodes.
        return f"grad_fn=<{type(grad_fn).__name__}>"
    if t.requires_grad:
        return "requires_grad=True"
    return None


def _suffixes(t: Any) -> list[str]:
    """The ``key=value`` parts after the data, in PyTorch's order."""
    array = t._data
    suffixes = []
    if array.size == 0:
        # "[]" alone can't show the shape unless it is (0,); nor the dtype, since there is
        # no value to guess it from, so every dtype except the default float is named.
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if array.dtype != _default_float():
            suffixes.append(f"dtype={t.dtype!r}")
    else:
        if not _OPTIONS.edgeitems:
            # With edgeitems=0 a summary shows no entries at all, so give the shape.
            suffixes.append(f"size={tuple(array.shape)}")
        if array.dtype not in _DEFAULT_DTYPES and array.dtype != _default_float():
            suffixes.append(f"dtype={t.dtype!r}")
    grad = _grad_suffix(t)
    if grad is not None:
        suffixes.append(grad)
    tangent = _tangent_of(t)
    if tangent is not None:  # a dual tensor of forward AD
        # PyTorch writes f"tangent={tangent}": a 0-d tangent formats as its number.
        suffixes.append(f"tangent={tangent}")
    return suffixes


def _tangent_of(t: Any):
    """The forward-AD tangent ``t`` carries, if a dual level is entered (else None)."""
    from .autograd.dual_state import state

    if state.level is None or not getattr(t, "_extra", None) and getattr(t, "_base", None) is None:
        return None
    from .autograd.forward_ad import tangent_of

    return tangent_of(t)


def _append_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` to ``text``; a suffix that would overflow ``linewidth`` goes on
    its own line, indented under the data."""
    parts = [text]
    # PyTorch measures the current line as 2 characters longer than it really is; we copy
    # that so that lines break in exactly the same places.
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > _OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


# The types whose repr starts "tensor(": Tensor, and nn.Parameter (which adds itself).
PRINTED_AS_TENSOR: set = set()


def tensor_repr(t: Any, tensor_contents: str | None = None) -> str:
    """The full ``tensor(...)`` text of a teachgrad Tensor, exactly as PyTorch prints it
    (``tensor_contents``: the text to show in place of the values, as PyTorch's
    ``Tensor.__repr__`` takes it from a subclass's ``__torch_function__``)."""
    # A subclass prints its own name, as PyTorch's do (MyTensor([1., 2.])); nn.Parameter
    # prints as a tensor under its "Parameter containing:" line.
    kind = type(t)
    own_name = kind not in PRINTED_AS_TENSOR and issubclass(kind, tuple(PRINTED_AS_TENSOR))
    prefix = f"{kind.__name__}(" if own_name else "tensor("
    indent = len(prefix)
    body = format_data(t._data, indent) if tensor_contents is None else tensor_contents
    return _append_suffixes(prefix + body, _suffixes(t), indent)
