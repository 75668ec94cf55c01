"""``teachgrad.testing``: ``assert_close`` (are two results the same, up to rounding?) and
``make_tensor`` (a random tensor for a test, see :mod:`teachgrad._make_tensor`).

Tutorials check a hand-written function against the library one with it:

>>> import teachgrad as torch
>>> x = torch.tensor([0.5, 1.0, 2.0])
>>> torch.testing.assert_close(x.exp(), 1 + x + x**2 / 2 + x**3 / 6 + x**4 / 24, rtol=0.1, atol=0)

Two values are close when ``|actual - expected| <= atol + rtol * |expected|`` everywhere.
The default tolerances depend on the dtype, as in PyTorch (float32: ``rtol=1.3e-6,
atol=1e-5``; float64: ``1e-7`` both; integers and bools must be equal). A failure raises
PyTorch's ``AssertionError`` message: how many elements differ, and the largest differences.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._make_tensor import make_tensor
from ._tensor import Tensor, _make

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# (rtol, atol) by dtype, PyTorch's defaults; exact comparison for everything else.
_TOLERANCES = {
    np.dtype(np.float16): (1e-3, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
}


# (rtol, atol) of the deprecated assert_allclose, looser than assert_close's; for other
# dtypes 0, 0 (equal).
_ALLCLOSE_TOLERANCES = {
    np.dtype(np.float16): (1e-3, 1e-3),
    np.dtype(np.float32): (1e-4, 1e-5),
    np.dtype(np.float64): (1e-5, 1e-8),
}


class _Mismatch(AssertionError):
    """A failed comparison; ``path`` says which item of nested sequences failed."""


def assert_close(actual: Any, expected: Any, *, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False,
                 check_dtype: bool = True, msg: str | None = None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close.

    Both are tensors, NumPy arrays, Python numbers, or (nested) lists/tuples/mappings of
    them. Give ``rtol`` and ``atol`` together or not at all. ``equal_nan=True`` counts
    NaN == NaN; ``check_dtype`` requires equal dtypes; ``msg`` replaces the message.
    """
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_dtype, ())
    except _Mismatch as failure:
        message, path = failure.args
        if msg is not None:
            raise AssertionError(msg) from None
        if path:
            message += "\n\nThe failure occurred for item " + "".join(f"[{i}]" for i in path)
        raise AssertionError(message) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None,
                    atol: float | None = None, equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated since PyTorch 1.12 (older tutorials use it): :func:`assert_close` with
    looser default tolerances (float32: ``rtol=1e-4, atol=1e-5``), NaN equal to NaN, and
    the dtypes not compared. A number or list becomes a tensor first (``expected`` in
    ``actual``'s dtype)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    from ._creation import tensor

    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:  # the larger of the two dtypes' tolerances
        pairs = [_ALLCLOSE_TOLERANCES.get(t._data.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(r for r, _ in pairs), max(a for _, a in pairs)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_dtype=False, msg=msg or None)


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype, path: tuple) -> None:
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise _Mismatch(
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, (*path, i))
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        _compare_mappings(actual, expected, rtol, atol, equal_nan, check_dtype, path)
        return
    numbers = (int, float, bool)
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, path)
    elif isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        # NumPy arrays are compared as the tensors they would make (as in PyTorch).
        _compare_tensors(_make(actual), _make(expected), rtol, atol, equal_nan, check_dtype,
                         path)
    elif isinstance(actual, numbers) and isinstance(expected, numbers):
        if rtol is None:
            rtol, atol = (1e-7, 1e-7) if isinstance(actual, float) or isinstance(
                expected, float) else (0.0, 0.0)
        _compare_scalars(actual, expected, rtol, atol, equal_nan, path)
    else:
        raise TypeError(
            "No comparison pair was able to handle inputs of type "
            f"{_type_name(actual)} and {_type_name(expected)}."
        )


