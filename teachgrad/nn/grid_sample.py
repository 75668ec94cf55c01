"""``F.grid_sample`` and ``F.affine_grid``: read an image at arbitrary points (the sampler
of spatial transformer networks).

``grid_sample(input, grid)`` gives, for every point of ``grid`` (``(N, H_out, W_out, 2)``,
coordinates in ``[-1, 1]``: ``-1`` is the left/top edge, ``+1`` the right/bottom edge),
the input's value there. Between pixels the value is *interpolated*: ``bilinear`` mixes the
four pixels around the point, each weighted by how close it is (the product, over the
axes, of ``1 - distance``); ``nearest`` takes the closest pixel; ``bicubic`` mixes sixteen
with cubic weights. Outside the image,
``padding_mode`` decides: ``zeros`` (a pixel out there is 0), ``border`` (the point is
moved to the nearest edge) or ``reflection`` (mirrored back inside).

The output is differentiable in the image (each output's gradient goes back to the pixels
it mixed, times their weights) *and* in the grid (moving a point changes the weights: the
gradient says where to move it). ``affine_grid(theta, size)`` makes the grid of an affine
map ``theta`` (``(N, 2, 3)``), so a network can learn to rotate, scale or crop.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> image = torch.tensor([[[[0.0, 10.0], [20.0, 30.0]]]])
>>> centre = torch.zeros(1, 1, 1, 2)                  # the point (0, 0): the image's centre
>>> F.grid_sample(image, centre, align_corners=False)
tensor([[[[15.]]]])
>>> identity = torch.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
>>> F.grid_sample(image, F.affine_grid(identity, (1, 1, 2, 2), align_corners=False),
...               align_corners=False).equal(image)
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import _creation
from .._tensor import Tensor
from .._warn import warn_user
from ..ops.op import Op
from .argument_types import takes_arguments
from .no_derivative import NotImplementedBackward

_DEFAULT_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


# ----------------------------------------------------------------------------------------
# Where each grid point reads: its source coordinate along every axis, and the corners
# ----------------------------------------------------------------------------------------
def source_coordinates(g: np.ndarray, size: int, align_corners: bool,
                       padding_mode: str, fused: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Grid values in ``[-1, 1]`` -> pixel coordinates along one axis, and the slope
    ``d coordinate / d grid`` (PyTorch's arithmetic: 0 where ``border`` or ``reflection``
    clamps the point to an edge). ``fused``: PyTorch's vectorised 2-D kernel's rounding
    (see :func:`_fused_unnormalize`); the 3-D kernel rounds each step.

    >>> source_coordinates(np.array([-1.0, 0.0, 1.0]), 4, False, "zeros")
    (array([-0.5,  1.5,  3.5]), array([2., 2., 2.]))
    """
    if align_corners:  # -1 and +1 are the centres of the first and last pixels
        coord = (g + 1) / 2 * (size - 1)
        slope = np.full(g.shape, (size - 1) / 2, g.dtype)
    else:  # -1 and +1 are the outer edges of the first and last pixels
        coord = _fused_unnormalize(g, size) if fused else ((g + 1) * size - 1) / 2
        slope = np.full(g.shape, size / 2, g.dtype)
    coord, factor = fold_inside(coord, size, align_corners, padding_mode)
    # nan or inf points read nothing (PyTorch sends them far outside the image).
    finite = np.isfinite(coord)
    return (np.where(finite, coord, -100).astype(g.dtype),
            np.where(finite, slope * factor, 0).astype(g.dtype))


