"""Run one expression with teachgrad and with PyTorch, and compare everything they give.

``same_as_torch(expr, *arrays)`` builds a tensor from each NumPy array in both libraries
(float arrays require grad), runs ``expr(lib, *tensors)`` and compares the result: each
output's values, dtype and shape, its ``grad_fn`` name, a named tuple's type and field
names; then, for the differentiable outputs, the gradients of every input for a random
upstream gradient. ``same_error(expr, *arrays)`` compares an error's type and PyTorch's
sentence (teachgrad may add a "Hint:" line after it).

PyTorch is only the oracle: the tests using this skip when it is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad


def _torch():
    return pytest.importorskip("torch")


def _tensors(lib, arrays, requires_grad: bool) -> list:
    out = []
    for a in arrays:
        if not isinstance(a, np.ndarray):
            out.append(a)
            continue
        t = lib.tensor(a.copy())
        if requires_grad and a.dtype.kind == "f":
            t.requires_grad_()
        out.append(t)
    return out


def _outputs(result) -> list:
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def _dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


def _numpy(t) -> np.ndarray:
    return t.detach().numpy()


def same_as_torch(expr, *arrays, rtol: float = 1e-12, atol: float = 1e-12,
                  grads: bool = True, grad_fn: bool = True, seed: int = 0):
    """Compare ``expr(teachgrad, ...)`` with ``expr(torch, ...)``; returns teachgrad's result."""
    torch = _torch()
    ours_in = _tensors(teachgrad, arrays, grads)
    theirs_in = _tensors(torch, arrays, grads)
    ours, theirs = expr(teachgrad, *ours_in), expr(torch, *theirs_in)
    if isinstance(theirs, (bool, int, float)):
        assert ours == theirs and type(ours) is type(theirs)
        return ours
    if type(theirs).__module__ == "torch.return_types":  # a named tuple: same name, fields
        assert type(ours).__module__ == "teachgrad.return_types"
        assert type(ours).__name__ == type(theirs).__name__
        assert len(type(ours)._fields) == type(theirs).n_fields
        for i, field in enumerate(type(ours)._fields):
            assert getattr(ours, field) is ours[i] and getattr(theirs, field) is theirs[i]
    else:
        assert type(ours) is type(theirs) or isinstance(theirs, torch.Tensor), type(ours)
    ours_out, theirs_out = _outputs(ours), _outputs(theirs)
    assert len(ours_out) == len(theirs_out)
    for o, t in zip(ours_out, theirs_out):
        assert isinstance(o, teachgrad.Tensor), type(o)
        assert tuple(o.shape) == tuple(t.shape), (tuple(o.shape), tuple(t.shape))
        assert _dtype_name(o) == _dtype_name(t), (o.dtype, t.dtype)
        np.testing.assert_allclose(_numpy(o).astype(np.float64), _numpy(t).astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
        if grad_fn:
            ours_name = None if o.grad_fn is None else o.grad_fn.name()
            theirs_name = None if t.grad_fn is None else t.grad_fn.name()
            assert ours_name == theirs_name, (ours_name, theirs_name)
        assert o.requires_grad == t.requires_grad
    if not grads:
        return ours
    rng = np.random.default_rng(seed)
    pairs = [(o, t) for o, t in zip(ours_out, theirs_out) if t.requires_grad]
    if not pairs:
        return ours
    ours_loss, theirs_loss = 0, 0
    for o, t in pairs:
        w = rng.uniform(-1, 1, tuple(t.shape))
        ours_loss = ours_loss + (o * teachgrad.tensor(w, dtype=o.dtype)).sum()
        theirs_loss = theirs_loss + (t * torch.tensor(w, dtype=t.dtype)).sum()
    ours_leaves = [x for x in ours_in if isinstance(x, teachgrad.Tensor) and x.requires_grad]
    theirs_leaves = [x for x in theirs_in if isinstance(x, torch.Tensor) and x.requires_grad]
    ours_loss.backward()
    theirs_loss.backward()
    for o, t in zip(ours_leaves, theirs_leaves):
        assert (o.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(o.grad.numpy().astype(np.float64),
                                       t.grad.numpy(force=True).astype(np.float64),
                                       rtol=max(rtol, 1e-10), atol=max(atol, 1e-10))
    return ours


def same_error(expr, *arrays) -> None:
    """``expr`` raises the same error type and sentence in both libraries."""
    torch = _torch()
    with pytest.raises(Exception) as theirs:
        expr(torch, *_tensors(torch, arrays, False))
    with pytest.raises(Exception) as ours:
        expr(teachgrad, *_tensors(teachgrad, arrays, False))
    assert type(ours.value).__name__ == type(theirs.value).__name__, (ours.value, theirs.value)
    mine = str(ours.value).split("\nHint: ")[0]
    theirs_text = str(theirs.value)
    if "received an invalid combination of arguments" in theirs_text:
        return  # PyTorch's listing of its C++ overloads: the type is what matters
    # PyTorch sometimes appends its own advice or C++ context after its sentence.
    assert theirs_text.startswith(mine) and mine, (mine, theirs_text)


def raises_as_torch(case) -> None:
    """``case(lib)`` raises PyTorch's exception type and exact sentence in teachgrad.

    ``torch.`` in PyTorch's message reads ``teachgrad.`` in ours; ours may add one
    ``Hint:`` line after it. Warnings raised on the way are ignored.
    """
    import warnings

    torch = _torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            case(torch)
        with pytest.raises(type(theirs.value)) as ours:
            case(teachgrad)
    expected = str(theirs.value).replace("torch.", "teachgrad.")
    assert str(ours.value).split("\nHint:")[0] == expected
