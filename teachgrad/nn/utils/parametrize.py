"""``nn.utils.parametrize``: make a tensor of a module a *function* of other tensors.

``register_parametrization(layer, "weight", Symmetric())`` makes ``layer.weight`` be
``Symmetric()(original)`` every time it is read: the learned parameter is now
``layer.parametrizations.weight.original``, and whatever ``forward`` the parametrization
has (a symmetric, orthogonal or normalised matrix...) always holds for the weight the
layer uses. Assigning ``layer.weight = X`` runs the parametrization's ``right_inverse``
to find the ``original`` that gives X.

How it works, as in PyTorch: the module's class is swapped for a subclass made on the
spot (``ParametrizedLinear``) that has a *property* named ``weight``; reading it runs the
parametrizations, writing it runs their ``right_inverse``. ``cached()`` computes each
parametrized tensor once inside a ``with`` block (for a forward pass that reads it often).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "cached", "ParametrizationList", "register_parametrization", "is_parametrized",
    "remove_parametrizations", "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached() -> Iterator[None]:
    """Inside this block each parametrized tensor is computed once, on first read."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, x: Tensor) -> None:
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _set(dest: Tensor, src: Tensor) -> None:
    """``dest.set_(src)``: ``dest`` (the same object) now holds ``src``'s values."""
    dest._data = src._data
    dest._vc[0] += 1


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and its ``original`` (or
    ``original0``, ``original1``... when ``right_inverse`` returns several tensors)."""

    def __init__(self, modules: Sequence[Module], original: Tensor,
                 unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    with suppress(NotImplementedError):
                        new = module.right_inverse(new)
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                f"tuple...). Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            with no_grad():
                _set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, original_i in enumerate(new):
                if not isinstance(original_i, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                        f"tuple...). Got element {i} of the sequence with type "
                        f"{type(original_i).__name__}."
                    )
                if isinstance(original, Parameter):
                    original_i = Parameter(original_i.detach(), original.requires_grad)
                original_i.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", original_i)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\nparametrized dtype: {z.dtype}"
                )
            if z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\nparametrized shape: {z.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Set the originals so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement "
                        "right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                        f"`original` has dtype {self.original.dtype}"
                    )
                _set(self.original, value)
            else:
                if not isinstance(value, Sequence):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors. Got "
                        f"{type(value).__name__}."
                    )
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                            f"while `original{i}` has dtype {original_i.dtype}"
                        )
                    _set(original_i, tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first parametrization of the originals, then the
        others in turn."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    """Give ``module`` its own subclass ``Parametrized<Class>``, to hold the properties."""
    cls = module.__class__

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). "
            "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
        )

    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"__getstate__": getstate})


def _inject_property(module: Module, tensor_name: str) -> None:
    """``module.<tensor_name>``: parametrizations on read, right_inverse on write."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_same(x: Tensor, y: Tensor, tensor_name: str, returned: bool) -> None:
    for field in ("dtype", "shape"):
        a, b = getattr(y, field), getattr(x, field)
        if a != b:
            if returned:
                raise ValueError(
                    "The tensor returned by parametrization.right_inverse must have the same "
                    f"{field} as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.{field}: {a}\nreturned {field}: {b}"
                )
            raise ValueError(
                f"Registering a parametrization may not change the {field} of the tensor, "
                f"unless the `unsafe` flag is enabled.\nmodule.{tensor_name}.{field}: {a}\n"
                f"parametrization(module.{tensor_name}).{field}: {b}"
            )


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` be ``parametrization(original)`` from now on.

    A second parametrization of the same tensor is applied after the first.

    >>> import teachgrad as torch
    >>> from teachgrad import nn
    >>> class Symmetric(nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).transpose(-1, -2)
    >>> layer = nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), "weight",
    ...                                                       Symmetric())
    >>> bool((layer.weight == layer.weight.T).all())
    True
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            _check_same(x, y, tensor_name, returned=False)
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(
                            "parametrization.right_inverse must return a tensor. Got: "
                            f"{type(z).__name__}"
                        )
                    _check_same(z, y, tensor_name, returned=True)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations of ``tensor_name``: it becomes a plain parameter (or
    buffer) again, holding its current parametrized value (``leave_parametrized=True``)
    or its original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _set(original, t)
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
            "parametrized in terms of a sequence of tensors."
        )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before it was parametrized (``Linear`` for ``ParametrizedLinear``)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Give ``to_module`` the parametrizations (and their originals) of ``from_module``."""
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            source = from_module.parametrizations[name]
            if hasattr(source, "original"):
                to_module.parametrizations[name].original = source.original
            else:
                num = 0
                while hasattr(source, f"original{num}"):
                    setattr(to_module.parametrizations[name], f"original{num}",
                            getattr(source, f"original{num}"))
                    num += 1
    return to_module