def _fused_unnormalize(g: np.ndarray, size: int) -> np.ndarray:
    """``(g + 1) · size/2 - 0.5`` rounded once after the multiply-add, as PyTorch's 2-D CPU
    kernel computes it (its vectorised code is compiled to a fused multiply-add).

    Why it matters: an identity ``affine_grid`` puts points on pixel centres, where the
    coordinate is an integer up to one rounding. Rounded once or twice it can land just
    below or just above the integer, and that decides which neighbour bilinear sampling
    pairs the point with, so which side's slope the grid's gradient reads (a spatial
    transformer starts at the identity: its first gradient is all such points).
    """
    shifted = g + g.dtype.type(1)
    half_size = g.dtype.type(size / 2)
    if g.dtype == np.float32:  # the product is exact in float64: one rounding, to float32
        return (shifted.astype(np.float64) * float(size / 2) - 0.5).astype(np.float32)
    # float64: split shifted into two halves whose products with size/2 are exact, then
    # add the three exact terms with error-free sums (rounding once, in practice).
    split = shifted * 134217729.0  # 2^27 + 1: Veltkamp's split
    high = split - (split - shifted)
    low = shifted - high
    total, error = _two_sum(high * half_size, g.dtype.type(-0.5))
    total, error2 = _two_sum(total, low * half_size)
    return total + (error + error2)


