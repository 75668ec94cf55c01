"""teachgrad's tensors and the real PyTorch's in one program: a clear error either way.

A learner with PyTorch installed who writes ``import teachgrad as torch`` and then copies
``import torch.nn as nn`` from a tutorial gets the real PyTorch's ``nn``. Before, both
libraries then said "must be Tensor, not Tensor". Now teachgrad names the foreign type
``torch.Tensor`` and adds a hint, and the real PyTorch, given a teachgrad tensor, asks
teachgrad (``__torch_function__``), which refuses with the same hint.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad
from teachgrad._real_pytorch import MIXING_HINT, is_real_pytorch, real_pytorch_hint


class _TorchLikeTensor:
    """Stands in for ``torch.Tensor`` where PyTorch is not installed: only its module
    (``torch``) matters to the check under test."""

    __module__ = "torch"


class _TorchLikeParameter(_TorchLikeTensor):
    __module__ = "torch.nn.parameter"


def test_the_check_looks_at_the_module_of_the_type():
    assert is_real_pytorch(_TorchLikeTensor())
    assert is_real_pytorch(_TorchLikeParameter())
    assert not is_real_pytorch(teachgrad.ones(2))  # (teachgrad.* even under install_as_torch)
    assert not is_real_pytorch(np.ones(2))
    assert not is_real_pytorch([1.0])
    assert not is_real_pytorch(teachgrad.float32)  # teachgrad's dtype is not PyTorch's


def test_the_hint_is_there_only_for_real_pytorch_objects():
    assert real_pytorch_hint(np.ones(2), 3.0) == ""
    assert real_pytorch_hint(np.ones(2), _TorchLikeTensor()) == MIXING_HINT
    assert real_pytorch_hint([teachgrad.ones(1), _TorchLikeTensor()]) == MIXING_HINT
    assert MIXING_HINT.startswith("\nHint: ")
    assert "install_as_torch()" in MIXING_HINT


@pytest.mark.parametrize("call", [
    lambda t: teachgrad.ones(2) + t,
    lambda t: teachgrad.exp(t),
    lambda t: teachgrad.matmul(teachgrad.ones(2, 2), t),
    lambda t: teachgrad.cat([teachgrad.ones(2), t]),
    lambda t: teachgrad.nn.functional.mse_loss(teachgrad.ones(2), t),
    lambda t: teachgrad.nn.Linear(2, 1)(t),
    lambda t: teachgrad.nn.Parameter(t),
    lambda t: teachgrad.optim.SGD([t], lr=0.1),
    lambda t: teachgrad.ones(2, requires_grad=True).exp().backward(t),
], ids=["add", "exp", "matmul", "cat", "mse_loss", "Linear", "Parameter", "SGD", "backward"])
def test_teachgrad_given_a_torch_like_tensor_names_it_and_hints(call):
    with pytest.raises(TypeError) as caught:
        call(_TorchLikeTensor())
    message = str(caught.value)
    assert "torch._TorchLikeTensor" in message  # the type, with its module, as PyTorch names it
    assert message.endswith(MIXING_HINT)


def test_a_number_still_gets_the_number_hint():
    with pytest.raises(TypeError, match=r"not float\nHint: wrap the number in a tensor"):
        teachgrad.atan2(teachgrad.ones(2), 2.0)


# --- with the real PyTorch ------------------------------------------------------------------

@pytest.fixture
def real_torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("call", [
    lambda torch, tg: tg + torch.ones(2),
    lambda torch, tg: torch.ones(2) + tg,          # torch's __add__ declines, ours answers
    lambda torch, tg: tg @ torch.ones(2),
    lambda torch, tg: torch.ones(2) @ tg,
    lambda torch, tg: teachgrad.nn.Linear(2, 1)(torch.ones(3, 2)),
    lambda torch, tg: teachgrad.stack([tg, torch.ones(2)]),
], ids=["tg+torch", "torch+tg", "tg@torch", "torch@tg", "tg Linear", "tg stack"])
def test_teachgrad_names_the_real_torch_tensor(real_torch, call):
    with pytest.raises(TypeError) as caught:
        call(real_torch, teachgrad.ones(2))
    message = str(caught.value)
    assert "torch.Tensor" in message
    assert "not Tensor\n" not in message and "got Tensor\n" not in message
    assert message.endswith(MIXING_HINT)


@pytest.mark.parametrize("call, name", [
    (lambda torch, tg: torch.exp(tg), "exp"),
    (lambda torch, tg: torch.nn.Linear(2, 1)(tg), "linear"),
    (lambda torch, tg: torch.stack([torch.ones(2), tg]), "stack"),
    (lambda torch, tg: torch.nn.functional.mse_loss(torch.ones(2), tg), "mse_loss"),
], ids=["exp", "Linear", "stack", "mse_loss"])
def test_the_real_pytorch_given_a_teachgrad_tensor_refuses_with_the_hint(real_torch, call, name):
    with pytest.raises(TypeError) as caught:
        call(real_torch, teachgrad.ones(3, 2))
    message = str(caught.value)
    assert message.startswith(f"{name}() of the real PyTorch got a teachgrad tensor")
    assert MIXING_HINT in message


def test_values_still_cross_through_numpy(real_torch):
    t = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    through_numpy = real_torch.from_numpy(t.detach().numpy())
    assert through_numpy.tolist() == [1.0, 2.0]
    back = teachgrad.tensor(real_torch.tensor([3.0, 4.0]).numpy())
    assert back.tolist() == [3.0, 4.0]


def test_under_install_as_torch_teachgrads_own_tensors_are_not_taken_for_pytorchs():
    # install_as_torch() makes teachgrad's Tensor say it lives in `torch` (so it prints as
    # PyTorch's); it must not then be refused as the real PyTorch's. A fresh interpreter:
    # install_as_torch() cannot be undone.
    import subprocess
    import sys

    program = """
import teachgrad
teachgrad.install_as_torch()
import torch
from teachgrad._real_pytorch import is_real_pytorch
x = torch.ones(2, requires_grad=True)
assert type(x).__module__ == "torch" and not is_real_pytorch(x)
torch.autograd.backward([x * 3], [torch.ones(2)])
print(x.grad.tolist())
try:
    torch.nn.Linear(2, 1)(object())
except TypeError as error:
    print("Hint: teachgrad's tensors and the real" in str(error))
"""
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[3.0,", "3.0]", "False"]
