"""Lazy modules: layers whose input size is read from the first input they see.

``nn.LazyLinear(10)``, ``nn.LazyConv2d(16, 3)`` or ``nn.LazyBatchNorm1d()`` are written
without ``in_features`` / ``in_channels`` / ``num_features``. Until the first forward their
parameters (and batch norm's running statistics) are :class:`UninitializedParameter` s and
:class:`UninitializedBuffer` s, with no shape yet. The first call gives them their shapes,
initialises them as the eager layer would, and turns the module into that layer
(``LazyConv2d`` becomes ``Conv2d``), as PyTorch does. The parameter *objects* stay the same,
so an optimizer made before the first call still holds them; ``load_state_dict`` gives them
a checkpoint's shapes instead.

One mechanism, :class:`LazyModuleMixin`, does this for every lazy layer: a layer says how to
read its sizes from an input (``initialize_parameters``) and what it becomes
(``cls_to_become``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _dtypes
from ..._creation import _check_device
from ..._tensor import Tensor, _init
from ..._torch_function import disabled_torch_function_impl
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, _mark_as_buffer
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear

_UNINITIALIZED_MESSAGE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes."
)


class _Uninitialized:
    """What an uninitialized parameter and buffer share: no shape until ``materialize``."""

    __slots__ = ()
    cls_to_become: type = Tensor
    # No __torch_function__ dispatch (as nn.Parameter): what is computed from one is a
    # plain tensor. (PyTorch's mixin refuses most functions there instead.)
    __torch_function__ = disabled_torch_function_impl

    def __init__(self, *args, **kwargs) -> None:
        # Everything happened in __new__ (Tensor.__init__, the legacy constructor, must
        # not run on the empty data again).
        pass

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED_MESSAGE)

    def size(self, dim: int | None = None):
        raise RuntimeError(_UNINITIALIZED_MESSAGE)

    def materialize(self, shape: tuple[int, ...], device: Any = None, dtype: Any = None) -> None:
        """Give the tensor ``shape`` (values uninitialised) and make it a plain one."""
        _check_device(device)
        numpy_dtype = self._data.dtype if dtype is None else dtype.numpy
        self._data = np.empty(tuple(shape), numpy_dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo: dict):
        result = type(self)(self.requires_grad, dtype=self.dtype)
        memo[id(self)] = result
        return result


def _empty(dtype: Any) -> Tensor:
    from ..._creation import empty

    return empty(0, dtype=dtype if dtype is not None else _dtypes.get_default_dtype())


class UninitializedParameter(_Uninitialized, Parameter):
    """A parameter whose shape is not known yet (see :class:`LazyModuleMixin`).

    ``materialize(shape)`` gives it memory of that shape and makes it a plain ``Parameter``.
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None,
                dtype: Any = None) -> UninitializedParameter:
        """An empty parameter that ``materialize(shape)`` fills in later."""
        _check_device(device)
        return super().__new__(cls, _empty(dtype), requires_grad)


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer (batch norm's running statistics) whose shape is not known yet.

    ``materialize(shape)`` gives it memory of that shape and makes it a plain ``Tensor``.
    """

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None,
                dtype: Any = None, persistent: bool = True) -> UninitializedBuffer:
        """An empty buffer that ``materialize(shape)`` fills in later."""
        _check_device(device)
        buffer = object.__new__(cls)
        _init(buffer, _empty(dtype)._data, requires_grad)
        _mark_as_buffer(buffer, persistent)  # isinstance(b, nn.Buffer), as in PyTorch
        return buffer


class LazyModuleMixin:
    """Makes a layer lazy: its sizes come from the first input, then it becomes ``cls_to_become``.

    A lazy layer subclasses this mixin and the eager layer (``class LazyConv2d(
    LazyModuleMixin, Conv2d)``), creates its parameters as :class:`UninitializedParameter`,
    and defines ``initialize_parameters(input)``: read the sizes from ``input``, then
    ``materialize`` the parameters and initialise them. The first forward call runs it and
    changes the module's class, so every later call is the eager layer's own forward.

    >>> import teachgrad as torch
    >>> conv = torch.nn.LazyConv2d(8, kernel_size=3)
    >>> conv
    LazyConv2d(0, 8, kernel_size=(3, 3), stride=(1, 1))
    >>> conv(torch.zeros(1, 3, 10, 10)).shape
    teachgrad.Size([1, 8, 8, 8])
    >>> conv
    Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))
    """

    cls_to_become: type | None = None

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer still waits for its shape."""
        tensors = (*self._parameters.values(), *self._buffers.values())
        return any(isinstance(t, _Uninitialized) for t in tensors)

    def initialize_parameters(self, *args, **kwargs) -> None:  # pragma: no cover - abstract
        """Read the sizes from the first input and materialise the parameters."""
        raise NotImplementedError

    def forward(self, *args, **kwargs):
        # Only the first call gets here: after it the module is a ``cls_to_become``, whose
        # own forward runs from then on.
        self.initialize_parameters(*args, **kwargs)
        self.__class__ = self.cls_to_become
        return self.forward(*args, **kwargs)


