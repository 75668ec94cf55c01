"""``AdaptiveLogSoftmaxWithLoss``: a softmax over a huge vocabulary, computed in clusters.

Grave et al., `Efficient softmax approximation for GPUs <https://arxiv.org/abs/1609.04309>`__.
The classes are sorted by frequency (class 0 the most frequent) and split by ``cutoffs``:
the frequent ones form the *head*, a plain softmax that also has one entry per *tail
cluster*; a rare class's log-probability is

    log p(class) = log p_head(its cluster) + log p_cluster(class)

and each cluster first projects the input down to ``in_features / div_value^i`` features,
so rare classes cost less. Only the clusters that a batch's targets fall in are computed.

The code follows PyTorch's module line by line, so parameters, ``state_dict`` keys
(``head.weight``, ``tail.0.0.weight``, ``tail.0.1.weight`` ...) and results are the same.
"""

from __future__ import annotations

import itertools
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from ..._tensor import Tensor
from ...ops.reduce import argmax
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation (Grave et al.) for many, unevenly frequent classes.

    ``cutoffs = [10, 100]`` with ``n_classes = 1000`` puts classes 0-9 in the head, 10-99
    in the first tail cluster and 100-999 in the second. ``forward(input, target)`` returns
    the named tuple ``(output, loss)``: each example's target log-probability and the mean
    negative log-likelihood. ``log_prob(input)`` gives every class's log-probability,
    ``predict(input)`` the most probable class.

    Args: ``in_features``, ``n_classes``, ``cutoffs`` (increasing, unique, in
    ``[1, n_classes - 1]``), ``div_value=4.0`` (cluster ``i`` projects to
    ``in_features // div_value**i`` features), ``head_bias=False``.

    >>> import teachgrad as torch
    >>> asm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4])
    >>> [name for name, _ in asm.named_parameters()]
    ['head.weight', 'tail.0.0.weight', 'tail.0.1.weight']
    >>> out = asm(torch.randn(3, 8), torch.tensor([0, 5, 9]))
    >>> tuple(out.output.shape), out.loss.dim()
    ((3,), 0)
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        # The head: the shortlist's classes plus one "go to cluster i" entry per cluster.
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias,
                           **factory_kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(self.in_features // (self.div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(self.in_features, hidden, bias=False, **factory_kwargs),
                Linear(hidden, size, bias=False, **factory_kwargs),
            ))

    def reset_parameters(self) -> None:
        """Re-initialise every layer as ``__init__`` did."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """``(output, loss)``: each target's log-probability (``(N)``, or ``()`` for one
        unbatched example) and the mean negative log-likelihood."""
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)

        used_rows = 0
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        # Which head entry each example reads: its own class, or its cluster's entry.
        gather_inds = target.new_empty(batch_size)
        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx, high_idx = cutoff_values[i], cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze()
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                # The cluster's own softmax, computed for its examples only.
                relative_target = target[target_mask] - low_idx
                input_subset = input.index_select(0, row_indices)
                cluster_output = self.tail[i - 1](input_subset)
                cluster_index = self.shortlist_size + i - 1
                gather_inds.index_fill_(0, row_indices, cluster_index)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()

        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """Every class's log-probability from the input and the head's output."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start_idx, stop_idx) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start_idx:stop_idx] = (
                cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class: ``(N, in_features)`` → ``(N, n_classes)``."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each example (``log_prob(input).argmax(1)``, computing
        the tail clusters only for the examples whose head does not settle it)."""
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not not_in_shortlist.any():
            return output
        if not_in_shortlist.all():
            return argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist],
                                           head_output[not_in_shortlist])
        output[not_in_shortlist] = argmax(log_prob, dim=1)
        return output


__all__ = ["AdaptiveLogSoftmaxWithLoss"]
