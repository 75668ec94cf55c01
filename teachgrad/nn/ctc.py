"""``F.ctc_loss``: Connectionist Temporal Classification, the loss of speech and handwriting
recognisers whose output is longer than its label sequence and not aligned with it.

The network emits, at every time step ``t``, log-probabilities over the classes plus a
*blank*. An *alignment* is one class per time step; it spells the target when, after
merging repeats and dropping blanks, it reads the target (``a a _ b`` and ``a _ _ b`` both
spell ``ab``). The loss is ``-log`` of the total probability of all the alignments that
spell the target, summed by dynamic programming over the *extended* target
``_ l₁ _ l₂ _ … _`` (a blank between and around the labels):

* forward variables ``α_t(s)``: the probability of having spelled the extended target up
  to position ``s`` at time ``t``;
* backward variables ``β_t(s)``: the probability of spelling the rest from there.

The gradient of ``-log p`` with respect to ``log y_t(k)`` is
``-Σ_{s: l'_s = k} α_t(s)·β_t(s) / (y_t(k)·p)``. Everything is computed with
log-probabilities (``logaddexp``), as products of many probabilities underflow.

>>> import teachgrad as torch
>>> import teachgrad.nn.functional as F
>>> log_probs = torch.full((2, 1, 2), 0.5).log()      # 2 steps, classes {blank, a}: 50/50
>>> F.ctc_loss(log_probs, torch.tensor([[1]]), torch.tensor([2]), torch.tensor([1]),
...            reduction="sum")                        # a a, a _, _ a: p = 3/4
tensor(0.2877)
"""

from __future__ import annotations

import numpy as np

from .._arguments import Signatures, is_int
from .._tensor import Tensor, _make
from ..ops.index import saving_indices
from ..ops.op import Op
from ..ops.pointwise import where
from .no_derivative import NotImplementedBackward


def _extended(target: np.ndarray, blank: int) -> np.ndarray:
    """``[l1, l2]`` -> ``[_, l1, _, l2, _]``."""
    labels = np.full(2 * len(target) + 1, blank, np.int64)
    labels[1::2] = target
    return labels


def _can_skip(labels: np.ndarray, blank: int) -> np.ndarray:
    """Where a path may jump two positions (over a blank): into a label that differs from
    the label two before it (``a _ a`` must keep its blank, ``a _ b`` need not)."""
    skip = np.zeros(len(labels), bool)
    skip[2:] = (labels[2:] != blank) & (labels[2:] != labels[:-2])
    return skip


def _shifted(values: np.ndarray, by: int) -> np.ndarray:
    """``values`` moved ``by`` positions to the right (left if negative), ``-inf`` (log 0)
    coming in."""
    out = np.full_like(values, -np.inf)
    if by >= 0:
        out[by:] = values[:len(values) - by]
    else:
        out[:by] = values[-by:]
    return out