def _two_sum(a: np.ndarray, b) -> tuple[np.ndarray, np.ndarray]:
    """``a + b`` rounded, and the rounding error (exactly: the sum is the two added)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def fold_inside(coord: np.ndarray, size: int, align_corners: bool,
                padding_mode: str) -> tuple[np.ndarray, np.ndarray]:
    """``border``: clamp a coordinate to the image; ``reflection``: mirror it back in (then
    clamp); ``zeros``: leave it. Also ``d new / d old``: ±1 inside, 0 where clamped."""
    factor = np.ones(coord.shape, coord.dtype)
    if padding_mode == "reflection":
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if low == high:
            return np.zeros_like(coord), np.zeros_like(factor)
        start, span = low / 2, (high - low) / 2
        shifted = coord - start
        sign = np.where(shifted < 0, -1, 1).astype(coord.dtype)
        shifted = np.abs(shifted)
        extra = np.fmod(shifted, span)
        even = np.floor(shifted / span) % 2 == 0
        coord = np.where(even, extra + start, span - extra + start).astype(coord.dtype)
        factor = factor * np.where(even, sign, -sign)
    if padding_mode in ("border", "reflection"):
        factor = factor * ((coord > 0) & (coord < size - 1))
        coord = np.clip(coord, 0, size - 1)
    return coord, factor


@dataclass
class Corner:
    """One of the pixels a grid point mixes: ``flat`` index into the ``H·W`` plane (clamped
    to a real pixel; ``inside`` says whether it is one), and along each axis its factor
    ``a`` of the weight with that factor's first and second derivatives ``da``, ``dda``
    (for bilinear ``±1`` and 0: the factors are linear)."""

    flat: np.ndarray     # (N, P) int64
    inside: np.ndarray   # (N, P) bool
    a: list              # per axis (N, P)
    da: list             # per axis (N, P)
    dda: list            # per axis (N, P)

    def weight(self, skip: tuple[int, ...] = ()) -> np.ndarray:
        """The product of the factors (leaving out the axes in ``skip``)."""
        w = self.inside.astype(self.a[0].dtype)
        for axis, a in enumerate(self.a):
            if axis not in skip:
                w = w * a
        return w

    def weight_derivative(self, *axes: int) -> np.ndarray:
        """``∂ weight / ∂ coordinate`` along ``axes`` (one axis, or two: the same one twice
        for a second derivative)."""
        w = self.weight(skip=axes)
        if len(axes) == 2 and axes[0] == axes[1]:
            return w * self.dda[axes[0]]
        for axis in axes:
            w = w * self.da[axis]
        return w


@dataclass
class Sampling:
    """Everything the forward and both backwards need, computed once from the grid."""

    corners: list[Corner]
    slopes: list[np.ndarray]   # per axis (N, P): d coordinate / d grid component
    spatial: tuple[int, ...]   # the input's spatial sizes
    out_spatial: tuple[int, ...]


def _cubic_taps(coord: np.ndarray, size: int, align_corners: bool, padding_mode: str):
    """Bicubic's four neighbours ``⌊c⌋-1 .. ⌊c⌋+2`` along one axis, each with its cubic
    weight and that weight's first and second derivatives. The point is not moved by the
    padding: each neighbour is (a pixel outside reads 0, the edge or its mirror image)."""
    from .upsampling import CUBIC_A

    a = coord.dtype.type(CUBIC_A)
    before = np.floor(coord)
    t = coord - before

    def near(x):  # the kernel for |x| <= 1, and its derivatives
        return (((a + 2) * x - (a + 3)) * x * x + 1, (3 * (a + 2) * x - 2 * (a + 3)) * x,
                6 * (a + 2) * x - 2 * (a + 3))

    def far(x):  # for 1 < |x| < 2
        return ((((a * x - 5 * a) * x + 8 * a) * x - 4 * a), (3 * a * x - 10 * a) * x + 8 * a,
                6 * a * x - 10 * a)

    # Tap k sits at distance t + 1, t, 1 - t, 2 - t from the point: d(distance)/dt = ±1.
    kernels = [(far(t + 1), 1), (near(t), 1), (near(1 - t), -1), (far(2 - t), -1)]
    taps = []
    for offset, ((w, dw, ddw), sign) in zip(range(-1, 3), kernels):
        position, _ = fold_inside(before + offset, size, align_corners, padding_mode)
        taps.append((position, w, sign * dw, ddw))
    return taps


def sampling(grid: np.ndarray, spatial: tuple[int, ...], mode: str, padding_mode: str,
             align_corners: bool) -> Sampling:
    """The corners every grid point reads, with their weights (see :class:`Corner`)."""
    d = len(spatial)
    n, out_spatial = grid.shape[0], grid.shape[1:-1]
    points = grid.reshape(n, -1, d)
    slopes, taps = [], []
    for axis, size in enumerate(spatial):
        # grid[..., 0] is x (the last axis, width), grid[..., 1] is y, grid[..., 2] is z.
        g = points[..., d - 1 - axis]
        if mode == "bicubic":  # the padding applies to each neighbour, not to the point
            coord, slope = source_coordinates(g, size, align_corners, "zeros", d == 2)
            taps.append(_cubic_taps(coord, size, align_corners, padding_mode))
        else:
            coord, slope = source_coordinates(g, size, align_corners, padding_mode, d == 2)
            zero, one = np.zeros_like(coord), np.ones_like(coord)
            if mode == "nearest":  # PyTorch rounds halves to even, as rint does
                taps.append([(np.rint(coord), one, zero, zero)])
            else:  # bilinear: the pixel before the point (weight 1 - λ) and after it (λ)
                before = np.floor(coord)
                lam = coord - before
                taps.append([(before, 1 - lam, -one, zero), (before + 1, lam, one, zero)])
        slopes.append(slope)
    corners = []
    for choice in itertools.product(*taps):
        inside = np.ones(points.shape[:2], bool)
        flat = np.zeros(points.shape[:2], np.int64)
        for (position, *_), size in zip(choice, spatial):
            inside &= (position >= 0) & (position <= size - 1)
            flat = flat * size + np.clip(position, 0, size - 1).astype(np.int64)
        corners.append(Corner(flat, inside, [tap[1] for tap in choice],
                              [tap[2] for tap in choice], [tap[3] for tap in choice]))
    return Sampling(corners, slopes, tuple(spatial), tuple(out_spatial))


def _read(values: np.ndarray, corner: Corner) -> np.ndarray:
    """``values`` ``(N, C, L)`` at the corner's pixels: ``(N, C, P)`` (0 outside)."""
    picked = np.take_along_axis(values, corner.flat[:, None, :], axis=2)
    return picked * corner.inside[:, None, :]


