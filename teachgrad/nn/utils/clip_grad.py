"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``.

A single bad batch can produce a huge gradient that throws a model far away from where
it was (RNNs are famous for this). Clipping limits the size of the step before
``optimizer.step()`` takes it::

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()

``clip_grad_norm_`` rescales *all* gradients together, so their direction is kept;
``clip_grad_value_`` clamps each element on its own, which can change the direction.
Both change the ``.grad`` tensors in place, as PyTorch does.
"""

from __future__ import annotations

import types
from collections.abc import Iterable

from ..._creation import tensor
from ..._tensor import Tensor
from ..._warn import warn_user
from ...autograd.grad_mode import no_grad
from ...linalg import vector_norm
from ...ops.shape import stack

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list[Tensor]:
    """One tensor or an iterable of them, as a list (a generator is read only once)."""
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors: TensorOrTensors, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` together, as if they were one long vector.

    It is computed as PyTorch does: the norm of each tensor first, then the norm of
    those norms (for p-norms that is the same number, and it never builds the long vector).

    >>> import teachgrad as torch
    >>> torch.nn.utils.get_total_norm([torch.tensor([3.0]), torch.tensor([4.0])])
    tensor(5.)
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    with no_grad():
        norms = [vector_norm(t, norm_type) for t in tensors]
        total_norm = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not total_norm.isfinite().item():
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total_norm


def clip_grads_with_norm_(parameters: TensorOrTensors, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale every ``.grad`` by ``min(max_norm / (total_norm + 1e-6), 1)``, in place.

    The ``1e-6`` avoids dividing by zero when all gradients are zero; the ``min(..., 1)``
    means gradients are only ever shrunk, never enlarged.

    >>> import teachgrad as torch
    >>> w = torch.tensor([3.0, 4.0], requires_grad=True)
    >>> w.grad = torch.tensor([3.0, 4.0])
    >>> torch.nn.utils.clip_grads_with_norm_([w], 1.0, torch.tensor(5.0))
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)  # (first, as PyTorch: a complex max_norm is refused here)
    if len(grads) == 0:
        return
    with no_grad():
        # PyTorch multiplies even when the factor is 1 (it avoids a branch on the GPU), so
        # we do too: the result is bit-for-bit the same as PyTorch's.
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = clip_coef.clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped)


def clip_grad_norm_(parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Shrink all gradients together so that their total norm is at most ``max_norm``.

    Returns the total norm *before* clipping (handy to log: it shows when gradients
    explode). ``norm_type`` may be ``float('inf')`` (the largest absolute value).
    ``foreach`` is accepted for compatibility; teachgrad always loops over the tensors.

    >>> import teachgrad as torch
    >>> w = torch.tensor([3.0, 4.0], requires_grad=True)
    >>> (w * w).sum().backward()          # w.grad = 2w = [6, 8], norm 10
    >>> torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
    tensor(10.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if is_generator and len(parameters) == 0:
        warn_user(
            "`parameters` is an empty generator, no gradient clipping will occur.",
            UserWarning,
        )
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters: TensorOrTensors, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated spelling of :func:`clip_grad_norm_` (warns, as PyTorch does).

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> w.grad = torch.tensor([2.0])
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.nn.utils.clip_grad_norm([w], 1.0)
    tensor(2.)
    """
    warn_user(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.", FutureWarning,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: TensorOrTensors, clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element into ``[-clip_value, clip_value]``, in place.

    >>> import teachgrad as torch
    >>> w = torch.tensor([1.0, 1.0], requires_grad=True)
    >>> w.grad = torch.tensor([-5.0, 0.5])
    >>> torch.nn.utils.clip_grad_value_([w], clip_value=1.0)
    >>> w.grad
    tensor([-1.0000,  0.5000])
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_",
    "get_total_norm",
]
