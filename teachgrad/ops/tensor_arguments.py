"""Functions whose second argument must be a tensor, as PyTorch's signatures say.

PyTorch's ``maximum(input, other)``, ``atan2``, ``logical_and``, ``isclose`` ... have no
overload that takes a number: ``torch.maximum(x, 2)`` raises a TypeError naming the
argument and its position -- 2 for the function, 1 for the method (``x.maximum(2)``
does not count ``self``); ``torch.maximum(2, x)`` names ``input`` at position 1.
teachgrad's kernels accept numbers, and must: the NumPy protocol routes
``np.maximum(t, 0)`` in a backward formula to them. So the public names
are thin wrappers that check the argument first, one for the function and one for the
method, and the kernels stay as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .._missing_arguments import missing_message
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, python_type_name
from . import conversion, incomplete_gamma, matrix_functions, pointwise, special
from .inplace import inplace_method

# name -> (the kernel, the argument's name in PyTorch's signature)
_TENSOR_ONLY: dict[str, tuple[Callable, str]] = {
    name: (getattr(module, name), "other")
    for module, names in (
        (pointwise, ("maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
                     "logical_xor", "gcd", "lcm", "ldexp", "nextafter")),
        (special, ("atan2", "hypot", "logaddexp", "logaddexp2")),
        (incomplete_gamma, ("igamma", "igammac")),
        (conversion, ("isclose", "allclose", "equal")),
        (matrix_functions, ("dist",)),
    )
    for name in names
}


_MISSING = object()  # (the default of a required argument: its message is PyTorch's)


def _refuse(name: str, argument: str, value, position: int, call: str,
            given: dict | None = None) -> None:
    if value is _MISSING:  # (x.maximum(): PyTorch's words, not Python's)
        raise TypeError(missing_message(name, [k for k, v in given.items() if v is _MISSING]))
    raise TypeError(
        f"{name}(): argument '{argument}' (position {position}) must be Tensor, not "
        f"{python_type_name(value)}"
        + (real_pytorch_hint(value) or f"\nHint: wrap the number in a tensor: {call}.")
    )


def _function(name: str, kernel: Callable, argument: str) -> Callable:
    @functools.wraps(kernel)
    def function(input=_MISSING, other=_MISSING, *args, **kwargs):
        if not isinstance(input, Tensor):  # (a number first: PyTorch names 'input')
            _refuse(name, "input", input, 1, f"torch.{name}(torch.tensor({input!r}), y)",
                    {"input": input, argument: other})
        if not isinstance(other, Tensor):
            _refuse(name, argument, other, 2, f"torch.{name}(x, torch.tensor({other!r}))",
                    {argument: other})
        return kernel(input, other, *args, **kwargs)

    return function


def _method(name: str, kernel: Callable, argument: str) -> Callable:
    @functools.wraps(kernel)
    def method(self, other=_MISSING, *args, **kwargs):
        if not isinstance(other, Tensor):
            _refuse(name, argument, other, 1, f"x.{name}(torch.tensor({other!r}))",
                    {argument: other})
        return kernel(self, other, *args, **kwargs)

    return method


for _name, (_kernel, _argument) in _TENSOR_ONLY.items():
    globals()[_name] = _function(_name, _kernel, _argument)
    setattr(Tensor, _name, _method(_name, _kernel, _argument))
# The in-place twins whose kernels come after inplace.py's _MATH_METHODS: x.igamma_(y)
# changes x (the result cast to x's dtype), with the same check naming igamma_.
for _name in ("igamma", "igammac"):
    _kernel, _argument = _TENSOR_ONLY[_name]
    setattr(Tensor, f"{_name}_",
            inplace_method(_method(f"{_name}_", _kernel, _argument), f"{_name}_"))
del _name, _kernel, _argument
# NumPy's name, the same function (and method) in PyTorch, which names it in its errors
arctan2 = _function("arctan2", special.atan2, "other")
Tensor.arctan2 = _method("arctan2", special.atan2, "other")

__all__ = [*_TENSOR_ONLY, "arctan2"]
