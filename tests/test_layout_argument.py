"""layout= on the creation functions: PyTorch 2.13 accepts layout=torch.strided (and None)
everywhere it makes a tensor; teachgrad's tensors are all strided, so that is all it takes."""

from __future__ import annotations

import pytest

import teachgrad

_x = teachgrad.ones(2)

# Each makes a tensor with the given layout= (PyTorch 2.13 accepts it in all of these).
_MAKERS = {
    "zeros": lambda t, lay: t.zeros(2, layout=lay),
    "ones": lambda t, lay: t.ones(2, layout=lay),
    "empty": lambda t, lay: t.empty(2, layout=lay),
    "full": lambda t, lay: t.full((2,), 1.0, layout=lay),
    "arange": lambda t, lay: t.arange(3, layout=lay),
    "range": lambda t, lay: t.range(0, 2, layout=lay),
    "linspace": lambda t, lay: t.linspace(0, 1, 3, layout=lay),
    "logspace": lambda t, lay: t.logspace(0, 1, 3, layout=lay),
    "eye": lambda t, lay: t.eye(2, layout=lay),
    "zeros_like": lambda t, lay: t.zeros_like(t.ones(2), layout=lay),
    "ones_like": lambda t, lay: t.ones_like(t.ones(2), layout=lay),
    "empty_like": lambda t, lay: t.empty_like(t.ones(2), layout=lay),
    "full_like": lambda t, lay: t.full_like(t.ones(2), 3.0, layout=lay),
    "rand": lambda t, lay: t.rand(2, layout=lay),
    "randn": lambda t, lay: t.randn(2, layout=lay),
    "randint": lambda t, lay: t.randint(3, (2,), layout=lay),
    "randperm": lambda t, lay: t.randperm(3, layout=lay),
    "rand_like": lambda t, lay: t.rand_like(t.ones(2), layout=lay),
    "randn_like": lambda t, lay: t.randn_like(t.ones(2), layout=lay),
    "randint_like": lambda t, lay: t.randint_like(t.ones(2), 3, layout=lay),
    "hann_window": lambda t, lay: t.hann_window(4, layout=lay),
    "hamming_window": lambda t, lay: t.hamming_window(4, layout=lay),
    "blackman_window": lambda t, lay: t.blackman_window(4, layout=lay),
    "bartlett_window": lambda t, lay: t.bartlett_window(4, layout=lay),
    "kaiser_window": lambda t, lay: t.kaiser_window(4, layout=lay),
    "tril_indices": lambda t, lay: t.tril_indices(2, 2, layout=lay),
    "triu_indices": lambda t, lay: t.triu_indices(2, 2, layout=lay),
    "scalar_tensor": lambda t, lay: t.scalar_tensor(1.0, layout=lay),
    "empty_strided": lambda t, lay: t.empty_strided((2,), (1,), layout=lay),
    "new_zeros": lambda t, lay: t.ones(2).new_zeros(2, layout=lay),
    "new_ones": lambda t, lay: t.ones(2).new_ones(2, layout=lay),
    "new_full": lambda t, lay: t.ones(2).new_full((2,), 1.0, layout=lay),
    "new_empty": lambda t, lay: t.ones(2).new_empty(2, layout=lay),
}


@pytest.mark.parametrize("name", sorted(_MAKERS))
def test_strided_layout_is_accepted(name):
    for lay in (teachgrad.strided, None):
        assert _MAKERS[name](teachgrad, lay).layout is teachgrad.strided


@pytest.mark.parametrize("name", sorted(_MAKERS))
def test_a_layout_argument_that_is_not_a_layout_gets_pytorchs_type_error(name):
    with pytest.raises(TypeError, match=f"^{name}\\(\\): argument 'layout' must be "
                                        "torch.layout, not str$"):
        _MAKERS[name](teachgrad, "strided")


def test_sparse_layouts_are_named_but_refused():
    # PyTorch would make a sparse tensor; teachgrad has dense ones only and says so.
    assert teachgrad.ones(2).layout != teachgrad.sparse_coo
    with pytest.raises(RuntimeError, match="dense tensors only .*layout=torch.sparse_coo$"):
        teachgrad.zeros(2, layout=teachgrad.sparse_coo)


# PyTorch has several signatures for these, so its message for a wrong argument type is
# "received an invalid combination of arguments" listing them all; teachgrad says the
# one-signature sentence for every function.
_OVERLOADED = {
    "arange", "bartlett_window", "blackman_window", "eye", "hamming_window", "hann_window",
    "kaiser_window", "linspace", "logspace", "rand", "rand_like", "randint", "randint_like",
    "randn", "randn_like", "randperm",
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(_MAKERS))
def test_layout_argument_as_pytorch(name):
    real = pytest.importorskip("torch")
    assert _MAKERS[name](real, real.strided).layout is real.strided
    if name in _OVERLOADED:
        return
    with pytest.raises(TypeError) as real_error:
        _MAKERS[name](real, "strided")
    with pytest.raises(TypeError) as our_error:
        _MAKERS[name](teachgrad, "strided")
    assert str(our_error.value) == str(real_error.value).split("\n")[0]
