"""``torch.nn.utils.prune``: set chosen entries of a weight to zero, with a mask.

Pruning ``module.weight`` keeps the weight as it was, under a new name, and multiplies
it by a 0/1 mask before every forward pass:

* the parameter ``weight`` becomes ``weight_orig`` (still learned: the optimizer sees it);
* the mask is the buffer ``weight_mask`` (saved in ``state_dict``, not learned);
* ``module.weight`` is a plain attribute, ``weight_orig * weight_mask``, recomputed by a
  forward pre-hook (the pruning method itself), so the gradient reaching ``weight_orig``
  is zero where the mask is 0.

Pruning the same weight again combines the masks (a :class:`PruningContainer` keeps the
history: the new method only looks at the entries still unpruned); :func:`remove` makes
the pruning permanent (``weight`` is a parameter again, with the zeros in it).

>>> import teachgrad as torch
>>> from teachgrad.nn.utils import prune
>>> layer = torch.nn.Linear(2, 2)
>>> with torch.no_grad():
...     _ = layer.weight.copy_(torch.tensor([[0.1, -2.0], [3.0, -0.4]]))
>>> _ = prune.l1_unstructured(layer, "weight", amount=2)  # the two smallest |w| go
>>> layer.weight
tensor([[ 0., -2.],
        [ 3., -0.]], grad_fn=<MulBackward0>)
>>> sorted(name for name, _ in layer.named_parameters())
['bias', 'weight_orig']
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ... import _creation, _random
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.module import Module
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
    "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
    "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
    "global_unstructured", "custom_from_mask", "remove", "is_pruned",
]


class BasePruningMethod(ABC):
    """What every pruning method shares: a subclass says how to compute the mask
    (:meth:`compute_mask`) and which kind of pruning it is (``PRUNING_TYPE``:
    ``"unstructured"`` entries, ``"structured"`` whole slices along ``dim``, or
    ``"global"``), which tells :class:`PruningContainer` how to combine masks."""

    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        """The forward pre-hook: recompute ``module.<name>`` from ``<name>_orig`` and the mask."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask (same shape as ``t``) for ``t``; ``default_mask`` is the mask so far."""

    def apply_mask(self, module: Module) -> Tensor:
        """``<name>_orig * <name>_mask``: the pruned tensor."""
        assert self._tensor_name is not None, f"Module {module} has to be pruned"
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args: Any, importance_scores: Tensor | None = None,
              **kwargs: Any) -> BasePruningMethod:
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, on top of any pruning
        it has already (see the module docstring for what changes in the module)."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            assert importance_scores.shape == orig.shape, (
                f"importance_scores should have the same shape as parameter                 "
                f"{name} of {module}"  # (PyTorch's message, spaces and all)
            )
        else:
            importance_scores = orig
        first_time = not isinstance(method, PruningContainer)
        if first_time:  # weight -> weight_orig, and the mask starts as all ones
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:  # put the parameter back as it was
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """``t`` times the mask this method computes for it (no module involved)."""
        if importance_scores is not None:
            assert importance_scores.shape == t.shape, (
                "importance_scores should have the same shape as tensor t"
            )
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _creation.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` is a parameter again, holding the pruned
        values; ``<name>_orig`` and ``<name>_mask`` are gone."""
        assert self._tensor_name is not None, (
            f"Module {module} has to be pruned before pruning can be removed"
        )
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module: Module, name: str, *args: Any, **kwargs: Any):
    """The new method, or a container with the old one(s) and the new one when ``name``
    is pruned already (the old hook is taken off: the returned method is the new hook)."""
    old_method = None
    found = 0
    hooks_to_remove = []
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            hooks_to_remove.append(key)
            found += 1
    assert found <= 1, (
        f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
        "Use a PruningContainer."
    )
    for key in hooks_to_remove:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if isinstance(old_method, PruningContainer):
        old_method.add_pruning_method(method)
        method = old_method
    elif isinstance(old_method, BasePruningMethod):
        container = PruningContainer(old_method)
        container.add_pruning_method(method)
        method = container
    return method


class PruningContainer(BasePruningMethod):
    """The pruning history of one tensor: each new method prunes what the earlier ones left."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Append ``method`` (it must prune the same tensor) to the history."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                f"Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask, computed only on the part of ``t`` still unpruned."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        where = _unpruned_part(method, t, default_mask)
        partial_mask = method.compute_mask(t[where], default_mask=default_mask[where])
        new_mask[where] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


def _unpruned_part(method: BasePruningMethod, t: Tensor, mask: Tensor):
    """The index of what ``method`` may still prune: the unpruned entries (unstructured),
    the slices along ``method.dim`` not wholly pruned (structured), or everything."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * t.dim()
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError(
            "Pruning methods of PRUNING_TYPE 'structured' need to have the attribute `dim` "
            "defined."
        )
    n_dims = t.dim()
    dim = method.dim if method.dim >= 0 else n_dims + method.dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor of dimension {n_dims}")
    keep_channel = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
    index = [slice(None)] * n_dims
    index[dim] = keep_channel
    return tuple(index)


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (a way to get the ``_orig``/``_mask`` layout)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask so far, unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str) -> BasePruningMethod:  # type: ignore[override]
        """Add the identity pruning to ``module.<name>``."""
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries chosen at random (a fraction in [0, 1], or a count)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Zero the entries with the largest of ``rand_like(t)`` (a random choice)."""
        count = _checked_count(self.amount, t.nelement())
        mask = default_mask.clone()
        if count != 0:
            draws = _random.rand_like(t)
            mask.view(-1)[_topk(draws.view(-1), count, largest=True)] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float) -> BasePruningMethod:  # type: ignore[override]
        """Prune ``module.<name>`` at random."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Zero the entries where ``|t|`` is smallest."""
        count = _checked_count(self.amount, t.nelement())
        mask = default_mask.clone()
        if count != 0:
            mask.view(-1)[_topk(t.abs().view(-1), count, largest=False)] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> BasePruningMethod:
        """Prune ``module.<name>`` by magnitude (of ``importance_scores`` if given)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole slices along ``dim`` (e.g. output channels), at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Keep the slices whose random draw is above the ``count``-th smallest."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        count = _checked_count(self.amount, size)
        if count == 0:
            return default_mask
        draws = _random.rand(size)
        threshold = draws.kthvalue(count).values
        mask = _slices_mask(t, self.dim, draws > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,  # type: ignore[override]
              dim: int = -1) -> BasePruningMethod:
        """Prune random slices of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` slices along ``dim`` with the smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: int | float | str, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """Keep the slices with the largest norms."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        count = _checked_count(self.amount, size)
        if count == 0:
            return default_mask
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])
        norms = t.norm(p=self.n, dim=dims)
        keep = _topk(norms, size - count, largest=True)
        mask = _slices_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float,  # type: ignore[override]
              n: int | float | str, dim: int, importance_scores: Tensor | None = None
              ) -> BasePruningMethod:
        """Prune the slices of ``module.<name>`` along ``dim`` with the smallest norms."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask so far times the given one."""
        assert default_mask.shape == self.mask.shape
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor) -> BasePruningMethod:  # type: ignore[override]
        """Prune ``module.<name>`` where ``mask`` is 0."""
        return super().apply(module, name, mask=mask)


