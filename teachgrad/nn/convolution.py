"""``F.conv1d``, ``F.conv2d``, ``F.conv3d`` and their transposes ``F.conv_transpose1d``/``2d``/
``3d``: check the arguments in PyTorch's words, then convolve (one code path for any number
of spatial dimensions).

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> image = torch.arange(16.0).reshape(1, 1, 4, 4)
>>> edge = torch.tensor([[[[1.0, -1.0]]]])          # left minus right neighbour
>>> F.conv2d(image, edge).shape
teachgrad.Size([1, 1, 4, 3])
>>> F.conv2d(image, edge)[0, 0, 0]
tensor([-1., -1., -1.])

The numbers are computed by :mod:`teachgrad.nn.im2col`, the graph node is
:class:`~teachgrad.nn.conv_ops.ConvolutionBackward0`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._arguments import Signatures
from .._input_check import BUILTIN
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, python_type_name
from . import im2col
from .argument_types import takes_arguments
from .conv_ops import ConvolutionBackward0

IntOrTuple = int | Sequence[int]
_INTS = ("tuple of ints", BUILTIN)  # (the functions are PyTorch's bindings themselves)


def _overloads(name: str) -> Signatures:
    """``conv2d``'s two forms (padding as ints, or as a string), as PyTorch prints them."""
    start = "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints[1] stride = 1, "
    end = ", tuple of ints[1] dilation = 1, int groups = 1)"
    return Signatures(name, start + "tuple of ints[1] padding = 0" + end,
                      start + 'str padding = "valid"' + end)


def _checked_conv(d: int):
    """PyTorch's TypeError for a bad stride, padding, dilation or groups of ``conv{d}d``."""
    name = f"conv{d}d"
    return takes_arguments(name, _overloads(name), stride=_INTS, padding=_INTS,
                           dilation=_INTS, groups=("int", BUILTIN))


def _checked_transpose(d: int):
    name = f"conv_transpose{d}d"
    return takes_arguments(name, stride=_INTS, padding=_INTS, output_padding=_INTS,
                           groups=("int", BUILTIN), dilation=_INTS)

_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
               "bool": "Bool"}


def _c_type(t: Tensor) -> str:
    """How PyTorch's C++ messages name a dtype: ``float``, ``double``, ``long`` ..."""
    names = {"float32": "float", "float64": "double", "float16": "c10::Half"}
    return names.get(t.dtype.name, t.dtype.name.replace("int64", "long"))


def _shape(t) -> str:
    return "[" + ", ".join(str(n) for n in t) + "]"


def as_tuple(value: IntOrTuple, d: int, name: str) -> tuple[int, ...]:
    """``2`` -> ``(2, 2)``; a sequence must have one value per spatial dimension."""
    values = (value,) * d if isinstance(value, int) else tuple(value)
    if len(values) != d and len(values) != 1:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {d} values to match "
            f"the convolution dimensions, but got {name}={_shape(values)}"
        )
    return values * d if len(values) == 1 else values


def _refuse_weight_dims(x: Tensor, weight: Tensor, d: int, **params: IntOrTuple) -> None:
    """A weight of another dimensionality than ``conv{d}d``'s: PyTorch expands ``stride``,
    ``padding``, ``dilation`` and ``output_padding`` (in that order) to the weight's
    ``weight.ndim - 2`` spatial dimensions, not to ``d``, so a list of ``d`` values is
    refused in those words; what passes is checked for sign, then the input's
    dimensionality is refused (``x``: the batched input)."""
    k = weight.ndim - 2
    expanded = {}
    for name, value in params.items():
        values = (value,) * d if isinstance(value, int) else tuple(value)
        if len(values) not in (1, k):
            raise RuntimeError(
                f"expected {name} to be a single integer value or a list of {k} values to "
                f"match the convolution dimensions, but got {name}={_shape(values)}"
            )
        expanded[name] = values
    if any(p < 0 for p in expanded["padding"]):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in expanded["output_padding"]):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in expanded["stride"]):
        raise RuntimeError("non-positive stride is not supported")
    if any(dil < 0 for dil in expanded["dilation"]):
        raise RuntimeError("dilation should be greater than zero")
    raise RuntimeError(
        f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
        f"{_shape(weight.shape)}, but got {x.ndim}-dimensional input of size "
        f"{_shape(x.shape)} instead"
    )


