"""Function transforms (``torch.func``): derivatives and batching as functions of functions.

* :func:`grad`, :func:`grad_and_value`, :func:`vjp`, :func:`jacrev` — reverse mode
* :func:`jvp`, :func:`jacfwd` — forward mode (:mod:`teachgrad.autograd.forward_ad`)
* :func:`hessian` — ``jacfwd(jacrev(f))``
* :func:`vmap` — one function call per sample, stacked (see :mod:`._vmap`)
* :func:`functional_call` — a module as a function of its parameters;
  :func:`stack_module_state` — many models' parameters stacked, for ``vmap`` ensembles
* :func:`replace_all_batch_norm_modules_` — BatchNorm layers without running statistics,
  so that ``vmap`` can run them
* :func:`linearize` — a function's value and its JVP at a point, as a function
* :func:`functionalize` — runs the function as it is (PyTorch's removes mutations for its
  compilers; teachgrad has none, see :mod:`._functionalize`)

They compose: ``vmap(grad(f))`` gives per-sample gradients, ``grad(grad(f))`` a second
derivative.

>>> import teachgrad as torch
>>> from teachgrad.func import grad, vmap
>>> vmap(grad(lambda x: (x ** 2).sum()))(torch.tensor([[1., 2.], [3., 4.]]))
tensor([[2., 4.],
        [6., 8.]])
"""

from ._batch_norm import replace_all_batch_norm_modules_
from ._functional_call import functional_call, stack_module_state
from ._functionalize import functionalize
from ._linearize import linearize
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from ._vmap import vmap

__all__ = [
    "functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd",
    "jacrev", "jvp", "linearize", "replace_all_batch_norm_modules_", "stack_module_state",
    "vjp", "vmap",
]
