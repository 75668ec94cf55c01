"""``F.batch_norm``: normalise every channel with the batch's statistics (or running ones).

Built from ordinary differentiable ops (mean, subtraction, ``rsqrt`` ...), so its backward
is the chain rule through them; PyTorch fuses it into one ``NativeBatchNormBackward0``.

>>> import teachgrad as torch
>>> x = torch.tensor([[1.0, 10.0], [3.0, 30.0]])
>>> torch.nn.functional.batch_norm(x, None, None, training=True)
tensor([[-1.0000, -1.0000],
        [ 1.0000,  1.0000]])
"""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float | None = 0.1, eps: float = 1e-5) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` per channel (dimension 1).

    Training: mean and *biased* variance of this batch (over every dimension but 1), and
    the running statistics, if given, move towards the batch's:
    ``running = (1 - momentum) · running + momentum · batch`` with the *unbiased*
    variance. Evaluation: the running statistics are used instead.
    """
    channels = input.shape[1] if input.ndim > 1 else 1
    dims = (0, *range(2, input.ndim))
    count = input.numel() // max(channels, 1)
    if training and count <= 1:
        raise ValueError(
            "Expected more than 1 value per channel when training, got input size "
            f"{input.shape}"
        )
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is None and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
        if stat is not None and stat.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {stat.numel()}")
    shape = (1, channels, *(1,) * (input.ndim - 2))  # broadcast over all but the channel
    if training:
        mean = input.mean(dims, keepdim=True)
        var = ((input - mean) ** 2).mean(dims, keepdim=True)  # biased: divides by count
        if running_mean is not None and momentum is not None:
            with no_grad():  # the running statistics are state, not part of the graph
                # The running variance is the unbiased estimate (divides by count - 1).
                unbiased = var.reshape(channels) * (count / (count - 1))
                running_mean.copy_(running_mean * (1 - momentum)
                                   + mean.reshape(channels) * momentum)
                running_var.copy_(running_var * (1 - momentum) + unbiased * momentum)
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


__all__ = ["batch_norm"]
