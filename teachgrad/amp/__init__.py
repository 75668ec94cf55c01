"""``torch.amp``: automatic mixed precision, as PyTorch runs it on a machine without a GPU.

Mixed precision computes in float16/bfloat16 on an accelerator, and ``GradScaler``
multiplies the loss so that small float16 gradients do not round to zero. teachgrad
computes with NumPy on the CPU, in the dtype you choose. It still has ``autocast`` and
``GradScaler``, because PyTorch's mixed-precision recipe is written to run anywhere::

    use_amp = True
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()

On a machine without CUDA, PyTorch warns once for each and switches both off: the loop
runs in float32, and ``scaler.step(opt)`` is ``opt.step()``. teachgrad, which has no CUDA,
does the same, with PyTorch's warnings; with ``enabled=False`` both are silent no-ops.
What teachgrad cannot do is what PyTorch does with ``device_type="cpu"``: compute in
bfloat16 (NumPy has none), and scale float16 gradients. Asking for that is refused.
"""

from .autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    is_autocast_available,
    is_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "GradScaler", "is_autocast_available",
           "is_autocast_enabled"]