def _padding(padding: IntOrTuple | str, kernel: tuple[int, ...], stride: tuple[int, ...],
             dilation: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """One ``(before, after)`` pair per spatial dimension."""
    d = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * d
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        # The output has the input's size: pad by the kernel's reach minus one, the odd
        # one out after (as PyTorch does for even kernels).
        total = tuple(dil * (k - 1) for k, dil in zip(kernel, dilation))
        return tuple((t // 2, t - t // 2) for t in total)
    pads = as_tuple(padding, d, "padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


def _check_at_least_groups(weight: Tensor, groups: int) -> None:
    """PyTorch first asks for at least one weight row per group (then for divisibility)."""
    if weight.shape[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {list(weight.shape)} instead"
        )


def _check_tensors(input: Tensor, weight: Tensor, bias: Tensor | None, groups: int,
                   name: str, shown: tuple[int, ...] | None = None) -> None:
    """PyTorch's checks of the tensors' shapes and dtypes (``shown``: the input's shape as
    PyTorch's message gives it, if not ``input``'s own)."""
    o, c_per_group = weight.shape[0], weight.shape[1]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    _check_at_least_groups(weight, groups)
    if o % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{_shape(weight.shape)}] instead"
        )
    if input.shape[1] != c_per_group * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_shape(weight.shape)}, expected "
            f"input{_shape(shown or input.shape)} to have {c_per_group * groups} channels, "
            f"but got {input.shape[1]} channels instead"
        )
    if bias is not None and bias.shape != (o,):
        raise RuntimeError(
            f"Given weight of size {_shape(weight.shape)}, expected bias to be 1-dimensional "
            f"with {o} elements, but got bias of size {_shape(bias.shape)} instead"
        )


def _check_same(x: Tensor, weight: Tensor, stride: IntOrTuple, dilation: IntOrTuple) -> None:
    """PyTorch's own checks of ``padding='same'`` (its batched input ``x``), made before the
    convolution's: the weight's dimensions, then stride and dilation lengths, then a
    stride of 1."""
    if weight.ndim != x.ndim:
        raise RuntimeError(
            f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight"
            f"{_shape(weight.shape)}, but got {x.ndim}-dimensional input of size "
            f"{_shape(x.shape)} instead"
        )
    dims = weight.ndim - 2
    strides = (stride,) if isinstance(stride, int) else tuple(stride)
    for name, values in (("stride", strides),
                         ("dilation", (dilation,) if isinstance(dilation, int) else dilation)):
        if len(values) not in (dims, 1):
            raise RuntimeError(f"{name} cannot broadcast to {dims} dimensions")
    if any(s != 1 for s in strides):
        raise RuntimeError("padding='same' is not supported for strided convolutions")


