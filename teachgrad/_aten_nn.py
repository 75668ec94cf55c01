"""More of PyTorch's top-level forms of the layers: ``torch.convolution``, ``torch.rms_norm``,
``torch.native_layer_norm``, ``torch.lstm_cell``, ``torch.lstm`` ...

PyTorch's ``nn.functional`` is written on top of these ATen functions; tutorials and
papers' code sometimes call them directly. They take every argument positionally, enums
as numbers (``reduction`` 0/1/2, grid sampling's modes 0/1/2) and lists where ``F`` takes
an int. Each is defined here once from what :mod:`teachgrad.nn.functional` and
:mod:`teachgrad.nn.recurrent` already compute:

* **plain aliases** (:data:`_SAME_AS_F`): the same function as ``F``'s, same arguments;
* **ATen argument orders**: ``convolution``, ``grid_sampler``, ``ctc_loss`` ...;
* **native_***: the normalisations that also return the statistics their backward uses
  (``(output, mean, rstd)``), and dropout with its mask;
* **recurrent layers as functions**: one step (``lstm_cell`` ...) and a whole stack over a
  sequence from a flat list of weights (``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu``).

>>> import teachgrad as torch
>>> out, mean, rstd = torch.native_layer_norm(torch.tensor([[1.0, 3.0]]), [2], None, None,
...                                           1e-5)
>>> mean, rstd
(tensor([[2.]]), tensor([[1.0000]]))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._tensor import Tensor, _make
from .autograd.grad_mode import is_grad_enabled
from .nn import functional as F
from .nn import recurrent
from .nn.feature_dropout import _check_float, _keep_mask
from .ops.op import Op
from .ops.order_statistics import TransposeBackward1
from .ops.shape import TransposeBackward0

# Functions whose ATen form takes the same arguments as ``F``'s and computes the same thing.
_SAME_AS_F = ("rms_norm", "bilinear")
for _name in _SAME_AS_F:
    globals()[_name] = getattr(F, _name)
del _name

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}
_INTERPOLATION_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING_MODES = {0: "zeros", 1: "border", 2: "reflection"}


# --- pooling -------------------------------------------------------------------------------
def max_pool3d(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
               ceil_mode: bool = False) -> Tensor:
    """``F.max_pool3d`` (an empty ``stride`` means the kernel size)."""
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """``F.max_pool1d(..., return_indices=True)``: the maxima and where they were."""
    return tuple(F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode,
                              return_indices=True))


# --- convolution ---------------------------------------------------------------------------
# Where each int list comes in convolution's arguments (PyTorch's messages count from 1).
_POSITIONS = {"stride": 4, "padding": 5, "dilation": 6, "output_padding": 8}


def _per_dim(values: Sequence[int], name: str, dims: int) -> tuple[int, ...]:
    """ATen's rule for the int lists of ``convolution``: one value for every dimension, or
    a single one that stands for all."""
    if isinstance(values, int):
        raise TypeError(
            f"convolution(): argument '{name}' (position {_POSITIONS[name]}) must be tuple of "
            "ints, not int")
    values = tuple(int(v) for v in values)
    if len(values) == 1:
        return values * dims
    if len(values) != dims:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dims} values to "
            f"match the convolution dimensions, but got {name}={list(values)}"
        )
    return values


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                output_padding: Sequence[int], groups: int) -> Tensor:
    """The one function behind every ``F.conv*d`` and ``F.conv_transpose*d``: the number
    of spatial dimensions comes from ``weight`` (``(out, in/groups, k...)``, transposed
    ``(in, out/groups, k...)``); ``stride``, ``padding``, ``dilation`` and
    ``output_padding`` are lists (one value for all dimensions, or one per dimension).

    >>> import teachgrad as torch
    >>> x, w = torch.ones(1, 1, 4), torch.ones(1, 1, 2)
    >>> torch.convolution(x, w, None, [2], [0], [1], False, [0], 1)
    tensor([[[2., 2.]]])
    """
    dims = weight.dim() - 2
    if dims not in (1, 2, 3):
        raise RuntimeError(
            f"convolution: expected weight to have 3, 4 or 5 dimensions (1, 2 or 3 spatial "
            f"ones), but got {weight.dim()}")
    if input.dim() != weight.dim():  # no unbatched input here, unlike F.conv*d
        raise RuntimeError(
            f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
            f"{list(weight.shape)}, but got {input.dim()}-dimensional input of size "
            f"{list(input.shape)} instead")
    stride = _per_dim(stride, "stride", dims)
    padding = _per_dim(padding, "padding", dims)
    dilation = _per_dim(dilation, "dilation", dims)
    if transposed:
        output_padding = _per_dim(output_padding, "output_padding", dims)
        conv = getattr(F, f"conv_transpose{dims}d")
        return conv(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return getattr(F, f"conv{dims}d")(input, weight, bias, stride, padding, dilation, groups)


# --- grid sampling -------------------------------------------------------------------------
def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """``F.affine_grid(theta, size, align_corners)``."""
    return F.affine_grid(theta, list(size), align_corners)


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """``F.grid_sample`` with the modes as numbers: interpolation 0 ``'bilinear'``,
    1 ``'nearest'``, 2 ``'bicubic'``; padding 0 ``'zeros'``, 1 ``'border'``,
    2 ``'reflection'``."""
    # PyTorch does not check the numbers (others give meaningless values); teachgrad does.
    for name, value, modes in (("interpolation_mode", interpolation_mode, _INTERPOLATION_MODES),
                               ("padding_mode", padding_mode, _PADDING_MODES)):
        if value not in modes:
            choices = ", ".join(f"{k} ({v})" for k, v in modes.items())
            raise RuntimeError(f"grid_sampler(): expected {name} to be one of {choices}, but "
                               f"got {value}")
    return F.grid_sample(input, grid, _INTERPOLATION_MODES[interpolation_mode],
                         _PADDING_MODES[padding_mode], align_corners)


def _grid_sampler_of(dims: int):
    def sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                align_corners: bool) -> Tensor:
        if input.dim() != dims or grid.dim() != dims:
            raise RuntimeError(
                f"grid_sampler(): expected {dims}D input and grid with same number of "
                f"dimensions, but got input with sizes {list(input.shape)} and grid with "
                f"sizes {list(grid.shape)}"
            )
        return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)

    sampler.__name__ = sampler.__qualname__ = f"grid_sampler_{dims - 2}d"
    sampler.__doc__ = f":func:`grid_sampler` for {dims}-d inputs only."
    return sampler


grid_sampler_2d = _grid_sampler_of(4)
grid_sampler_3d = _grid_sampler_of(5)


# --- losses --------------------------------------------------------------------------------
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """``F.ctc_loss`` with ``reduction`` as a number (0 ``'none'``, 1 ``'mean'``,
    2 ``'sum'``).

    Left out, ``reduction`` is 0: PyTorch's signature shows ``reduction=Mean``, but
    ``torch.ctc_loss(lp, t, il, tl)`` returns one loss per sample in PyTorch 2.13; any
    number other than 1 or 2 means ``'none'`` there too.
    """
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _REDUCTIONS.get(reduction, "none"), zero_infinity)


# --- bags of embeddings ----------------------------------------------------------------------
_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor,
                  scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``F.embedding_bag`` (weight first, ``mode`` 0 sum, 1 mean, 2 max) and the three
    bookkeeping tensors of PyTorch's CPU kernel: ``(output, offset2bag, bag_size,
    max_indices)``.

    ``offset2bag[i]`` is the bag index ``i`` falls in; ``bag_size`` counts each bag's rows
    (padding rows excluded); ``max_indices`` (max mode) is, per bag and column, the row the
    maximum came from. PyTorch fills them only when its backward needs them: in sum mode
    ``offset2bag`` is empty (full with a ``padding_idx``) and the others are zeros; in
    mean mode ``max_indices`` repeats ``bag_size``. ``indices`` must be 1-D here, and with
    ``include_last_offset`` the last offset must be ``len(indices)`` (as documented;
    PyTorch's modes disagree with each other on other values).

    >>> import teachgrad as torch
    >>> table = torch.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    >>> torch.embedding_bag(table, torch.tensor([0, 1, 2]), torch.tensor([0, 2]), False, 1)
    (tensor([[0.5000, 1.0000],
            [4.0000, 4.0000]]), tensor([0, 0, 1]), tensor([2, 1]), tensor([2, 1]))
    """
    if mode not in _BAG_MODES:
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if indices.dim() != 1:
        raise RuntimeError(
            f"embedding_bag: expected 1-D indices with offsets, but got {indices.dim()}-D"
            "\nHint: F.embedding_bag takes 2-D input (one bag per row); torch.embedding_bag "
            "wants them flattened, with offsets."
        )
    output = F.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                             _BAG_MODES[mode], sparse, per_sample_weights,
                             include_last_offset, padding_idx)
    idx, off = indices._data, offsets._data.astype(np.int64)
    starts = off[:-1] if include_last_offset else off
    bags = len(starts)
    dtype = np.promote_types(idx.dtype, offsets._data.dtype)  # int32 with int64 -> int64
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]  # as F.embedding_bag counts it
    offset2bag = (np.searchsorted(starts, np.arange(len(idx)), side="right") - 1).astype(dtype)
    kept = np.ones(len(idx), bool) if padding_idx is None else idx != padding_idx
    bag_size = np.bincount(offset2bag[kept], minlength=bags)[:bags].astype(dtype)
    if mode == 0:
        # PyTorch's float32 sum kernel does without offset2bag (its backward rebuilds it);
        # with include_last_offset and no gradient recorded, its zeros have one entry
        # per offset.
        if weight._data.dtype == np.float32 and padding_idx is None:
            offset2bag = offset2bag[:0]
        recorded = weight.requires_grad and is_grad_enabled()
        zeros = np.zeros(len(off) if include_last_offset and not recorded else bags, dtype)
        return output, _make(offset2bag), _make(zeros), _make(zeros.copy())
    if mode == 1:
        return output, _make(offset2bag), _make(bag_size), _make(bag_size.copy())
    max_indices = np.zeros((bags, weight.shape[1]), dtype)
    rows = weight._data
    for bag in range(bags):
        members = idx[(offset2bag == bag) & kept]
        if len(members):  # argmax: the first of equal maxima, as PyTorch's kernel
            max_indices[bag] = members[np.argmax(rows[members], axis=0)]
    return output, _make(offset2bag), _make(bag_size), _make(max_indices)


