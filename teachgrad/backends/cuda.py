"""``teachgrad.backends.cuda``: CUDA's switches, remembered and without effect (no GPU).

>>> import teachgrad as torch
>>> torch.backends.cuda.matmul.allow_tf32 = True  # as in speed-up recipes: changes nothing
>>> torch.backends.cuda.is_built()
False
"""

from __future__ import annotations


class _MatmulSwitches:
    """``torch.backends.cuda.matmul``: precision switches of GPU matrix products."""

    def __init__(self) -> None:
        # PyTorch's defaults.
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulSwitches()


def is_built() -> bool:
    """False: teachgrad has no CUDA."""
    return False