def ctc_alpha_beta(lp: np.ndarray, target: np.ndarray, blank: int):
    """``(log α, log β, log p)`` of one sample: ``lp`` ``(T, C)``, ``target`` ``(L,)``."""
    labels = _extended(target, blank)
    steps, size = lp.shape[0], len(labels)
    skip = _can_skip(labels, blank)
    emit = lp[:, labels]                                     # (T, S)
    log_alpha = np.full((steps, size), -np.inf)
    log_beta = np.full((steps, size), -np.inf)
    if steps == 0:
        return log_alpha, log_beta, (0.0 if len(target) == 0 else -np.inf)
    log_alpha[0, 0] = emit[0, 0]
    if size > 1:
        log_alpha[0, 1] = emit[0, 1]
    for t in range(1, steps):
        previous = log_alpha[t - 1]
        stay_or_step = np.logaddexp(previous, _shifted(previous, 1))
        jump = np.where(skip, _shifted(previous, 2), -np.inf)
        log_alpha[t] = np.logaddexp(stay_or_step, jump) + emit[t]
    log_beta[-1, -1] = emit[-1, -1]
    if size > 1:
        log_beta[-1, -2] = emit[-1, -2]
    skip_from = np.zeros(size, bool)                         # s may jump to s + 2
    skip_from[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        following = log_beta[t + 1]
        stay_or_step = np.logaddexp(following, _shifted(following, -1))
        jump = np.where(skip_from, _shifted(following, -2), -np.inf)
        log_beta[t] = np.logaddexp(stay_or_step, jump) + emit[t]
    ends = log_alpha[-1, -1] if size == 1 else np.logaddexp(log_alpha[-1, -1],
                                                            log_alpha[-1, -2])
    return log_alpha, log_beta, ends


class CtcLossBackward0(Op):
    """``-log p(target | log_probs)`` per sample, by the forward-backward algorithm."""

    formula = ("ℓ = -log Σ_alignments Π_t y_t(π_t)    PyTorch's gradient in log y_t(k): "
               "y_t(k) − Σ_{s: l'_s = k} α_t(s)·β_t(s) / (y_t(k)·p)")

    # grad_fn._saved_...: the arguments, and the losses (result0); PyTorch's result1, the
    # log α table its kernel leaves partly unwritten, is not shown
    saved_names = ("log_probs", "targets", "result0")
    saved_attributes = {
        "input_lengths": lambda node: tuple(int(n) for n in node.lengths[0]),
        "target_lengths": lambda node: tuple(int(n) for n in node.lengths[1]),
        "blank": "blank", "zero_infinity": "zero_infinity",
    }

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity,
                given=None):
        """``log_probs`` ``(T, N, C)``; ``targets``: one array of labels per sample;
        ``given``: the targets array as given, saved (as PyTorch saves it) for its version
        check at backward (see ops.index.saving_indices)."""
        steps, batch, classes = log_probs.shape
        lp = log_probs.astype(np.float64)
        losses = np.zeros(batch)
        grads = np.zeros((steps, batch, classes))
        with np.errstate(divide="ignore", invalid="ignore"):
            for n in range(batch):
                length = input_lengths[n]
                sample = lp[:length, n]
                labels = _extended(targets[n], blank)
                log_alpha, log_beta, log_p = ctc_alpha_beta(sample, targets[n], blank)
                losses[n] = -log_p
                if not np.isfinite(log_p):
                    # No alignment spells the target: the loss is inf, its gradient
                    # undefined (nan, as PyTorch's; zero_infinity zeroes both).
                    grads[:length, n] = np.nan
                    continue
                # Σ over the positions holding each class of α·β, divided by y_t(k)·p.
                both = log_alpha + log_beta                       # (T, S)
                per_class = np.full((length, classes), -np.inf)
                for s, k in enumerate(labels):
                    per_class[:, k] = np.logaddexp(per_class[:, k], both[:, s])
                # PyTorch's ctc_loss_backward: exp(log y) − α·β/(y·p). The first term is
                # not the loss's derivative in log y: it is what log_softmax's backward
                # removes again, so the logits' gradient is the true one either way, and a
                # leaf log_probs gets PyTorch's gradient.
                grads[:length, n] = np.exp(sample) - np.exp(per_class - sample - log_p)
        if zero_infinity:  # the losses themselves are zeroed after this node (a where)
            grads[:, np.isinf(losses)] = 0.0
        ctx.grads = grads.astype(log_probs.dtype)
        out = losses.astype(log_probs.dtype)
        ctx.lengths, ctx.blank = (input_lengths, target_lengths), blank
        ctx.zero_infinity = zero_infinity
        ctx.save_for_backward(log_probs, given, out)  # (as PyTorch: the output too)
        return out

    @staticmethod
    def backward(ctx, grad):
        log_probs = ctx.saved_tensors[0]
        if isinstance(grad, Tensor):  # create_graph: the gradient is only numbers here
            values = ctx.grads * grad.detach().numpy()[None, :, None]
            return NotImplementedBackward.apply(
                grad, log_probs, values=values, derivative="_ctc_loss_backward",
                hint="ctc_loss has gradients of the first order only.")
        return ctx.grads * grad[None, :, None]


