"""``F.pad``: grow (or, with negative padding, crop) the last dimensions of a tensor.

``pad`` lists ``(before, after)`` pairs starting from the *last* dimension, as in PyTorch:
``(left, right)`` pads the width, ``(left, right, top, bottom)`` the width and the height.

=============  ==================================  ============================
mode           the border holds                    grad_fn
=============  ==================================  ============================
``constant``   ``value`` (default 0)               ``ConstantPadNdBackward0``
``reflect``    the input mirrored at its edge      ``ReflectionPad2DBackward0``
``replicate``  the edge value repeated             ``ReplicationPad2DBackward0``
``circular``   the other end (wraps around)        ``CopySlices``
=============  ==================================  ============================

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> x = torch.tensor([[[1.0, 2.0, 3.0]]])
>>> F.pad(x, (2, 1))
tensor([[[0., 0., 1., 2., 3., 0.]]])
>>> F.pad(x, (2, 1), mode="reflect")
tensor([[[3., 2., 1., 2., 3., 2.]]])
>>> F.pad(x, (2, 1), mode="replicate")
tensor([[[1., 1., 1., 2., 3., 3.]]])
>>> F.pad(x, (2, 1), mode="circular")
tensor([[[2., 3., 1., 2., 3., 1.]]])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._input_check import refuses_complex
from .._real_pytorch import real_pytorch_hint
from .._tensor import Tensor, python_type_name
from ..autograd.graph import saved_value
from .argument_types import scalar_argument, takes_arguments
from .axis_maps import (
    AxisMap,
    ReflectionPad1DBackward0,
    ReflectionPad2DBackward0,
    ReflectionPad3DBackward0,
    ReplicationPad1DBackward0,
    ReplicationPad2DBackward0,
    ReplicationPad3DBackward0,
)
from .padding_ops import ConstantPadNdBackward0

_MODES = ("constant", "reflect", "replicate", "circular")
_OPS = {"reflect": (ReflectionPad1DBackward0, ReflectionPad2DBackward0, ReflectionPad3DBackward0),
        "replicate": (ReplicationPad1DBackward0, ReplicationPad2DBackward0,
                      ReplicationPad3DBackward0)}


def source_positions(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """Which input position each output position copies, along one dimension.

    >>> source_positions(4, 2, 1, "reflect")       # 2 1 | 0 1 2 3 | 2
    array([2, 1, 0, 1, 2, 3, 2])
    >>> source_positions(4, 2, 1, "replicate")     # 0 0 | 0 1 2 3 | 3
    array([0, 0, 0, 1, 2, 3, 3])
    """
    j = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(j, 0, size - 1)
    # Mirror at both edges without repeating the edge value: -1 -> 1, size -> size - 2.
    j = np.abs(j)
    return np.where(j >= size, 2 * (size - 1) - j, j)


def _pairs(pad: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """PyTorch's flat pad (last dimension first) as ``(before, after)`` pairs, first dim first."""
    return tuple((pad[i], pad[i + 1]) for i in reversed(range(0, len(pad), 2)))


def _shape(sizes) -> str:
    return "[" + ", ".join(map(str, sizes)) + "]"


def _check_non_empty(input: Tensor, d: int) -> None:
    """Reflection and replication need every dimension but the batch to be non-empty."""
    channel_dims = input.shape[1:] if input.ndim == d + 2 else input.shape
    if 0 in channel_dims:
        raise RuntimeError(
            f"Expected {d + 1}D or {d + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {_shape(input.shape)}"
        )


def _border_pad(input: Tensor, pairs, mode: str) -> Tensor:
    """Reflection or replication padding: every output copies one input position."""
    d = len(pairs)
    _check_non_empty(input, d)
    sizes = input.shape[-d:]
    if mode == "reflect":
        # PyTorch checks the width first (its argument #4), then the height (#6) ...
        for k in reversed(range(d)):
            (before, after), size = pairs[k], sizes[k]
            if before >= size or after >= size:
                raise RuntimeError(
                    f"Argument #{4 + 2 * (d - 1 - k)}: Padding size should be less than the "
                    f"corresponding input dimension, but got: padding ({before}, {after}) at "
                    f"dimension {input.ndim - d + k} of input {_shape(input.shape)}"
                )
    out = tuple(size + b + a for size, (b, a) in zip(sizes, pairs))
    if all(n < 1 for n in out):
        names = "DHW"[3 - d:]
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))
        wanted = " ".join(f"{n}: {s}" for n, s in zip(names, out))
        raise RuntimeError(f"input ({given}) is too small. Calculated output {wanted}")
    if any(n < 0 for n in out):
        shape = (*input.shape[:-d], *out)
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(out)}: {_shape(shape)}")
    maps = tuple(
        AxisMap(index=source_positions(size, b, a, mode)[:, None], weights=None, size=size)
        for size, (b, a) in zip(sizes, pairs)
    )
    out = _OPS[mode][d - 1].apply(input, maps=maps)
    if out._grad_fn is not None:  # (PyTorch's grad_fn._saved_padding: the flat pad given)
        out._grad_fn.padding = tuple(p for pair in reversed(pairs) for p in pair)
    return out