def _spread(values: np.ndarray, corner: Corner, size: int) -> np.ndarray:
    """The adjoint of :func:`_read`: add ``values`` ``(N, C, P)`` into ``(N, C, size)`` at
    the corner's pixels (several points can share a pixel: they add up)."""
    n, c, _ = values.shape
    rows = (np.arange(n * c).reshape(n, c, 1) * size + corner.flat[:, None, :]).ravel()
    weights = (values * corner.inside[:, None, :]).ravel()
    return np.bincount(rows, weights, minlength=n * c * size).reshape(n, c, size)


def _sample(x: np.ndarray, s: Sampling) -> np.ndarray:
    """``out[n, c, p] = Σ_corners weight · x[n, c, corner]``."""
    n, c = x.shape[:2]
    values = x.reshape(n, c, -1)
    out = np.zeros((n, c, math.prod(s.out_spatial)), x.dtype)
    for corner in s.corners:
        out += corner.weight()[:, None, :] * _read(values, corner)
    return out.reshape(n, c, *s.out_spatial)


def _grads(grad: np.ndarray, x: np.ndarray, s: Sampling, mask) -> tuple:
    """``(∂L/∂input, ∂L/∂grid)``: each output's gradient back to its corners (times their
    weights), and to the point itself (how the output changes as the point moves)."""
    n, c = x.shape[:2]
    d = len(s.spatial)
    size = math.prod(s.spatial)
    g = grad.reshape(n, c, -1)
    values = x.reshape(n, c, -1)
    gx = np.zeros((n, c, size), x.dtype) if mask[0] else None
    along = [np.zeros(g.shape[::2], x.dtype) for _ in range(d)] if mask[1] else None
    for corner in s.corners:
        if mask[0]:
            gx += _spread(corner.weight()[:, None, :] * g, corner, size)
        if mask[1]:
            seen = np.sum(g * _read(values, corner), axis=1)  # (N, P)
            for axis in range(d):
                along[axis] += corner.weight_derivative(axis) * seen
    ggrid = None
    if mask[1]:
        # Grid component i moves axis d-1-i; chain through the coordinate's slope.
        ggrid = np.stack([along[d - 1 - i] * s.slopes[d - 1 - i] for i in range(d)], axis=-1)
        ggrid = ggrid.reshape(n, *s.out_spatial, d)
    return (gx.reshape(x.shape) if mask[0] else None), ggrid


_MODE_NUMBERS = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING_NUMBERS = {"zeros": 0, "border": 1, "reflection": 2}


class GridSampler2DBackward0(Op):
    """``out[n, c, p] = Σ_corners w(grid[n, p])·input[n, c, corner]``: bilinear (or
    nearest) reading of the input at every grid point."""

    formula = ("out = Σ_k w_k(grid)·x[corner_k]    ∂L/∂x[corner_k] += w_k·grad    "
               "∂L/∂grid = Σ_k (∂w_k/∂grid)·x[corner_k]·grad")

    saved_names = ("input", "grid")  # grad_fn._saved_...
    # (the modes as PyTorch's kernel numbers them)
    saved_attributes = {
        "interpolation_mode": lambda node: _MODE_NUMBERS[node.modes[0]],
        "padding_mode": lambda node: _PADDING_NUMBERS[node.modes[1]],
        "align_corners": lambda node: node.modes[2],
    }

    @staticmethod
    def forward(ctx, x, grid, mode, padding_mode, align_corners):
        s = sampling(grid, x.shape[2:], mode, padding_mode, align_corners)
        ctx.save_for_backward(x, grid)
        ctx.sampling = s
        ctx.modes = (mode, padding_mode, align_corners)
        return _sample(x, s)

    @staticmethod
    def backward(ctx, grad):
        x, grid = ctx.saved_tensors
        mask = ctx.needs_input_grad
        if any(isinstance(t, Tensor) for t in (grad, x, grid)):  # create_graph: record
            op = _BACKWARD_OPS[type(ctx)]
            gx, ggrid = op.apply(grad, x, grid, sampling=ctx.sampling, mask=mask)
            return (gx if mask[0] else None), (ggrid if mask[1] else None)
        return _grads(grad, x, ctx.sampling, mask)