def _uses_onednn(x: Tensor, weight: Tensor, stride: tuple, dilation: tuple, groups: int,
                 output_padding: tuple | None = None) -> bool:
    """Would PyTorch 2.13 (on one thread) run this convolution with oneDNN?

    It picks a kernel by the arguments (``use_mkldnn`` in ATen's Convolution.cpp): oneDNN
    for a float32 input with a batch of more than one, groups, a kernel larger than 3x3 or
    a large input -- unless the kernel is 1x1 with no stride or dilation -- and its own
    loops otherwise. The two word a dtype mismatch differently. A 1-d convolution runs as
    a 2-d one of height 1; a transposed one whose output_padding reaches its stride never
    goes to oneDNN."""
    if x.dtype.name != "float32":
        return False
    if output_padding is not None and any(e >= s for e, s in zip(output_padding, stride)):
        return False
    kernel = tuple(weight.shape[2:])
    if len(kernel) == 1:
        kernel = (1, *kernel)
    sizes = tuple(x.shape) if x.ndim > 3 else (x.shape[0], x.shape[1], 1, x.shape[2])
    batch, last, second = sizes[0], kernel[-1], kernel[-2]
    strided, dilated = any(s != 1 for s in stride), any(dil != 1 for dil in dilation)
    if not (strided or dilated or batch >= 16 or last != 1 or second != 1):
        return False  # (a 1x1 kernel: faster in its own loops on one thread)
    return (groups > 1 or (last > 3 and second > 3) or batch > 1
            or sizes[0] * sizes[1] * sizes[2] * sizes[3] > 20480)


def _check_dtypes(input: Tensor, weight: Tensor, bias: Tensor | None, name: str,
                  onednn: bool) -> None:
    """The kernel's dtype check: oneDNN names the tensors' types; PyTorch's own loops
    check the weight only (a bias of another dtype reaching them is cast)."""
    hint = f"\nHint: make both {name}'s input and its weight the same dtype, e.g. x.float()."
    if onednn:
        for other, what in ((weight, "weight"), (bias, "bias")):
            if other is not None and other.dtype != input.dtype:
                raise RuntimeError(
                    f"Input type ({input.type()}) and {what} type ({other.type()}) should be "
                    f"the same or input should be a MKLDNN tensor and {what} is a dense "
                    f"tensor" + hint.replace("its weight", f"its {what}")
                )
    elif input.dtype != weight.dtype:
        raise RuntimeError(
            f"expected scalar type {_TYPE_NAMES[input.dtype.name]} but found "
            f"{_TYPE_NAMES[weight.dtype.name]}" + hint
        )


def _is_empty(x: Tensor) -> bool:
    """A batch of 0 or no channels: PyTorch's convolution then runs no kernel (and checks
    no dtypes)."""
    return x.shape[0] == 0 or x.shape[1] == 0


