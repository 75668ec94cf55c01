"""``torch.cuda.amp.common``: is mixed precision certainly unavailable?"""

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available() -> bool:
    """True: teachgrad has no CUDA (nor torch_xla), so no mixed precision."""
    return True
