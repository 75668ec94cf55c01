"""Module.get_buffer / set_submodule, extra state in state_dict, Module.type, Module.to's
argument forms and state_dict's positional arguments: PyTorch's behaviour and messages
(written out here; the last test also runs the same calls with PyTorch when installed).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn


def model(lib=torch):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))


# ----------------------------------------------------------------------------------------
# get_buffer, set_submodule
# ----------------------------------------------------------------------------------------
def test_get_buffer_returns_the_buffer_itself():
    m = model()
    assert m.get_buffer("1.running_mean") is m[1].running_mean
    assert m.get_buffer("1.num_batches_tracked").item() == 0


@pytest.mark.parametrize("target, message", [
    ("", "Sequential has no attribute ``"),
    ("0", "`0` is not a buffer"),
    ("x", "Sequential has no attribute `x`"),
    ("0.x", "Linear has no attribute `x`"),
    ("0.weight", "`weight` is not a buffer"),
    ("0.weight.x", "`weight` is not an nn.Module"),
])
def test_get_buffer_errors_are_pytorchs(target, message):
    with pytest.raises(AttributeError) as info:
        model().get_buffer(target)
    assert str(info.value) == message


def test_a_non_persistent_buffer_is_a_buffer_too():
    m = nn.Module()
    m.register_buffer("scratch", torch.ones(2), persistent=False)
    assert m.get_buffer("scratch") is m.scratch


def test_set_submodule_replaces_or_adds_a_child():
    m = model()
    m.set_submodule("0", nn.Tanh())
    assert isinstance(m[0], nn.Tanh)
    m.set_submodule("extra", nn.ReLU())  # a new child of an existing parent
    assert [name for name, _ in m.named_children()] == ["0", "1", "extra"]
    inner = nn.Sequential(nn.Sequential(nn.Linear(1, 1)))
    inner.set_submodule("0.0", nn.Identity(), strict=True)
    assert isinstance(inner[0][0], nn.Identity)


@pytest.mark.parametrize("target, module, strict, error, message", [
    ("", nn.Tanh(), False, ValueError, "Cannot set the submodule without a target name!"),
    ("0", 3, False, ValueError, "`module` is not an nn.Module, found <class 'int'>"),
    ("5", nn.Tanh(), True, AttributeError, "Sequential has no attribute `5`"),
    ("0.weight", nn.Tanh(), False, AttributeError, "`weight` is not an nn.Module"),
    ("7.x", nn.Tanh(), False, AttributeError, "Sequential has no attribute `7`"),
])
def test_set_submodule_errors_are_pytorchs_and_change_nothing(target, module, strict, error,
                                                               message):
    m = model()
    before = repr(m)
    with pytest.raises(error) as info:
        m.set_submodule(target, module, strict=strict)
    assert str(info.value) == message
    assert repr(m) == before


# ----------------------------------------------------------------------------------------
# Extra state
# ----------------------------------------------------------------------------------------
class Counter(nn.Module):
    """A module with state that is not a tensor: how many batches it saw."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(1, 1)
        self.seen = {"batches": 1}

    def get_extra_state(self):
        return self.seen

    def set_extra_state(self, state):
        self.seen = state


def test_extra_state_is_saved_first_under_its_key():
    sd = Counter().state_dict()
    assert list(sd) == ["_extra_state", "linear.weight", "linear.bias"]
    assert sd["_extra_state"] == {"batches": 1}
    assert list(nn.Sequential(Counter()).state_dict())[0] == "0._extra_state"


