"""What :class:`Normal`, :class:`Laplace` and :class:`Cauchy` share: they are
*location-scale families* on the real line.

Each is the law of ``loc + scale · Z`` for one fixed standard variable ``Z`` (standard
normal, standard Laplace, standard Cauchy). So each is made from the same two parameters
(a real ``loc``, a positive ``scale``, broadcast together), lives on the whole real line,
can be sampled with the reparameterisation trick (``rsample``: gradients reach ``loc`` and
``scale`` through ``loc + scale · z``), and, since each ``Z`` is symmetric with its single
peak at 0, has its mode at ``loc``. What differs is ``Z`` itself: density, CDF, moments and
entropy stay in each class.
"""

from __future__ import annotations

from teachgrad import Tensor

from . import constraints
from .utils import broadcast_all

__all__: list[str] = []


class _LocScale:
    """Mixin for ``loc + scale · Z`` with a symmetric, single-peaked standard ``Z``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        # Two plain numbers broadcast to 0-d tensors: a batch shape of ().
        super().__init__(self.loc.size(), validate_args=validate_args)

    @property
    def mode(self) -> Tensor:
        return self.loc