def _compare_mappings(actual: Mapping, expected: Mapping, rtol, atol, equal_nan, check_dtype,
                      path: tuple) -> None:
    """Two mappings (a state_dict, say) match when they have the same keys, whatever their
    order or type, and each key's values match."""
    actual_keys, expected_keys = set(actual), set(expected)
    if actual_keys != expected_keys:
        raise _Mismatch(
            "The keys of the mappings do not match:\n"
            f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
            f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
            path,
        )
    keys: list = list(actual_keys)
    with contextlib.suppress(TypeError):  # in a fixed order where the keys sort
        keys = sorted(keys)
    for key in keys:
        _compare(actual[key], expected[key], rtol, atol, equal_nan, check_dtype,
                 (*path, repr(key)))


def _type_name(value) -> str:
    if isinstance(value, Tensor):
        return "<class 'torch.Tensor'>"  # PyTorch's sentence names its own class
    return str(type(value))


def _compare_tensors(actual: Tensor, expected: Tensor, rtol, atol, equal_nan, check_dtype,
                     path) -> None:
    if actual.shape != expected.shape:
        raise _Mismatch(
            f"The values for attribute 'shape' do not match: {actual.shape} != "
            f"{expected.shape}.", path
        )
    if check_dtype and actual.dtype != expected.dtype:
        raise _Mismatch(
            f"The values for attribute 'dtype' do not match: {actual.dtype} != "
            f"{expected.dtype}.", path
        )
    a, e = actual._data, expected._data
    if a.dtype != e.dtype:  # (check_dtype=False) compare in their common dtype
        common = np.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    if rtol is None:
        rtol, atol = _TOLERANCES.get(a.dtype, (0.0, 0.0))
    if a.ndim == 0:
        _compare_scalars(a.item(), e.item(), rtol, atol, equal_nan, path)
        return
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        close = _isclose(a, e, rtol, atol, equal_nan)
        if close.all():
            return
        # Differences in the tensors' own dtype (bools as integers), as PyTorch reports them.
        wide = a.astype(np.int64) if a.dtype == np.bool_ else a
        difference = np.abs(wide - (e.astype(np.int64) if e.dtype == np.bool_ else e))
        relative = (difference / np.abs(e)).astype(
            difference.dtype if difference.dtype.kind == "f" else np.float32)
    mismatched = int((~close).sum())
    equal = rtol == 0 and atol == 0
    lines = [
        f"Tensor-likes are not {'equal' if equal else 'close'}!",
        "",
        f"Mismatched elements: {mismatched} / {a.size} ({100 * mismatched / a.size:.1f}%)",
        _greatest("absolute", difference, close, atol, equal),
        _greatest("relative", relative, close, rtol, equal),
    ]
    raise _Mismatch("\n".join(lines), path)


def _isclose(a: np.ndarray, e: np.ndarray, rtol, atol, equal_nan) -> np.ndarray:
    if a.dtype.kind not in "fc":
        return a == e
    return np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _greatest(kind: str, values: np.ndarray, close: np.ndarray, allowed, equal: bool) -> str:
    """'Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)'."""
    among = np.where(close, 0, values)
    flat = int(np.nanargmax(among)) if not np.isnan(among).all() else 0
    if np.isnan(among).any():  # a NaN is the greatest difference, as PyTorch reports
        flat = int(np.flatnonzero(np.isnan(among))[0])
    index = tuple(int(i) for i in np.unravel_index(flat, values.shape))
    value = values.flat[flat].item()
    line = f"Greatest {kind} difference: {value} at index {index}"
    return line if equal else f"{line} (up to {allowed} allowed)"


def _compare_scalars(actual, expected, rtol, atol, equal_nan, path) -> None:
    both_nan = equal_nan and actual != actual and expected != expected
    difference = abs(actual - expected)
    if both_nan or difference <= atol + rtol * abs(expected):
        return
    relative = difference / abs(expected) if expected else float("inf")
    equal = rtol == 0 and atol == 0
    absolute_line = f"Absolute difference: {difference}"
    relative_line = f"Relative difference: {relative}"
    if not equal:
        absolute_line += f" (up to {atol} allowed)"
        relative_line += f" (up to {rtol} allowed)"
    raise _Mismatch(
        f"Scalars are not {'equal' if equal else 'close'}!\n\nExpected {expected} but got "
        f"{actual}.\n{absolute_line}\n{relative_line}", path
    )