# --- normalisation with its statistics -------------------------------------------------------
def _statistics(values: np.ndarray, axes: tuple[int, ...], eps: float,
                dtype: np.dtype) -> tuple[Tensor, Tensor]:
    """The mean and ``1/sqrt(biased variance + eps)`` over ``axes`` (kept as size 1): what
    PyTorch's normalisation kernels save for their backward. Not differentiable (PyTorch's
    are not either)."""
    count = int(np.prod([values.shape[a] for a in axes]))
    # Sums over the count, as PyTorch's kernels: no elements give a mean of 0 (and a NaN
    # rstd), without NumPy's empty-mean warning.
    mean = values.sum(axis=axes, keepdims=True) / max(count, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = ((values - mean) ** 2).sum(axis=axes, keepdims=True) / count
        rstd = 1.0 / np.sqrt(var + eps)
    return _make(mean.astype(dtype)), _make(rstd.astype(dtype))


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None,
                      bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(F.layer_norm(...), mean, rstd)``: the mean and reciprocal standard deviation of
    each normalised slice, shaped ``input.shape[:-len(normalized_shape)]`` followed by ones.
    """
    output = F.layer_norm(input, normalized_shape, weight, bias, eps)
    axes = tuple(range(input.dim() - len(normalized_shape), input.dim()))
    data = input._data.astype(np.float64)
    mean, rstd = _statistics(data, axes, eps, input._data.dtype)
    return output, mean, rstd


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(F.batch_norm(...), save_mean, save_invstd)``: in training, each channel's batch
    mean and ``1/sqrt(biased var + eps)`` (the running statistics are updated as by
    ``F.batch_norm``); in evaluation the two are empty."""
    if not training and (running_mean is None or running_var is None):
        name = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{name} must be defined in evaluation mode")
    if training and input.numel() == 0:
        raise RuntimeError("input tensor must have at least one element, but got input_sizes "
                           f"= {list(input.shape)}")
    output = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps)
    dtype = input._data.dtype
    if not training:
        empty = np.zeros((0,), dtype)
        return output, _make(empty), _make(empty.copy())
    axes = (0, *range(2, input.dim()))
    mean, invstd = _statistics(input._data.astype(np.float64), axes, eps, dtype)
    return output, mean.reshape(-1), invstd.reshape(-1)


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int,  # noqa: N803
                      C: int, HxW: int, group: int, eps: float  # noqa: N803 - ATen's names
                      ) -> tuple[Tensor, Tensor, Tensor]:
    """``(F.group_norm(input, group, weight, bias, eps), mean, rstd)``, the statistics of
    each sample's groups, shaped ``(N, group)``. ``N``, ``C`` and ``HxW`` restate the
    input's size (batch, channels, positions)."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(
            "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    from .nn.norms import group_norm_outputs

    output, mean, rstd = group_norm_outputs(input, group, weight, bias, eps)
    if mean.dtype != input.dtype:  # (float16: computed in float32, returned as the input)
        mean, rstd = mean.to(input.dtype), rstd.to(input.dtype)
    return output, mean, rstd  # (the node's outputs: their grad_fn is the node, as PyTorch's)


# --- dropout with its mask ---------------------------------------------------------------------
class NativeDropoutBackward0(Op):
    """``input * mask * scale``: the gradient flows through the kept elements only, scaled."""

    formula = "∂out/∂input = mask · 1/(1-p)  (0 where dropped)"

    @staticmethod
    def forward(ctx, input, keep, scale):
        factor = keep * scale  # one array: 1/(1-p) where kept, 0 where dropped
        ctx.factor = factor
        return input * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """Dropout that also returns its mask: ``(output, mask)``, ``mask`` a bool tensor, True
    where the element was kept. With ``train=False`` nothing is dropped (the output is a
    copy of the input; the mask is all True); ``train=None`` means training.

    >>> import teachgrad as torch
    >>> torch.native_dropout(torch.ones(3), 0.0, True)
    (tensor([1., 1., 1.]), tensor([True, True, True]))
    """
    dtype = input._data.dtype
    if train is not False and not 0.0 <= p <= 1.0:
        # PyTorch's kernel draws bernoulli_(1 - p) unchecked, so that is the p it names.
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p:g}"
                           "\nHint: p is the probability of dropping an element, in [0, 1].")
    if train is False:
        keep = np.ones(input._data.shape, dtype)
        scale = dtype.type(1)
    else:
        _check_float(input)
        keep = _keep_mask(input._data.shape, p, dtype)
        scale = dtype.type(0 if p == 1 else 1 / (1 - p))
    output = NativeDropoutBackward0.apply(input, keep=keep, scale=scale)
    return output, _make(keep.astype(bool))


# --- recurrent cells and layers ------------------------------------------------------------
rnn_tanh_cell = recurrent.rnn_tanh_cell
rnn_relu_cell = recurrent.rnn_relu_cell
gru_cell = recurrent.gru_cell
lstm_cell = recurrent.lstm_cell


def _layer_weights(params: Sequence[Tensor], has_biases: bool, has_projections: bool,
                   layers: int, directions: int, name: str) -> list[tuple]:
    """Split PyTorch's flat weight list (per layer and direction: ``w_ih, w_hh``, then
    ``b_ih, b_hh`` if ``has_biases``, then ``w_hr`` with projections) into the
    ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` tuples :func:`recurrent.recurrent_layers` runs."""
    stride = 2 + 2 * has_biases + has_projections
    if len(params) != stride * layers * directions:
        raise RuntimeError(
            f"{name}: expected {stride * layers * directions} weights ({stride} per layer and "
            f"direction), but got {len(params)}"
        )
    weights = []
    for start in range(0, len(params), stride):
        group = list(params[start:start + stride])
        w_ih, w_hh = group[0], group[1]
        b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
        w_hr = group[-1] if has_projections else None
        weights.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    return weights


def _check_hidden(hx: tuple, input: Tensor, batch_sizes: Tensor | None, states: int,
                  batch_first: bool) -> None:
    """PyTorch's checks of the initial states: one per layer and direction, and (for a
    batched input) as many samples as the input (recurrent_layers would broadcast them)."""
    for h in hx:
        if h.dim() == 0 or h.shape[0] != states:
            raise RuntimeError(
                "Expected more hidden states in stacked_rnn\nHint: each initial state is "
                f"(num_layers * num_directions, N, H) = ({states}, N, H) here, but one has "
                f"shape {list(h.shape)}.")
        if batch_sizes is not None:
            batch = int(batch_sizes[0]) if batch_sizes.numel() else 0
        elif input.dim() == 3:
            batch = input.shape[0] if batch_first else input.shape[1]
        else:
            continue
        if h.dim() == 3 and h.shape[1] != batch:
            raise RuntimeError(f"The size of tensor a ({h.shape[1]}) must match the size of "
                               f"tensor b ({batch}) at non-singleton dimension 0")


def _run(mode: str, name: str, input: Tensor, batch_sizes: Tensor | None, hx: tuple,
         params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
         train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, tuple]:
    directions = 2 if bidirectional else 1
    _check_hidden(hx, input, batch_sizes, num_layers * directions, batch_first)
    projections = mode == "LSTM" and hx[0].shape[-1] != hx[1].shape[-1]
    weights = _layer_weights(params, has_biases, projections, num_layers, directions, name)
    sizes = None if batch_sizes is None else [int(s) for s in batch_sizes.tolist()]
    if sizes is None and batch_first:
        input = input.transpose(0, 1)  # the computation runs time-major
    output, final = recurrent.recurrent_layers(mode, input, sizes, hx, weights, num_layers,
                                               dropout, train, bidirectional)
    if sizes is None and batch_first:
        # As nn.RNN/GRU/LSTM: PyTorch's RNN and GRU kernels end in an in-place transpose_
        # (TransposeBackward1), its LSTM in a plain transpose.
        flip = TransposeBackward0 if mode == "LSTM" else TransposeBackward1
        output = flip.apply(output, dim0=0, dim1=1)
    return output, final


def _split_overload(args: tuple) -> tuple:
    """PyTorch has two overloads: ``(input, hx, params, has_biases, ...)`` and, for a packed
    sequence, ``(data, batch_sizes, hx, params, has_biases, ...)`` (no ``batch_first``).
    The weight list is third (after ``input``) only in the packed one."""
    if isinstance(args[2], (list, tuple)):
        batch_sizes, hx, params, *flags = args
        return batch_sizes, hx, params, [*flags, False]
    hx, params, *flags = args
    return None, hx, params, flags


def lstm(input: Tensor, *args) -> tuple[Tensor, Tensor, Tensor]:
    """A stack of LSTM layers from a flat weight list: ``(output, h_n, c_n)``.

    ``lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first)`` with ``hx = [h_0, c_0]``, each ``(num_layers * directions, N, ·)``, and
    ``params`` the weights in ``nn.LSTM``'s ``_flat_weights`` order. The packed form is
    ``lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
    bidirectional)``.
    """
    batch_sizes, hx, params, flags = _split_overload(args)
    output, (h, c) = _run("LSTM", "lstm", input, batch_sizes, tuple(hx), params, *flags)
    return output, h, c


def _simple(mode: str, name: str):
    def layers(input: Tensor, *args) -> tuple[Tensor, Tensor]:
        batch_sizes, hx, params, flags = _split_overload(args)
        output, (h,) = _run(mode, name, input, batch_sizes, (hx,), params, *flags)
        return output, h

    layers.__name__ = layers.__qualname__ = name
    layers.__doc__ = (
        f"A stack of {mode.replace('_', ' ').replace('RNN', 'RNN ').lower()} layers from a "
        f"flat weight list: ``(output, h_n)``.\n\n"
        f"``{name}(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, "
        f"batch_first)``, ``params`` in the ``_flat_weights`` order of the module; the packed "
        f"form is ``{name}(data, batch_sizes, hx, params, has_biases, num_layers, dropout, "
        f"train, bidirectional)``."
    )
    return layers


gru = _simple("GRU", "gru")
rnn_tanh = _simple("RNN_TANH", "rnn_tanh")
rnn_relu = _simple("RNN_RELU", "rnn_relu")

__all__ = [
    *_SAME_AS_F, "max_pool3d", "max_pool1d_with_indices", "convolution",
    "affine_grid_generator", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
    "ctc_loss", "embedding_bag",
    "native_layer_norm", "native_batch_norm", "native_group_norm", "native_dropout",
    "rnn_tanh_cell", "rnn_relu_cell", "gru_cell", "lstm_cell", "lstm", "gru", "rnn_tanh",
    "rnn_relu",
]
