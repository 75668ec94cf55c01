"""Where a NaN or an infinity is born in a backward pass, and the product that made it.

A NaN spreads: once one element of a gradient is ``nan``, every step after it passes it
on, so the step to look at is the one where it first appears, where the gradient arriving
had none and the one sent on has one (lesson 16). At an elementwise step that is one
product, ``upstream[i] × local[i] = contribution[i]``: ``0 × inf = nan`` where
``where`` sent 0 into ``sqrt``'s backward at √0. The chain-rule panel shows those products.

The upstream and the contribution are the engine's numbers. The local factor is the one
thing the engine did not report: for an elementwise op it is the op's own backward run
once more on a gradient of ones (the diagonal of its Jacobian), on a private copy of the
node that holds what it saved before backward freed it. It is shown only where
``upstream × local`` gives back the engine's contribution, element for element.

Two more places where a learner asks "where did it come from, where did it go":
:func:`sum_births`, a nan made by adding contributions (``inf + -inf``), and
:func:`stopped_at`, a nan that arrived and went no further (clamp's backward selects,
it does not multiply: it sends 0 there, nan or not).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..autograd.grad_mode import no_grad
from .values import as_array

#: the most elements of one edge a panel lists where something is born
BORN_LIMIT = 4


@dataclass(eq=False)
class Birth:
    """What was born along one edge of a step: ``nan``, ``inf`` or both.

    ``products`` lists ``(index, upstream, local, contribution)`` (0-d arrays) for the
    first few elements, empty when the op mixes elements (no product per element) or
    its local factor could not be had; ``total`` counts every element where it was born.
    """

    kinds: str
    products: list
    total: int


def kinds_born(grads_in: list, contribution) -> str:
    """``"nan"``, ``"inf"``, ``"nan and inf"`` or ``""``: what ``contribution`` holds that
    no gradient arriving at the step held (for a step whose op mixes elements)."""
    sent = as_array(contribution)
    if sent is None or sent.dtype.kind not in "fc":
        return ""
    arrived = [as_array(g) for g in grads_in if g is not None]
    found = []
    if np.isnan(sent).any() and not any(np.isnan(g).any() for g in arrived):
        found.append("nan")
    if np.isinf(sent).any() and all(np.isfinite(g).all() for g in arrived):
        found.append("inf")
    return " and ".join(found)


def born_mask(upstream, contribution) -> np.ndarray | None:
    """Where, element by element, ``contribution`` is nan and ``upstream`` was not, or is
    infinite and ``upstream`` was finite; None when the two shapes differ."""
    up, sent = as_array(upstream), as_array(contribution)
    if up is None or sent is None or up.shape != sent.shape or sent.dtype.kind not in "fc":
        return None
    return (np.isnan(sent) & ~np.isnan(up)) | (np.isinf(sent) & np.isfinite(up))


def elementwise_birth(node, saved, upstream, contribution, edge: int) -> Birth | None:
    """The products where something is born along ``edge`` of an elementwise step, or
    None when nothing is born there (or the shapes differ: a broadcast, summed)."""
    mask = born_mask(upstream, contribution)
    if mask is None or not mask.any():
        return None
    up, sent = as_array(upstream), as_array(contribution)
    kinds = " and ".join(k for k, test in (("nan", np.isnan), ("inf", np.isinf))
                         if test(sent[mask]).any())
    local = _local_factors(node, saved, up, edge)
    if local is None or not _gives_back(up, local, sent, mask):
        local = _divided(up, sent, mask)
    products = []
    if local is not None:
        for flat in np.flatnonzero(mask)[:BORN_LIMIT]:
            index = np.unravel_index(flat, sent.shape)
            products.append((index, up[index], local[index], sent[index]))
    return Birth(kinds, products, int(mask.sum()))


def stopped_at(upstream, contribution) -> tuple[list, int]:
    """``[(index, contribution)]`` of the first few elements where a nan or inf arrived
    and a finite number was sent on, and how many there are: ``(items, total)``.

    A product cannot do that (0 × nan is nan, 0 × inf too): the op's backward selected
    (clamp, relu, where: the gradient where the condition holds, 0 elsewhere).
    """
    up, sent = as_array(upstream), as_array(contribution)
    if (up is None or sent is None or up.shape != sent.shape or up.dtype.kind not in "fc"
            or sent.dtype.kind not in "fc"):
        return [], 0
    mask = ~np.isfinite(up) & np.isfinite(sent)
    items = [(np.unravel_index(flat, sent.shape), sent.reshape(-1)[flat])
             for flat in np.flatnonzero(mask)[:BORN_LIMIT]]
    return items, int(mask.sum())


def sum_births(parts: list, total) -> tuple[str, list, int]:
    """Where adding the contributions made a nan none had (inf + -inf) or an inf from
    finite numbers (an overflow): ``(kinds, [(index, [part values], total value)], how
    many)``; ``("", [], 0)`` when nothing was born in the sum."""
    arrays = [as_array(p) for p in parts]
    summed = as_array(total)
    if (summed is None or summed.dtype.kind not in "fc" or any(a is None or a.shape !=
                                                                summed.shape for a in arrays)):
        return "", [], 0
    had_nan = np.any([np.isnan(a) for a in arrays], axis=0)
    all_finite = np.all([np.isfinite(a) for a in arrays], axis=0)
    mask = (np.isnan(summed) & ~had_nan) | (np.isinf(summed) & all_finite)
    if not mask.any():
        return "", [], 0
    kinds = " and ".join(k for k, test in (("nan", np.isnan), ("inf", np.isinf))
                         if test(summed[mask]).any())
    items = []
    for flat in np.flatnonzero(mask)[:BORN_LIMIT]:
        index = np.unravel_index(flat, summed.shape)
        items.append((index, [a[index] for a in arrays], summed[index]))
    return kinds, items, int(mask.sum())


def _local_factors(node, saved, upstream: np.ndarray, edge: int) -> np.ndarray | None:
    """The op's backward on a gradient of ones: its local derivative per element.

    Run on a copy of the node carrying ``saved`` (what it saved, ``(values, sources)``
    taken before backward freed it), so the learner's graph is not touched. None if that
    cannot be done.
    """
    try:
        copy = object.__new__(type(node))
        for slot in ("next_functions", "_meta", "_seq_nr"):
            setattr(copy, slot, getattr(node, slot))
        copy.__dict__.update(node.__dict__)
        copy._hooks = None
        # (None: the op saved nothing, as x + y; its backward needs nothing either)
        copy._saved = None if saved is None else (tuple(saved[0]), tuple(saved[1]))
        with no_grad(), np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grads = copy._run_backward((np.ones_like(upstream),))
    except Exception:  # an op whose backward needs more than this: no local factor shown
        return None
    local = as_array(grads[edge]) if edge < len(grads) else None
    if local is None or local.shape != upstream.shape:
        return None
    return local


def _gives_back(up: np.ndarray, local: np.ndarray, sent: np.ndarray, mask) -> bool:
    """Does ``up × local`` equal the engine's contribution wherever something was born?"""
    with np.errstate(all="ignore"):
        product = (up * local)[mask]
    expected = sent[mask]
    return bool(np.all((product == expected) | (np.isnan(product) & np.isnan(expected))))


def _divided(up: np.ndarray, sent: np.ndarray, mask) -> np.ndarray | None:
    """``contribution ÷ upstream`` where that gives the local factor exactly: every born
    element's upstream finite and not 0 (inf ÷ 2 is inf, nan ÷ 2 is nan); else None."""
    born_up = up[mask]
    if not (np.all(np.isfinite(born_up)) and np.all(born_up != 0)):
        return None
    with np.errstate(all="ignore"):
        return sent / np.where(mask, up, 1)


__all__ = ["Birth", "BORN_LIMIT", "born_mask", "elementwise_birth", "kinds_born", "stopped_at",
           "sum_births"]
