"""Automatic differentiation: the graph, the engine, grad modes and custom functions.

``teachgrad.autograd`` mirrors ``torch.autograd``: :func:`backward`, :func:`grad`,
:class:`Function`, :mod:`functional` (jacobian, hessian, vjp, jvp, hvp, vhp),
:func:`gradcheck` / :func:`gradgradcheck` and anomaly detection
(:class:`detect_anomaly`, :class:`set_detect_anomaly`).

``grad_mode`` and ``graph`` sit below the Tensor class (the Tensor imports them), while
``engine``, ``function`` and friends sit above it; so the latter are loaded on first use
(PEP 562 module ``__getattr__``) instead of here, which would be a circular import.
"""

import importlib

from . import grad_mode, graph
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

# name -> (module in this package, attribute of it or None for the module itself)
_LAZY = {
    "engine": ("engine", None),
    "function": ("function", None),
    "functional": ("functional", None),
    "forward_ad": ("forward_ad", None),
    "profiler": ("profiler", None),
    "Variable": ("variable", "Variable"),
    "anomaly_mode": ("anomaly_mode", None),
    "gradcheck_module": ("gradcheck", None),
    "backward": ("engine", "backward"),
    "grad": ("engine", "grad"),
    "Function": ("function", "Function"),
    "FunctionCtx": ("function", "FunctionCtx"),
    "once_differentiable": ("function", "once_differentiable"),
    "gradcheck": ("gradcheck", "gradcheck"),
    "gradgradcheck": ("gradcheck", "gradgradcheck"),
    "GradcheckError": ("gradcheck", "GradcheckError"),
    "detect_anomaly": ("anomaly_mode", "detect_anomaly"),
    "set_detect_anomaly": ("anomaly_mode", "set_detect_anomaly"),
    "is_anomaly_enabled": ("anomaly_mode", "is_anomaly_enabled"),
    "is_anomaly_check_nan_enabled": ("anomaly_mode", "is_anomaly_check_nan_enabled"),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'teachgrad.autograd' has no attribute '{name}'")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(f"{__name__}.{module_name}")
    # Importing a submodule binds its name in this package to the module. Where that name
    # is also a function we export (gradcheck.py defines gradcheck), put the function back,
    # or every later ``autograd.gradcheck(...)`` would call the module.
    shadowing = _LAZY.get(module_name)
    if shadowing and shadowing[1] is not None and globals().get(module_name) is module:
        globals()[module_name] = getattr(module, shadowing[1])
    return module if attribute is None else getattr(module, attribute)


def _bind_functions() -> None:
    """Bind ``gradcheck`` and ``gradgradcheck`` for good (teachgrad/__init__.py calls this
    once the Tensor exists).

    Their module has the same name as the function, and importing the submodule
    ``teachgrad.autograd.gradcheck`` sets the package attribute ``gradcheck`` to that
    module. Binding the functions after the module is loaded, as ``torch.autograd`` does,
    makes ``teachgrad.autograd.gradcheck(...)`` the function whatever was imported first.
    """
    global gradcheck, gradgradcheck
    from .gradcheck import gradcheck, gradgradcheck


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "backward", "grad", "Function", "functional", "forward_ad", "Variable", "gradcheck",
    "gradgradcheck",
    "detect_anomaly", "set_detect_anomaly",
    "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "grad_mode", "graph",
]
