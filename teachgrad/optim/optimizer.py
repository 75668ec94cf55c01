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
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

from .._real_pytorch import real_pytorch_hint
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


def _split_names(param_group: dict[str, Any]) -> None:
    """Named parameters, as model.named_parameters() gives them: keep the tensors in
    ``'params'`` and the names in ``'param_names'``."""
    names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
    param_group["params"] = [p[1] if isinstance(p, tuple) else p
                             for p in param_group["params"]]
    if names:
        if len(names) != len(param_group["params"]):
            raise ValueError(
                "all optimizer params should be with/without names. Some param names are "
                "missing"
            )
        param_group["param_names"] = names


def _check_optimizable(param: Any) -> None:
    if not isinstance(param, Tensor):
        raise TypeError(
            "optimizer can only optimize Tensors, but one of the params is "
            + _typename(param) + real_pytorch_hint(param)
        )
    if not (param.is_leaf or param.retains_grad):
        raise ValueError(
            "can't optimize a non-leaf Tensor"
            "\nHint: optimize the tensor you created (the leaf), e.g. "
            "w = torch.randn(3, requires_grad=True), not a result computed from it "
            "such as w * 2."
        )


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

    # The types of step hooks (for annotations, as PyTorch's): a pre-hook gets
    # ``(optimizer, args, kwargs)`` and may return new ``(args, kwargs)``; a post-hook
    # gets the same and returns nothing.
    OptimizerPreHook = Callable[[Any, tuple, dict], "tuple[tuple, dict] | None"]
    OptimizerPostHook = Callable[[Any, tuple, dict], None]

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
        self._add_state_dict_hook_tables()
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
        """Add a group of parameters (with its own settings) to optimize from now on.

        As in PyTorch, the dict given becomes the group: its ``'params'`` is made a list
        and the settings it does not give are filled in from the defaults.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        else:
            param_group["params"] = list(params)
        _split_names(param_group)
        for param in param_group["params"]:
            _check_optimizable(param)

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        tensors = param_group["params"]
        if len(tensors) != len(set(tensors)):
            warn_user(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information", UserWarning,
            )
        seen: set[Tensor] = set()
        for existing in self.param_groups:
            seen.update(existing["params"])
            if ("param_names" in param_group) != ("param_names" in existing):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add "
                    f"param group {which} to the optimizer"
                )
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _patch_step_function(self) -> None:
        # As PyTorch: the first optimizer of a class wraps the step its class uses, once.
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)

    def _add_state_dict_hook_tables(self) -> None:
        # Ordered: a hook registered with prepend=True moves to the front.
        for name in _STATE_DICT_HOOK_TABLES:
            self.__dict__.setdefault(name, OrderedDict())

    def _register(self, table: str, hook: Callable, prepend: bool) -> RemovableHandle:
        hooks = getattr(self, table)
        handle = RemovableHandle(hooks, hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook: Callable,
                                     prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer)`` at the start of each :meth:`state_dict`
        (``prepend=True``: before the hooks already registered). Returns a handle with
        ``.remove()``."""
        return self._register("_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable,
                                      prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` at the end of each :meth:`state_dict`; it
        may change the dict in place or return a new one, which is returned instead."""
        return self._register("_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable,
                                          prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` at the start of each
        :meth:`load_state_dict` (with a shallow copy of the dict given); it may change
        that copy or return another dict, which is loaded instead."""
        return self._register("_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable,
                                           prepend: bool = False) -> RemovableHandle:
        """Call ``hook(optimizer)`` at the end of each :meth:`load_state_dict`."""
        return self._register("_optimizer_load_state_dict_post_hooks", hook, prepend)

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
        dict can be loaded into an optimizer for another copy of the same model. The state
        tensors are the optimizer's own (not copies), as in PyTorch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index: dict[int, int] = {}
        start = 0  # each group's first position
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            # PyTorch's numbering: a parameter repeated in a group gets its last position
            index.update({id(p): i for i, p in enumerate(group["params"], start)
                          if id(p) not in index})
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {
            (index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()
        }
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a state saved by :meth:`state_dict` (same model layout required).

        As in PyTorch, a state tensor that already has its parameter's dtype is used as it
        is, not copied: loading ``other.state_dict()`` makes the two optimizers share it.
        """
        state_dict = state_dict.copy()  # shallow: a pre-hook may change the copy
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
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
                state[param] = _cast_state(value, param)
            else:
                state[key] = value
        for s, g in zip(saved_groups, self.param_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    #: Group settings an older checkpoint may lack, filled in when it is loaded (by pickle
    #: or load_state_dict), as each PyTorch optimizer's ``__setstate__`` fills them.
    _OLD_CHECKPOINT_DEFAULTS: dict[str, Any] = {}
    #: Per-parameter state entries older PyTorch versions saved as plain numbers; they are
    #: made 0-d tensors again on loading.
    _TENSOR_STATE: tuple[str, ...] = ()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", {})  # (hooks are not saved)
        self.__dict__.setdefault("_optimizer_step_post_hooks", {})
        self._add_state_dict_hook_tables()
        self._patch_step_function()
        # As PyTorch (load_state_dict comes through here too): groups added from now on
        # say differentiable=False even for an optimizer without that keyword.
        self.defaults.setdefault("differentiable", False)
        self._upgrade_old_checkpoint()

    def _upgrade_old_checkpoint(self) -> None:
        """Fill in what a checkpoint of an older PyTorch lacks (see the two tables above)."""
        for group in self.param_groups:
            for key, value in self._OLD_CHECKPOINT_DEFAULTS.items():
                group.setdefault(key, value)
            for p in group["params"]:
                p_state = self.state.get(p)
                for key in self._TENSOR_STATE if p_state else ():
                    if key in p_state and not isinstance(p_state[key], Tensor):
                        p_state[key] = _scalar_state(p_state[key])

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _scalar_state(value) -> Tensor:
    """A number an old checkpoint saved (``step``), as the 0-d tensor PyTorch now keeps:
    float32, or float64 when that is the default dtype."""
    from .._creation import tensor
    from .._dtypes import float32, float64, get_default_dtype

    return tensor(float(value), dtype=float64 if get_default_dtype() == float64 else float32)


_STATE_DICT_HOOK_TABLES = (
    "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
    "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks",
)


def _cast_state(value: Any, param: Tensor, key: Any = None) -> Any:
    """A saved state value made ready for ``param`` (PyTorch's ``_cast``): a tensor takes
    the parameter's floating dtype -- the same tensor if it has it already -- except the
    step counter, which is kept; dicts and lists are rebuilt around their elements."""
    if isinstance(value, Tensor):
        if key == "step" or not param.is_floating_point() or value.dtype == param.dtype:
            return value
        return _make(value._data.astype(param._data.dtype))
    if isinstance(value, dict):
        return {k: _cast_state(v, param, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(v, param) for v in value)
    return value


def check_tensor_lr(lr: Any) -> None:
    """A learning rate given as a tensor must hold one number (PyTorch's check)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def check_common(lr: float, weight_decay: float, eps: float | None = None) -> None:
    """The argument checks most optimizers share, with PyTorch's messages."""
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_unsupported(differentiable: bool) -> None:
    if differentiable:
        raise NotImplementedError(
            "teachgrad optimizers are not differentiable (differentiable=True): step() "
            "updates the parameters in place under no_grad."
        )


__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]
