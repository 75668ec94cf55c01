"""Spectral normalisation (Miyato et al., 2018): divide a weight by its largest singular
value σ, so the layer can stretch no vector by more than a factor 1 (GAN discriminators
use it to stay smooth).

σ is estimated by *power iteration*: repeat ``v ← Wᵀu/‖Wᵀu‖, u ← Wv/‖Wv‖`` and
``σ ≈ uᵀWv``. One step per training call is enough, because ``u`` and ``v`` are kept
(as buffers) from one call to the next and W changes slowly.

This is the old API (a forward pre-hook; ``weight_orig``, ``weight_u``, ``weight_v``).
The new one is :func:`teachgrad.nn.utils.parametrizations.spectral_norm`.
"""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def _normalize(x: Tensor, eps: float) -> Tensor:
    from .. import functional as F

    return F.normalize(x, dim=0, eps=eps)


def reshape_weight_to_matrix(weight: Tensor, dim: int) -> Tensor:
    """The weight as a matrix whose rows follow dimension ``dim``."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.size(0), -1)


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        """``weight_orig / σ``, σ from ``u`` and ``v`` (refined by power iteration if asked)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = reshape_weight_to_matrix(weight, self.dim)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    # (in place: the buffers keep their identity, as PyTorch's out= does)
                    v.copy_(_normalize(weight_mat.t().mv(u), self.eps))
                    u.copy_(_normalize(weight_mat.mv(v), self.eps))
                u, v = u.clone(), v.clone()  # keep backward's saved values from changing
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Undo :meth:`apply`: the current normalised weight becomes a plain parameter again."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs) -> None:
        """The forward pre-hook: recompute ``module.<name>`` (iterating only in training)."""
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        """Split ``module.<name>`` into ``<name>_orig``, ``_u``, ``_v`` and register the hook."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            weight_mat = reshape_weight_to_matrix(weight, dim)
            h, w = weight_mat.shape
            u = _normalize(weight.new_empty(h).normal_(0, 1), eps)
            v = _normalize(weight.new_empty(w).normal_(0, 1), eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())  # a plain attribute, recomputed by the hook
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Module:
    """Divide parameter ``name`` by its spectral norm before every call (power iteration
    in training mode). ``dim``: 1 for transposed convolutions, else 0 (the output dim)."""
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d

        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`spectral_norm`: ``<name>`` is a plain parameter again (its normalised
    value)."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