# ----------------------------------------------------------------------------------------
# The functions the tutorials call
# ----------------------------------------------------------------------------------------
def identity(module: Module, name: str) -> Module:
    """Reparametrize ``module.<name>`` as ``<name>_orig * <name>_mask`` with an all-ones mask."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: int | float) -> Module:
    """Prune ``amount`` random entries of ``module.<name>`` (a fraction, or a count)."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Module, name: str, amount: int | float,
                    importance_scores: Tensor | None = None) -> Module:
    """Prune the ``amount`` entries of ``module.<name>`` of smallest absolute value."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: int | float, dim: int) -> Module:
    """Prune ``amount`` random slices of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Module, name: str, amount: int | float, n: int | float | str,
                  dim: int, importance_scores: Tensor | None = None) -> Module:
    """Prune the ``amount`` slices of ``module.<name>`` along ``dim`` of smallest ``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type,
                        importance_scores: dict | None = None, **kwargs: Any) -> None:
    """Prune several tensors at once, as one long vector: ``amount=0.2`` removes the
    smallest 20 % over all of them (so some layers lose more than others).

    ``parameters`` holds ``(module, name)`` pairs; ``pruning_method`` an unstructured
    method class such as :class:`L1Unstructured`.
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([
        importance_scores.get((module, name), getattr(module, name))
        for module, name in parameters
    ])
    default_mask = parameters_to_vector([
        getattr(module, name + "_mask", _creation.ones_like(getattr(module, name)))
        for module, name in parameters
    ])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found '
            f"method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = param.numel()
        custom_from_mask(module, name, mask=final_mask[start:start + size].view_as(param))
        start += size


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune ``module.<name>`` where ``mask`` is 0."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent (see :meth:`BasePruningMethod.remove`)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether ``module`` or any of its submodules has a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, submodule in module.named_modules()
        for hook in submodule._forward_pre_hooks.values()
    )


# ----------------------------------------------------------------------------------------
# Checks and small helpers
# ----------------------------------------------------------------------------------------
def _validate_pruning_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _checked_count(amount: int | float, size: int) -> int:
    """How many of ``size`` entries (or slices) to prune: ``amount`` itself when it is a
    count, else ``round(amount · size)``."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(
                f"amount={amount} should be smaller than the number of parameters to "
                f"prune={size}"
            )
        return int(amount)
    return round(amount * size)


def _validate_structured_pruning(t: Tensor) -> None:
    if len(t.shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {t.shape} with {len(t.shape)} dims"
        )


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _topk(values: Tensor, k: int, largest: bool) -> Tensor:
    """The indices of the ``k`` largest (or smallest) values, as PyTorch's ``topk`` picks them."""
    with no_grad():
        return values.topk(k, largest=largest).indices


def _slices_mask(t: Tensor, dim: int, which: Tensor) -> Tensor:
    """Zeros like ``t`` with ones in the slices along ``dim`` picked by ``which`` (a bool
    mask or indices)."""
    mask = _creation.zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = which
    mask[tuple(index)] = 1
    return mask