# PyTorch's grad_fn._saved_self and _saved_padding of the reflect and replicate nodes
for _op in (*_OPS["reflect"], *_OPS["replicate"]):
    _op._saved_self = property(lambda node: saved_value(node, 0))
    _op._saved_padding = property(lambda node: node.padding)


def _narrow(t: Tensor, dim: int, start: int, stop: int) -> Tensor:
    """``t[start:stop]`` along ``dim``, a view (PyTorch's ``slice``: even the whole range
    is recorded as ``SliceBackward0``); negative and too large bounds work as in Python."""
    start, stop, _ = slice(start, stop).indices(t.shape[dim])
    return t.narrow(dim, start, max(stop - start, 0))


def _circular_pad(input: Tensor, pairs) -> Tensor:
    """Circular padding as PyTorch builds it: copy the input into the middle of a new
    tensor, then copy slices of it into the borders (so its ``grad_fn`` is ``CopySlices``)."""
    d = len(pairs)
    sizes = input.shape[-d:]
    out_sizes = []
    for size, (before, after) in zip(sizes, pairs):
        if before > size or after > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size + before + after < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        out_sizes.append(size + before + after)
    out = input.new_empty((*input.shape[:-d], *out_sizes))
    # The middle gets the input (cropped where the padding is negative).
    middle, source = out, input
    for k in reversed(range(d)):
        (before, after), dim = pairs[k], input.ndim - d + k
        middle = _narrow(middle, dim, max(before, 0), out_sizes[k] - max(after, 0))
        source = _narrow(source, dim, max(-before, 0), sizes[k] - max(-after, 0))
    middle.copy_(source)
    # Then the borders, last dimension first (the corners are copied along with the edges).
    for k in reversed(range(d)):
        (before, after), n, dim = pairs[k], out_sizes[k], input.ndim - d + k
        if before > 0:  # the left border is a copy of the middle's right end
            start = n - before - max(after, 0)
            if n > 0 and start < before:
                # ... which overlaps it (negative padding on the right): PyTorch's copy
                # reads the border before writing it (memory it never wrote, or its
                # overlap error); teachgrad refuses.
                raise RuntimeError(
                    "unsupported operation: some elements of the input tensor and the "
                    "written-to tensor refer to a single memory location. Please clone() "
                    "the tensor before performing the operation."
                )
            _narrow(out, dim, 0, before).copy_(_narrow(out, dim, start, start + before))
        if after > 0:   # the right border is a copy of the middle's left end
            # (where the middle is shorter than the border, PyTorch's copy runs on into
            # what it has just written: the middle repeats. Copied a period at a time.)
            first, period = max(before, 0), max(n - after - max(before, 0), 1)
            for done in range(0, after, period):
                length = min(period, after - done)
                _narrow(out, dim, n - after + done, n - after + done + length).copy_(
                    _narrow(out, dim, first + done, first + done + length))
    return out


@refuses_complex("pad", value=4)
@takes_arguments("pad", pad=("tuple of ints[]", 2), mode=("str", 3))
def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions of ``input`` (``pad``: last dimension first).

    ``mode``: ``'constant'`` (with ``value``, default 0; negative padding crops),
    ``'reflect'``, ``'replicate'`` or ``'circular'`` (these pad the last 1, 2 or 3
    dimensions of a batched or unbatched input).

    >>> import teachgrad as torch
    >>> torch.nn.functional.pad(torch.ones(2, 2), (1, 0, 0, 1), value=7.0)
    tensor([[7., 1., 1.],
            [7., 1., 1.],
            [7., 7., 7.]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not "
                        f"{python_type_name(input)}" + real_pytorch_hint(input))
    pad = tuple(pad)
    for i, p in enumerate(pad):
        if not isinstance(p, int | np.integer) or isinstance(p, bool):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
    pad = tuple(int(p) for p in pad)
    if value is not None:
        value = scalar_argument(value, "pad", "value", 4, kind="float")
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    pairs = _pairs(pad)
    if mode == "constant":
        lead = input.ndim - len(pairs)
        sizes = list(input.shape[lead:])
        for k, (before, after) in enumerate(pairs):  # PyTorch crops with narrow() first
            for p in (before, after):
                if p < 0:
                    sizes[k] += p
                    if sizes[k] < 0:
                        raise RuntimeError("narrow(): length must be non-negative.")
        return ConstantPadNdBackward0.apply(input, pads=pairs, value=0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    d = len(pairs)
    if d not in (1, 2, 3) or input.ndim not in (d + 1, d + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    if mode == "circular":
        return _circular_pad(input, pairs)
    return _border_pad(input, pairs, mode)


__all__ = ["pad"]
