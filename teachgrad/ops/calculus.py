"""Discrete calculus along a dimension: ``diff`` (differences of neighbours, a discrete
derivative) and the trapezoid rule (``trapezoid``/``trapz``, ``cumulative_trapezoid``, a
discrete integral).

All are composed of slices, subtraction, sums and cumsum, as PyTorch composes them, so
their gradients (of any order) come from those ops: ``diff(x)`` is
``x[1:] - x[:-1]`` (``SubBackward0`` over two ``SliceBackward0``).
"""

from __future__ import annotations

import numpy as np

from .._arguments import checks_types
from .._dtypes import get_default_dtype
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, _make, _wrap_dim, numpy_names, python_type_name, tensor_method
from .number_factor import DivBackward1, MulBackward1
from .pointwise import logical_xor
from .reduce import cumsum
from .reduce import sum as reduce_sum
from .shape import cat, narrow, select


# ----------------------------------------------------------------------------------------
# diff
# ----------------------------------------------------------------------------------------
def _neighbour_difference(x: Tensor, dim: int) -> Tensor:
    """``x[1:] - x[:-1]`` along ``dim`` (for bools: where neighbours differ)."""
    n = x._data.shape[dim]
    # (an empty dim gives empty slices, as PyTorch's x[1:] and x[:-1] do)
    later, earlier = narrow(x, dim, min(n, 1), max(n - 1, 0)), narrow(x, dim, 0, max(n - 1, 0))
    if x._data.dtype == np.bool_:
        return logical_xor(later, earlier)
    return later - earlier


@tensor_method()
@checks_types("diff", "(int n = 1, int dim = -1, Tensor? prepend = None, Tensor? append = None)",
              function=("(Tensor input, int n = 1, int dim = -1, Tensor? prepend = None, "
                        "Tensor? append = None, *, Tensor out = None)",))
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th difference along ``dim``: ``out[i] = input[i+1] - input[i]``, ``n`` times.

    ``prepend`` / ``append`` are joined to ``input`` along ``dim`` first.

    >>> import teachgrad as torch
    >>> torch.tensor([1, 4, 9, 16]).diff()
    tensor([3, 5, 7])
    >>> torch.tensor([1, 4, 9, 16]).diff(n=2)
    tensor([2, 2])
    """
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input._data.ndim)
    for extra in (prepend, append):
        if extra is not None and extra._data.ndim != input._data.ndim:
            raise RuntimeError(
                "diff expects prepend or append to be the same dimension as input"
            )
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        input = cat(parts, d)
    if n == 0 and prepend is None and append is None:  # a copy, as PyTorch makes it
        from .._creation import empty_like

        return empty_like(input).copy_(input)
    out = input
    for _ in range(n):
        if out._data.shape[d] == 0:
            break
        out = _neighbour_difference(out, d)
    return out


# ----------------------------------------------------------------------------------------
# The trapezoid rule
# ----------------------------------------------------------------------------------------
def _floating(y: Tensor) -> Tensor:
    return y if y._data.dtype.kind == "f" else y.to(get_default_dtype())


def _spacing(x: Tensor, y: Tensor, dim: int, name: str = "trapezoid") -> Tensor:
    """The widths ``x[i+1] - x[i]`` shaped to multiply ``y``'s pairs along ``dim``
    (``name``: the function, for its error).

    In ATen's order, which a graph under ``create_graph=True`` shows: x viewed to ``y``'s
    number of dimensions first, then its left and its right samples, right minus left.
    """
    n = y._data.shape[dim]
    if x._data.ndim == 1:
        if x._data.shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[dim] = n
        x = x.view(tuple(shape))  # (a view, as ATen's: ViewBackward0 even if not contiguous)
    elif x._data.ndim < y._data.ndim:
        # As ATen: x of fewer dimensions gets leading 1s, and its differences along dim are
        # broadcast with y's pairs afterwards (NumPy's rule), without a count check.
        x = x.view((1,) * (y._data.ndim - x._data.ndim) + tuple(x._data.shape))
    m = x._data.shape[dim]  # (an empty dim gives empty slices, as x[:-1] and x[1:] do)
    left = narrow(x, dim, 0, max(m - 1, 0))
    right = narrow(x, dim, min(m, 1), max(m - 1, 0))
    return right - left


def _pair_sums(y: Tensor, dim: int) -> Tensor:
    """``y[i+1] + y[i]`` along ``dim``: twice each trapezoid's mean height."""
    n = y._data.shape[dim]
    return narrow(y, dim, min(n, 1), max(n - 1, 0)) + narrow(y, dim, 0, max(n - 1, 0))


