"""The input rules of PyTorch's float-only special functions, and their untracked results.

``torch.special.bessel_j0``, ``airy_ai``, ``chebyshev_polynomial_t`` and the other
functions PyTorch added with ``torch.special`` in version 1.13 share three rules:

* integers and bools become the default float dtype (``bessel_j0(torch.tensor([1, 2]))``
  is float32); two inputs are first promoted together (float32 x with float64 n gives
  float64);
* float16 raises PyTorch's ``"bessel_j0_cpu" not implemented for 'Half'``;
* most of them have no derivative in PyTorch: their result does not require grad, even
  when the input does (``output_differentiability: False`` in PyTorch's
  ``derivatives.yaml``), so they end a graph instead of raising in ``backward``.

:func:`float_arrays` applies the first two, :func:`untracked` the third.
"""

from __future__ import annotations

import numpy as np

from .._dtypes import get_default_dtype, result_type
from .._tensor import Tensor, _make
from .pointwise import _check_broadcast, _operand


def float_arrays(kernel: str, *operands) -> tuple[list[np.ndarray], np.dtype]:
    """The operands' arrays in their common float dtype (and that dtype).

    ``kernel`` is PyTorch's kernel name for the error message (``"bessel_j0_cpu"``).
    """
    operands = [_operand(x) for x in operands]
    if len(operands) == 2:
        _check_broadcast(*operands)
    dtype = result_type(*operands)
    if not dtype.is_floating_point:
        dtype = get_default_dtype()
    if dtype.numpy == np.float16:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype._legacy.removesuffix('Tensor')}'"
            "\nHint: compute in float32 (x.float()) and convert the result back."
        )
    with np.errstate(over="ignore"):  # (a Python 1e300 with float32 is inf, as in PyTorch)
        arrays = [np.asarray(x._data if isinstance(x, Tensor) else x, dtype=dtype.numpy)
                  for x in operands]
    return arrays, dtype.numpy


def untracked(array: np.ndarray) -> Tensor:
    """A result outside the autograd graph (``requires_grad=False``, no ``grad_fn``)."""
    return _make(np.asarray(array))
