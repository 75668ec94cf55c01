"""Window functions for signal processing: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``.

A window is a bell-shaped sequence of weights that tapers a signal to zero at both ends
before a Fourier transform. ``periodic=True`` (the default) gives the window for a
spectrum: the symmetric window one longer, without its last point.

The arithmetic follows PyTorch's, step by step in the window's own dtype, so the values
agree to the last bit or nearly (float32 rounding in a different order can differ by one
unit in the last place).
"""

from __future__ import annotations

import numpy as np

from ._creation import _check_device, _finish
from ._dtypes import dtype as DType
from ._dtypes import get_default_dtype, to_dtype
from ._layout import check_layout
from ._tensor import Tensor, python_type_name

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _integer_like(value) -> bool:
    """Does PyTorch's parser take ``value`` for an int: a NumPy integer or a 0-d integer
    tensor, not a bool, a float or a tensor of floats or of several elements?"""
    if isinstance(value, Tensor):
        return value._data.ndim == 0 and value._data.dtype.kind in "iu"
    return type(value) is not bool and hasattr(value, "__index__")


def _check_length_type(name: str, window_length) -> None:
    """Refuse a length that is not an integer (2.5, 2.0, True); the factories' wrapper
    (_pin_memory) words it as PyTorch's parser does, from _function_signatures."""
    if type(window_length) is not int and not _integer_like(window_length):
        raise TypeError(f"{name}(): argument 'window_length' must be int, not "
                        f"{python_type_name(window_length)}")


def _checked_dtype(name: str, window_length: int, dtype: DType | None) -> np.dtype:
    _check_length_type(name, window_length)
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    d = to_dtype(dtype) if dtype is not None else get_default_dtype()
    if not d.is_floating_point:
        cpp = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
               "uint8": "unsigned char", "bool": "bool"}[d.name]
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={cpp}, device=cpu, "
            "layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))"
        )
    return d.numpy


def _window(name: str, window_length: int, periodic: bool, dtype, device, requires_grad,
            shape) -> Tensor:
    """The common frame: checks, the lengths 0 and 1, the periodic trick."""
    _check_length_type(name, window_length)  # (before the device: the parser's check)
    _check_device(device)
    numpy_dtype = _checked_dtype(name, window_length, dtype)
    window_length = int(window_length)  # (a 0-d integer tensor: its number)
    if window_length <= 1:
        return _finish(np.ones(window_length, numpy_dtype), requires_grad)
    n = window_length + 1 if periodic else window_length
    values = shape(np.arange(n, dtype=numpy_dtype), n).astype(numpy_dtype)
    return _finish(values[:window_length] if periodic else values, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: DType | None = None, layout=None, device=None,
                   requires_grad: bool = False) -> Tensor:
    """``α − β·cos(2πn / (N − 1))``: the Hamming window.

    >>> import teachgrad as torch
    >>> torch.hamming_window(4, periodic=False, alpha=0.5, beta=0.5)
    tensor([0.0000, 0.7500, 0.7500, 0.0000])
    """
    check_layout("hamming_window", layout)
    def shape(k, n):
        step = k.dtype.type(2 * np.pi / (n - 1))
        return np.cos(k * step) * k.dtype.type(-beta) + k.dtype.type(alpha)

    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   shape)


def hann_window(window_length: int, periodic: bool = True, *, dtype: DType | None = None,
                layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """``½ − ½·cos(2πn / (N − 1))``: the Hann window (Hamming with α = β = ½).

    >>> import teachgrad as torch
    >>> torch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    check_layout("hann_window", layout)
    _checked_dtype("hann_window", window_length, dtype)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device,
                          requires_grad=requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *,
                    dtype: DType | None = None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """``0.42 − 0.5·cos(2πn/(N−1)) + 0.08·cos(4πn/(N−1))``: the Blackman window."""
    check_layout("blackman_window", layout)
    def shape(k, n):
        t = k * k.dtype.type(np.pi / (n - 1))
        c = k.dtype.type
        return np.cos(t * c(4)) * c(0.08) - np.cos(t * c(2)) * c(0.5) + c(0.42)

    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   shape)


def bartlett_window(window_length: int, periodic: bool = True, *,
                    dtype: DType | None = None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """The triangle ``1 − |2n/(N−1) − 1|``: the Bartlett window."""
    check_layout("bartlett_window", layout)
    def shape(k, n):
        w = k * k.dtype.type(2.0 / (n - 1))
        first_half = ((n - 1) >> 1) + 1
        w[first_half:] = -w[first_half:] + k.dtype.type(2)
        return w

    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   shape)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: DType | None = None, layout=None, device=None,
                  requires_grad: bool = False) -> Tensor:
    """``I₀(β·√(1 − (2n/(N−1) − 1)²)) / I₀(β)``: the Kaiser window (β sets the taper)."""
    check_layout("kaiser_window", layout)
    def shape(k, n):
        alpha = (n - 1) / 2.0
        ratio = (k.astype(np.float64) - alpha) / alpha
        return np.i0(beta * np.sqrt(np.clip(1 - ratio * ratio, 0, None))) / np.i0(beta)

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   shape)
