"""``Optimizer``: the base class of SGD, Adam ... (parameter groups, state, zero_grad).

An optimizer holds the tensors to train in *parameter groups*: ``param_groups`` is a list
of dicts, each with its ``'params'`` and its own settings (``'lr'``, ...), so that different
parts of a model can learn at different rates. ``state`` keeps, per parameter, what the
update rule remembers between steps (a momentum buffer, Adam's moving averages, ...).

A training step is always the same three lines::

    optimizer.zero_grad()   # forget the previous step's gradients
    loss.backward()         # compute new ones into each parameter's .grad
    optimizer.step()        # move each parameter a little against its gradient

Subclasses only write ``step()``: a plain loop over the parameters that have a gradient.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

from .._tensor import Tensor, _make
from .._warn import warn_user
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import RemovableHandle
from ..nn.modules.module import _reset_grad


class _RequiredParameter:
    """Marks a setting every parameter group must give (no sensible default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj: Any) -> str:
    """How PyTorch's messages name a type: ``torch.FloatTensor``, ``int``, ``str``..."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


# Step hooks for every optimizer (register_optimizer_step_pre_hook / _post_hook), PyTorch's
# names: the pre-hooks run before each optimizer's own, the post-hooks after.
_global_optimizer_pre_hooks: dict = {}
_global_optimizer_post_hooks: dict = {}


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``; it may
    return new ``(args, kwargs)`` (``args`` starts with the optimizer itself)."""
    return RemovableHandle(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    return RemovableHandle(_global_optimizer_post_hooks, hook)


def _with_step_hooks(step: Callable) -> Callable:
    """``step`` between the step pre-hooks and post-hooks (PyTorch's ``profile_hook_step``):
    every optimizer's pre-hooks, then this one's; this one's post-hooks, then every one's."""

    @functools.wraps(step)
    def hooked_step(*args: Any, **kwargs: Any) -> Any:
        optimizer = args[0]
        for hook in [*_global_optimizer_pre_hooks.values(),
                     *optimizer._optimizer_step_pre_hooks.values()]:
            result = hook(optimizer, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in [*optimizer._optimizer_step_post_hooks.values(),
                     *_global_optimizer_post_hooks.values()]:
            hook(optimizer, args, kwargs)
        return out

    hooked_step.hooked = True  # type: ignore[attr-defined]
    return hooked_step


class Optimizer:
    """Base class of all optimizers.

    ``params`` is an iterable of tensors (``model.parameters()``), or of dicts that each
    define a parameter group (``[{'params': ..., 'lr': 0.1}, {'params': ...}]``).
    ``defaults`` holds the settings used by groups that do not give their own.
    """

    def __init__(self, params: Iterable, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
                "\nHint: pass a list, e.g. [w], or model.parameters()."
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        self._optimizer_step_pre_hooks: dict = {}
        self._optimizer_step_post_hooks: dict = {}
        self._patch_step_function()

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError(
                "optimizer got an empty parameter list"
                "\nHint: parameters are a module's layers and nn.Parameter attributes (a "
                "plain tensor attribute is not one); model.parameters() is also empty the "
                "second time you iterate it."
            )
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own settings) to optimize from now on."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        else:
            params = list(params)
        # Named parameters, as given by model.named_parameters(): keep the names too.
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        if names and len(names) != len(tensors):
            raise ValueError(
                "all optimizer params should be with/without names. Some param names are "
                "missing"
            )
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError(
                    "can't optimize a non-leaf Tensor"
                    "\nHint: optimize the tensor you created (the leaf), e.g. "
                    "w = torch.randn(3, requires_grad=True), not a result computed from it "
                    "such as w * 2."
                )

        group = {**param_group, "params": tensors}
        if names:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            group.setdefault(name, default)

        if len(tensors) != len(set(tensors)):
            warn_user(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information", UserWarning,
            )
        seen: set[Tensor] = set()
        for existing in self.param_groups:
            seen.update(existing["params"])
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def _patch_step_function(self) -> None:
        # As PyTorch: the first optimizer of a class wraps the step its class uses, once.
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` before each ``step``; it may return new
        ``(args, kwargs)``. Returns a handle with ``.remove()``."""
        return RemovableHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` after each ``step``."""
        return RemovableHandle(self._optimizer_step_post_hooks, hook)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the previous step: set every ``.grad`` to ``None``
        (the default), or fill it with zeros if ``set_to_none=False``."""
        for group in self.param_groups:
            for p in group["params"]:
                _reset_grad(p, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; returns ``closure()`` if given.

        Each optimizer writes its rule for one parameter in ``_update``; this loop is
        shared. It runs under ``no_grad``: the update itself must not be recorded.
        """
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:  # None: the parameter took no part in the loss
                        self._update(p, group)
        return loss

    def _update(self, param, group: dict) -> None:
        """Apply this optimizer's rule to one parameter (subclasses define it)."""
        raise NotImplementedError(f"{type(self).__name__} does not define its update rule")

    def _evaluate(self, closure: Callable[[], Any] | None) -> Any:
        """Run ``closure`` (which recomputes the loss) with gradients on, if one is given."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ------------------------------------------------------------------------------------
    # Saving and loading
    # ------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state: ``{'state': {index: {...}}, 'param_groups': [...]}``.

        Parameters are replaced by their position (0, 1, 2 ... across all groups), so the
        dict can be loaded into an optimizer for another copy of the same model.
        """
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {
            (index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a state saved by :meth:`state_dict` (same model layout required)."""
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"])
               for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        by_index = {
            i: p
            for s, g in zip(saved_groups, self.param_groups)
            for i, p in zip(s["params"], g["params"])
        }
        state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in by_index:
                param = by_index[key]
                state[param] = {k: _copy_state(v, param, k) for k, v in value.items()}
            else:
                state[key] = value
        for s, g in zip(saved_groups, self.param_groups):
            s["params"] = g["params"]
        self.state = state
        self.param_groups = saved_groups

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", {})  # (hooks are not saved)
        self.__dict__.setdefault("_optimizer_step_post_hooks", {})
        self._patch_step_function()

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _copy_state(value: Any, param: Tensor, key: str) -> Any:
    """A private copy of one saved state value (tensors cast to the parameter's dtype)."""
    if isinstance(value, Tensor):
        data = value._data.copy()
        if key != "step" and param.is_floating_point():
            data = data.astype(param._data.dtype)
        return _make(data)
    return deepcopy(value)


def check_common(lr: float, weight_decay: float, eps: float | None = None) -> None:
    """The argument checks most optimizers share, with PyTorch's messages."""
    if not lr >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not eps >= 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not weight_decay >= 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_unsupported(differentiable: bool) -> None:
    if differentiable:
        raise NotImplementedError(
            "teachgrad optimizers are not differentiable (differentiable=True): step() "
            "updates the parameters in place under no_grad."
        )


__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]