class GridSampler3DBackward0(GridSampler2DBackward0):
    """The 3-d sampler (``(N, C, D, H, W)`` input, ``(N, D_o, H_o, W_o, 3)`` grid): the
    same op over three axes (eight corners per point)."""


class GridSampler2DBackwardBackward0(Op):
    """``(∂L/∂input, ∂L/∂grid)`` of the sampler: the node ``create_graph=True`` records.

    Its own backward is second-order: the weights are products of per-axis factors, so
    the second derivatives are ``∂²w/∂x∂y`` and (bicubic only) each factor's curvature.
    """

    formula = ("∂L/∂x = Σ_k spread(w_k·g)    ∂L/∂grid = Σ_k ∂w_k·Σ_c g·x[corner_k]    "
               "(second order: ∂²w/∂x∂y)")

    @staticmethod
    def forward(ctx, grad, x, grid, sampling, mask):
        ctx.save_for_backward(grad, x, grid)
        ctx.sampling = sampling
        gx, ggrid = _grads(grad, x, sampling, (True, True))
        return gx, ggrid

    @staticmethod
    def backward(ctx, grad_gx, grad_ggrid):
        grad, x, grid = ctx.saved_tensors
        given = (grad_gx, grad_ggrid, grad, x, grid)
        tensors = [t for t in given if isinstance(t, Tensor)]
        if not tensors:
            return _second_order(grad, x, grad_gx, grad_ggrid, ctx.sampling)
        # create_graph=True once more: the values are right, but a third backward through
        # them is not implemented (as in PyTorch): record a node that says so if reached.
        raw = [t.detach().numpy() if isinstance(t, Tensor) else t for t in given]
        values = _second_order(raw[2], raw[3], raw[0], raw[1], ctx.sampling)
        return NotImplementedBackward.apply(
            *tensors, values=values, derivative="grid_sampler_backward",
            hint="grid_sample has gradients of the first and second order only.")


class GridSampler3DBackwardBackward0(GridSampler2DBackwardBackward0):
    """The 3-d sampler's gradients, as recorded under ``create_graph=True``."""


_BACKWARD_OPS = {GridSampler2DBackward0: GridSampler2DBackwardBackward0,
                 GridSampler3DBackward0: GridSampler3DBackwardBackward0}


def _second_order(grad, x, grad_gx, grad_ggrid, s: Sampling) -> tuple:
    """The gradients of ``L = <∂L/∂input, Gx> + <∂L/∂grid, Gg>`` with respect to the
    output gradient, the input and the grid.

    Written per corner ``k`` with ``U = Gx[corner]``, ``V = input[corner]`` and ``t =
    Σ_i slope_i·∂w/∂x_i·Gg_i``: ``L = Σ g·(w·U + t·V)``.
    """
    n, c = x.shape[:2]
    d = len(s.spatial)
    size = math.prod(s.spatial)
    g = grad.reshape(n, c, -1)
    values = x.reshape(n, c, -1)
    gx_bar = None if grad_gx is None else grad_gx.reshape(n, c, -1)
    # Gg per axis (axis a is grid component d-1-a), times the slope: (N, P) each.
    moved = [None] * d
    if grad_ggrid is not None:
        flat = grad_ggrid.reshape(n, -1, d)
        moved = [flat[..., d - 1 - a] * s.slopes[a] for a in range(d)]
    d_grad = np.zeros_like(g)
    d_x = np.zeros_like(values)
    along = [np.zeros((n, g.shape[2]), x.dtype) for _ in range(d)]
    for corner in s.corners:
        v = _read(values, corner)
        if gx_bar is not None:
            u = _read(gx_bar, corner)
            d_grad += corner.weight()[:, None, :] * u
            gu = np.sum(g * u, axis=1)
            for a in range(d):
                along[a] += corner.weight_derivative(a) * gu
        if grad_ggrid is not None:
            t = sum(corner.weight_derivative(a) * moved[a] for a in range(d))
            d_grad += t[:, None, :] * v
            d_x += _spread(t[:, None, :] * g, corner, size)
            gv = np.sum(g * v, axis=1)
            for a in range(d):
                for b in range(d):  # b == a: the factor's own curvature (bicubic)
                    along[a] += corner.weight_derivative(a, b) * moved[b] * gv
    d_grid = np.stack([along[d - 1 - i] * s.slopes[d - 1 - i] for i in range(d)], axis=-1)
    return (d_grad.reshape(grad.shape), d_x.reshape(x.shape),
            d_grid.reshape(n, *s.out_spatial, d))


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(map(str, t.shape)) + "]"


