"""``LazyLinear``: a ``Linear`` whose ``in_features`` is read from the first input.

Until the first forward its ``weight`` and ``bias`` are :class:`UninitializedParameter` s
(no shape yet). The first call gives them their shape, initialises them as ``Linear``
would, and turns the module into a plain ``Linear``, as PyTorch does. The parameter
*objects* stay the same, so an optimizer made before the first call still holds them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtypes
from ..._creation import _check_device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from .linear import Linear

_UNINITIALIZED_MESSAGE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes."
)


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (see :class:`LazyLinear`).

    ``materialize(shape)`` gives it memory of that shape and makes it a plain ``Parameter``.
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None,
                dtype: Any = None) -> UninitializedParameter:
        _check_device(device)
        dtype = dtype if dtype is not None else _dtypes.get_default_dtype()
        from ..._creation import empty

        return super().__new__(cls, empty(0, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        pass

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED_MESSAGE)

    def size(self, dim: int | None = None):
        raise RuntimeError(_UNINITIALIZED_MESSAGE)

    def materialize(self, shape: tuple[int, ...], device: Any = None, dtype: Any = None) -> None:
        """Give the parameter ``shape`` (values uninitialised) and make it a ``Parameter``."""
        _check_device(device)
        numpy_dtype = self._data.dtype if dtype is None else dtype.numpy
        self._data = np.empty(tuple(shape), numpy_dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> UninitializedParameter:
        result = type(self)(self.requires_grad, dtype=self.dtype)
        memo[id(self)] = result
        return result


class LazyLinear(Linear):
    """A ``Linear(in_features, out_features)`` whose ``in_features`` is the last dimension
    of the first input it sees.

    >>> import teachgrad as torch
    >>> layer = torch.nn.LazyLinear(3)
    >>> layer
    LazyLinear(in_features=0, out_features=3, bias=True)
    >>> layer(torch.ones(2, 5)).shape
    teachgrad.Size([2, 3])
    >>> layer
    Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(0, 0, False, device=device, dtype=dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter still waits for its shape."""
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def reset_parameters(self) -> None:
        """Initialise as ``Linear`` does, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Take ``in_features`` from ``input``, give the parameters their shapes and
        initialise them."""
        if not self.has_uninitialized_params():
            self.in_features = self.weight.shape[1]  # (shapes loaded from a state_dict)
            return
        with no_grad():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()

    def forward(self, input: Tensor) -> Tensor:
        self.initialize_parameters(input)
        self.__class__ = self.cls_to_become  # from now on, a plain Linear
        return Linear.forward(self, input)


__all__ = ["LazyLinear", "UninitializedParameter"]
