"""The Hurwitz zeta function ``ζ(x, q) = Σₖ₌₀^∞ (q + k)^(−x)`` (``torch.special.zeta``).

``ζ(x, 1)`` is Riemann's zeta function (``ζ(2, 1) = π²/6``). The numbers come from the
kernel that also gives ``polygamma`` (:func:`.numerics.gamma.zeta`: a direct sum, then
Euler–Maclaurin's formula), computed in float64 as PyTorch does for float32 too, with
PyTorch's answers at the edges (:mod:`.numerics.zeta`). One difference: for q below
−10⁴ (not an integer) the result is nan; PyTorch sums its way up from there.

Derivatives, as in PyTorch: in ``q`` term by term, ``∂ζ(x, q)/∂q = −x·ζ(x + 1, q)`` (so
every order comes from zeta itself); in ``x`` PyTorch has none, and asking for it raises
its sentence ("the derivative for 'zeta' is not implemented.").

>>> import teachgrad as torch
>>> torch.special.zeta(torch.tensor([2., 4.]), 1.)   # π²/6, π⁴/90
tensor([1.6449, 1.0823])
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .numerics import zeta as _kernels
from .op import Op
from .pointwise import _binary
from .special import float_tensor, recorded_or_plain
from .untracked_special import float_arrays


def _zeta_arrays(x, q):
    """ζ on arrays (or numbers), in their result dtype."""
    dtype = np.result_type(x, q)
    with np.errstate(all="ignore"):
        return np.asarray(_kernels.zeta(x, q)).astype(dtype, copy=False)


class SpecialZetaBackward0(Op):
    formula = "∂ζ(x,q)/∂q = −x·ζ(x + 1, q)    ∂ζ(x,q)/∂x: not implemented (as in PyTorch)"
    promotes = True

    @staticmethod
    def forward(ctx, x, q):
        ctx.save_for_backward(x, q)
        return _zeta_arrays(x, q)

    @staticmethod
    def backward(ctx, grad):
        x, q = ctx.saved_tensors
        needs_x, needs_q = ctx.needs_input_grad
        if needs_x:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        # (Under create_graph, recorded: so it can be differentiated again.)
        return None, grad * -x * recorded_or_plain(zeta, _zeta_arrays, q, x + 1)


class SpecialZetaBackward1(SpecialZetaBackward0):
    """PyTorch's name when ``input`` (x) is a Python number."""


class SpecialZetaBackward2(SpecialZetaBackward0):
    """PyTorch's name when ``other`` (q) is a Python number."""


def zeta(input: Tensor, other: Tensor) -> Tensor:
    """The Hurwitz zeta function ``Σₖ (other + k)^(−input)`` (inf at input = 1, nan below).

    Either argument may be a number; integers become float32.
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(
            f"special_zeta() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Number self, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n"
            "\nHint: make one of them a tensor, e.g. torch.tensor(2.)."
        )
    _arrays, dtype = float_arrays("zeta_cpu", input, other)  # (checks the dtypes)
    if dtype.kind == "f" and not (_is_floating(input) or _is_floating(other)):
        # Integers and bools only: PyTorch computes in the default float dtype.
        input = float_tensor(input) if isinstance(input, Tensor) else float(input)
        other = float_tensor(other) if isinstance(other, Tensor) else float(other)
    if not isinstance(input, Tensor):
        return _binary(SpecialZetaBackward1, input, other)
    if not isinstance(other, Tensor):
        return _binary(SpecialZetaBackward2, input, other)
    return _binary(SpecialZetaBackward0, input, other)


def _is_floating(x) -> bool:
    if isinstance(x, Tensor):
        return x._data.dtype.kind == "f"
    return isinstance(x, float)


__all__: list[str] = []  # torch.special only (teachgrad.special exports it)
