"""``nn.Buffer``: assigning one to a module attribute registers a buffer (PyTorch ≥ 2.5)."""

from __future__ import annotations

import copy

import pytest

import teachgrad as tg
from teachgrad import nn


class Stats(nn.Module):
    def __init__(self, lib=tg):
        super().__init__()
        self.linear = lib.nn.Linear(2, 2)
        self.mean = lib.nn.Buffer(lib.zeros(2))
        self.scratch = lib.nn.Buffer(lib.ones(1), persistent=False)


def test_buffer_is_a_marked_plain_tensor():
    b = nn.Buffer(tg.ones(2))
    assert type(b) is tg.Tensor
    assert isinstance(b, nn.Buffer) and isinstance(b, tg.Tensor)
    assert b.persistent is True
    assert repr(b) == "tensor([1., 1.])"
    assert not isinstance(tg.ones(2), nn.Buffer)
    assert not hasattr(tg.ones(2), "persistent")
    assert not isinstance(b * 2, nn.Buffer)  # results of ops are ordinary tensors
    assert nn.Buffer(tg.ones(1), persistent=False).persistent is False
    assert nn.Buffer().shape == (0,)


def test_buffer_detaches_but_keeps_requires_grad():
    x = tg.ones(2, requires_grad=True) * 2
    b = nn.Buffer(x)
    assert b.requires_grad and b.is_leaf and b.grad_fn is None
    source = tg.zeros(2)
    shared = nn.Buffer(source)
    source.add_(1)
    assert shared.tolist() == [1.0, 1.0]  # same memory, as data.detach()


def test_buffer_rejects_non_tensors():
    with pytest.raises(AttributeError, match="'list' object has no attribute 'detach'"):
        nn.Buffer([1, 2])


def test_assigning_a_buffer_registers_it():
    m = Stats()
    assert [name for name, _ in m.named_buffers()] == ["mean", "scratch"]
    # A module saves its own parameters and buffers before its children's.
    assert list(m.state_dict()) == ["mean", "linear.weight", "linear.bias"]
    assert [name for name, _ in m.named_parameters()] == ["linear.weight", "linear.bias"]


def test_plain_tensor_replaces_a_buffer_and_keeps_its_persistence():
    m = Stats()
    m.mean = tg.ones(3)
    m.scratch = tg.zeros(1)
    assert list(m.state_dict()) == ["mean", "linear.weight", "linear.bias"]
    m.scratch = nn.Buffer(tg.zeros(1))  # a Buffer brings its own choice
    assert list(m.state_dict()) == ["mean", "scratch", "linear.weight", "linear.bias"]


def test_register_buffer_uses_its_own_persistent_argument():
    m = nn.Module()
    m.register_buffer("q", nn.Buffer(tg.ones(1), persistent=False))
    assert list(m.state_dict()) == ["q"]


def test_buffer_assignment_errors():
    m = nn.Module()
    m.x = 3
    with pytest.raises(KeyError, match="attribute 'x' already exists"):
        m.x = nn.Buffer(tg.ones(1))
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter"):
        lin.weight = nn.Buffer(tg.ones(1))


def test_module_to_converts_buffers_and_keeps_the_mark():
    m = Stats().double()
    assert m.mean.dtype == tg.float64
    m.to(tg.float32)
    assert m.mean.dtype == tg.float32 and isinstance(m.mean, nn.Buffer)


def test_load_state_dict_round_trip():
    m, other = Stats(), Stats()
    with tg.no_grad():
        m.mean.fill_(3.0)
    other.load_state_dict(m.state_dict())
    assert other.mean.tolist() == [3.0, 3.0]
    assert copy.deepcopy(m).mean.tolist() == [3.0, 3.0]


def test_uninitialized_buffer_is_a_buffer():
    assert isinstance(nn.UninitializedBuffer(), nn.Buffer)


@pytest.mark.torch
def test_against_torch():
    torch = pytest.importorskip("torch")

    class TorchStats(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(2, 2)
            self.mean = torch.nn.Buffer(torch.zeros(2))
            self.scratch = torch.nn.Buffer(torch.ones(1), persistent=False)

    ours, theirs = Stats(), TorchStats()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert repr(nn.Buffer(tg.ones(2))) == repr(torch.nn.Buffer(torch.ones(2)))
    ours.scratch, theirs.scratch = tg.zeros(1), torch.zeros(1)  # stays non-persistent
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.scratch, theirs.scratch = nn.Buffer(tg.zeros(1)), torch.nn.Buffer(torch.zeros(1))
    assert list(ours.state_dict()) == list(theirs.state_dict())


# ---------------------------------------------------------------------------------------
# A buffer's mark is a plain attribute, and tensors take attributes as PyTorch's do
# ---------------------------------------------------------------------------------------
def test_a_tensor_takes_attributes_of_its_own():
    x = tg.ones(2)
    x.frozen = True
    assert x.frozen is True
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'frozen'"):
        tg.ones(2).frozen  # noqa: B018 - the attribute belongs to x alone
    assert not hasattr(x * 2, "frozen")  # results of ops start bare


@pytest.mark.parametrize("persistent", [True, False])
def test_the_mark_survives_copies_pickles_and_save(persistent):
    import io
    import pickle

    b = nn.Buffer(tg.tensor([1.0, 2.0]), persistent=persistent)
    b.note = "kept"
    saved = io.BytesIO()
    tg.save(b, saved)
    saved.seek(0)
    for again in (copy.deepcopy(b), pickle.loads(pickle.dumps(b)), tg.load(saved)):
        assert isinstance(again, nn.Buffer) and again.persistent is persistent
        assert again.note == "kept" and again.tolist() == [1.0, 2.0]
        assert again is not b


def test_a_parameter_keeps_its_attributes_too():
    import pickle

    p = nn.Parameter(tg.ones(2))
    p.frozen = True
    again = pickle.loads(pickle.dumps(p))
    assert type(again) is nn.Parameter and again.frozen is True
    assert not hasattr(copy.deepcopy(p), "frozen")  # PyTorch 2.13's Parameter drops them


def test_deepcopy_copies_attribute_values():
    x = tg.ones(1)
    x.history = [1, 2]
    y = copy.deepcopy(x)
    y.history.append(3)
    assert x.history == [1, 2]


@pytest.mark.torch
def test_attributes_travel_as_in_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (tg, torch):
        b = lib.nn.Buffer(lib.ones(2), persistent=False)
        c = copy.deepcopy(b)
        assert isinstance(c, lib.nn.Buffer) and c.persistent is False
        x = lib.ones(1)
        x.tag = "mine"
        assert copy.deepcopy(x).tag == "mine"