def _conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: IntOrTuple,
          padding: IntOrTuple | str, dilation: IntOrTuple, groups: int, d: int) -> Tensor:
    name = f"conv{d}d"
    for arg, what in ((input, "input"), (weight, "weight")):
        if not isinstance(arg, Tensor):
            raise TypeError(f"{name}(): argument '{what}' must be Tensor, not "
                            f"{python_type_name(arg)}" + real_pytorch_hint(arg))
    if bias is not None and not isinstance(padding, str) and bias.dtype != input.dtype:
        # conv{d}d's first check (its overload for a padding string has none)
        raise RuntimeError(
            f"Input type ({_c_type(input)}) and bias type ({_c_type(bias)}) should be the same"
        )
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got "
            f"input of size: {_shape(input.shape)}"
        )
    if isinstance(padding, str) and padding not in ("same", "valid"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:  # (before any stride, padding or dilation check)
        raise RuntimeError("non-positive groups is not supported")
    if padding == "same":
        _check_same(input if input.ndim == d + 2 else input.unsqueeze(0), weight, stride,
                    dilation)
    if weight.ndim != d + 2:  # PyTorch counts dimensions from the weight
        # (padding='valid' passes [0] for padding and output_padding, the numbers d zeros)
        zeros = (0,) if isinstance(padding, str) else 0
        _refuse_weight_dims(input if input.ndim == d + 2 else input.unsqueeze(0), weight, d,
                            stride=stride, padding=zeros if isinstance(padding, str) else padding,
                            dilation=dilation, output_padding=zeros)
    # PyTorch checks the lengths (stride, padding, dilation), then the padding's sign
    stride_t = as_tuple(stride, d, "stride")
    if not isinstance(padding, str):
        as_tuple(padding, d, "padding")
    dilation_t = as_tuple(dilation, d, "dilation")
    if not isinstance(padding, str):
        _padding(padding, tuple(weight.shape[2:]), stride_t, dilation_t)
    if any(s <= 0 for s in stride_t):
        raise RuntimeError("non-positive stride is not supported")
    if any(dil < 0 for dil in dilation_t):  # PyTorch's shape check: no values named
        raise RuntimeError("dilation should be greater than zero")
    kernel = tuple(weight.shape[2:])
    pads = _padding(padding, kernel, stride_t, dilation_t)
    # An unbatched input is a batch of one, squeezed again afterwards (as in PyTorch).
    batched = input.ndim == d + 2
    x = input if batched else input.unsqueeze(0)
    # padding='same' with an odd total: PyTorch pads the input by the extra 1 at the end
    # first, and its messages then show that padded input.
    shown = (*x.shape[:2], *(n + after - before for n, (before, after) in zip(x.shape[2:], pads)))
    _check_tensors(x, weight, bias, groups, name, shown)
    padded = tuple(size + p[0] + p[1] for size, p in zip(x.shape[2:], pads))
    spans = tuple(dil * (k - 1) + 1 for k, dil in zip(kernel, dilation_t))
    if any(span > size for span, size in zip(spans, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater "
            "than actual input size"
        )
    if any(dil == 0 for dil in dilation_t):
        # The kernel's check, after the sizes' (the message of PyTorch's own loops, which
        # run conv1d as a conv2d of height 1; oneDNN words it otherwise). PyTorch runs no
        # kernel for an empty batch and returns an empty result; teachgrad refuses it too.
        shown = (1, *dilation_t) if d == 1 else dilation_t
        raise RuntimeError(f"dilation should be greater than zero, but got {_shape(shown)}")
    if not _is_empty(x):
        _check_dtypes(x, weight, bias, name, _uses_onednn(x, weight, stride_t, dilation_t, groups))
        if bias is not None and bias.dtype != x.dtype:  # (padding='same'/'valid', own loops)
            bias = bias.to(x.dtype)
    out = ConvolutionBackward0.apply(x, weight, bias, stride=stride_t, padding=pads,
                                     dilation=dilation_t, groups=groups)
    return out if batched else out.squeeze(0)


@_checked_conv(1)
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
           padding: IntOrTuple | str = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """1-d convolution of ``input`` ``(N, C, L)`` with ``weight`` ``(O, C/groups, k)``.

    >>> import teachgrad as torch
    >>> torch.nn.functional.conv1d(torch.ones(1, 1, 5), torch.ones(1, 1, 3), padding=1)
    tensor([[[2., 3., 3., 3., 2.]]])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


@_checked_conv(2)
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
           padding: IntOrTuple | str = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """2-d convolution of ``input`` ``(N, C, H, W)`` with ``weight`` ``(O, C/groups, kH, kW)``.

    ``stride``, ``padding`` and ``dilation`` are an int or one per dimension; ``padding``
    may also be ``'valid'`` (none) or ``'same'`` (output as large as the input).
    ``groups`` splits the channels into independent convolutions. The output has shape
    ``(N, O, H_out, W_out)`` with ``H_out = (H + 2·pad - dilation·(kH-1) - 1) // stride + 1``.

    >>> import teachgrad as torch
    >>> x = torch.ones(1, 3, 8, 8)
    >>> torch.nn.functional.conv2d(x, torch.ones(6, 3, 3, 3), stride=2, padding=1).shape
    teachgrad.Size([1, 6, 4, 4])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


@_checked_conv(3)
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: IntOrTuple = 1,
           padding: IntOrTuple | str = 0, dilation: IntOrTuple = 1, groups: int = 1) -> Tensor:
    """3-d convolution of volumes ``(N, C, D, H, W)`` (videos, scans) with ``weight``
    ``(O, C/groups, kD, kH, kW)``: the same sliding dot product, along one more axis.

    >>> import teachgrad as torch
    >>> x = torch.ones(1, 2, 4, 5, 6)
    >>> torch.nn.functional.conv3d(x, torch.ones(3, 2, 3, 3, 3), padding=(1, 0, 0)).shape
    teachgrad.Size([1, 3, 4, 3, 4])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


def _check_transposed(x: Tensor, weight: Tensor, bias: Tensor | None, groups: int) -> None:
    """PyTorch's checks of a transposed convolution's tensors (weight: ``(C_in, C_out/g, k)``)."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    _check_at_least_groups(weight, groups)
    if weight.shape[0] % groups != 0:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{_shape(weight.shape)}] instead"
        )
    if x.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape(weight.shape)}, expected "
            f"input{_shape(x.shape)} to have {weight.shape[0]} channels, but got "
            f"{x.shape[1]} channels instead"
        )
    out_channels = weight.shape[1] * groups
    if bias is not None and bias.shape != (out_channels,):
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape(weight.shape)}, expected bias to be "
            f"1-dimensional with {out_channels} elements, but got bias of size "
            f"{_shape(bias.shape)} instead"
        )


