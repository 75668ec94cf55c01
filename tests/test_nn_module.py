"""nn.Module, nn.Parameter and the containers: registration, walking the tree, modes,
state_dict, dtype conversion, hooks.

Printed text and PyTorch's error messages for these are checked in test_nn_cases.py.
"""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 3)
        self.out = nn.Linear(3, 1)
        self.scale = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        return self.scale * self.out(torch.tanh(self.hidden(x)))


# ----------------------------------------------------------------------------------------
# Parameter
# ----------------------------------------------------------------------------------------
def test_parameter_is_a_leaf_sharing_the_data():
    data = torch.tensor([1.0, 2.0])
    p = nn.Parameter(data)
    assert isinstance(p, torch.Tensor) and isinstance(p, nn.Parameter)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert not data.requires_grad  # the source tensor is not changed
    data.numpy()[0] = 5.0  # same memory, no copy
    assert p.detach().tolist() == [5.0, 2.0]
    data.add_(1)  # and the same version counter: in-place changes are seen
    assert p._version == data._version == 1


def test_results_computed_from_a_parameter_are_plain_tensors():
    p = nn.Parameter(torch.ones(2))
    for t in (p * 2, p.detach(), p.data, p.clone(), p.sum()):
        assert type(t) is torch.Tensor


def test_parameter_without_grad_and_default():
    assert not nn.Parameter(torch.ones(2), requires_grad=False).requires_grad
    empty = nn.Parameter()
    assert empty.shape == (0,) and empty.dtype == torch.float32 and empty.requires_grad


def test_parameter_gradient():
    p = nn.Parameter(torch.tensor([1.0, -2.0]))
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, -4.0]


def test_parameter_deepcopy_and_pickle_stay_parameters():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    p.grad = torch.tensor([0.5, 0.5])
    for clone in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(clone) is nn.Parameter and clone.requires_grad
        assert clone.detach().tolist() == [1.0, 2.0]
        clone.detach().numpy()[0] = 9.0  # an independent copy
        assert p.detach().tolist() == [1.0, 2.0]
    assert copy.deepcopy(p).grad.tolist() == [0.5, 0.5]


# ----------------------------------------------------------------------------------------
# Registration by attribute assignment
# ----------------------------------------------------------------------------------------
def test_attributes_are_filed_by_kind():
    net = TwoLayer()
    assert list(net._parameters) == ["scale"]
    assert list(net._modules) == ["hidden", "out"]
    net.note = torch.ones(1)  # a plain tensor is just an attribute, not learned
    assert "note" not in net._parameters and "note" not in net._buffers
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "hidden.weight", "hidden.bias", "out.weight", "out.bias"
    ]


def test_reassigning_and_deleting():
    net = TwoLayer()
    net.scale = None  # a registered parameter may become None: then it is skipped
    assert "scale" not in [n for n, _ in net.named_parameters()]
    net.scale = nn.Parameter(torch.tensor(3.0))
    assert net.scale.item() == 3.0
    net.out = nn.Identity()  # replacing a child
    assert isinstance(net.out, nn.Identity)
    del net.out
    assert "out" not in net._modules
    with pytest.raises(AttributeError):
        net.out  # noqa: B018 - the attribute must be gone


def test_a_parameter_replaces_a_plain_attribute_of_the_same_name():
    net = nn.Module()
    net.w = 3
    net.w = nn.Parameter(torch.ones(1))
    assert "w" in net._parameters and "w" not in net.__dict__


def test_shared_layers_are_listed_once():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(model.parameters())) == 2
    assert len(list(model.modules())) == 3  # the Sequential, the Linear (once), the ReLU
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_children_modules_and_recurse():
    net = TwoLayer()
    assert [type(m).__name__ for m in net.children()] == ["Linear", "Linear"]
    assert [type(m).__name__ for m in net.modules()] == ["TwoLayer", "Linear", "Linear"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in net.named_parameters(prefix="net")][0] == "net.scale"


def test_buffers_are_state_but_not_parameters():
    net = nn.Module()
    net.register_buffer("running", torch.zeros(2))
    net.register_buffer("scratch", torch.zeros(2), persistent=False)
    assert list(net.parameters()) == []
    assert [n for n, _ in net.named_buffers()] == ["running", "scratch"]
    assert list(net.state_dict()) == ["running"]
    net.running = torch.ones(2)  # reassigning keeps it a buffer
    assert net._buffers["running"].tolist() == [1.0, 1.0]


