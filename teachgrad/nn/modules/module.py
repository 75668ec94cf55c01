"""``Module``: the base class of every layer and every model.

A module is a Python object that *owns* tensors and other modules. The trick that makes
``model.parameters()`` work is :meth:`Module.__setattr__`: when you write
``self.fc = nn.Linear(2, 3)`` or ``self.w = nn.Parameter(...)`` in ``__init__``, the module
files the value under ``_modules`` or ``_parameters`` instead of the plain ``__dict__``.
Every method that walks the model (``parameters()``, ``state_dict()``, ``train()``,
``zero_grad()``, ``print(model)``) then just walks those dictionaries, recursively.

Subclasses implement ``forward``; calling the module (``model(x)``) runs it::

    >>> import teachgrad as torch
    >>> class Scale(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.factor = torch.nn.Parameter(torch.tensor(2.0))
    ...     def forward(self, x):
    ...         return self.factor * x
    >>> Scale()(torch.ones(2))
    tensor([2., 2.], grad_fn=<MulBackward0>)
"""

from __future__ import annotations

import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from ..._creation import _check_device
from ..._tensor import Tensor, _make
from ..._warn import warn_user
from ...autograd.grad_mode import no_grad
from ...autograd.graph import RemovableHandle
from ...ops.conversion import parse_to_arguments
from ..parameter import Buffer, Parameter
from .backward_hooks import BackwardHook, attach_non_full_hooks


def _typename(obj: Any) -> str:
    """What PyTorch's messages call an object's type: ``torch.FloatTensor``, ``int``..."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    if cls.__module__ in ("builtins", "__builtin__"):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (how a child module's repr nests in its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first, rest = lines[0], lines[1:]
    return first + "\n" + "\n".join((" " * spaces + line) if line.strip() else "" for line in rest)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it could not match (if ``strict=False``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _choose_backward_hook_kind(module: Module, full: bool) -> None:
    """A module has full backward hooks or old-style ones, never both (PyTorch's rule)."""
    if module._is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                           "a single Module. Please use only one of them.")
    object.__setattr__(module, "_is_full_backward_hook", full)


def _register(module: Module, where: str, hook: Callable, prepend: bool,
              with_kwargs: bool = False) -> RemovableHandle:
    """File ``hook`` in ``module.<where>`` (first if ``prepend``), for a handle to remove;
    ``with_kwargs``: note its id so that it is called with the keyword arguments too."""
    hooks = module.__dict__.setdefault(where, OrderedDict())  # (a module unpickled from before)
    handle = RemovableHandle(hooks, hook)
    if with_kwargs:
        module.__dict__.setdefault("_hooks_with_kwargs", set()).add(handle.id)
    if prepend:
        rest = {k: v for k, v in hooks.items() if k != handle.id}
        hooks.clear()
        hooks[handle.id] = hook
        hooks.update(rest)
    return handle


# ----------------------------------------------------------------------------------------
# Hooks for every module (torch.nn.modules.module.register_module_*): debugging aids, as in
# PyTorch. Each runs before the module's own hooks of the same kind. The names of these
# dictionaries are PyTorch's (some tools read them).
# ----------------------------------------------------------------------------------------
_global_forward_pre_hooks: dict = {}
_global_forward_hooks: dict = {}
_global_forward_hooks_with_kwargs: dict = {}  # id -> True
_global_forward_hooks_always_called: dict = {}  # id -> True
_global_backward_pre_hooks: dict = {}
_global_backward_hooks: dict = {}
_global_is_full_backward_hook: bool | None = None  # which kind _global_backward_hooks holds
_global_buffer_registration_hooks: dict = {}
_global_parameter_registration_hooks: dict = {}
_global_module_registration_hooks: dict = {}

# Module.__call__'s fast path asks this one flag instead of four dictionaries. It is set
# when a forward or backward hook for every module is registered; a handle's remove() does
# not know about it, so the first call that finds those dictionaries empty clears it.
_global_call_hooks_on = False


