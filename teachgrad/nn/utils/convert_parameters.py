"""``parameters_to_vector`` and ``vector_to_parameters``: all of a model's numbers as one
flat vector, and back (used e.g. to count, compare or perturb all weights at once)."""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ...ops.shape import cat
from ..modules.module import _typename


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Flatten every parameter and concatenate them into one vector (gradients flow back).

    >>> import teachgrad as torch
    >>> a, b = torch.tensor([[1.0, 2.0]]), torch.tensor([3.0])
    >>> torch.nn.utils.parameters_to_vector([a, b])
    tensor([1., 2., 3.])
    """
    return cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters (replaces their ``.data``).

    >>> import teachgrad as torch
    >>> w = torch.zeros(2, 2)
    >>> torch.nn.utils.vector_to_parameters(torch.arange(4.0), [w])
    >>> w
    tensor([[0., 1.],
            [2., 3.]])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        # Slicing and view_as share memory with vec, exactly as in PyTorch.
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


__all__ = ["parameters_to_vector", "vector_to_parameters"]
