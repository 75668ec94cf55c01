"""What the coin-flip distributions share: one success probability, given as ``probs`` or
as its log-odds ``logits``.

:class:`Bernoulli`, :class:`Binomial`, :class:`NegativeBinomial` and
:class:`LogitRelaxedBernoulli` are all parameterised by the chance ``p`` of one flip.
A user gives *either* ``probs = p`` *or* ``logits = log(p / (1 - p))``; the distribution
stores the one it was given and works out the other the first time it is read
(``lazy_property``), so a model that produces logits never takes a lossy ``log`` of a
rounded probability. ``_param`` is whichever was given: its shape is the batch shape.
"""

from __future__ import annotations

from teachgrad import Size, Tensor

from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__: list[str] = []


class _ProbsOrLogits:
    """Mixin for a distribution given by ``probs`` or ``logits`` of one binary event."""

    def _set_probs_or_logits(self, probs, logits, total_count=None) -> Size:
        """Store the one of ``probs`` / ``logits`` that was given and return the batch shape.

        With ``total_count`` (the binomials), the count is broadcast with the parameter
        and takes its dtype. A plain number becomes a 0-d tensor: batch shape ``()``.
        """
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (param,) = broadcast_all(given)
        else:
            total_count, param = broadcast_all(total_count, given)
            self.total_count = total_count.type_as(param)
        setattr(self, name, param)
        self._param = param
        return param.size()

    def _expand_probs_or_logits(self, cls, batch_shape, _instance,
                                names: tuple = ("probs", "logits")):
        """``expand`` for these distributions: the parameters that were set, expanded."""
        new = self._expand_parameters(cls, batch_shape, _instance, names)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()
