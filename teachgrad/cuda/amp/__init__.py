"""``torch.cuda.amp``: the old names of :mod:`teachgrad.amp`'s tools, as PyTorch keeps them.

``torch.cuda.amp.autocast()``, ``torch.cuda.amp.GradScaler()`` and the
``custom_fwd``/``custom_bwd`` decorators are ``torch.amp``'s with ``"cuda"`` filled in.
PyTorch deprecates them: each use warns (a ``FutureWarning`` naming the new spelling),
then behaves as the new one, which teachgrad, having no CUDA, switches off as PyTorch does
without a GPU (see :mod:`teachgrad.amp`). teachgrad gives the same warnings, so old
tutorials run and say what to write today.
"""

from .autocast_mode import autocast, custom_bwd, custom_fwd
from .common import amp_definitely_not_available
from .grad_scaler import GradScaler

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd",
           "GradScaler"]