class LazyLinear(LazyModuleMixin, Linear):
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


# ----------------------------------------------------------------------------------------
# Convolutions: in_channels from the input's channel dimension
# ----------------------------------------------------------------------------------------
class _LazyConvMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` is the input's channel count."""

    def _make_lazy(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        # The eager __init__ ran with in_channels = out_channels = 0 and no bias.
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Initialise as the eager convolution does, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        """Take ``in_channels`` from ``input`` (batched or not), shape and initialise."""
        if not self.has_uninitialized_params():  # (shapes loaded from a state_dict)
            weight_shape = self.weight.shape
            self.in_channels = (weight_shape[0] if self.transposed
                                else weight_shape[1] * self.groups)
            return
        d = self._dims
        if input.dim() not in (d + 1, d + 2):
            raise RuntimeError(
                f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}"
            )
        in_channels = input.shape[0 if input.dim() == d + 1 else 1]
        if in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            self.in_channels = in_channels
            self.weight.materialize(self._weight_shape(in_channels, self.out_channels))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(conv: type, example: str) -> type:
    """``LazyConv{1,2,3}d`` for the eager ``conv``: its arguments, without ``in_channels``."""

    class LazyConv(_LazyConvMixin, conv):
        cls_to_become = conv

        def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                     groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                     device: Any = None, dtype: Any = None) -> None:
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                             padding_mode, device, dtype)
            self._make_lazy(out_channels, bias, device, dtype)

    return _named(LazyConv, conv, example)


def _lazy_conv_transpose(conv: type, example: str) -> type:
    """``LazyConvTranspose{1,2,3}d`` for the eager ``conv``, without ``in_channels``."""

    class LazyConvTranspose(_LazyConvMixin, conv):
        cls_to_become = conv

        def __init__(self, out_channels: int, kernel_size, stride=1, padding=0,
                     output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                     padding_mode: str = "zeros", device: Any = None,
                     dtype: Any = None) -> None:
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups,
                             False, dilation, padding_mode, device, dtype)
            self._make_lazy(out_channels, bias, device, dtype)

    return _named(LazyConvTranspose, conv, example)


# ----------------------------------------------------------------------------------------
# Batch and instance norm: num_features from the input's channel dimension
# ----------------------------------------------------------------------------------------
class _LazyNormMixin(LazyModuleMixin):
    """What the lazy batch and instance norms share: ``num_features`` is the input's
    channel count; weight, bias and the running statistics wait for it."""

    def _make_lazy(self, device: Any, dtype: Any) -> None:
        # The eager __init__ ran with num_features = 0: replace its empty tensors.
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if self.bias is not None:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """Ones, zeros and fresh running statistics, once the shapes are known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:
        """Take ``num_features`` from ``input``'s channel dimension, shape and initialise."""
        if not self.has_uninitialized_params():  # (shapes loaded from a state_dict)
            shaped = self.weight if self.affine else self.running_mean
            if shaped is not None:
                self.num_features = shaped.shape[0]
            return
        self._check_input_dim(input)
        # Batch norm's channels are dimension 1; instance norm also takes one unbatched
        # sample, whose channels come first.
        unbatched = getattr(self, "_no_batch_dim", None)
        channel_dim = 0 if unbatched is not None and input.dim() == unbatched else 1
        with no_grad():
            self.num_features = input.shape[channel_dim]
            for name in ("weight", "bias", "running_mean", "running_var"):
                tensor = getattr(self, name)
                if isinstance(tensor, _Uninitialized):
                    tensor.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(norm: type, example: str) -> type:
    """``Lazy{Batch,Instance}Norm{1,2,3}d`` for the eager ``norm``, without ``num_features``.

    (``affine`` and ``track_running_stats`` default to True for every lazy norm, as in
    PyTorch, instance norms included.)
    """

    class LazyNorm(_LazyNormMixin, norm):
        cls_to_become = norm

        def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1,
                     affine: bool = True, track_running_stats: bool = True,
                     device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
            super().__init__(0, eps, momentum, affine, track_running_stats, device, dtype,
                             bias=bias)
            self._make_lazy(device, dtype)

    return _named(LazyNorm, norm, example)


def _named(cls: type, eager: type, example: str) -> type:
    """Give a lazy layer made by a factory above its public name and docstring."""
    cls.__name__ = cls.__qualname__ = f"Lazy{eager.__name__}"
    cls.__module__ = __name__
    cls.__doc__ = (
        f"A ``{eager.__name__}`` whose input size is read from the first input it sees; "
        f"it then becomes a ``{eager.__name__}``.\n\n"
        f"    >>> import teachgrad as torch\n{example}"
    )
    return cls


LazyConv1d = _lazy_conv(Conv1d, """\
    >>> torch.nn.LazyConv1d(4, 3)(torch.zeros(2, 6, 10)).shape
    teachgrad.Size([2, 4, 8])
""")
LazyConv2d = _lazy_conv(Conv2d, """\
    >>> conv = torch.nn.LazyConv2d(8, 3)
    >>> conv(torch.zeros(1, 3, 10, 10)).shape
    teachgrad.Size([1, 8, 8, 8])
    >>> conv
    Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))
""")
LazyConv3d = _lazy_conv(Conv3d, """\
    >>> torch.nn.LazyConv3d(2, 2)(torch.zeros(1, 3, 4, 4, 4)).shape
    teachgrad.Size([1, 2, 3, 3, 3])
""")
LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d, """\
    >>> torch.nn.LazyConvTranspose1d(2, 4, stride=2, padding=1)(torch.zeros(1, 4, 10)).shape
    teachgrad.Size([1, 2, 20])
""")
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d, """\
    >>> up = torch.nn.LazyConvTranspose2d(8, 2, stride=2)
    >>> up(torch.zeros(1, 16, 7, 7)).shape
    teachgrad.Size([1, 8, 14, 14])
    >>> up
    ConvTranspose2d(16, 8, kernel_size=(2, 2), stride=(2, 2))
""")
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d, """\
    >>> torch.nn.LazyConvTranspose3d(2, 2, stride=2)(torch.zeros(1, 4, 3, 3, 3)).shape
    teachgrad.Size([1, 2, 6, 6, 6])
""")
LazyBatchNorm1d = _lazy_norm(BatchNorm1d, """\
    >>> bn = torch.nn.LazyBatchNorm1d()
    >>> bn(torch.randn(8, 5)).shape
    teachgrad.Size([8, 5])
    >>> bn.running_mean.shape
    teachgrad.Size([5])
""")
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, """\
    >>> torch.nn.LazyBatchNorm2d()(torch.randn(2, 3, 4, 4)).shape
    teachgrad.Size([2, 3, 4, 4])
""")
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, """\
    >>> torch.nn.LazyBatchNorm3d()(torch.randn(2, 3, 2, 2, 2)).shape
    teachgrad.Size([2, 3, 2, 2, 2])
""")
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, """\
    >>> norm = torch.nn.LazyInstanceNorm1d()
    >>> norm(torch.randn(3, 10)).shape       # one unbatched sample: 3 channels
    teachgrad.Size([3, 10])
    >>> norm
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
""")
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, """\
    >>> torch.nn.LazyInstanceNorm2d()(torch.randn(2, 3, 4, 4)).shape
    teachgrad.Size([2, 3, 4, 4])
""")
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, """\
    >>> torch.nn.LazyInstanceNorm3d()(torch.randn(2, 3, 2, 2, 2)).shape
    teachgrad.Size([2, 3, 2, 2, 2])
""")


__all__ = [
    "LazyModuleMixin", "UninitializedParameter", "UninitializedBuffer", "LazyLinear",
    "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
    "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]
