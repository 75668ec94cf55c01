"""More of ``nn.init``: ``trunc_normal_``, ``orthogonal_``, ``eye_``, ``dirac_``, ``sparse_``,
and the old names without the underscore (``nn.init.normal``...), which still work and warn
that they are deprecated, as in PyTorch.

* ``trunc_normal_``: a normal distribution cut to ``[a, b]`` (no rare huge weights).
* ``orthogonal_``: rows (or columns) orthonormal, so the layer preserves lengths: a
  favourite for recurrent weights, whose repeated products would otherwise grow or shrink.
* ``eye_`` / ``dirac_``: a linear / convolution layer that starts as the identity.
* ``sparse_``: most of each column zero (Martens, 2010).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _random
from .._arguments import is_number
from .._tensor import Tensor, python_type_name
from .._warn import warn_user
from . import init

__all__ = [
    "trunc_normal_", "orthogonal_", "eye_", "dirac_", "sparse_",
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
    "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse",
]


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: _random.Generator | None = None) -> Tensor:
    """Fill with draws of ``N(mean, std²)`` that lie in ``[a, b]`` (the others are drawn again).

    >>> import teachgrad as torch
    >>> w = torch.nn.init.trunc_normal_(torch.empty(1000), std=1.0, a=-0.5, b=0.5)
    >>> bool(w.abs().max() <= 0.5)
    True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warn_user(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.", UserWarning,
        )
    dtype = tensor._data.dtype
    if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
        values = _trunc_normal_by_redrawing(tensor, mean, std, a, b, generator)
    else:
        values = _trunc_normal_by_rejection(tensor, mean, std, a, b, generator)
    return init._write(tensor, values.astype(dtype, copy=False))


def _trunc_normal_by_redrawing(tensor: Tensor, mean: float, std: float, a: float, b: float,
                               generator: _random.Generator | None) -> np.ndarray:
    """Most normal draws land in [a, b]: draw the whole tensor again and keep the new
    values only where the old ones fell outside, until none does (PyTorch's steps, so
    its draws)."""
    low, high = (np.asarray(v, tensor._data.dtype).item() for v in (a, b))
    values = init._normal_values(tensor, mean, std, generator)
    outside = (values < low) | (values > high)
    while outside.any():
        values = np.where(outside, init._normal_values(tensor, mean, std, generator), values)
        outside = (values < low) | (values > high)
    return values


def _trunc_normal_by_rejection(tensor: Tensor, mean: float, std: float, a: float, b: float,
                               generator: _random.Generator | None) -> np.ndarray:
    """A narrow window: propose uniformly in [a, b] and accept a proposal with the
    normal's density relative to its highest point in the window (whole-tensor draws,
    pending elements only take the new proposals, as in PyTorch)."""
    dtype = tensor._data.dtype.type
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_density(x: np.ndarray) -> np.ndarray:  # (each step rounded in the dtype)
        centred = (x - dtype(mean)) / dtype(std)
        return centred * centred * dtype(-0.5) - dtype(log_peak)

    def rejected(candidates: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(init._uniform_values(tensor, 0.0, 1.0, generator)) > log_density(
                candidates)

    values = init._uniform_values(tensor, a, b, generator)
    pending = rejected(values)
    while pending.any():
        candidates = init._uniform_values(tensor, a, b, generator)
        values = np.where(pending, candidates, values)
        pending = np.where(pending, rejected(candidates), pending)
    return values


def orthogonal_(tensor: Tensor, gain: float = 1.0,
                generator: _random.Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain``: the Q of the QR decomposition of
    a normal random matrix (signs fixed so that Q is uniformly distributed). Dimensions
    after the first are flattened.
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor  # no-op
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = _random._normal_values(generator, (rows, cols), 0.0, 1.0, tensor._data.dtype)
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q = q * np.sign(np.diag(r))  # make the decomposition unique (positive diagonal of R)
    if rows < cols:
        q = q.T
    if not (is_number(gain) or isinstance(gain, Tensor)):  # (tensor.mul_(gain), after the draw)
        raise TypeError(f"mul_(): argument 'other' (position 1) must be Tensor, not "
                        f"{python_type_name(gain)}\nHint: the gain is a number, e.g. 1.0.")
    if isinstance(gain, complex):
        real = "Double" if tensor.dtype.is_floating_point and tensor.element_size() == 8 \
            else "Float"
        raise RuntimeError(f"result type Complex{real} can't be cast to the desired output "
                           f"type {real}\nHint: the gain is a real number.")
    return init._write(tensor, gain * q.reshape(tuple(tensor.shape)))


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal): a Linear layer
    that starts by passing its input through."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return init._write(tensor, np.eye(*tuple(tensor.shape)))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: a 1 at the kernel's
    centre linking output channel i to input channel i, so the convolution starts as the
    identity (per group, with ``groups``)."""
    dimensions = tensor.ndim
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    values = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            values[(g * out_chans_per_grp + d, d) + centre] = 1
    return init._write(tensor, values)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: _random.Generator | None = None) -> Tensor:
    """Fill a 2-D tensor with ``N(0, std²)`` values, then zero ``⌈sparsity · rows⌉``
    randomly chosen entries of every column."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    num_zeros = int(math.ceil(sparsity * rows))
    init.check_normal_arguments(0.0, std)  # (PyTorch's tensor.normal_(0, std))
    values = init._normal_values(tensor, 0.0, std, generator)
    for col in range(cols):  # (PyTorch's randperm here ignores `generator`: the default one)
        values[_random.randperm(rows)._data[:num_zeros], col] = 0
    return init._write(tensor, values)


def _deprecated(method):
    """The old name of an initialiser (``normal`` for ``normal_``): warns, then runs it."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warn_user(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
        )
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use :func:`{new_name}`."
    return deprecated_init


uniform = _deprecated(init.uniform_)
normal = _deprecated(init.normal_)
constant = _deprecated(init.constant_)
xavier_uniform = _deprecated(init.xavier_uniform_)
xavier_normal = _deprecated(init.xavier_normal_)
kaiming_uniform = _deprecated(init.kaiming_uniform_)
kaiming_normal = _deprecated(init.kaiming_normal_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
