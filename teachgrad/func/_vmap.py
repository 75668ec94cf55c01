"""``vmap``: run a function written for one sample over a whole batch.

PyTorch's ``vmap`` rewrites every op to work on the batch at once ("batching rules").
teachgrad's is the honest, simple version: it calls the function **once per sample**
and stacks the results. The numbers (and the gradients through them) are the same; it
is only as fast as the Python loop. Because each call really sees one sample, code that
PyTorch's vmap refuses (``.item()``, data-dependent ``if``) works here.

>>> import teachgrad as torch
>>> from teachgrad.func import vmap
>>> vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))     # a batch of dot products
tensor([2., 2., 2.])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .. import _random
from .._tensor import Tensor
from ..autograd.engine import retention
from ..autograd.function import run_transformed
from ..ops import stack
from ._pytree import broadcast_prefix, tree_flatten, tree_unflatten

_RANDOMNESS = ("error", "different", "same")
#: PyTorch's refusal of a random op under ``randomness='error'`` (vmap's and jacfwd's).
RANDOM_IN_ERROR_MODE = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)


def vmap(func: Callable, in_dims: int | tuple | None = 0, out_dims: int | tuple = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable:
    """Vectorize ``func`` over dimension ``in_dims`` of its inputs (``torch.vmap``).

    ``in_dims``: the batch dimension of each input (an int for all, or a tuple like
    the arguments, with ``None`` for inputs that are not batched). ``out_dims``: where the
    batch dimension goes in each output. ``randomness``: ``'error'`` refuses random ops
    inside ``func``; ``'different'`` gives each sample its own draws; ``'same'`` gives
    every sample the same draws. ``chunk_size`` is accepted and ignored.
    Nested ``vmap`` works (each level is its own loop).
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def batched(*args: Any, **kwargs: Any):
        if not args:
            raise ValueError(
                f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
                "you are trying to vmap over a function with no inputs. The latter is "
                "unsupported."
            )
        leaves, spec = tree_flatten(args)
        dims = _in_dims(name, in_dims, args, leaves)
        size = _batch_size(leaves, dims)
        if size == 0:
            raise ValueError(
                "vmap: teachgrad's vmap runs the function once per sample, so it cannot map "
                "over an empty batch (size 0)."
            )
        state = _random.default_generator.get_state() if randomness != "different" else None
        outputs = []
        # A backward inside func runs once per sample through one graph: keep the graph
        # until the last sample (and the last of an outer vmap's samples too).
        outer = retention.more_samples
        try:
            for i in range(size):
                retention.more_samples = outer or i < size - 1
                if randomness == "same":  # every sample draws the same numbers
                    _random.default_generator.set_state(state)
                sample = [x if d is None else x.select(d, i) for x, d in zip(leaves, dims)]
                outputs.append(run_transformed(func, *tree_unflatten(sample, spec), **kwargs))
                if randomness == "error" and i == 0 and _changed(state):
                    raise RuntimeError(RANDOM_IN_ERROR_MODE)
        finally:
            retention.more_samples = outer
        return _stack_outputs(name, outputs, out_dims)

    return batched


def _changed(state) -> bool:
    """Has the default generator moved on from ``state`` (did something draw)?"""
    now = _random.default_generator.get_state()
    return bool((now._data != state._data).any())


def _in_dims(name: str, in_dims, args: tuple, leaves: list) -> list:
    """One batch dimension (or None) per leaf of ``args``, checked as PyTorch checks."""
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(
            f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching "
            f"the structure of inputs, got: {type(in_dims)}."
        )
    dims = broadcast_prefix(in_dims, args)
    if dims is None:
        raise ValueError(
            f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has "
            f"structure {tree_flatten(in_dims)[1]!r} but inputs has structure "
            f"{tree_flatten(args)[1]!r}."
        )
    checked = []
    for x, d in zip(leaves, dims):
        if d is None:
            checked.append(None)
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"{where}: Got in_dim={d} for an input but the input is of type {type(x)}. "
                "We cannot vmap over non-Tensor arguments, please use None as the respective "
                "in_dim"
            )
        n = x._data.ndim
        if not -n <= d < n:
            raise ValueError(
                f"{where}: Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim < {n}."
            )
        checked.append(d % n)
    return checked


def _batch_size(leaves: list, dims: list) -> int:
    sizes = [x._data.shape[d] for x, d in zip(leaves, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return sizes[0]


def _stack_outputs(name: str, outputs: list, out_dims):
    """Stack the per-sample outputs leaf by leaf, the batch dimension at ``out_dims``."""
    per_sample = [tree_flatten(o) for o in outputs]
    leaves0, spec = per_sample[0]
    dims = broadcast_prefix(out_dims, outputs[0])
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
            f"with the structure of `outputs`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]!r} but outputs has structure {spec!r}."
        )
    stacked = []
    for k, (x, d) in enumerate(zip(leaves0, dims)):
        if d is None:  # not batched: every sample gave the same thing, keep one
            stacked.append(x)
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(x)}. "
                "Did you mean to set out_dims= to None for output?"
            )
        stacked.append(stack([s[0][k] for s in per_sample], d))
    return tree_unflatten(stacked, spec)
