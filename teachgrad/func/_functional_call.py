"""``functional_call``: run a module with parameters and buffers you pass in.

A module keeps its parameters inside itself; the transforms of :mod:`teachgrad.func`
want functions of tensors. ``functional_call(model, params, x)`` bridges the two: it
puts the given tensors in place of the module's own for the length of one call, then
puts the originals back. So ``grad(lambda p: loss(functional_call(model, p, x)))(params)``
is the gradient with respect to a dict of parameters.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..ops.shape import stack


def functional_call(module, parameter_and_buffer_dicts: dict | tuple | list,
                    args: Any = None, kwargs: dict | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the named tensors in place of its own.

    Keys are the names of ``module.named_parameters()`` / ``named_buffers()``
    (``"0.weight"``); names not given keep the module's tensor. With ``tie_weights``
    (the default) a tensor registered under two names is replaced under both when one
    of them is given. ``strict=True`` requires every parameter and buffer to be given,
    and nothing else.

    >>> import teachgrad as torch
    >>> from teachgrad.func import functional_call
    >>> layer = torch.nn.Linear(2, 1)
    >>> params = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> functional_call(layer, params, (torch.tensor([1., 2.]),))
    tensor([3.])
    """
    replacements = _merged(parameter_and_buffer_dicts)
    if strict:
        _check_strict(module, replacements)
    if tie_weights:
        replacements = _with_tied_names(module, replacements)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    originals = {}
    try:
        for name, value in replacements.items():
            originals[name] = _swap(module, name, value)
        return module(*args, **(kwargs or {}))
    finally:
        for name, value in originals.items():
            _swap(module, name, value)


def _merged(dicts) -> dict:
    if isinstance(dicts, dict):
        return dict(dicts)
    merged: dict = {}
    for d in dicts:
        for key in d:
            if key in merged:
                raise ValueError(
                    f"{key} appeared in multiple dictionaries; behavior of functional call is "
                    "ambiguous"
                )
        merged.update(d)
    return merged


def _check_strict(module, replacements: dict) -> None:
    expected = [n for n, _ in module.named_parameters()] + [n for n, _ in module.named_buffers()]
    unexpected = [k for k in replacements if k not in expected]
    missing = [k for k in expected if k not in replacements]
    if unexpected or missing:
        lines = [f"Error(s) in reparametrizing for {module._get_name()}:"]
        if unexpected:
            lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
        if missing:
            lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
        raise RuntimeError("\n".join(lines))


def _with_tied_names(module, replacements: dict) -> dict:
    """Add the other names of a tensor registered under several names (tied weights)."""
    names_of: dict = {}
    for getter in (module.named_parameters, module.named_buffers):
        for name, tensor in getter(remove_duplicate=False):
            names_of.setdefault(id(tensor), []).append(name)
    result = dict(replacements)
    for names in names_of.values():
        given = [n for n in names if n in replacements]
        if given and len(names) > 1:
            values = {id(replacements[n]) for n in given}
            if len(values) > 1:
                raise ValueError(
                    f"functional_call got multiple values for keys {given}, which are tied. "
                    "Consider using tie_weights=False"
                )
            for n in names:
                result.setdefault(n, replacements[given[0]])
    return result


_MISSING = object()  # (what _swap returns for a name the module did not have)


def _swap(module, name: str, value: Any) -> Any:
    """Put ``value`` under the dotted ``name``; return what was there (``_MISSING`` if
    nothing: putting ``_MISSING`` back deletes the name again). As PyTorch's, a name the
    module lacks is added for the call (``forward`` may read it), and only tensors go in."""
    path, _, leaf = name.rpartition(".")
    owner = module.get_submodule(path)
    if value is not _MISSING and not isinstance(value, Tensor):
        raise TypeError(f"{value!r} is not an instance of torch.Tensor")
    for registry in (owner._parameters, owner._buffers):
        if leaf in registry:
            old = registry[leaf]
            if value is _MISSING:
                del registry[leaf]
            else:
                registry[leaf] = value  # (a plain Tensor is fine here: no Parameter check)
            return old
    old = owner.__dict__.get(leaf, _MISSING)
    if old is not _MISSING and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{leaf}`: {old!r} is not an instance of torch.Tensor")
    if value is _MISSING:
        del owner.__dict__[leaf]
    else:
        object.__setattr__(owner, leaf, value)
    return old


def stack_module_state(models) -> tuple[dict[str, Any], dict[str, Any]]:
    """Prepares a list of ``nn.Module`` s for ensembling with :func:`vmap`: two dicts,
    ``params`` and ``buffers``, holding each parameter (buffer) of the ``M`` models stacked
    along a new first dimension, by ``state_dict`` name.

    The stacked parameters are new leaves (they require grad if the models' did), unrelated
    to the models' own: pass them to an optimizer, and run the ensemble with
    ``vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), (0, 0, None))``.

    >>> import teachgrad as torch
    >>> from teachgrad.func import stack_module_state
    >>> params, buffers = stack_module_state([torch.nn.Linear(3, 2) for _ in range(5)])
    >>> {name: tuple(p.shape) for name, p in params.items()}
    {'weight': (5, 2, 3), 'bias': (5, 2)}
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode.")
    first_type = type(models[0])
    if not all(type(m) is first_type for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(model.named_parameters()) for model in models]
    params = {name: _stacked_leaf([p[name] for p in all_params], name) for name in all_params[0]}
    all_buffers = [dict(model.named_buffers()) for model in models]
    buffers = {name: _stacked_leaf([b[name] for b in all_buffers], name)
               for name in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    """``stack(tensors)`` as a new leaf, requiring grad if every tensor did."""
    all_require_grad = all(t.requires_grad for t in tensors)
    if not all_require_grad and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack([t.detach() for t in tensors])
    return result.requires_grad_() if all_require_grad else result