def _type_name(t: Tensor) -> str:
    """The dtype as PyTorch's messages name it: Float, Long, Bool ..."""
    return t.dtype._legacy.removesuffix("Tensor")


@takes_arguments("grid_sampler", align_corners=("bool?", 5))
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """Sample ``input`` ``(N, C, H, W)`` at the points of ``grid`` ``(N, H_out, W_out, 2)``
    (``(x, y)`` in ``[-1, 1]``); 5-d inputs take ``(N, D_o, H_o, W_o, 3)`` grids.

    ``mode``: ``'bilinear'``, ``'nearest'`` or ``'bicubic'`` (4-d only: the sixteen
    pixels around the point, with the weights of ``interpolate``'s bicubic mode);
    ``padding_mode``: ``'zeros'``,
    ``'border'`` or ``'reflection'``; ``align_corners``: whether ``±1`` are the centres
    of the corner pixels (True) or their outer edges (False, the default).

    >>> import teachgrad as torch
    >>> image = torch.tensor([[[[0.0, 10.0], [20.0, 30.0]]]])
    >>> corner = torch.tensor([[[[1.0, -1.0]]]])       # x = right edge, y = top edge
    >>> torch.nn.functional.grid_sample(image, corner, align_corners=True)
    tensor([[[[10.]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warn_user(_DEFAULT_ALIGN_WARNING, UserWarning)
        align_corners = False
    # PyTorch's order: the shapes (batch, grid's last size, spatial sizes, dimensions),
    # then input's dtype, then grid's against it
    if input.ndim == 0 or grid.ndim == 0:  # (input.size(0), grid.size(0))
        raise IndexError("Dimension specified as 0 but tensor has no dimensions\nHint: "
                         "grid_sample takes a batch: input (N, C, H, W), grid (N, H_out, "
                         "W_out, 2).")
    d = input.ndim - 2
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}"
        )
    if grid.shape[-1] != d:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {d} in last dimension, "
                           f"but got grid with sizes {_sizes(grid)}")
    for dim in range(2, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                f"has sizes {_sizes(input)} with dimension {dim} being empty"
            )
    wanted = 4 if input.ndim == 4 else 5
    if input.ndim != wanted or grid.ndim != wanted:
        raise RuntimeError(
            f"grid_sampler(): expected {wanted}D input and grid with same number of dimensions, "
            f"but got input with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}"
        )
    if mode == "bicubic" and d != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input._data.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if d == 2 else "grid_sampler3d_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_type_name(input)}'\nHint: sample a float "
            "tensor, e.g. input.float().")
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"expected scalar type {_type_name(input)} but found {_type_name(grid)}"
            "\nHint: input and grid must have one dtype, e.g. grid.to(input.dtype).")
    op = GridSampler2DBackward0 if d == 2 else GridSampler3DBackward0
    return op.apply(input, grid, mode=mode, padding_mode=padding_mode,
                    align_corners=bool(align_corners))


# ----------------------------------------------------------------------------------------
# affine_grid
# ----------------------------------------------------------------------------------------
def _base_line(steps: int, align_corners: bool, dtype) -> np.ndarray:
    """``steps`` points from -1 to 1 (pixel centres; one point is the centre, 0)."""
    if steps <= 1:
        return np.zeros(max(steps, 0), dtype)
    # PyTorch's linspace_from_neg_one, to the last bit: its linspace, then (without
    # align_corners) `* (steps - 1)` and `/ steps` as two roundings. A grid point that
    # should fall on a pixel centre then lands on the same side of it as in PyTorch, which
    # decides which neighbour grid_sample's gradient for the grid reads there.
    line = _creation._even_steps(-1, 1, steps, np.dtype(dtype))
    if align_corners:
        return line
    return line * line.dtype.type(steps - 1) / line.dtype.type(steps)


def base_grid(spatial: Sequence[int], align_corners: bool, dtype) -> np.ndarray:
    """``(*spatial, d + 1)``: every output pixel's ``(x, y[, z], 1)``: the points the
    affine map moves."""
    lines = [_base_line(n, align_corners, dtype) for n in spatial]
    mesh = np.meshgrid(*lines, indexing="ij")  # mesh[a]: coordinate along axis a
    # x first (the last axis), then y (then z), then the constant 1 of the translation.
    return np.stack([*reversed(mesh), np.ones(tuple(spatial), dtype)], axis=-1)


class AffineGridGeneratorBackward0(Op):
    """``grid[n, p] = θ[n] · (x_p, y_p, 1)``: linear in θ, so its gradient is
    ``Σ_p grad[n, p] ⊗ (x_p, y_p, 1)`` (and the double backward is this op again)."""

    formula = ("grid[n, p, i] = Σ_j θ[n, i, j]·base[p, j]    "
               "∂L/∂θ[n, i, j] = Σ_p grad[n, p, i]·base[p, j]")

    @staticmethod
    def forward(ctx, theta, base):
        ctx.base = base
        flat = base.reshape(-1, base.shape[-1])
        out = np.einsum("pj,nij->npi", flat, theta)
        return out.reshape(theta.shape[0], *base.shape[:-1], theta.shape[1])

    @staticmethod
    def backward(ctx, grad):
        flat = ctx.base.reshape(-1, ctx.base.shape[-1])
        rows = np.reshape(grad, (grad.shape[0], -1, grad.shape[-1]))
        # np.einsum and np.reshape run on tensors too (create_graph): recorded as ops.
        return np.einsum("npi,pj->nij", rows, flat)


@takes_arguments("affine_grid_generator", align_corners=("bool?", 3))
def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` for a 4-d ``size``
    ``(N, C, H, W)``, ``(N, 3, 4)`` for a 5-d one): feed it to :func:`grid_sample`.

    >>> import teachgrad as torch
    >>> zoom_out = torch.tensor([[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]])
    >>> torch.nn.functional.affine_grid(zoom_out, (1, 1, 2, 2), align_corners=True)
    tensor([[[[-2., -2.],
              [ 2., -2.]],
    <BLANKLINE>
             [[-2.,  2.],
              [ 2.,  2.]]]])
    """
    if align_corners is None:
        warn_user(_DEFAULT_ALIGN_WARNING, UserWarning)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    len(size)  # (first, as PyTorch's Python: "object of type 'int' has no len()")
    given, size = size, tuple(size)  # (PyTorch's messages show the size as given)
    if len(size) == 4:
        if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{given}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{given}. Got {theta.shape}.")
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {given}."
        )
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warn_user(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.", UserWarning)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {len(spatial) + 1}] but got: [{theta.shape[0]}, {theta.shape[2]}]."
        )
    base = base_grid(spatial, bool(align_corners), theta._data.dtype)
    return AffineGridGeneratorBackward0.apply(theta, base=base)


__all__ = ["AffineGridGeneratorBackward0", "GridSampler2DBackward0",
           "GridSampler2DBackwardBackward0", "GridSampler3DBackward0",
           "GridSampler3DBackwardBackward0", "affine_grid",
           "base_grid", "grid_sample", "source_coordinates"]
