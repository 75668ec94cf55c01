"""Convolution on NumPy arrays: im2col, a matrix product, and col2im back.

A convolution slides a small kernel over the input and, at every position, takes the dot
product of the kernel with the patch under it. *im2col* ("image to columns") turns that
into one big matrix product: gather every patch as a row of a matrix (the patches
overlap, so values are repeated), multiply by the kernels as a matrix, reshape. NumPy's
``sliding_window_view`` gathers the patches without copying until the reshape.

The same three functions serve 1-d and 2-d convolutions (any number of spatial
dimensions, in fact) and are the whole numerical content of ``F.conv1d``/``F.conv2d``:

* :func:`convolve` — the forward: ``out = conv(x, w)``
* :func:`input_grad` — ``∂L/∂x`` from ``∂L/∂out``: every output position sends its
  gradient back to the patch it was computed from (*col2im*: overlaps add up)
* :func:`weight_grad` — ``∂L/∂w``: each kernel weight met one value of every patch

Shapes: ``x`` is ``(N, C, *spatial)``, ``w`` is ``(O, C // groups, *kernel)``.
``padding`` is one ``(before, after)`` pair per spatial dimension (``'same'`` can need
uneven padding).

>>> import numpy as np
>>> x = np.arange(4.0).reshape(1, 1, 4)            # one sample, one channel: 0 1 2 3
>>> w = np.array([[[1.0, -1.0]]])                   # a difference kernel
>>> convolve(x, w, stride=(1,), padding=((0, 0),), dilation=(1,), groups=1)
array([[[-1., -1., -1.]]])
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

Pairs = tuple[tuple[int, int], ...]


def output_size(size: int, kernel: int, stride: int, pad: tuple[int, int], dilation: int) -> int:
    """How many positions the kernel takes along one dimension."""
    span = dilation * (kernel - 1) + 1  # how far a dilated kernel reaches
    return (size + pad[0] + pad[1] - span) // stride + 1


def patches(x: np.ndarray, kernel: tuple[int, ...], stride: tuple[int, ...], padding: Pairs,
            dilation: tuple[int, ...], fill: float = 0.0) -> np.ndarray:
    """Every patch of ``x``: shape ``(N, C, *out_spatial, *kernel)`` (a view when it can be).

    ``fill`` is what the padding holds (0 for convolutions, -inf for max pooling).
    """
    d = len(kernel)
    if any(p != (0, 0) for p in padding):
        x = np.pad(x, ((0, 0), (0, 0), *padding), constant_values=fill)
    spans = tuple(dil * (k - 1) + 1 for k, dil in zip(kernel, dilation))
    axes = tuple(range(2, 2 + d))
    windows = sliding_window_view(x, spans, axis=axes)
    # Keep every stride-th window, and every dilation-th element inside a window.
    step = (slice(None), slice(None), *(slice(None, None, s) for s in stride),
            *(slice(None, None, dil) for dil in dilation))
    return windows[step]


def _columns(x: np.ndarray, kernel: tuple[int, ...], stride, padding, dilation,
             groups: int, out_spatial: tuple[int, ...] | None = None) -> np.ndarray:
    """im2col: the patches as a matrix per group, ``(groups, N * L, C/groups * K)``.

    L is the number of output positions, K the number of kernel elements. ``out_spatial``
    keeps only the first patches (a transposed convolution's gradient can have a few more
    positions than its input: they are not part of it).
    """
    n, c = x.shape[:2]
    d = len(kernel)
    p = patches(x, kernel, stride, padding, dilation)  # (N, C, *out, *kernel)
    if out_spatial is not None:
        p = p[(slice(None), slice(None), *(slice(0, m) for m in out_spatial))]
    out_spatial = p.shape[2:2 + d]
    p = p.reshape(n, groups, c // groups, *out_spatial, *kernel)
    # Move the group first and the channel next to the kernel: (g, N, *out, C/g, *kernel).
    order = (1, 0, *range(3, 3 + d), 2, *range(3 + d, 3 + 2 * d))
    # Sizes spelled out: reshape cannot infer a -1 when the batch is empty.
    return p.transpose(order).reshape(groups, n * int(np.prod(out_spatial)),
                                      c // groups * int(np.prod(kernel)))


def convolve(x: np.ndarray, w: np.ndarray, stride: tuple[int, ...], padding: Pairs,
             dilation: tuple[int, ...], groups: int,
             out_spatial: tuple[int, ...] | None = None) -> np.ndarray:
    """``out[n, o, *pos] = Σ_c,k w[o, c, *k] · x_padded[n, c, *(pos·stride + k·dilation)]``.

    ``out_spatial``: compute only that many positions (the first ones).
    """
    n, o = x.shape[0], w.shape[0]
    kernel = w.shape[2:]
    if out_spatial is None:
        out_spatial = tuple(
            output_size(size, k, s, pad, dil)
            for size, k, s, pad, dil in zip(x.shape[2:], kernel, stride, padding, dilation)
        )
    cols = _columns(x, kernel, stride, padding, dilation, groups, out_spatial)  # (g, N*L, Ck)
    kernels = w.reshape(groups, o // groups, -1)                   # (g, O/g, Ck)
    out = cols @ kernels.transpose(0, 2, 1)                        # (g, N*L, O/g)
    out = out.reshape(groups, n, *out_spatial, o // groups)
    # Back to (N, O, *out): the group and its channels together, in that order.
    d = len(kernel)
    out = out.transpose(1, 0, 1 + d + 1, *range(2, 2 + d))
    return np.ascontiguousarray(out.reshape(n, o, *out_spatial))


def _grad_columns(grad: np.ndarray, groups: int) -> np.ndarray:
    """``grad`` (N, O, *out) as ``(g, O/g, N * L)``: one row per output channel."""
    n, o = grad.shape[:2]
    positions = int(np.prod(grad.shape[2:]))  # spelled out: no -1 for an empty batch
    g = grad.reshape(n, groups, o // groups, positions)      # (N, g, O/g, L)
    return g.transpose(1, 2, 0, 3).reshape(groups, o // groups, n * positions)


def weight_grad(x: np.ndarray, grad: np.ndarray, weight_shape: tuple[int, ...],
                stride, padding, dilation, groups: int) -> np.ndarray:
    """``∂L/∂w``: for each kernel weight, Σ over all positions of grad · the input it met."""
    kernel = weight_shape[2:]
    cols = _columns(x, kernel, stride, padding, dilation, groups, grad.shape[2:])  # (g, N*L, Ck)
    return (_grad_columns(grad, groups) @ cols).reshape(weight_shape)  # (g, O/g, Ck)


def input_grad(grad: np.ndarray, w: np.ndarray, input_shape: tuple[int, ...],
               stride, padding, dilation, groups: int) -> np.ndarray:
    """``∂L/∂x`` (col2im): every output position adds grad · kernel back onto its patch."""
    n, c = input_shape[:2]
    o = w.shape[0]
    kernel = w.shape[2:]
    d = len(kernel)
    out_spatial = grad.shape[2:]
    kernels = w.reshape(groups, o // groups, -1)                        # (g, O/g, Ck)
    cols = kernels.transpose(0, 2, 1) @ _grad_columns(grad, groups)     # (g, Ck, N*L)
    cols = cols.reshape(groups, c // groups, *kernel, n, *out_spatial)
    # (N, C, *kernel, *out): the gradient of every patch element.
    cols = np.moveaxis(cols, 2 + d, 0).reshape(n, c, *kernel, *out_spatial)
    return col2im(cols, input_shape, stride, padding, dilation)


def col2im(cols: np.ndarray, input_shape: tuple[int, ...], stride, padding: Pairs,
           dilation) -> np.ndarray:
    """Add every patch ``cols`` ``(N, C, *kernel, *out)`` back where it came from.

    The reverse of :func:`patches`: where patches overlap, their values add up.
    """
    n, c = input_shape[:2]
    d = len(input_shape) - 2
    kernel, out_spatial = cols.shape[2:2 + d], cols.shape[2 + d:]
    padded = np.zeros(
        (n, c, *(size + p[0] + p[1] for size, p in zip(input_shape[2:], padding))), cols.dtype
    )
    # One slice-add per kernel element (9 for a 3x3 kernel): the output positions that
    # used this element read the input on a strided grid, so write back on that grid.
    for offset in itertools.product(*(range(k) for k in kernel)):
        where = tuple(
            slice(i * dil, i * dil + s * (m - 1) + 1, s)
            for i, dil, s, m in zip(offset, dilation, stride, out_spatial)
        )
        padded[(slice(None), slice(None), *where)] += cols[(slice(None), slice(None), *offset)]
    inside = tuple(slice(p[0], p[0] + size) for size, p in zip(input_shape[2:], padding))
    return padded[(slice(None), slice(None), *inside)]


__all__ = ["col2im", "convolve", "input_grad", "output_size", "patches", "weight_grad"]