def test_get_submodule_and_parameter():
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 1)))
    assert model.get_submodule("1.1") is model[1][1]
    assert model.get_parameter("1.1.bias") is model[1][1].bias
    with pytest.raises(AttributeError, match="has no attribute `5`"):
        model.get_submodule("1.5")


def test_dir_lists_registered_names():
    names = dir(TwoLayer())
    assert {"hidden", "out", "scale", "forward"} <= set(names)


def test_apply_visits_children_first():
    seen = []
    model = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


# ----------------------------------------------------------------------------------------
# Forward, gradients, modes
# ----------------------------------------------------------------------------------------
def test_forward_and_parameter_gradients_by_hand():
    lin = nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[2.0, -1.0]]))
        lin.bias.fill_(0.5)
    x = torch.tensor([[1.0, 3.0], [2.0, 0.0]])
    y = lin(x)  # [2 - 3 + 0.5, 4 + 0.5]
    assert y.tolist() == [[-0.5], [4.5]]
    y.sum().backward()
    assert lin.weight.grad.tolist() == [[3.0, 3.0]]  # sum of the inputs
    assert lin.bias.grad.tolist() == [2.0]  # one per sample


def test_train_and_eval_reach_every_module():
    model = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.Dropout()))
    assert all(m.training for m in model.modules())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())


def test_zero_grad_to_none_or_to_zeros():
    net = TwoLayer()
    net(torch.ones(4, 2)).sum().backward()
    grads = [p.grad for p in net.parameters()]
    net.zero_grad(set_to_none=False)
    assert all(p.grad is g and not p.grad.numpy().any() for p, g in zip(net.parameters(), grads))
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_requires_grad_freezes_parameters():
    net = TwoLayer()
    net.hidden.requires_grad_(False)
    net(torch.ones(1, 2)).sum().backward()
    assert net.hidden.weight.grad is None and net.out.weight.grad is not None


def test_forward_hooks_see_and_may_replace_values():
    lin = nn.Linear(2, 2)
    seen = []
    handle = lin.register_forward_hook(lambda m, args, out: seen.append(out.shape))
    pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    out = lin(torch.ones(3, 2))
    assert seen == [(3, 2)]
    np.testing.assert_allclose(out.detach().numpy(), np.broadcast_to(lin.bias.detach(), (3, 2)))
    handle.remove()
    pre.remove()
    lin(torch.ones(1, 2))
    assert seen == [(3, 2)]


# ----------------------------------------------------------------------------------------
# state_dict
# ----------------------------------------------------------------------------------------
def test_state_dict_is_ordered_detached_and_shares_memory():
    net = TwoLayer()
    state = net.state_dict()
    assert isinstance(state, OrderedDict)
    assert list(state) == ["scale", "hidden.weight", "hidden.bias", "out.weight", "out.bias"]
    w = state["hidden.weight"]
    assert type(w) is torch.Tensor and not w.requires_grad
    with torch.no_grad():
        net.hidden.weight.fill_(7.0)
    assert (w == 7.0).all()
    kept = net.state_dict(keep_vars=True)
    assert kept["hidden.weight"] is net.hidden.weight