def _axis_names(d: int) -> tuple[str, ...]:
    """How PyTorch's messages name the spatial axes (a 1-d map runs as a 2-d one)."""
    return ("depth", "height", "width")[-max(d, 2):]


def transposed_output_size(size: int, kernel: int, stride: int, padding: int,
                           output_padding: int, dilation: int) -> int:
    """How long a transposed convolution's output is: the input of a convolution that
    would give ``size`` positions, plus ``output_padding`` (which picks one of the
    ``stride`` input sizes that all give ``size``)."""
    return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1


def _conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: IntOrTuple,
                    padding: IntOrTuple, output_padding: IntOrTuple, groups: int,
                    dilation: IntOrTuple, d: int) -> Tensor:
    name = f"conv_transpose{d}d"
    for arg, what in ((input, "input"), (weight, "weight")):
        if not isinstance(arg, Tensor):
            raise TypeError(f"{name}(): argument '{what}' must be Tensor, not "
                            f"{python_type_name(arg)}" + real_pytorch_hint(arg))
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {name}, but got "
            f"input of size: {_shape(input.shape)}"
        )
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:  # (before any stride, padding or dilation check)
        raise RuntimeError("non-positive groups is not supported")
    batched = input.ndim == d + 2
    x = input if batched else input.unsqueeze(0)
    if weight.ndim != d + 2:  # PyTorch counts dimensions from the weight
        _refuse_weight_dims(x, weight, d, stride=stride, padding=padding, dilation=dilation,
                            output_padding=output_padding)
    stride_t = as_tuple(stride, d, "stride")
    pads = as_tuple(padding, d, "padding")
    dilation_t = as_tuple(dilation, d, "dilation")
    extra = as_tuple(output_padding, d, "output_padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in extra):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride_t):
        raise RuntimeError("non-positive stride is not supported")
    if any(dil < 0 for dil in dilation_t):  # (a zero dilation is the kernel's check, below)
        raise RuntimeError("dilation should be greater than zero")
    if weight.ndim != x.ndim:
        raise RuntimeError(
            f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
            f"{_shape(weight.shape)}, but got {x.ndim}-dimensional input of size "
            f"{_shape(x.shape)} instead"
        )
    _check_transposed(x, weight, bias, groups)
    # oneDNN checks the dtypes first; PyTorch's own loops check the sizes first (below)
    onednn = _uses_onednn(x, weight, stride_t, dilation_t, groups, extra)
    if onednn and not _is_empty(x):
        _check_dtypes(x, weight, bias, name, onednn=True)
    kernel = tuple(weight.shape[2:])
    # PyTorch runs a 1-d transposed convolution as a 2-d one of height 1: its messages say so.
    axes = _axis_names(d)
    def padded_to_2d(values: tuple, first: int) -> tuple:
        return (first, *values) if d == 1 else values

    dil_n, stride_n, extra_n = (padded_to_2d(dilation_t, 1), padded_to_2d(stride_t, 1),
                                padded_to_2d(extra, 0))
    if any(dil <= 0 for dil in dilation_t):
        raise RuntimeError("dilation should be greater than zero, but got " + ", ".join(
            f"dilation_{axis}: {dil}" for axis, dil in zip(axes, dil_n)))
    if any(e >= s and e >= dil for e, s, dil in zip(extra, stride_t, dilation_t)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got " + " ".join(
                f"{what}_{axis}: {value}"
                for what, values in (("output_padding", extra_n), ("stride", stride_n),
                                     ("dilation", dil_n))
                for axis, value in zip(axes, values))
        )
    out = tuple(transposed_output_size(n, k, s, p, e, dil) for n, k, s, p, e, dil in
                zip(x.shape[2:], kernel, stride_t, pads, extra, dilation_t))
    if any(n < 1 for n in out):
        sizes, outs = padded_to_2d(tuple(x.shape[2:]), 1), padded_to_2d(out, 1)
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, sizes))}). Calculated output "
            f"size per channel: ({' x '.join(map(str, outs))}). Output size is too small"
        )
    if not (onednn or _is_empty(x)):
        _check_dtypes(x, weight, bias, name, onednn=False)
    if bias is not None and bias.dtype != x.dtype:
        bias = bias.to(x.dtype)
    result = ConvolutionBackward0.apply(
        x, weight, bias, stride=stride_t, padding=tuple((p, p) for p in pads),
        dilation=dilation_t, groups=groups, transposed=True, size=out,
    )
    return result if batched else result.squeeze(0)


