"""``functional_call`` with names the module lacks or values that are no tensors, as
PyTorch's: a name the module lacks is added for the call only (``forward`` may read it);
anything but a tensor is refused, and so is replacing an attribute that is no tensor.
The messages are PyTorch 2.13's, written out."""

from __future__ import annotations

import pytest

import teachgrad
from teachgrad.func import functional_call


class Scaled(teachgrad.nn.Module):
    """Reads an attribute it does not define: functional_call must supply it."""

    def forward(self, x):
        return x * self.scale


def test_a_name_the_module_lacks_is_there_for_the_call_only():
    module = Scaled()
    out = functional_call(module, {"scale": teachgrad.tensor(3.0)}, (teachgrad.ones(2),))
    assert out.tolist() == [3.0, 3.0]
    assert not hasattr(module, "scale")


def test_an_unused_extra_name_is_ignored():
    layer = teachgrad.nn.Linear(2, 1)
    params = {"weight": teachgrad.ones(1, 2), "bias": teachgrad.zeros(1),
              "weights": teachgrad.ones(1, 2)}  # (a typo: PyTorch ignores it too)
    out = functional_call(layer, params, (teachgrad.tensor([[1.0, 2.0]]),))
    assert out.tolist() == [[3.0]]
    assert not hasattr(layer, "weights")


@pytest.mark.parametrize(("given", "message"), [
    ({"weight": 3.0}, "3.0 is not an instance of torch.Tensor"),
    ({"nothere": 3.0}, "3.0 is not an instance of torch.Tensor"),
    ({"training": teachgrad.ones(1)}, "attribute `training`: True is not an instance of "
                                      "torch.Tensor"),
])
def test_what_is_no_tensor_is_refused_and_nothing_stays_swapped(given, message):
    layer = teachgrad.nn.Linear(2, 1)
    weight = layer.weight
    with pytest.raises(TypeError) as error:
        functional_call(layer, {"bias": teachgrad.zeros(1), **given}, (teachgrad.ones(1, 2),))
    assert str(error.value) == message
    assert layer.weight is weight and isinstance(layer.bias, teachgrad.nn.Parameter)
    assert layer.training is True


def test_pytorch_behaves_so():
    torch = pytest.importorskip("torch")
    from torch.func import functional_call as torch_call

    layer = torch.nn.Linear(2, 1)
    out = torch_call(layer, {"weight": torch.ones(1, 2), "bias": torch.zeros(1),
                             "weights": torch.ones(1, 2)}, (torch.tensor([[1.0, 2.0]]),))
    assert out.tolist() == [[3.0]] and not hasattr(layer, "weights")
    with pytest.raises(TypeError, match="^3.0 is not an instance of torch.Tensor$"):
        torch_call(layer, {"weight": 3.0}, (torch.ones(1, 2),))
    with pytest.raises(TypeError, match="^attribute `training`: True is not an instance"):
        torch_call(layer, {"training": torch.ones(1)}, (torch.ones(1, 2),))
