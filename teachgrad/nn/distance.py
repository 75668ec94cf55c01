"""How far apart, or how aligned, two batches of vectors are: ``F.pairwise_distance``,
``F.cosine_similarity`` and ``F.normalize``.

All three are built from ordinary differentiable ops, the way PyTorch builds them, so the
graph (and the ``grad_fn`` at its top) is PyTorch's and gradients of any order work.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> a, b = torch.tensor([[3.0, 4.0]]), torch.tensor([[0.0, 0.0]])
>>> F.pairwise_distance(a, b, eps=0.0), F.normalize(a)
(tensor([5.]), tensor([[0.6000, 0.8000]]))
"""

from __future__ import annotations

import numpy as np

from .._dtypes import result_type
from .._input_check import BUILTIN, refuses_complex
from .._out import write_out
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..ops import pointwise
from ..ops.reduce import (
    LinalgVectorNormBackward0,
    check_norm_of_nothing,
    normalize_dims,
    vector_norm,
)
from .argument_types import (
    argument_error,
    operand_argument,
    scalar_argument,
    takes_arguments,
)
from .rms_norm import AddBackward1


class NormBackward1(LinalgVectorNormBackward0):
    """``torch.norm(x, p, dim)``: the vector p-norm along ``dim``. The same op as
    ``linalg.vector_norm``; PyTorch records this name when it is called as ``norm``."""

    # (norm's argument is p, where linalg.vector_norm's is ord)
    saved_attributes = {"p" if name == "ord" else name: value for name, value
                        in LinalgVectorNormBackward0.saved_attributes.items()}

    @property
    def _saved_ord(self):  # (vector_norm's name, which this node does not show)
        raise AttributeError("'NormBackward1' object has no attribute '_saved_ord'")

    def __dir__(self) -> list:
        return [name for name in super().__dir__() if name != "_saved_ord"]


def _norm(input: Tensor, p: float, dim: int, keepdim: bool = False) -> Tensor:
    """``input.norm(p, dim, keepdim)`` recorded as PyTorch records it (``NormBackward1``)."""
    dims = normalize_dims(dim, input.ndim)
    check_norm_of_nothing(input, float(p), dim, dims)
    return NormBackward1.apply(input, ord=float(p), dims=dims, keepdim=keepdim)


@refuses_complex("pairwise_distance", p=BUILTIN, eps=BUILTIN)
@takes_arguments("pairwise_distance", p=("float", BUILTIN), eps=("float", BUILTIN),
                 keepdim=("bool", BUILTIN))
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """The p-norm distance between corresponding rows: ``‖x1 − x2 + eps‖ₚ`` over the last
    dimension (``eps`` keeps the gradient finite when two rows are equal).

    >>> import teachgrad as torch
    >>> torch.nn.functional.pairwise_distance(torch.tensor([[1.0, 1.0]]),
    ...                                       torch.tensor([[4.0, 5.0]]), eps=0.0)
    tensor([5.])
    """
    p = scalar_argument(p, "pairwise_distance", "p", kind="float")
    eps = scalar_argument(eps, "pairwise_distance", "eps", kind="float")
    pointwise._check_broadcast(x1, x2)
    innermost = max(x1.ndim, x2.ndim) - 1
    diff = x1 - x2
    # + eps is ATen's add of a number: AddBackward1, as PyTorch records it (integers have
    # no gradient: + promotes them to the default float dtype, as PyTorch's add)
    shifted = (AddBackward1.apply(diff, other=eps) if diff.is_floating_point()
               else diff + eps)
    return _norm(shifted, p, innermost, keepdim)


@refuses_complex("cosine_similarity", eps=BUILTIN)
@takes_arguments("cosine_similarity", dim=("int", BUILTIN), eps=("float", BUILTIN))
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1·x2 / (‖x1‖·‖x2‖)`` along ``dim``: 1 for vectors pointing the same way, 0 for
    perpendicular ones, −1 for opposite ones.

    Like PyTorch, each input is divided by its own norm first (so the result stays in
    [−1, 1]), and a norm below ``eps`` is replaced by ``eps`` without that replacement
    being differentiated.

    >>> import teachgrad as torch
    >>> torch.nn.functional.cosine_similarity(torch.tensor([[1.0, 0.0]]),
    ...                                       torch.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    eps = scalar_argument(eps, "cosine_similarity", "eps", kind="float")
    if eps < 0:  # (first, as PyTorch; printed as C++ prints a double: -1, 1e-08)
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    common = result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is "
            f"{common._legacy.removesuffix('Tensor')}"
            "\nHint: convert the inputs first, e.g. x.float()."
        )
    # (only integer and bool inputs are converted, as PyTorch's: a float32 one is
    # normalised in float32 beside a float64 one, and the product promotes)
    x1, x2 = (x if x.dtype.is_floating_point else x.to(common) for x in (x1, x2))
    pointwise._check_broadcast(x1, x2)
    shape = np.broadcast_shapes(x1.shape, x2.shape)  # broadcast first: the norms see it
    x1 = x1 if x1.shape == shape else x1.expand(*shape)
    x2 = x2 if x2.shape == shape else x2.expand(*shape)
    x1_norm = vector_norm(x1, 2, dim=dim, keepdim=True).clone()
    x2_norm = vector_norm(x2, 2, dim=dim, keepdim=True).clone()
    with no_grad():  # the clamp protects the division; it is not part of the derivative
        x1_norm.clamp_min_(eps)
        x2_norm.clamp_min_(eps)
    return ((x1 / x1_norm) * (x2 / x2_norm)).sum(dim)


def _norm_arguments(p, dim) -> tuple:
    """``normalize``'s ``p`` and ``dim`` as ``Tensor.norm`` hands them on to
    ``linalg.vector_norm`` (``p=None`` or ``'fro'``: 2; an int ``dim`` in a list), with
    PyTorch's errors for what its parser refuses."""
    if p is None or p == "fro":
        p = 2.0
    elif isinstance(p, str):  # (another name goes to matrix_norm, which refuses it)
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported."
                           "\nHint: p is a number here, e.g. 2 or 1.")
    dims = [dim] if isinstance(dim, int) else dim
    for error in (argument_error("linalg_vector_norm", "ord", "Number", p, 2),
                  argument_error("linalg_vector_norm", "dim", "tuple of ints?", dims, 3)):
        if error is not None:
            raise error
    return p, dim if dim is None or isinstance(dim, int) else tuple(dims)


@refuses_complex("normalize", p=RuntimeError(
    "linalg.vector_norm: Expected a non-complex scalar as the order of norm."),
    eps=NotImplementedError("clamp is not supported for complex types"))
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """Divide by the p-norm along ``dim`` (at least ``eps``): unit-length vectors.

    >>> import teachgrad as torch
    >>> torch.nn.functional.normalize(torch.tensor([[3.0, 4.0], [0.0, 0.0]]))
    tensor([[0.6000, 0.8000],
            [0.0000, 0.0000]])
    """
    p, dim = _norm_arguments(p, dim)
    if not input.is_floating_point():
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{input.dtype._legacy.removesuffix('Tensor')}"
            "\nHint: convert the input first, e.g. x.float()."
        )
    eps = operand_argument(eps, "clamp_min")
    # (Tensor.norm with a number p is linalg.vector_norm: LinalgVectorNormBackward0)
    denom = vector_norm(input, p, dim=dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    if is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise RuntimeError(
            "div(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    return write_out("div", input / denom, out)  # (resized as torch.div's out=)


__all__ = ["pairwise_distance", "cosine_similarity", "normalize"]
