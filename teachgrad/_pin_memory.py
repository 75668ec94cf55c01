"""``pin_memory=``, the argument of PyTorch's factories that teachgrad has no use for.

Pinned (page-locked) memory makes copies to a GPU faster. PyTorch's factories
(``torch.zeros(2, pin_memory=False)``, ``x.new_ones(3, pin_memory=...)``) all take it, and
code written for GPUs passes it; on a machine without an accelerator ``False`` is accepted
and ``True`` is an error. teachgrad, which computes on the CPU, does the same: one wrapper,
put around each factory once at import, checks the argument and takes it away, so the
factories themselves never see it.

>>> import teachgrad as torch
>>> torch.zeros(2, pin_memory=False)
tensor([0., 0.])
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ._function_signatures import parser_error
from ._missing_arguments import missing_arguments_error
from ._tensor import python_type_name

# The namespace functions of PyTorch 2.13 that take pin_memory= (checked one by one).
FACTORIES = (
    "tensor", "scalar_tensor", "zeros", "ones", "empty", "full", "eye", "arange",
    "linspace", "logspace", "empty_strided", "empty_permuted", "rand", "randn", "randint",
    "randperm", "normal", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
    "randn_like", "randint_like", "tril_indices", "triu_indices", "hann_window",
    "hamming_window", "bartlett_window", "blackman_window", "kaiser_window",
)
# Those PyTorch has several signatures of: a wrong type matches none of them, and its
# parser says so instead of naming the argument.
OVERLOADED = frozenset({
    "arange", "eye", "linspace", "logspace", "rand", "randn", "randint", "randperm", "normal",
    "rand_like", "randn_like", "randint_like", "hann_window", "hamming_window",
    "bartlett_window", "blackman_window", "kaiser_window",
})
# ... and the Tensor methods.
TENSOR_FACTORIES = ("new_zeros", "new_ones", "new_empty", "new_full", "new_empty_strided")

NO_PINNED_MEMORY = (
    "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
    "allocator is available on this system.\nHint: pinned memory speeds up copies to a GPU; "
    "teachgrad computes on the CPU with NumPy, so leave pin_memory out."
)


def check_pin_memory(function: str, pin_memory) -> None:
    """PyTorch's errors for ``pin_memory``: a bool (or None) is expected, and True refused."""
    if pin_memory is None or pin_memory is False:
        return
    if pin_memory is not True:
        if function in OVERLOADED:
            raise TypeError(
                f"{function}() received an invalid combination of arguments - got "
                f"(pin_memory={python_type_name(pin_memory)}), but expected one of:"
                f"\nHint: (PyTorch lists its signatures of {function}() here) pin_memory "
                "must be a bool, and False here.")
        raise TypeError(f"{function}(): argument 'pin_memory' must be bool, not "
                        f"{python_type_name(pin_memory)}")
    raise RuntimeError(NO_PINNED_MEMORY)


def with_pin_memory(factory: Callable, name: str | None = None) -> Callable:
    """``factory`` taking (and checking) a ``pin_memory=`` keyword argument."""
    name = name or factory.__name__

    @functools.wraps(factory)
    def with_pin_memory_argument(*args, **kwargs):
        if "pin_memory" in kwargs:
            check_pin_memory(name, kwargs.pop("pin_memory"))
        try:  # (free until something is raised)
            return factory(*args, **kwargs)
        except TypeError as raised:  # (x.new_zeros(), torch.full(2.5): PyTorch's words)
            error = (parser_error(name, args, kwargs, raised)
                     or missing_arguments_error(name, factory, args, kwargs, method=False))
            if error is None:
                raise
        raise error

    return with_pin_memory_argument


def add_pin_memory_arguments(namespace: dict, tensor_class: type) -> None:
    """Wrap the factories in ``namespace`` (teachgrad's) and the Tensor methods."""
    for name in FACTORIES:
        namespace[name] = with_pin_memory(namespace[name], name)
    for name in TENSOR_FACTORIES:
        setattr(tensor_class, name, with_pin_memory(getattr(tensor_class, name), name))
