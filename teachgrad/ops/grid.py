"""``meshgrid``: coordinate grids from 1-d tensors, as views (nothing is copied).

Each output is its input reshaped to have its own axis and then *expanded* along the
others (stride 0), exactly as PyTorch builds it, so the outputs are differentiable and
their ``grad_fn`` is ``ExpandBackward0``.
"""

from __future__ import annotations

from .._tensor import Tensor
from .._warn import warn_user
from .shape import _tensor_list


def meshgrid(*tensors: Tensor, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Grids of coordinates: output ``k`` repeats ``tensors[k]`` along every other axis.

    ``indexing="ij"`` (matrix indexing) gives shape ``(len(t0), len(t1), ...)``;
    ``indexing="xy"`` (Cartesian, NumPy's default) swaps the first two axes. Without
    ``indexing`` PyTorch uses "ij" and warns that the argument will become required.

    >>> import teachgrad as torch
    >>> xs, ys = torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]), indexing="ij")
    >>> xs
    tensor([[1, 1, 1],
            [2, 2, 2]])
    >>> ys
    tensor([[3, 4, 5],
            [3, 4, 5]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])  # meshgrid([x, y]) works too
    if indexing is None:
        warn_user(
            "torch.meshgrid: in an upcoming release, it will be required to pass the "
            "indexing argument.",
            UserWarning,
        )
        indexing = "ij"
    _check(tensors, indexing)
    sizes = [t.numel() for t in tensors]  # a 0-d tensor counts as one element
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for k, t in enumerate(tensors):
        axis = {0: 1, 1: 0}.get(k, k) if swap else k
        shape = [1] * len(tensors)
        shape[axis] = -1
        grids.append(t.reshape(shape).expand(sizes))
    return tuple(grids)


def _check(tensors: tuple, indexing: str) -> None:
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    _tensor_list(tensors, "meshgrid")  # (PyTorch's TypeError for a number among them)
    if len({t.dtype for t in tensors}) > 1:  # (PyTorch's first check, before the shapes)
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"a tensor of shape {list(t.shape)}"
                "\nHint: pass one 1-d tensor per axis, e.g. torch.meshgrid(xs, ys, indexing='ij')."
            )


__all__ = ["meshgrid"]