def test_extra_state_is_loaded_and_required():
    source = Counter()
    source.seen = {"batches": 7}
    target = Counter()
    assert str(target.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert target.seen == {"batches": 7}
    without = {k: v for k, v in source.state_dict().items() if k != "_extra_state"}
    with pytest.raises(RuntimeError) as info:
        Counter().load_state_dict(without)
    assert str(info.value) == ('Error(s) in loading state_dict for Counter:\n\t'
                               'Missing key(s) in state_dict: "_extra_state". ')
    # (strict=False reports it, as PyTorch does, without raising)
    assert Counter().load_state_dict(without, strict=False).missing_keys == ["_extra_state"]


def test_extra_state_for_a_module_without_set_extra_state_is_unexpected():
    sd = dict(nn.Linear(1, 1).state_dict(), _extra_state=1)
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "_extra_state"'):
        nn.Linear(1, 1).load_state_dict(sd)
    assert nn.Linear(1, 1).load_state_dict(sd, strict=False).unexpected_keys == ["_extra_state"]


def test_set_extra_state_alone_loads_and_saves_nothing():
    class OnlySet(nn.Module):
        def set_extra_state(self, state):
            self.got = state

    m = OnlySet()
    m.load_state_dict({"_extra_state": 5})
    assert m.got == 5
    assert list(m.state_dict()) == []


def test_a_failed_load_gives_the_extra_state_back():
    m = Counter()
    sd = Counter().state_dict()
    sd["_extra_state"] = {"batches": 99}
    sd["linear.weight"] = torch.ones(2, 2)  # wrong shape: the load fails after set_extra_state
    with pytest.raises(RuntimeError, match="size mismatch for linear.weight"):
        m.load_state_dict(sd)
    assert m.seen == {"batches": 1}


def test_base_extra_state_methods_are_pytorchs_should_never_be_called_errors():
    with pytest.raises(RuntimeError, match=r"Module.get_extra_state\(\) that should never"):
        nn.Module().get_extra_state()
    with pytest.raises(RuntimeError, match=r"Module.set_extra_state\(\) that should never"):
        nn.Module().set_extra_state(1)


# ----------------------------------------------------------------------------------------
# type, share_memory, state_dict by position
# ----------------------------------------------------------------------------------------
def test_type_converts_every_tensor_integer_buffers_too():
    m = model().type(torch.float64)
    assert {v.dtype for v in m.state_dict().values()} == {torch.float64}
    m = model().type("torch.DoubleTensor")
    assert m[1].num_batches_tracked.dtype == torch.float64
    assert m[0].weight.requires_grad and isinstance(m[0].weight, nn.Parameter)


def test_type_to_an_integer_dtype_is_refused_before_anything_changes():
    m = model()
    with pytest.raises(RuntimeError) as info:
        m.type(torch.int64)
    assert str(info.value) == ("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
    assert {v.dtype for k, v in m.state_dict().items() if "num_batches" not in k} == {
        torch.float32}
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        m.type("foo")


def test_share_memory_returns_the_module():
    m = model()
    assert m.share_memory() is m


def test_state_dict_by_position_warns_and_works():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sd = model().state_dict(None, "p.", True)
    assert caught[0].category is FutureWarning
    assert "Positional args are being deprecated" in str(caught[0].message)
    assert caught[0].filename == __file__
    assert list(sd)[0] == "p.0.weight"
    assert isinstance(sd["p.0.weight"], nn.Parameter)  # keep_vars=True


def test_to_empty_keeps_the_objects_and_shapes_with_new_memory():
    m = model()
    weight = m[0].weight
    before = weight.detach().numpy()
    assert m.to_empty(device="cpu") is m
    assert m[0].weight is weight and isinstance(weight, nn.Parameter) and weight.requires_grad
    assert weight.shape == (3, 2) and m[1].num_batches_tracked.dtype == torch.int64
    assert not np.shares_memory(weight.detach().numpy(), before)
    with pytest.raises(TypeError):
        m.to_empty("cpu")  # (device is keyword-only, as in PyTorch)


def test_to_empty_without_recurse_leaves_the_children():
    m = model()
    child = m[0].weight.detach().numpy()
    m.register_buffer("own", torch.ones(2))
    own = m.own.numpy()
    m.to_empty(device="cpu", recurse=False)
    assert np.shares_memory(m[0].weight.detach().numpy(), child)
    assert not np.shares_memory(m.own.numpy(), own)


def test_call_super_init_passes_the_arguments_to_a_mixin():
    class Named:
        def __init__(self, name="none"):
            self.name = name

    class Layer(nn.Module, Named):
        call_super_init = True

    assert Layer(name="a").name == "a" and Layer("b").name == "b"
    assert Layer().training and list(Layer().parameters()) == []
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'name'"):
        nn.Module(name="a")
    assert nn.Module.call_super_init is False and nn.Module.dump_patches is False


# ----------------------------------------------------------------------------------------
# Module.to's forms
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, kwargs", [
    ((torch.float64,), {}),
    (("cpu", torch.float64), {}),
    (("cpu", torch.float64, True, False), {}),
    ((), {"dtype": torch.float64, "non_blocking": True}),
    ((torch.zeros(1, dtype=torch.float64),), {"copy": False}),
    ((), {"tensor": torch.zeros(1, dtype=torch.float64)}),
    ((torch.float64,), {"memory_format": torch.preserve_format}),
])
def test_to_takes_tensor_tos_forms(args, kwargs):
    assert model().to(*args, **kwargs)[0].weight.dtype == torch.float64


