"""The chi-squared distribution: ``Gamma(df / 2, 1 / 2)``."""

from __future__ import annotations

from teachgrad import Tensor

from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi-squared distribution with ``df`` degrees of freedom (the sum of ``df`` squared
    standard normals).

    >>> import teachgrad as torch
    >>> Chi2(torch.tensor([3.0])).mean
    tensor([3.])
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        df = df if isinstance(df, Tensor) else float(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: tuple, _instance: Chi2 | None = None) -> Chi2:
        """This distribution with batch shape ``batch_shape`` (parameters expanded, no copy)."""
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self) -> Tensor:
        """The degrees of freedom: ``Chi2(df)`` is ``Gamma(df / 2, 1/2)``."""
        return self.concentration * 2
