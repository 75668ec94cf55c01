"""``requires_grad`` must be a bool, as PyTorch's argument parser insists.

``torch.tensor(x, requires_grad=1)`` is refused by PyTorch 2.13 (teachgrad used to take any
truthy value). The messages quoted are PyTorch's; the torch-marked test compares directly.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch

ONE = torch.ones(2)
FACTORIES = {
    "tensor": lambda flag: torch.tensor([1.0], requires_grad=flag),
    "scalar_tensor": lambda flag: torch.scalar_tensor(1.0, requires_grad=flag),
    "asarray": lambda flag: torch.asarray([1.0], requires_grad=flag),
    "zeros": lambda flag: torch.zeros(2, requires_grad=flag),
    "ones": lambda flag: torch.ones(2, requires_grad=flag),
    "empty": lambda flag: torch.empty(2, requires_grad=flag),
    "empty_strided": lambda flag: torch.empty_strided((2,), (1,), requires_grad=flag),
    "full": lambda flag: torch.full((2,), 1.0, requires_grad=flag),
    "zeros_like": lambda flag: torch.zeros_like(ONE, requires_grad=flag),
    "ones_like": lambda flag: torch.ones_like(ONE, requires_grad=flag),
    "empty_like": lambda flag: torch.empty_like(ONE, requires_grad=flag),
    "full_like": lambda flag: torch.full_like(ONE, 1.0, requires_grad=flag),
}


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("flag, shown", [(1, "int"), (0, "int"), (1.0, "float"),
                                         (np.bool_(True), "numpy.bool")])
def test_factories_refuse_a_flag_that_is_not_a_bool(name, flag, shown):
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'requires_grad' must be "
                                        rf"bool, not {shown}\n"):
        FACTORIES[name](flag)


@pytest.mark.parametrize("name", FACTORIES)
def test_factories_take_true_and_false(name):
    assert FACTORIES[name](True).requires_grad is True
    assert FACTORIES[name](False).requires_grad is False


@pytest.mark.parametrize("name", FACTORIES)
def test_none_means_false_except_for_tensor(name):
    # PyTorch 2.13: tensor() says "must be bool, not NoneType"; the others take None
    if name == "tensor":
        with pytest.raises(TypeError, match="must be bool, not NoneType"):
            FACTORIES[name](None)
    else:
        assert FACTORIES[name](None).requires_grad is False
    with pytest.raises(TypeError, match="must be bool, not Tensor"):
        FACTORIES[name](torch.tensor(True))


def test_the_attribute_and_requires_grad_():
    x = torch.ones(2)
    with pytest.raises(RuntimeError, match="^requires_grad must be a bool"):
        x.requires_grad = 1
    with pytest.raises(TypeError, match=r"^requires_grad_\(\): argument 'requires_grad' "
                                        r"\(position 1\) must be bool, not int"):
        x.requires_grad_(1)
    assert x.requires_grad is False  # nothing changed
    assert x.requires_grad_().requires_grad is True


@pytest.mark.torch
@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("flag", [1, None, 2.0, True])
def test_same_as_pytorch(name, flag):
    real = pytest.importorskip("torch")

    def run(lib):
        scope = {"torch": lib, "ONE": lib.ones(2), "np": np}
        call = {  # (FACTORIES' lambdas are bound to teachgrad: the same calls, as text)
            "tensor": "torch.tensor([1.0], requires_grad=flag)",
            "scalar_tensor": "torch.scalar_tensor(1.0, requires_grad=flag)",
            "asarray": "torch.asarray([1.0], requires_grad=flag)",
            "zeros": "torch.zeros(2, requires_grad=flag)",
            "ones": "torch.ones(2, requires_grad=flag)",
            "empty": "torch.empty(2, requires_grad=flag)",
            "empty_strided": "torch.empty_strided((2,), (1,), requires_grad=flag)",
            "full": "torch.full((2,), 1.0, requires_grad=flag)",
            "zeros_like": "torch.zeros_like(ONE, requires_grad=flag)",
            "ones_like": "torch.ones_like(ONE, requires_grad=flag)",
            "empty_like": "torch.empty_like(ONE, requires_grad=flag)",
            "full_like": "torch.full_like(ONE, 1.0, requires_grad=flag)",
        }[name]
        try:
            return eval(call, {**scope, "flag": flag}).requires_grad
        except TypeError as e:
            return str(e).split("\nHint:")[0]

    assert run(torch) == run(real)


# The factories PyTorch has several signatures of: its parser says no signature matched
# (the first line of its message, quoted from PyTorch 2.13; it then lists the signatures).
OVERLOADED = {
    "rand": (lambda flag: torch.rand(2, requires_grad=flag), "int"),
    "randn": (lambda flag: torch.randn(2, 3, requires_grad=flag), "int, int"),
    "randint": (lambda flag: torch.randint(3, (2,), requires_grad=flag), "int, tuple"),
    "randperm": (lambda flag: torch.randperm(3, requires_grad=flag), "int"),
    "arange": (lambda flag: torch.arange(3.0, requires_grad=flag), "float"),
    "linspace": (lambda flag: torch.linspace(0, 1, 3, requires_grad=flag), "int, int, int"),
    "logspace": (lambda flag: torch.logspace(0, 1, 3, requires_grad=flag), "int, int, int"),
    "eye": (lambda flag: torch.eye(2, requires_grad=flag), "int"),
    "rand_like": (lambda flag: torch.rand_like(ONE, requires_grad=flag), "Tensor"),
    "randn_like": (lambda flag: torch.randn_like(ONE, requires_grad=flag), "Tensor"),
    "randint_like": (lambda flag: torch.randint_like(ONE, 3, requires_grad=flag),
                     "Tensor, int"),
    "normal": (lambda flag: torch.normal(0.0, 1.0, (2,), requires_grad=flag),
               "float, float, tuple"),
}


@pytest.mark.parametrize("name", OVERLOADED)
@pytest.mark.parametrize("flag, shown", [(1, "int"), (np.bool_(True), "numpy.bool")])
def test_overloaded_factories_refuse_a_flag_that_is_not_a_bool(name, flag, shown):
    make, got = OVERLOADED[name]
    with pytest.raises(TypeError) as caught:
        make(flag)
    assert str(caught.value).startswith(
        f"{name}() received an invalid combination of arguments - got ({got}, "
        f"requires_grad={shown}), but expected one of:\n")


@pytest.mark.parametrize("name", OVERLOADED)
def test_overloaded_factories_take_true_false_and_none(name):
    make, _ = OVERLOADED[name]
    assert make(False).requires_grad is False
    assert make(None).requires_grad is False


def test_parameter_refuses_a_flag_that_is_not_a_bool():
    # PyTorch's message names the helper Parameter calls (_make_subclass) and its argument
    for flag, shown in [(0, "int"), (None, "NoneType")]:
        with pytest.raises(TypeError, match=r"^_make_subclass\(\): argument 'require_grad' "
                                            rf"\(position 3\) must be bool, not {shown}\n"):
            torch.nn.Parameter(torch.ones(2), requires_grad=flag)
    assert torch.nn.Parameter(torch.ones(2), requires_grad=False).requires_grad is False