def _lengths(value, name: str) -> np.ndarray:
    if isinstance(value, Tensor):
        if value._data.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return value._data.reshape(-1).astype(np.int64)
    return np.asarray(value, np.int64).reshape(-1)


# torch.ctc_loss's two forms, as its argument parser prints them.
_SIGNATURES = Signatures(
    "ctc_loss",
    "(Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
    "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity "
    "= False)",
    "(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)",
)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of ``log_probs`` ``(T, N, C)`` (log-softmax outputs; ``(T, C)`` for one
    sample) against ``targets``: ``(N, S)`` padded label rows, or all the labels in one
    1-d tensor; ``input_lengths`` and ``target_lengths`` give each sample's lengths.

    ``reduction='mean'`` divides each loss by its target length, then averages;
    ``zero_infinity=True`` turns impossible samples' ``inf`` losses (and their
    gradients) into zeros.

    Note: as PyTorch's, the gradient reaching ``log_probs`` is the loss's derivative plus
    ``exp(log_probs)·grad``, a term that ``log_softmax``'s backward removes: the logits'
    gradient is the true one, and a leaf ``log_probs`` gets what PyTorch gives it.
    """
    from .functional import _check_reduction

    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_reduction(reduction)
    if not is_int(blank) or type(zero_infinity) is not bool:
        # (PyTorch's Python passes them to its binding with the reduction as a number)
        _SIGNATURES.check((log_probs, targets, input_lengths, target_lengths, blank,
                           ("none", "mean", "sum").index(reduction), zero_infinity))
    blank = int(blank)
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    steps, batch, classes = lp.shape
    in_lengths = _lengths(input_lengths, "input_lengths")
    tg_lengths = _lengths(target_lengths, "target_lengths")
    if len(in_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tg_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    # One sample's 1-d targets stay 1-d, as PyTorch: its labels one after the other, whose
    # count must equal the target length.
    labels = targets._data.astype(np.int64)
    context = "(while checking arguments for ctc_loss_allocate_outputs)"
    rows = []
    if labels.ndim == 1:  # all the targets one after the other
        if len(labels) != tg_lengths.sum():
            raise RuntimeError(
                f"Expected tensor to have size {tg_lengths.sum()} at dimension 0, but got "
                f"size {len(labels)} for argument #2 'targets' {context}")
        rows = np.split(labels, np.cumsum(tg_lengths)[:-1])
    else:
        longest = int(tg_lengths.max()) if len(tg_lengths) else 0
        if labels.shape[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                f"{labels.shape[1]} for argument #2 'targets' {context}")
        rows = [labels[n, :tg_lengths[n]] for n in range(batch)]
    for n in range(batch):
        if in_lengths[n] > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {in_lengths[n]} {context}")
        if len(rows[n]) and (rows[n].min() < 0 or rows[n].max() >= classes):
            raise RuntimeError(
                "ctc_loss: a target label is outside the classes"
                f"\nHint: labels must be in [0, {classes - 1}] (and differ from blank={blank}).")
    losses = CtcLossBackward0.apply(lp, targets=rows, input_lengths=in_lengths,
                                    target_lengths=tg_lengths, blank=blank,
                                    zero_infinity=zero_infinity, given=targets._data)
    saving_indices(losses, (None, targets))  # (backward refuses targets changed since)
    if zero_infinity:  # as PyTorch: where(loss == inf, 0, loss), after the loss node
        losses = where(_make(np.isinf(losses._data)), _make(np.zeros((), losses._data.dtype)),
                       losses)
    if unbatched:
        losses = losses.squeeze(0)
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        divisor = _make(np.maximum(tg_lengths, 1).astype(losses._data.dtype))
        return (losses / (divisor.squeeze(0) if unbatched else divisor)).mean()
    return losses


__all__ = ["CtcLossBackward0", "ctc_alpha_beta", "ctc_loss"]