def _check_x_or_dx(x, dx) -> None:
    if x is not None and dx is not None:
        raise TypeError(
            "trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, "
            "dx=...), but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n"
            " * (Tensor y, *, Number dx = 1, int dim = -1)"
        )


def _refuse_bool(name: str, y: Tensor, x) -> None:
    """PyTorch's refusal of bool samples (or positions): there is no bool subtraction."""
    if x is None and y._data.dtype == np.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported"
                           "\nHint: convert first, e.g. y.float().")
    if x is not None and np.bool_ in (y._data.dtype, getattr(x, "dtype", None) and x._data.dtype):
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not "
                           "supported\nHint: convert first, e.g. y.float().")


@numpy_names
def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
              dim: int = -1) -> Tensor:
    """∫ y along ``dim`` by the trapezoid rule: samples ``dx`` apart (default 1), or at the
    positions ``x``.

    >>> import teachgrad as torch
    >>> torch.trapezoid(torch.tensor([1., 2., 3.]))
    tensor(4.)
    >>> torch.trapezoid(torch.tensor([1., 2., 3.]), torch.tensor([0., 1., 3.]))
    tensor(6.5000)
    """
    _check_x_or_dx(x, dx)
    if y._data.ndim == 0:
        # with x, ATen wraps dim first (a 0-d tensor's as a 1-d one's: -1 is 0)
        shown = dim if x is None else _wrap_dim(dim, 1)
        raise IndexError(f"Dimension specified as {shown} but tensor has no dimensions")
    _refuse_bool("trapezoid", y, x)
    d = _wrap_dim(dim, y._data.ndim)
    y = _floating(y)
    if y._data.shape[d] == 0:  # no samples: an integral of nothing
        return _make(np.zeros(np.delete(y._data.shape, d), y._data.dtype))
    if x is None:
        step = 1 if dx is None else dx
        ends = select(y, d, 0) + select(y, d, -1)
        # tensor-times-number inside PyTorch's C++ records MulBackward1 / DivBackward1
        inner = reduce_sum(y, d) - MulBackward1.apply(ends, other=0.5)
        return MulBackward1.apply(inner, other=step)
    if not isinstance(x, Tensor):
        raise TypeError(f"trapezoid(): argument 'x' must be Tensor, not {python_type_name(x)}"
                        + real_pytorch_hint(x))
    # the widths first, then the pairs times them, in ATen's order (its broadcast error
    # names them so)
    widths = _spacing(_floating(x), y, d)
    doubled = reduce_sum(_pair_sums(y, d) * widths, d)
    return DivBackward1.apply(doubled, other=2.0)


@numpy_names
def trapz(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
          dim: int = -1) -> Tensor:
    """The old name of :func:`trapezoid` (``trapz(y, dx=2)``, ``trapz(y, x)``)."""
    return trapezoid(y, x, dx=dx, dim=dim)


@numpy_names
def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: float | None = None,
                         dim: int = -1) -> Tensor:
    """The running trapezoid-rule integral along ``dim``: one value per interval (so one
    fewer than the samples).

    >>> import teachgrad as torch
    >>> torch.cumulative_trapezoid(torch.tensor([1., 2., 3.]))
    tensor([1.5000, 4.0000])
    """
    _check_x_or_dx(x, dx)
    _refuse_bool("cumulative_trapezoid", y, x)  # (before the 0-d check, unlike trapezoid)
    if y._data.ndim == 0:  # (PyTorch's words: it slices y first, or x's 1-d widths)
        raise IndexError("slice() cannot be applied to a 0-dim tensor." if x is None else
                         "Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, y._data.ndim)
    y = _floating(y)
    if x is None:
        step = 1 if dx is None else dx
        return cumsum(MulBackward1.apply(_pair_sums(y, d), other=0.5 * step), d)
    # (the heights times the widths, in PyTorch's order: its broadcast error names them so)
    widths = _spacing(_floating(x), y, d, "cumulative_trapezoid")
    heights = _pair_sums(y, d) * widths
    return DivBackward1.apply(cumsum(heights, d), other=2.0)


__all__ = ["diff", "trapezoid", "trapz", "cumulative_trapezoid"]
