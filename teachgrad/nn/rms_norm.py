"""``F.rms_norm``: scale each sample to unit root-mean-square over its last dimensions.

``y = x / sqrt(mean(x²) + eps) * weight``. Unlike layer norm it subtracts no mean and adds
no bias; modern language models (LLaMA, T5) use it because it is cheaper and works as well.
It is composed from ordinary ops in PyTorch's order (``pow``, ``mean``, ``add``, ``rsqrt``,
``mul``), so the graph shows PyTorch's nodes and gradients of any order come for free.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _dtypes
from .._input_check import refuses_complex
from .._tensor import Tensor
from ..ops import pointwise
from ..ops.layout import contiguous_format
from ..ops.number_factor import AddBackward1  # noqa: F401 - (imported from here elsewhere)
from ..ops.reduce import mean
from .argument_types import scalar_argument


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _normalized_shape(normalized_shape, function: str = "rms_norm") -> tuple[int, ...]:
    """``normalized_shape`` as a tuple, refused in PyTorch's words unless a tuple of ints
    (shared by ``layer_norm``: PyTorch's argument parser takes no bare int there)."""
    if isinstance(normalized_shape, numbers.Integral) or not isinstance(
            normalized_shape, (tuple, list)):
        raise TypeError(
            f"{function}(): argument 'normalized_shape' (position 2) must be tuple of ints, "
            f"not {type(normalized_shape).__name__}"
            "\nHint: pass a tuple, e.g. (x.shape[-1],); the module (nn.LayerNorm(4), "
            "nn.RMSNorm(4)) also accepts an int."
        )
    for position, n in enumerate(normalized_shape):
        if not isinstance(n, numbers.Integral):
            raise TypeError(
                f"{function}(): argument 'normalized_shape' (position 2) must be tuple of "
                f"ints, but found element of type {type(n).__name__} at pos {position}"
            )
    return tuple(int(n) for n in normalized_shape)


def _strides_out_of_order(t: Tensor) -> bool:
    """Are ``t``'s elements stored in another order than its dims (a transposed view)?

    PyTorch's elementwise ops lay their output out as their first input is laid out
    (dims of size 1 and broadcast dims, stride 0, decide nothing), so the product in
    ``rms_norm`` of a transposed input is transposed too, and PyTorch then copies it into
    order (recording ``CloneBackward0``). A slice (``x[:, ::2]``) is in order: no copy.
    """
    if t.numel() == 0:
        return False  # an empty tensor counts as contiguous
    strides = [s for n, s in zip(t.shape, t.stride()) if n > 1 and s != 0]
    return any(a < b for i, a in enumerate(strides) for b in strides[i + 1:])


@refuses_complex("rms_norm", eps=4)
def rms_norm(input: Tensor, normalized_shape: list[int] | tuple[int, ...],
             weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """``input / sqrt(mean(input², last dims) + eps) * weight``.

    ``normalized_shape``: the trailing dimensions to normalise over (a tuple or list).
    ``eps`` defaults to the machine epsilon of the input's dtype (``finfo(dtype).eps``).

    >>> import teachgrad as torch
    >>> import teachgrad.nn.functional as F
    >>> F.rms_norm(torch.tensor([[3.0, 4.0]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    if eps is not None:
        eps = scalar_argument(eps, "rms_norm", "eps", 4, kind="float")
    shape = _normalized_shape(normalized_shape)
    n = len(shape)
    if n == 0:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            "least one element, but got normalized_shape = []"
        )
    if n > input.dim():
        raise ValueError(f"Input tensor must have at least {n} dimensions, but got {input.dim()}")
    if tuple(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={_shape_list(shape)}, expected input with shape "
            f"[*{_shape_list(shape)[1:]}, but got input of size{_shape_list(input.shape)}"
        )
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(
            "Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{_shape_list(weight.shape)} and normalized_shape = {_shape_list(shape)}"
        )
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"rms_norm\" not implemented for '{input.dtype._legacy.removesuffix('Tensor')}'"
            "\nHint: convert the input to float first, e.g. x.float()."
        )
    # float16 is computed in float32 and rounded at the end, as PyTorch does.
    x = input.float() if input.dtype is _dtypes.float16 else input
    if eps is None:
        eps = float(np.finfo(x._data.dtype).eps)
    dims = tuple(range(x.dim() - n, x.dim()))  # (as PyTorch's rms_norm: grad_fn._saved_dim)
    mean_square = mean(pointwise.pow(x, 2), dims, keepdim=True)
    out = pointwise.mul(x, pointwise.rsqrt(AddBackward1.apply(mean_square, other=eps)))
    if x is not input:
        out = out.to(input.dtype)
    if weight is not None:
        out = pointwise.mul(out, weight)
        # A weight of another dtype promotes the product; PyTorch returns the input's dtype.
        out = out if out.dtype == input.dtype else out.to(input.dtype)
    if _strides_out_of_order(input):
        out = out.clone(memory_format=contiguous_format)
    return out


__all__ = ["rms_norm"]
