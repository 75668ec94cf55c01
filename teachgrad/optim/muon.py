"""``Muon`` (Keller Jordan, 2024): momentum, then *orthogonalise* the update.

For a weight matrix, SGD with momentum steps along the momentum ``B``. Muon steps along
the nearest (semi-)orthogonal matrix to ``B`` instead -- ``U Vᵀ`` where ``B = U S Vᵀ`` --
so every direction the update moves in gets the same step size, however lopsided the
gradient's singular values are. The SVD would be slow; five *Newton–Schulz* iterations of
the quintic ``X ← aX + (bXXᵀ + c(XXᵀ)²)X``, started from ``B/‖B‖``, push every singular
value towards 1 (to roughly 0.7-1.2: enough, and cheap). PyTorch's rule per 2-d parameter::

    B = lerp(B, g, 1 - momentum)                         (momentum buffer)
    U = lerp(g, B, momentum) if nesterov else B
    O = NewtonSchulz(U)                                  (in bfloat16, as PyTorch)
    p = p · (1 − lr·weight_decay)
    p = p − lr · √max(1, rows/cols) · O                  ('original' lr adjustment)

PyTorch runs the iteration in bfloat16, which NumPy lacks: :func:`_round_to_bfloat16`
rounds each intermediate result to bfloat16's 8 significant bits exactly as PyTorch's
kernels do, so the steps agree with PyTorch's bit for bit on small matrices. On large ones
the matrix products add in another order, and a sum can round to the neighbouring
bfloat16 value: a difference of about ``lr · 2⁻⁸`` in some weights.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .._creation import zeros_like
from .._tensor import Tensor, _make
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer

# Keller Jordan's constants (https://kellerjordan.github.io/posts/muon/), as PyTorch's.
EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _round_to_bfloat16(values: np.ndarray | float) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), kept as float32.

    bfloat16 is float32 with the low 16 bits of the mantissa dropped; adding
    ``0x7FFF + (lowest kept bit)`` before dropping them rounds to nearest, ties to even.
    """
    bits = np.asarray(values, np.float32).view(np.uint32)
    rounded = (bits + (((bits >> 16) & 1) + 0x7FFF)) & np.uint32(0xFFFF0000)
    return rounded.astype(np.uint32).view(np.float32)


def _zeropower_via_newtonschulz(grad: np.ndarray, ns_coefficients: tuple[float, float, float],
                                ns_steps: int, eps: float) -> np.ndarray:
    """``ns_steps`` Newton–Schulz iterations towards the orthogonal factor of ``grad``
    (its singular values pushed to about 1), in bfloat16 arithmetic as PyTorch."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    bf16 = _round_to_bfloat16
    x = bf16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:  # iterate on the wide orientation: X Xᵀ is the smaller Gram matrix
        x = x.T
    # Divide by the Frobenius norm, which bounds the spectral norm: singular values ≤ 1.
    norm = max(bf16(np.sqrt(np.sum(x * x, dtype=np.float32))), bf16(eps))
    x = bf16(x / norm)
    for _ in range(ns_steps):
        gram = bf16(x @ x.T)
        gram_update = bf16(b * gram + c * (gram @ gram))  # addmm(gram, gram, gram, b, c)
        x = bf16(a * x + gram_update @ x)                  # addmm(x, gram_update, x, a)
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, param_shape: tuple) -> float:
    """'original': scale by ``√max(1, rows/cols)``; 'match_rms_adamw': ``0.2·√max(rows,
    cols)`` (an update as large, in RMS, as AdamW's)."""
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Muon: SGD-momentum whose update is orthogonalised by Newton–Schulz iterations.

    Only for 2-d parameters (the weight matrices of hidden layers); train biases,
    embeddings and the rest with e.g. AdamW::

        >>> import teachgrad as torch
        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(),
        ...                             torch.nn.Linear(8, 2))
        >>> matrices = [p for p in model.parameters() if p.ndim == 2]
        >>> others = [p for p in model.parameters() if p.ndim != 2]
        >>> muon = torch.optim.Muon(matrices, lr=0.02)
        >>> adamw = torch.optim.AdamW(others, lr=3e-4)

    Args: ``lr=1e-3``, ``weight_decay=0.1`` (decoupled, as AdamW's), ``momentum=0.95``,
    ``nesterov=True``, ``ns_coefficients=(3.4445, -4.7750, 2.0315)``, ``eps=1e-7``,
    ``ns_steps=5``, ``adjust_lr_fn`` (``None``/'original' or 'match_rms_adamw').
    """

    def __init__(self, params: Iterable, lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B,
                                                                DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS,
                 adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr, "weight_decay": weight_decay, "momentum": momentum,
            "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
            "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every 2-D parameter that has a gradient; returns ``closure()`` if given."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                # As PyTorch: every momentum buffer of the group exists before the first
                # update (a parameter that is not 2-D fails after that, not before).
                for p in params:
                    if "momentum_buffer" not in self.state[p]:
                        self.state[p]["momentum_buffer"] = zeros_like(p.grad)
                for p in params:
                    self._update(p, group)
        return loss

    def _update(self, param, group: dict) -> None:
        lr = float(group["lr"])
        momentum = group["momentum"]
        grad = param.grad
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        state = self.state[param]
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = zeros_like(grad)
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if group["nesterov"] else buf
        ortho = _zeropower_via_newtonschulz(update._data, group["ns_coefficients"],
                                            group["ns_steps"], group["eps"])
        adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], tuple(param.shape))
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(_make(ortho.astype(param._data.dtype)), alpha=-adjusted_lr)


__all__ = ["Muon"]
