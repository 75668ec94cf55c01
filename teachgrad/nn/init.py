"""``teachgrad.nn.init``: fill a layer's weights with good starting values, in place.

Why it matters: if the weights start too large, activations and gradients grow layer after
layer; too small, they shrink to nothing. The Xavier (Glorot) and Kaiming (He) schemes
choose the spread from the layer's *fan-in* (inputs per output) and *fan-out* so that the
signal keeps roughly the same size through the network.

Every function changes its tensor in place (under ``no_grad``: initialising a parameter is
not part of the computation to differentiate) and returns it::

    >>> import teachgrad as torch
    >>> w = torch.nn.Parameter(torch.empty(3, 5))
    >>> torch.nn.init.constant_(w, 0.5)
    Parameter containing:
    tensor([[0.5000, 0.5000, 0.5000, 0.5000, 0.5000],
            [0.5000, 0.5000, 0.5000, 0.5000, 0.5000],
            [0.5000, 0.5000, 0.5000, 0.5000, 0.5000]], requires_grad=True)

Random values come from teachgrad's generator, which is PyTorch's: after the same
``manual_seed`` they are the values PyTorch gives (``manual_seed(0); nn.Linear(3, 2)``
has PyTorch's weights). Like PyTorch's, every random initialiser is a call to the
tensor's ``uniform_`` or ``normal_``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _random
from .._arguments import Signatures
from .._arguments import _is_float as is_float
from .._tensor import Tensor, _make, python_type_name
from .._warn import warn_user
from ..autograd.grad_mode import no_grad
from ..ops.fill_value import check_fill_value


def _write(tensor: Tensor, values: np.ndarray) -> Tensor:
    """Copy ``values`` into ``tensor`` in place, untracked (and count it as a change)."""
    with no_grad():
        tensor.copy_(_make(np.asarray(values, dtype=tensor._data.dtype)))
    return tensor


def _uniform_values(tensor: Tensor, a: float, b: float,
                    generator: _random.Generator | None) -> np.ndarray:
    """What ``tensor.uniform_(a, b)`` draws (PyTorch's numbers)."""
    return _random._uniform_values(generator, tuple(tensor.shape), a, b, tensor._data.dtype)


def _normal_values(tensor: Tensor, mean: float, std: float,
                   generator: _random.Generator | None) -> np.ndarray:
    """What ``tensor.normal_(mean, std)`` draws (PyTorch's numbers)."""
    return _random._normal_values(generator, tuple(tensor.shape), mean, std, tensor._data.dtype)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor by which an activation changes the spread of its input (for init scales).

    >>> import teachgrad as torch
    >>> torch.nn.init.calculate_gain("relu")
    1.4142135623730951
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight shaped ``(out_features, in_features, *kernel)``."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _check_floats(method: str, **values: Any) -> None:
    """PyTorch's TypeError for an argument of ``tensor.<method>(...)`` that its parser does
    not take as a float (a complex number, a string, None, a tensor that requires grad):
    the keywords are the method's parameter names, in order."""
    for position, (name, value) in enumerate(values.items(), start=1):
        if not is_float(value):
            raise TypeError(
                f"{method}(): argument '{name}' (position {position}) must be float, not "
                f"{python_type_name(value)}\nHint: give a real number."
            )


def check_normal_arguments(mean, std) -> None:
    """``tensor.normal_(mean, std)``'s errors: not floats, or a negative ``std``."""
    _check_floats("normal_", mean=mean, std=std)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: _random.Generator | None = None) -> Tensor:
    """Fill with samples from the uniform distribution on ``[a, b)``."""
    _check_floats("uniform_", **{"from": a, "to": b})  # (tensor.uniform_'s names)
    if a > b:  # (PyTorch's kernel's words, its doubles printed as C++ prints them)
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a:g} > to={b:g}")
    return _write(tensor, _uniform_values(tensor, float(a), float(b), generator))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: _random.Generator | None = None) -> Tensor:
    """Fill with samples from the normal distribution ``N(mean, std²)``."""
    check_normal_arguments(mean, std)
    return _write(tensor, _normal_values(tensor, float(mean), float(std), generator))


_FILL = Signatures("fill_", "(Tensor value)", "(Number value)")


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    _FILL.check((val,))  # (a string, None, a tuple: PyTorch's tensor.fill_(val) refuses it)
    val = check_fill_value(val, tensor._data.dtype)  # (PyTorch fills: its checks, its words)
    return _write(tensor, np.full(tensor.shape, val))


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros (the usual start for biases)."""
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return constant_(tensor, 1.0)


def _empty_is_noop(tensor: Tensor) -> bool:
    if 0 in tensor.shape:
        warn_user("Initializing zero-element tensors is a no-op", UserWarning)
        return True
    return False


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: _random.Generator | None = None) -> Tensor:
    """Glorot uniform: ``U(-a, a)`` with ``a = gain·√(6 / (fan_in + fan_out))``.

    Keeps the spread of signals about the same forwards *and* backwards; suits tanh and
    sigmoid layers.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # a uniform on [-a, a] has standard deviation a/√3
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0,
                   generator: _random.Generator | None = None) -> Tensor:
    """Glorot normal: ``N(0, std²)`` with ``std = gain·√(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: _random.Generator | None = None) -> Tensor:
    """He uniform: ``U(-bound, bound)`` with ``bound = gain·√(3 / fan)``.

    Made for ReLU-like layers (``a`` is the negative slope of a leaky ReLU).
    ``nn.Linear`` initialises its weight with ``kaiming_uniform_(w, a=√5)``, which works
    out to ``U(-1/√fan_in, 1/√fan_in)``.
    """
    if _empty_is_noop(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu",
                    generator: _random.Generator | None = None) -> Tensor:
    """He normal: ``N(0, std²)`` with ``std = gain / √fan``."""
    if _empty_is_noop(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
]

# trunc_normal_, orthogonal_, eye_, dirac_, sparse_ and the deprecated names: their own
# module, written with the helpers above.
from .init_more import (  # noqa: E402
    constant,
    dirac,
    dirac_,
    eye,
    eye_,
    kaiming_normal,
    kaiming_uniform,
    normal,
    orthogonal,
    orthogonal_,
    sparse,
    sparse_,
    trunc_normal_,
    uniform,
    xavier_normal,
    xavier_uniform,
)

__all__ += [
    "trunc_normal_", "orthogonal_", "eye_", "dirac_", "sparse_", "uniform", "normal",
    "constant", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
    "eye", "dirac", "orthogonal", "sparse",
]