def test_load_state_dict_copies_values_into_the_same_parameters():
    source, target = TwoLayer(), TwoLayer()
    weight = target.hidden.weight
    result = target.load_state_dict(source.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert target.hidden.weight is weight  # copied in place: optimizers keep working
    for (_, a), (_, b) in zip(source.named_parameters(), target.named_parameters()):
        assert torch.equal(a.detach(), b.detach())
    # and the copy is independent of the source
    with torch.no_grad():
        source.scale.fill_(-1.0)
    assert target.scale.item() != -1.0


def test_failed_load_changes_nothing():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    before = [p.detach().clone() for p in model.parameters()]
    bad = {k: torch.zeros_like(v) for k, v in model.state_dict().items()}
    bad["1.weight"] = torch.zeros(2, 2)  # one mismatching shape
    with pytest.raises(RuntimeError, match="size mismatch for 1.weight"):
        model.load_state_dict(bad)
    assert all(torch.equal(a, b.detach()) for a, b in zip(before, model.parameters()))


def test_load_state_dict_non_strict_and_assign():
    lin = nn.Linear(2, 3)
    result = lin.load_state_dict({"bias": torch.ones(3), "extra": torch.ones(1)}, strict=False)
    assert result.missing_keys == ["weight"] and result.unexpected_keys == ["extra"]
    assert lin.bias.tolist() == [1.0, 1.0, 1.0]
    new_bias = torch.full((3,), 2.0)
    lin.load_state_dict({"weight": torch.ones(3, 2), "bias": new_bias}, assign=True)
    assert isinstance(lin.bias, nn.Parameter) and lin.bias.requires_grad
    new_bias.add_(1)  # assign=True takes the tensor itself, not a copy
    assert lin.bias.tolist() == [3.0, 3.0, 3.0]


# ----------------------------------------------------------------------------------------
# dtype conversion
# ----------------------------------------------------------------------------------------
def test_double_and_float_convert_in_place():
    net = TwoLayer()
    net(torch.ones(1, 2)).sum().backward()
    weight = net.hidden.weight
    assert net.double() is net
    assert net.hidden.weight is weight  # the same Parameter object, new dtype
    assert all(p.dtype == torch.float64 for p in net.parameters())
    assert all(p.grad.dtype == torch.float64 for p in net.parameters())
    assert net(torch.ones(1, 2, dtype=torch.float64)).dtype == torch.float64
    net.to(torch.float32)
    assert all(p.dtype == torch.float32 for p in net.parameters())
    net.float().cpu()
    assert net.to("cpu") is net


def test_half_converts_floating_parameters_and_buffers_to_float16():
    # the blitz-era idiom model.half(); PyTorch 2.13 keeps integer buffers and requires_grad
    net = nn.Linear(2, 2)
    net.register_buffer("count", torch.tensor(3))
    assert net.half() is net
    assert net.weight.dtype == torch.float16 and net.weight.requires_grad
    assert net.count.dtype == torch.int64
    assert net(torch.ones(1, 2, dtype=torch.float16)).dtype == torch.float16


def test_integer_buffers_are_not_converted():
    net = nn.Module()
    net.register_buffer("count", torch.tensor([1, 2]))
    net.double()
    assert net.count.dtype == torch.int64


# ----------------------------------------------------------------------------------------
# Containers
# ----------------------------------------------------------------------------------------
def test_sequential_chains_and_names():
    model = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in model.named_children()] == ["fc", "act"]
    assert model.fc is model[0]
    x = torch.randn(3, 2)
    assert torch.equal(model(x), torch.relu(model.fc(x)))
    assert [type(m).__name__ for m in model] == ["Linear", "ReLU"]


def test_sequential_editing():
    seq = nn.Sequential(nn.ReLU())
    seq.extend([nn.Tanh(), nn.Sigmoid()])
    seq.insert(1, nn.Identity())
    assert [type(m).__name__ for m in seq] == ["ReLU", "Identity", "Tanh", "Sigmoid"]
    assert type(seq.pop(0)).__name__ == "ReLU"
    seq[0] = nn.Flatten()
    assert list(seq._modules) == ["0", "1", "2"]
    assert type(seq[0]).__name__ == "Flatten"


def test_modulelist_is_seen_by_parameters():
    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    stack = Stack()
    assert len(list(stack.parameters())) == 6
    assert stack(torch.ones(2, 4)).shape == (2, 4)
    stack.layers += [nn.Linear(4, 2)]
    assert len(stack.layers) == 4 and stack(torch.ones(1, 4)).shape == (1, 2)
    tail = stack.layers[2:]
    assert list(tail._modules) == ["0", "1"] and tail[1] is stack.layers[3]
    del stack.layers[0]
    assert list(stack.layers._modules) == ["0", "1", "2"]


def test_moduledict():
    heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.Linear(2, 3)})
    assert list(heads) == ["a", "b"] and "b" in heads and len(heads) == 2
    assert [n for n, _ in heads.named_parameters()] == ["a.weight", "a.bias", "b.weight",
                                                       "b.bias"]
    heads["c"] = nn.ReLU()
    assert list(heads.keys()) == ["a", "b", "c"]
    assert heads.pop("a") is not None and list(heads) == ["b", "c"]


def test_only_the_cpu_exists():
    lin = nn.Linear(2, 2)
    assert lin.to("cpu") is lin and lin.to(device="cpu") is lin and lin.cpu() is lin
    for move in (lambda: lin.to("cuda"), lambda: lin.cuda(), lambda: lin.to(device="cuda:0"),
                 lambda: nn.Linear(2, 2, device="cuda")):
        with pytest.raises(RuntimeError, match="CPU only"):
            move()
