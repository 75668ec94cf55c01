"""``nn.utils.stateless.functional_call``: run a module with other parameters and buffers.

``functional_call(model, {"weight": w, "bias": b}, (x,))`` computes ``model(x)`` as if its
tensors were ``w`` and ``b``, and leaves the model unchanged. Useful to differentiate a
model's output with respect to its parameters as ordinary inputs (meta-learning,
per-sample gradients, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..._tensor import Tensor
from ..._warn import warn_user
from ..modules.module import Module

__all__ = ["functional_call"]


def _owner(module: Module, dotted: str) -> tuple[Module, str]:
    path, _, name = dotted.rpartition(".")
    return module.get_submodule(path), name


def _registry(owner: Module, name: str) -> dict | None:
    for registry in (owner._parameters, owner._buffers):
        if name in registry:
            return registry
    return None


@contextmanager
def _reparametrize(module: Module, tensors: dict[str, Tensor], strict: bool,
                   tie_weights: bool) -> Iterator[None]:
    """Swap the module's tensors for ``tensors`` inside the block; put them back after."""
    own = dict(module.named_parameters(remove_duplicate=False))
    own.update(module.named_buffers(remove_duplicate=False))
    if strict:
        missing = [k for k in own if k not in tensors]
        unexpected = [k for k in tensors if k not in own]
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError(
                "Error(s) in reparametrizing for {}:\n\t{}".format(
                    module._get_name(), "\n\t".join(parts))
            )
    if tie_weights:  # a tensor shared under two names is replaced under both
        by_identity: dict[int, list[str]] = {}
        for key, tensor in own.items():
            by_identity.setdefault(id(tensor), []).append(key)
        tensors = dict(tensors)
        for keys in by_identity.values():
            given = [k for k in keys if k in tensors]
            if given:
                for k in keys:
                    tensors.setdefault(k, tensors[given[0]])
    saved = []
    try:
        for key, tensor in tensors.items():
            owner, name = _owner(module, key)
            registry = _registry(owner, name)
            if registry is None:
                saved.append((owner, name, None, owner.__dict__.get(name)))
                object.__setattr__(owner, name, tensor)
            else:
                saved.append((owner, name, registry, registry[name]))
                registry[name] = tensor  # (any tensor: no Parameter check, as in PyTorch)
        yield
    finally:
        for owner, name, registry, old in reversed(saved):
            if registry is None:
                if old is None:
                    owner.__dict__.pop(name, None)
                else:
                    object.__setattr__(owner, name, old)
            else:
                registry[name] = old


def functional_call(module: Module, parameters_and_buffers: dict[str, Tensor], args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the named tensors replaced (deprecated in PyTorch,
    which points to ``torch.func.functional_call``; it warns so).

    >>> import teachgrad as torch
    >>> layer = torch.nn.Linear(2, 1)
    >>> new = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> torch.nn.utils.stateless.functional_call(layer, new, (torch.tensor([1., 2.]),))
    tensor([3.])
    """
    warn_user(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.", FutureWarning,
    )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, parameters_and_buffers, strict, tie_weights):
        return module(*args, **kwargs)