@pytest.mark.parametrize("args, kwargs, got", [
    (("cpu", "cpu"), {}, "str, str"),
    ((torch.float64, "cpu"), {}, "torch.dtype, str"),
    ((torch.float64, torch.float64), {}, "torch.dtype, torch.dtype"),
    ((torch.float64, None), {}, "torch.dtype, NoneType"),
    ((), {"dtype": "x"}, "dtype=str, "),
    ((), {"foo": 1}, "foo=int, "),
    (("cpu",), {"copy": 1}, "str, copy=int"),
    ((torch.float64,), {"memory_format": 1}, "torch.dtype, memory_format=int"),
])
def test_to_refuses_what_fits_no_form_in_pytorchs_words(args, kwargs, got):
    m = model()
    with pytest.raises(TypeError) as info:
        m.to(*args, **kwargs)
    assert str(info.value) == (
        f"to() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n"
        " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
        "bool copy = False, *, torch.memory_format memory_format = None)\n"
        " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
        "torch.memory_format memory_format = None)\n"
        " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
        "torch.memory_format memory_format = None)\n"
    )
    assert m[0].weight.dtype == torch.float32


# ----------------------------------------------------------------------------------------
# The same calls with PyTorch
# ----------------------------------------------------------------------------------------
def _outcome(call, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call(lib)
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).split("\nHint:")[0]
    return "ok", repr(result).replace("teachgrad", "torch")


def _counter(lib):
    class Counter(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(1, 1)
            self.seen = {"batches": 1}

        def get_extra_state(self):
            return self.seen

        def set_extra_state(self, state):
            self.seen = state

    return Counter()


CALLS = {
    "get_buffer": lambda L: model(L).get_buffer("1.running_var"),
    "get_buffer not one": lambda L: model(L).get_buffer("0.bias"),
    "set_submodule": lambda L: (lambda m: (m.set_submodule("1", L.nn.ReLU()), m))(model(L)),
    "set_submodule strict": lambda L: model(L).set_submodule("2", L.nn.ReLU(), strict=True),
    "extra state keys": lambda L: list(L.nn.Sequential(_counter(L)).state_dict()),
    "extra state missing": lambda L: _counter(L).load_state_dict(
        {"linear.weight": L.ones(1, 1), "linear.bias": L.ones(1)}),
    "extra state unexpected": lambda L: L.nn.Linear(1, 1).load_state_dict(
        {"weight": L.ones(1, 1), "bias": L.ones(1), "_extra_state": 0}, strict=False),
    "type": lambda L: [v.dtype for v in model(L).type(L.float64).state_dict().values()],
    "type int": lambda L: model(L).type(L.int32),
    "state_dict by position": lambda L: list(model(L).state_dict(None, "x.")),
    "to two dtypes": lambda L: model(L).to(L.float64, L.float64),
    "to device then dtype": lambda L: model(L).to("cpu", L.float64, non_blocking=True)[0],
    "to unknown keyword": lambda L: model(L).to(L.float64, foo=1),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_same_outcome_as_pytorch(name):
    real = pytest.importorskip("torch")
    assert _outcome(CALLS[name], torch) == _outcome(CALLS[name], real)