def _register_global(hooks: dict, hook: Callable) -> RemovableHandle:
    global _global_call_hooks_on
    if hooks is not _global_buffer_registration_hooks and \
            hooks is not _global_parameter_registration_hooks and \
            hooks is not _global_module_registration_hooks:
        _global_call_hooks_on = True
    return RemovableHandle(hooks, hook)


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(module, args)`` before every module's ``forward``, before the module's
    own pre-hooks; it may return new args (one value is wrapped in a tuple). For debugging:
    it changes every model in the program until its handle's ``remove()``."""
    return _register_global(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Call ``hook(module, args, output)`` after every module's ``forward``, before the
    module's own forward hooks; it may return a new output.

    ``with_kwargs=True``: ``hook(module, args, kwargs, output)``. ``always_call=True``: it
    runs even when the call raises; then, as in PyTorch, without the kwargs.
    """
    handle = _register_global(_global_forward_hooks, hook)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _choose_global_backward_hook_kind(full: bool) -> None:
    """Every module's backward hooks are all full ones or all old-style ones (PyTorch)."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as "
                           "a global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """``Module.register_full_backward_pre_hook`` for every module: ``hook(module,
    grad_output)``, called before the module's own backward pre-hooks."""
    return _register_global(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """``Module.register_full_backward_hook`` for every module: ``hook(module, grad_input,
    grad_output)``, called before the module's own backward hooks."""
    _choose_global_backward_hook_kind(full=True)
    return _register_global(_global_backward_hooks, hook)


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    """The old, deprecated ``register_backward_hook`` for every module (prefer
    :func:`register_module_full_backward_hook`)."""
    _choose_global_backward_hook_kind(full=False)
    return _register_global(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(module, name, buffer)`` whenever any module registers a buffer; it may
    return the buffer to register instead."""
    return _register_global(_global_buffer_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(module, name, param)`` whenever any module registers a parameter (not
    ``None``); it may return the parameter to register instead."""
    return _register_global(_global_parameter_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """Call ``hook(module, name, submodule)`` whenever any module registers a sub-module;
    it may return the sub-module to register instead."""
    return _register_global(_global_module_registration_hooks, hook)


def _registered(hooks: dict, module: Module, name: str, value: Any) -> Any:
    """``value`` after the registration hooks for every module (each may replace it)."""
    for hook in list(hooks.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


class Module:
    """Base class for all neural network modules (layers, losses, whole models).

    Write ``__init__`` (call ``super().__init__()`` first, then assign sub-modules and
    :class:`~teachgrad.nn.Parameter` s as attributes) and ``forward``. Call the module,
    not ``forward``, so that hooks run: ``y = model(x)``.
    """

    training: bool
    # Read-only fallbacks for a module pickled before it had backward hooks (registering
    # one always files it in the instance's own dictionary, see _register).
    _backward_pre_hooks: dict = {}  # noqa: RUF012 - never mutated
    _backward_hooks: dict = {}  # noqa: RUF012
    _is_full_backward_hook: bool | None = None  # which kind _backward_hooks holds
    _hooks_with_kwargs: frozenset = frozenset()  # ids of hooks that take the kwargs too
    _hooks_always_called: frozenset = frozenset()  # ids of forward hooks run even on error
    _state_dict_pre_hooks: dict = {}  # noqa: RUF012
    _state_dict_hooks: dict = {}  # noqa: RUF012
    _load_state_dict_pre_hooks: dict = {}  # noqa: RUF012
    _load_state_dict_post_hooks: dict = {}  # noqa: RUF012
    # The format version saved in state_dict()._metadata (a layer whose saved layout
    # changed would raise it, and read it back in _load_from_state_dict).
    _version: int = 1
    # A subclass that also inherits from another class (a mixin) sets this to True, so
    # that Module.__init__ passes its arguments on to that class's __init__.
    call_super_init: bool = False
    dump_patches: bool = False  # (PyTorch's old switch for saving source patches: unused)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs and not self.call_super_init:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if args and not self.call_super_init:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # object.__setattr__: our own __setattr__ needs these dictionaries to exist. The
        # hook registries are OrderedDicts, as PyTorch's (print(model._forward_hooks)).
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ------------------------------------------------------------------------------------
    # Running the module
    # ------------------------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of this module; every subclass defines it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """``model(x)``: run ``forward`` between the forward pre-hooks and hooks."""
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_call_hooks_on):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        """PyTorch's ``_call_impl``: the hooks for every module first, then the module's."""
        global _global_call_hooks_on
        if not (_global_forward_pre_hooks or _global_forward_hooks
                or _global_backward_pre_hooks or _global_backward_hooks):
            _global_call_hooks_on = False  # all were removed: back to the fast path
        with_kwargs = self._hooks_with_kwargs
        output = None
        called = set()  # the forward hooks that ran (always_call ones do not run twice)
        try:
            # (the backward hooks are read before the pre-hooks run, as PyTorch does)
            backward_pre_hooks = [*_global_backward_pre_hooks.values(),
                                  *self._backward_pre_hooks.values()]
            full_hooks, non_full_hooks = self._backward_hook_lists()
            for key, hook in (*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()):
                if key in with_kwargs:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if not (isinstance(result, tuple) and len(result) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {result}.")
                        args, kwargs = result
                    continue
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
            backward_hook = None
            if full_hooks or backward_pre_hooks:
                backward_hook = BackwardHook(self, full_hooks, backward_pre_hooks)
                args = backward_hook.setup_input_hook(args)
            output = self.forward(*args, **kwargs)
            for key, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                called.add(key)
                if key in with_kwargs or key in _global_forward_hooks_with_kwargs:
                    result = hook(self, args, kwargs, output)
                else:
                    result = hook(self, args, output)
                if result is not None:
                    output = result
            if backward_hook is not None:
                if not isinstance(output, (Tensor, tuple)):
                    warn_user("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(output)}")
                output = backward_hook.setup_output_hook(output)
            if non_full_hooks:
                attach_non_full_hooks(self, non_full_hooks, args, output)
        except Exception:
            self._call_always_hooks(args, kwargs, output, called)
            raise
        return output

    def _backward_hook_lists(self) -> tuple[list, list]:
        """(full backward hooks, old-style ones): every module's first, then this one's."""
        full: list = []
        non_full: list = []
        if _global_backward_hooks:
            (full if _global_is_full_backward_hook else non_full).extend(
                _global_backward_hooks.values())
        if self._backward_hooks:
            (full if self._is_full_backward_hook else non_full).extend(
                self._backward_hooks.values())
        return full, non_full

    def _call_always_hooks(self, args: tuple, kwargs: dict, output: Any, called: set) -> None:
        # The call raised: the hooks registered with always_call=True that did not run yet
        # still run, as in PyTorch (every module's first, and those without the kwargs even
        # when registered with_kwargs: PyTorch's own quirk); an error of theirs only warns.
        groups = (
            (_global_forward_hooks, _global_forward_hooks_always_called, (), "global module"),
            (self._forward_hooks, self._hooks_always_called, self._hooks_with_kwargs, "module"),
        )
        for hooks, always_called, with_kwargs, kind in groups:
            for key, hook in list(hooks.items()):
                if key not in always_called or key in called:
                    continue
                try:
                    if key in with_kwargs:
                        result = hook(self, args, kwargs, output)
                    else:
                        result = hook(self, args, output)
                    if result is not None:
                        output = result
                except Exception as error:
                    warn_user(f"{kind} forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {error}")

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Call ``hook(module, args)`` before ``forward``; it may return new args.

        ``with_kwargs=True``: ``hook(module, args, kwargs)``, returning ``None`` or a new
        ``(args, kwargs)`` pair. ``prepend=True`` runs it before the hooks already there.
        """
        return _register(self, "_forward_pre_hooks", hook, prepend, with_kwargs)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after ``forward``; it may return a new output.

        Handy for looking inside a model: record every layer's output while it runs.
        ``with_kwargs=True``: ``hook(module, args, kwargs, output)``. ``prepend=True``
        runs it before the hooks already there. ``always_call=True``: it runs even when
        ``forward`` raises (then with ``output=None``).
        """
        handle = _register(self, "_forward_hooks", hook, prepend, with_kwargs)
        if always_call:
            self.__dict__.setdefault("_hooks_always_called", set()).add(handle.id)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable,
                                        prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients of the outputs are known,
        before the module's own backward; it may return a new ``grad_output`` tuple."""
        return _register(self, "_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook: Callable,
                                    prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` once the gradients with respect to
        the module's inputs are computed; it may return a new ``grad_input`` tuple.

        ``grad_input`` has one entry per positional argument of ``forward`` (``None`` for
        one that is not a tensor or got no gradient); ``grad_output`` one per output.
        Useful to watch gradients flow: print their norms layer by layer.
        """
        _choose_backward_hook_kind(self, full=True)
        return _register(self, "_backward_hooks", hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """The old, deprecated backward hook: ``hook(module, grad_input, grad_output)`` on
        the ``grad_fn`` of the module's output, so ``grad_input`` is the gradients of that
        last op's inputs (PyTorch warns when they are not the module's inputs). Prefer
        :meth:`register_full_backward_hook`."""
        _choose_backward_hook_kind(self, full=False)
        return _register(self, "_backward_hooks", hook, False)

    # ------------------------------------------------------------------------------------
    # Registration: where parameters, buffers and sub-modules are filed
    # ------------------------------------------------------------------------------------
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter under ``name`` (what ``self.name = Parameter(...)`` does)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        if param is not None and _global_parameter_registration_hooks:
            param = _registered(_global_parameter_registration_hooks, self, name, param)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not learned (saved in ``state_dict`` if persistent)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        if _global_buffer_registration_hooks:
            tensor = _registered(_global_buffer_registration_hooks, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under ``name`` (what ``self.name = module`` does)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        if _global_module_registration_hooks:
            module = _registered(_global_module_registration_hooks, self, name, module)
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                    "\nHint: wrap it, nn.Parameter(tensor), or change the values in place "
                    "under torch.no_grad()."
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            modules = self.__dict__.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, self.__dict__, self._parameters, self._buffers)
            if _global_module_registration_hooks:
                value = _registered(_global_module_registration_hooks, self, name, value)
            modules[name] = value
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            if _global_module_registration_hooks:
                value = _registered(_global_module_registration_hooks, self, name, value)
            self._modules[name] = value
        elif isinstance(value, Buffer) or name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            # An nn.Buffer says whether it is saved; a plain tensor keeps the old choice.
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, *places: dict) -> None:
        for place in places:
            place.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup failed: look in the three registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            found = d.get(registry)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = [
            *dir(type(self)), *self.__dict__, *self._parameters, *self._modules, *self._buffers
        ]
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def get_submodule(self, target: str) -> Module:
        """The sub-module at a dotted path, e.g. ``model.get_submodule("encoder.0")``."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path, e.g. ``model.get_parameter("0.weight")``."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path, e.g. ``model.get_buffer("1.running_mean")``."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        buffer = getattr(module, name)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at a dotted path, e.g. ``model.set_submodule("0", nn.Tanh())``.

        The parent must exist. Without ``strict`` a new child may be added; with it only an
        existing sub-module is replaced. What is at the path must be a module (or nothing).
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    # ------------------------------------------------------------------------------------
    # Walking the tree
    # ------------------------------------------------------------------------------------
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """Every module in the tree, this one first (name ``''``), depth first."""
        if memo is None:
            memo = set()
        # An explicit stack instead of recursion, in the same (pre-)order as PyTorch.
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if remove_duplicate:
                if module in memo:
                    continue
                memo.add(module)
            yield name, module
            children = [
                (name + ("." if name else "") + child_name, child)
                for child_name, child in module._modules.items()
                if child is not None
            ]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        """Every module in the tree, this one first."""
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct sub-modules, with their attribute names."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct sub-modules."""
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry: str, prefix: str, recurse: bool,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and value in seen):
                    continue
                if remove_duplicate:
                    seen.add(value)
                yield (module_prefix + ("." if module_prefix else "") + name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(name, parameter)`` pairs, e.g. ``('0.weight', Parameter ...)``.

        A parameter shared by two layers is listed once.
        """
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every learnable parameter of the tree: what you give an optimizer.

        >>> import teachgrad as torch
        >>> [p.shape for p in torch.nn.Linear(2, 3).parameters()]
        [teachgrad.Size([3, 2]), teachgrad.Size([3])]
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(name, buffer)`` pairs of the tree."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer of the tree."""
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every sub-module (children first), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------------------------
    # Modes and gradients
    # ------------------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Put the tree in training mode (``mode=False``: evaluation mode); returns ``self``.

        Only some layers care (``Dropout`` drops units only while training).
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Switch gradient tracking of every parameter on or off (to freeze layers)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad`` (to ``None``, or to zeros)."""
        for p in self.parameters():
            _reset_grad(p, set_to_none)

    # ------------------------------------------------------------------------------------
    # Saving and loading
    # ------------------------------------------------------------------------------------
    # Both walk the tree recursively, one module at a time, as PyTorch does: every module
    # runs its own hooks around its own tensors (pre-hooks on the way down, parents first;
    # post-hooks on the way back up, children first).
    def state_dict(self, *args: Any, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict:
        """Every parameter and persistent buffer by dotted name, in registration order.

        The tensors share memory with the model but are detached (unless ``keep_vars``).
        A new dictionary carries ``_metadata``: each module's ``{'version': ...}`` by path.
        ``destination, prefix, keep_vars`` given by position still work, with PyTorch's
        deprecation warning.
        """
        if args:
            destination, prefix, keep_vars = _positional_state_dict_args(
                args, destination, prefix, keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                # The old private hooks may return a new dictionary; only the root's
                # counts (a parent ignores what its children's state_dict returns).
                destination = result
        return destination

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Put this module's own parameters and persistent buffers (not its children's) in
        ``destination``, under ``prefix + name``, then its extra state (if its class has
        a ``get_extra_state``) under ``prefix + '_extra_state'``."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else _detached(param)
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else _detached(buf)
        if _overrides(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def get_extra_state(self) -> Any:
        """Override it (with :meth:`set_extra_state`) to save more than tensors in
        ``state_dict``: whatever it returns is saved under ``'_extra_state'``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
            "template=bug-report.yml to report this bug."
        )

    def set_extra_state(self, state: Any) -> None:
        """Override it (with :meth:`get_extra_state`): ``load_state_dict`` gives it what
        ``get_extra_state`` saved."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
            "template=bug-report.yml to report this bug."
        )

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module
        (its return value is ignored)."""
        return RemovableHandle(_own_hooks(self, "_state_dict_pre_hooks"), hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict`` saved
        this module and its children. It may change ``state_dict`` in place; returning
        anything but ``None`` is an error."""
        hook._from_public_api = True  # (PyTorch marks the function itself)
        return RemovableHandle(_own_hooks(self, "_state_dict_hooks"), hook)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """The older post-hook: like :meth:`register_state_dict_post_hook`, but a returned
        dictionary replaces the state dict (only the root module's return value counts)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        return RemovableHandle(_own_hooks(self, "_state_dict_hooks"), hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before ``load_state_dict`` loads this module. It may
        change ``state_dict`` (this module's copy) and the three lists in place."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook: Callable,
                                           with_module: bool = False) -> RemovableHandle:
        """As :meth:`register_load_state_dict_pre_hook`; without ``with_module`` the hook is
        called without the module as its first argument."""
        wrapped = _WrappedHook(hook, self if with_module else None)
        return RemovableHandle(_own_hooks(self, "_load_state_dict_pre_hooks"), wrapped)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` after ``load_state_dict`` loaded this module
        and its children. It may change ``incompatible_keys.missing_keys`` and
        ``.unexpected_keys`` in place (which decides a strict load); it must return None."""
        return RemovableHandle(_own_hooks(self, "_load_state_dict_post_hooks"), hook)

    def load_state_dict(self, state_dict: dict, strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy the tensors of ``state_dict`` into this tree's parameters and buffers.

        With ``strict=True`` every key must match. Unlike PyTorch, a failed load leaves the
        model as it was: what was copied before the failure was found is put back.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict)}."
            )
        load = _Load(state_dict, assign)
        try:
            load.module(self, load.state_dict, "")
            errors = load.errors
            if strict:
                if load.unexpected:
                    errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in load.unexpected)))
                if load.missing:
                    errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in load.missing)))
            if errors:
                raise RuntimeError(
                    "Error(s) in loading state_dict for {}:\n\t{}".format(
                        type(self).__name__, "\n\t".join(errors)
                    )
                )
        except BaseException:
            load.undo()
            raise
        return _IncompatibleKeys(load.missing, load.unexpected)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict,
                              strict: bool, missing_keys: list, unexpected_keys: list,
                              error_msgs: list) -> None:
        """Copy this module's own tensors (not its children's) from ``state_dict``, noting
        missing and unexpected keys and errors in the lists (after the pre-hooks ran)."""
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        journal = _active_loads[-1] if _active_loads else None
        for name, target in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            error = _load_one(self, name, key, target, state_dict[key], assign, journal)
            if error:
                error_msgs.append(error)
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if _overrides(self, "set_extra_state"):
            if extra_key in state_dict:
                _load_extra_state(self, state_dict[extra_key], journal)
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, *rest = key[len(prefix):].split(".", 1)
                    if head not in (self._modules if rest else local_state):
                        unexpected_keys.append(key)

    # ------------------------------------------------------------------------------------
    # dtype conversion
    # ------------------------------------------------------------------------------------
    def _apply(self, convert: Callable[[np.ndarray], np.ndarray]) -> Module:
        """Convert every parameter, gradient and buffer in place (the objects stay the same,
        so an optimizer built before still holds the right tensors)."""
        for module in self.modules():
            for param in module._parameters.values():
                if param is None:
                    continue
                param._data = convert(param._data)
                if param._grad is not None:
                    param._grad._data = convert(param._grad._data)
            for name, buf in module._buffers.items():
                if buf is not None:
                    buf._data = convert(buf._data)
                    module._buffers[name] = buf
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """``to(dtype)`` converts floating-point parameters and buffers in place; the only
        device is ``'cpu'``. Takes what ``Tensor.to`` takes: ``(device, dtype)``,
        ``(dtype)`` or ``(tensor)``, then ``non_blocking`` and ``copy``."""
        bound = parse_to_arguments(args, kwargs)
        _check_device(bound.get("device"))
        dtype = bound["tensor"].dtype if "tensor" in bound else bound.get("dtype")
        if dtype is None:
            return self
        if not dtype.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )
        return self._apply(_float_converter(dtype.numpy))

    def float(self) -> Module:
        """Convert floating-point parameters and buffers to float32."""
        return self._apply(_float_converter(np.dtype(np.float32)))

    def double(self) -> Module:
        """Convert floating-point parameters and buffers to float64."""
        return self._apply(_float_converter(np.dtype(np.float64)))

    def half(self) -> Module:
        """Convert floating-point parameters and buffers to float16."""
        return self._apply(_float_converter(np.dtype(np.float16)))

    def bfloat16(self) -> Module:
        """There is no bfloat16 here (NumPy has none): an ``AttributeError`` with a hint,
        before anything changes."""
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute 'bfloat16'\nHint: NumPy, which "
            "teachgrad computes with, has no bfloat16; use model.half() (float16) or "
            "model.float() (float32).")

    def type(self, dst_type: Any) -> Module:  # noqa: A003 - PyTorch's name
        """Convert every parameter and buffer (integer ones too, unlike ``to``) to
        ``dst_type``: a dtype or a legacy name such as ``'torch.DoubleTensor'``."""
        target = _make(np.zeros(0, np.float32)).type(dst_type).dtype  # (its checks, first)
        if not target.is_floating_point and any(p.requires_grad for p in self.parameters()):
            # (checked before anything changes, so that the module is never half-converted)
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        return self._apply(lambda array: array.astype(target.numpy, copy=False))

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Give every parameter and buffer (of this module only, without ``recurse``) new,
        uninitialised memory of the same shape on ``device`` (only ``'cpu'``): its values
        are whatever was there, until you fill them (``reset_parameters()``, an init)."""
        _check_device(device)
        modules = self.modules() if recurse else [self]
        for module in modules:
            for tensor in (*module._parameters.values(), *module._buffers.values()):
                if tensor is not None:
                    tensor._data = np.empty_like(tensor._data)
        return self

    def share_memory(self) -> Module:
        """Nothing to do: teachgrad's tensors are NumPy arrays of this process (PyTorch
        moves them to shared memory for other processes)."""
        return self

    def cpu(self) -> Module:
        """Nothing to do: teachgrad lives on the CPU."""
        return self

    def cuda(self, device: Any = None) -> Module:
        """There is no GPU: always an error (as ``Tensor.cuda()``)."""
        _check_device("cuda")
        return self

    # ------------------------------------------------------------------------------------
    # Printing
    # ------------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses, e.g. ``in_features=2, ...``.

        Override it in your modules to show their settings.
        """
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __getstate__(self) -> dict:
        return self.__dict__.copy()



def _own_hooks(module: Module, where: str) -> dict:
    """The module's own dictionary of hooks ``where`` (made for a module unpickled from a
    version that did not have it)."""
    return module.__dict__.setdefault(where, OrderedDict())


class _WrappedHook:
    """A load_state_dict pre-hook, called with its module first (``with_module``) or not.

    The module is held weakly (a hook must not keep its module alive), and pickling and
    ``deepcopy`` carry it along, so that a copied module's hook gets the copy.
    """

    def __init__(self, hook: Callable, module: Module | None = None) -> None:
        self.hook = hook
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.with_module:
            return self.hook(*args, **kwargs)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args, **kwargs)

    def __getstate__(self) -> dict:
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state: dict) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# The loads under way (innermost last): where _load_from_state_dict notes what it changed,
# so that a failed load can put it back.
_active_loads: list = []


class _Load:
    """One ``load_state_dict`` call: PyTorch's recursive walk, plus a journal of every
    tensor changed so that ``undo`` restores the model when the load fails."""

    def __init__(self, state_dict: Mapping, assign: bool) -> None:
        # A copy, which the pre-hooks may change (keeping the saved metadata).
        self.metadata = getattr(state_dict, "_metadata", None)
        self.state_dict = OrderedDict(state_dict)
        if self.metadata is not None:
            self.state_dict._metadata = self.metadata
        self.assign = assign
        self.missing: list[str] = []
        self.unexpected: list[str] = []
        self.errors: list[str] = []
        self.changes: list[Callable[[], None]] = []  # each puts one tensor back

    def module(self, module: Module, state_dict: dict, prefix: str) -> None:
        """Load ``module`` (pre-hooks, its tensors), its children, then its post-hooks."""
        saved = {} if self.metadata is None else self.metadata.get(prefix[:-1], {})
        local_metadata = dict(saved)  # (PyTorch writes 'assign' into the caller's metadata)
        if self.assign:
            local_metadata["assign_to_params_buffers"] = True
        _active_loads.append(self)
        try:
            module._load_from_state_dict(state_dict, prefix, local_metadata, True,
                                         self.missing, self.unexpected, self.errors)
        finally:
            _active_loads.pop()
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state = {k: v for k, v in state_dict.items()
                               if k.startswith(child_prefix)}
                self.module(child, child_state, child_prefix)
        incompatible = _IncompatibleKeys(self.missing, self.unexpected)
        for hook in list(module._load_state_dict_post_hooks.values()):
            if hook(module, incompatible) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                    "expected to return new values, if incompatible_keys need to be modified, "
                    "it should be done inplace."
                )

    def undo(self) -> None:
        """Put back every tensor this load changed, last change first."""
        with no_grad():
            for put_back in reversed(self.changes):
                put_back()
        self.changes.clear()


def _load_one(module: Module, name: str, key: str, target: Tensor, source: Any,
              assign: bool, journal: _Load | None) -> str | None:
    """Load ``source`` into ``module.<name>`` (``target``); PyTorch's message if it can't."""
    if not isinstance(source, Tensor):
        return (f'While copying the parameter named "{key}", expected torch.Tensor or '
                f"Tensor-like object from checkpoint but received {type(source)}")
    lazy = hasattr(target, "materialize")
    if lazy and source.numel() == 0:
        return None  # another lazy module's parameter: this one keeps waiting (as PyTorch)
    if not lazy:
        if target.ndim == 0 and source.shape == (1,):
            source = _make(source._data.reshape(()))
        if source.shape != target.shape:
            return (f"size mismatch for {key}: copying a param with shape {source.shape} "
                    f"from checkpoint, the shape in current model is {target.shape}.")
    with no_grad():
        if assign:
            if isinstance(target, Parameter) and not isinstance(source, Parameter):
                source = Parameter(source, target.requires_grad)
            elif isinstance(target, Parameter):
                source.requires_grad_(target.requires_grad)
            if journal is not None:
                journal.changes.append(lambda: setattr(module, name, target))
            setattr(module, name, source)
            return None
        if lazy:
            old_data, old_class = target._data, type(target)
            target.materialize(source.shape)
            if journal is not None:
                journal.changes.append(lambda: _unmaterialize(target, old_data, old_class))
        elif journal is not None:
            old = _make(target._data.copy())
            journal.changes.append(lambda: target.copy_(old))
        try:
            target.copy_(source)
        except Exception as error:  # (e.g. a complex checkpoint into a real parameter)
            return (f'While copying the parameter named "{key}", whose dimensions in the '
                    f"model are {target.size()} and whose dimensions in the checkpoint are "
                    f"{source.size()}, an exception occurred : {error.args}.")
    return None


# Where a module's extra state is saved in its state_dict (after its own prefix).
_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _overrides(module: Module, method: str) -> bool:
    """Does ``module``'s class define its own ``method`` (``get_extra_state``...)?"""
    return getattr(type(module), method, None) is not getattr(Module, method)


def _load_extra_state(module: Module, state: Any, journal: _Load | None) -> None:
    """``module.set_extra_state(state)``; a failed load gives it back what it had (what its
    ``get_extra_state`` returned before, when it has one)."""
    if journal is not None and _overrides(module, "get_extra_state"):
        old = module.get_extra_state()
        journal.changes.append(lambda: module.set_extra_state(old))
    module.set_extra_state(state)


def _unmaterialize(target: Tensor, data: np.ndarray, cls: type) -> None:
    """Make a lazy parameter that a failed load materialized uninitialized again."""
    target._data = data
    target.__class__ = cls


def _positional_state_dict_args(args: tuple, destination: Any, prefix: str,
                                keep_vars: bool) -> tuple[Any, str, bool]:
    """``state_dict(destination, prefix, keep_vars)`` by position: PyTorch's warning, then
    the values (a keyword given too wins, as in PyTorch)."""
    warn_user(
        "Positional args are being deprecated, use kwargs instead. Refer to "
        "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
        " for details.",
        FutureWarning,
    )
    if destination is None:
        destination = args[0]
    if len(args) > 1 and prefix == "":
        prefix = args[1]
    if len(args) > 2 and keep_vars is False:
        keep_vars = args[2]
    return destination, prefix, keep_vars


# Module.to's three forms (those of Tensor.to), as PyTorch's parser prints them.
def _reset_grad(p: Tensor, set_to_none: bool) -> None:
    """``p.grad = None``, or zero it in place (cut off from any graph, as PyTorch does)."""
    grad = p._grad
    if grad is None:
        return
    if set_to_none:
        p.grad = None
        return
    if grad.grad_fn is not None:
        grad.detach_()
    else:
        grad.requires_grad_(False)
    grad.zero_()


def _float_converter(target: np.dtype) -> Callable[[np.ndarray], np.ndarray]:
    def convert(array: np.ndarray) -> np.ndarray:
        if array.dtype.kind == "f" and array.dtype != target:
            return array.astype(target)
        return array

    return convert


def _detached(tensor: Tensor) -> Tensor:
    """What ``state_dict`` holds: the tensor detached, or a lazy layer's uninitialized
    parameter itself (as in PyTorch: it has no values to share, only its pending state)."""
    return tensor if hasattr(tensor, "materialize") else tensor.detach()


__all__ = [
    "register_module_forward_pre_hook", "register_module_forward_hook",
    "register_module_full_backward_pre_hook", "register_module_backward_hook",
    "register_module_full_backward_hook", "register_module_buffer_registration_hook",
    "register_module_module_registration_hook", "register_module_parameter_registration_hook",
    "Module",
]