@_checked_transpose(1)
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: IntOrTuple = 1, padding: IntOrTuple = 0,
                     output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    """1-d transposed convolution of ``(N, C_in, L)`` with ``weight`` ``(C_in, C_out/groups, k)``.

    Each input value spreads over ``k`` outputs, ``stride`` apart from its neighbours':
    the gradient of ``conv1d`` with respect to its input, used as a layer (it upsamples).

    >>> import teachgrad as torch
    >>> torch.nn.functional.conv_transpose1d(torch.ones(1, 1, 3), torch.ones(1, 1, 2), stride=2)
    tensor([[[1., 1., 1., 1., 1., 1.]]])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


@_checked_transpose(2)
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: IntOrTuple = 1, padding: IntOrTuple = 0,
                     output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    """2-d transposed convolution ("deconvolution") of ``(N, C_in, H, W)`` with ``weight``
    ``(C_in, C_out/groups, kH, kW)``.

    The output is ``H_out = (H - 1)·stride - 2·padding + dilation·(kH - 1) + output_padding
    + 1`` high: ``conv2d`` with the same settings maps it back to ``H``. Note the argument
    order (PyTorch's): ``groups`` comes before ``dilation``.

    >>> import teachgrad as torch
    >>> x = torch.ones(1, 4, 8, 8)
    >>> torch.nn.functional.conv_transpose2d(x, torch.ones(4, 2, 4, 4), stride=2, padding=1).shape
    teachgrad.Size([1, 2, 16, 16])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)


@_checked_transpose(3)
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: IntOrTuple = 1, padding: IntOrTuple = 0,
                     output_padding: IntOrTuple = 0, groups: int = 1,
                     dilation: IntOrTuple = 1) -> Tensor:
    """3-d transposed convolution of ``(N, C_in, D, H, W)`` with ``weight``
    ``(C_in, C_out/groups, kD, kH, kW)`` (the upsampling layer of 3-d decoders).

    >>> import teachgrad as torch
    >>> x = torch.ones(1, 4, 2, 3, 3)
    >>> torch.nn.functional.conv_transpose3d(x, torch.ones(4, 2, 2, 2, 2), stride=2).shape
    teachgrad.Size([1, 2, 4, 6, 6])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3)


__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "im2col"]
