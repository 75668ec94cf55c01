"""teachgrad.save / teachgrad.load: round trips, checkpoints, and the weights_only guard."""

from __future__ import annotations

import io
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn, serialization


def round_trip(obj, **load_args):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_args)


class Unsafe:
    """A class a weights-only load must refuse."""


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64, torch.uint8,
                                   torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.bool])
def test_tensor_round_trip_keeps_values_dtype_and_shape(dtype):
    x = (torch.arange(12).reshape(3, 4) % 3).to(dtype)
    y = round_trip(x)
    assert type(y) is torch.Tensor
    assert y.dtype == dtype and y.shape == (3, 4)
    np.testing.assert_array_equal(y.numpy(), x.numpy())


def test_requires_grad_kept_grad_and_graph_dropped():
    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    (leaf * 2).sum().backward()
    out = leaf * 3
    loaded_leaf, loaded_out = round_trip([leaf, out])
    assert loaded_leaf.requires_grad and loaded_leaf.grad is None
    # A saved non-leaf comes back as a leaf that requires grad (as in PyTorch).
    assert loaded_out.requires_grad and loaded_out.grad_fn is None
    np.testing.assert_array_equal(loaded_out.detach().numpy(), [3.0, 6.0])


def test_views_and_zero_dim_tensors():
    base = torch.arange(6.0).reshape(2, 3)
    t, scalar, empty = round_trip((base.t(), torch.tensor(2.5), torch.zeros(0, 3)))
    np.testing.assert_array_equal(t.numpy(), base.numpy().T)
    assert scalar.shape == () and scalar.item() == 2.5
    assert empty.shape == (0, 3)


def test_views_saved_together_share_memory_after_loading():
    # PyTorch's serialization notes: numbers = arange(1, 10); evens = numbers[1::2];
    # save both, load, double the evens: the loaded numbers see it.
    numbers = torch.arange(1, 10)
    a, b = round_trip([numbers, numbers[1::2]])
    b *= 2
    assert a.tolist() == [1, 4, 3, 8, 5, 12, 7, 16, 9]
    assert b.tolist() == [4, 8, 12, 16]


def test_each_storage_is_written_once():
    base = torch.zeros(1000)
    one, three = io.BytesIO(), io.BytesIO()
    torch.save(base, one)
    torch.save([base, base[10:], base.view(10, 100).t()], three)
    assert len(three.getvalue()) < len(one.getvalue()) + 500  # not three copies of 8 kB
    x, y, z = torch.load(io.BytesIO(three.getvalue()))
    z[0, 1] = 5.0  # z[0, 1] is base.view(10, 100)[1, 0]: element 100
    assert x[100].item() == 5.0 and y[90].item() == 5.0


def test_a_slice_saved_alone_is_its_values_with_its_whole_storage():
    big = torch.arange(100.0)
    (piece,) = round_trip([big[40:43]])
    assert piece.tolist() == [40.0, 41.0, 42.0]
    piece[0] = -1.0  # writable, and not big's memory
    assert big[40].item() == 40.0


def test_loaded_tensor_is_writable_and_independent_of_what_was_saved():
    base = torch.zeros(4)
    a, b = round_trip([base, base[:2]])
    a[0] = 7.0
    assert base[0].item() == 0.0 and b[0].item() == 7.0


def test_flipped_expanded_and_reinterpreted_views_round_trip():
    base = torch.arange(12.0).reshape(3, 4)
    flipped, expanded, ints = round_trip(
        [base.flip(0), torch.tensor([1.0, 2.0]).expand(3, 2), base.view(torch.int32)])
    np.testing.assert_array_equal(flipped.numpy(), base.numpy()[::-1])
    np.testing.assert_array_equal(expanded.numpy(), [[1.0, 2.0]] * 3)
    np.testing.assert_array_equal(ints.numpy(), base.numpy().view(np.int32))


def test_a_tensor_record_reading_outside_its_storage_is_refused():
    storage = serialization._rebuild_storage(bytes(16))
    with pytest.raises(pickle.UnpicklingError, match="reads outside its storage"):
        serialization._rebuild_tensor_in_storage(storage, "<f4", 8, (3,), (4,), False, False)
    with pytest.raises(pickle.UnpicklingError, match="reads outside its storage"):
        serialization._rebuild_tensor_in_storage(storage, "<f4", 0, (2,), (-4,), False, False)
    ok = serialization._rebuild_tensor_in_storage(storage, "<f4", 8, (2,), (4,), True, False)
    assert ok.tolist() == [0.0, 0.0] and ok.requires_grad


def test_parameter_round_trip():
    p = nn.Parameter(torch.ones(2, 2))
    q = round_trip(p)
    assert type(q) is nn.Parameter and q.requires_grad
    np.testing.assert_array_equal(q.detach().numpy(), np.ones((2, 2)))


def test_nested_containers_and_plain_values():
    obj = {"list": [1, 2.5, "s", None, True], "tuple": (torch.ones(1), b"xy"),
           "set": {1, 2}, "od": OrderedDict(a=torch.zeros(1)), "complex": 1 + 2j,
           "dtype": torch.float64, "size": torch.Size([2, 3]), "big": 2 ** 70}
    out = round_trip(obj)
    assert out["list"] == [1, 2.5, "s", None, True]
    assert out["tuple"][1] == b"xy" and out["set"] == {1, 2} and out["complex"] == 1 + 2j
    assert type(out["od"]) is OrderedDict and out["dtype"] is torch.float64
    assert out["size"] == torch.Size([2, 3]) and type(out["size"]) is torch.Size
    assert out["big"] == 2 ** 70


def test_paths_and_file_objects(tmp_path):
    path = tmp_path / "x.pt"
    torch.save(torch.ones(3), path)
    np.testing.assert_array_equal(torch.load(path).numpy(), np.ones(3))
    torch.save(torch.zeros(2), str(path))
    with open(path, "rb") as f:
        np.testing.assert_array_equal(torch.load(f).numpy(), np.zeros(2))
    with pytest.raises(FileNotFoundError):
        torch.load(tmp_path / "missing.pt")


def test_state_dict_round_trip_into_a_fresh_model(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    torch.save(model.state_dict(), tmp_path / "model.pt")
    state = torch.load(tmp_path / "model.pt")
    assert type(state) is OrderedDict and list(state) == list(model.state_dict())
    other = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    assert repr(other.load_state_dict(state)) == "<All keys matched successfully>"
    x = torch.randn(5, 3)
    np.testing.assert_array_equal(other(x).detach().numpy(), model(x).detach().numpy())


def test_checkpoint_with_optimizer_resumes_identically(tmp_path):
    def make():
        torch.manual_seed(1)
        model = nn.Linear(2, 1)
        return model, torch.optim.Adam(model.parameters(), lr=0.1)

    x, y = torch.randn(8, 2), torch.randn(8, 1)

    def step(model, opt):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()

    model, opt = make()
    step(model, opt)
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 1},
               tmp_path / "ckpt.pt")
    step(model, opt)  # the run that was not interrupted

    resumed, resumed_opt = make()
    checkpoint = torch.load(tmp_path / "ckpt.pt")
    resumed.load_state_dict(checkpoint["model"])
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    assert checkpoint["epoch"] == 1
    step(resumed, resumed_opt)
    for a, b in zip(model.parameters(), resumed.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_weights_only_refuses_other_globals_with_pytorchs_message():
    with pytest.raises(pickle.UnpicklingError) as info:
        round_trip({"a": Unsafe()})
    message = str(info.value)
    assert message.startswith("Weights only load failed.")
    assert (
        "WeightsUnpickler error: Unsupported global: GLOBAL test_serialization.Unsafe was not "
        "an allowed global by default." in message
    )
    assert "torch.serialization.add_safe_globals([test_serialization.Unsafe])" in message


def test_weights_only_refuses_a_pickled_module_but_false_loads_it():
    model = nn.Linear(2, 1)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL teachgrad.nn.modules.linear.Linear"):
        round_trip(model)
    loaded = round_trip(model, weights_only=False)
    assert type(loaded) is nn.Linear
    np.testing.assert_array_equal(loaded.weight.detach().numpy(), model.weight.detach().numpy())


def test_weights_only_refuses_builtin_callables():
    # A classic pickle attack calls a builtin (os.system, eval); builtins are named bare.
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL len was not an allowed global"):
        round_trip(len)


def test_safe_globals_allow_a_class():
    with torch.serialization.safe_globals([Unsafe]):
        assert type(round_trip(Unsafe())) is Unsafe
    with pytest.raises(pickle.UnpicklingError):
        round_trip(Unsafe())
    torch.serialization.add_safe_globals([Unsafe])
    try:
        assert torch.serialization.get_safe_globals() == [Unsafe]
        assert type(round_trip(Unsafe())) is Unsafe
    finally:
        torch.serialization.clear_safe_globals()


def test_explicit_pickle_module_with_weights_only_is_an_error():
    buffer = io.BytesIO()
    torch.save(torch.ones(1), buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit "
                                           "pickle_module is specified"):
        torch.load(buffer, pickle_module=pickle)
    buffer.seek(0)
    assert torch.load(buffer, pickle_module=pickle, weights_only=False).item() == 1.0


def test_corrupt_tensor_record_is_refused():
    # A record whose byte count does not match its shape must not become a tensor.
    buffer = io.BytesIO()

    class Liar:
        def __reduce__(self):
            return (torch.serialization._rebuild_tensor, (b"\x00" * 3, "<f4", (2,), False))

    pickle.dump(Liar(), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="does not fit shape"):
        torch.load(buffer)


def test_pytorch_zip_checkpoint_gets_a_clear_error(tmp_path):
    path = tmp_path / "torch.pt"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 20)
    with pytest.raises(RuntimeError, match="written by PyTorch"):
        torch.load(path)


@pytest.mark.torch
def test_weights_only_message_matches_pytorch():
    real = pytest.importorskip("torch")
    buffer = io.BytesIO()
    real.save(len, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError) as theirs:
        real.load(buffer)
    with pytest.raises(pickle.UnpicklingError) as ours:
        round_trip(len)
    # Ours adds one Hint line after PyTorch's text.
    assert str(ours.value).startswith(str(theirs.value))
    assert str(ours.value).count("\n") == str(theirs.value).count("\n") + 1


@pytest.mark.torch
def test_same_plain_values_load_under_weights_only_in_both():
    real = pytest.importorskip("torch")
    plain = {"set": {1, 2}, "complex": 1 + 2j, "od": OrderedDict(a=1), "bytes": b"x",
             "tuple": (1, None), "float": float("inf")}
    buffer = io.BytesIO()
    real.save(plain, buffer)
    buffer.seek(0)
    assert real.load(buffer) == plain == round_trip(plain)


def test_docstring_examples_run():
    import doctest

    assert doctest.testmod(torch.serialization).failed == 0


_OPTIMIZERS = {
    "SGD": lambda optim, p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "Adam": lambda optim, p: optim.Adam(p, lr=0.01, amsgrad=True),
    "AdamW": lambda optim, p: optim.AdamW(p, lr=0.01),
    "RMSprop": lambda optim, p: optim.RMSprop(p, lr=0.01, centered=True, momentum=0.5),
    "Adagrad": lambda optim, p: optim.Adagrad(p, lr=0.1),
    "NAdam": lambda optim, p: optim.NAdam(p, lr=0.01),
    "RAdam": lambda optim, p: optim.RAdam(p, lr=0.01),
    "Adamax": lambda optim, p: optim.Adamax(p, lr=0.01),
    "Adadelta": lambda optim, p: optim.Adadelta(p, lr=1.0),
    "ASGD": lambda optim, p: optim.ASGD(p, lr=0.01),
    "Rprop": lambda optim, p: optim.Rprop(p, lr=0.01),
}


def _training_run(lib, name, steps, checkpoint=None):
    """Train a small net with dropout and batch norm under ``name`` and StepLR; with a
    ``checkpoint`` (a path), save everything after ``steps[0]`` steps, rebuild every object
    and load it back (the RNG state too) before the remaining steps."""
    from numpy.random import default_rng

    data = default_rng(0).standard_normal((16, 5)).astype(np.float32)
    x, y = lib.tensor(data[:, :3]), lib.tensor(data[:, 3:])

    def fresh():
        lib.manual_seed(1)
        model = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.BatchNorm1d(8), lib.nn.Tanh(),
                                  lib.nn.Dropout(0.2), lib.nn.Linear(8, 2))
        opt = _OPTIMIZERS[name](lib.optim, model.parameters())
        return model, opt, lib.optim.lr_scheduler.StepLR(opt, 3, gamma=0.5)

    model, opt, sched = fresh()
    lib.manual_seed(5)
    for i in range(sum(steps)):
        if checkpoint is not None and i == steps[0]:
            lib.save({"model": model.state_dict(), "opt": opt.state_dict(),
                      "sched": sched.state_dict(), "rng": lib.get_rng_state()}, checkpoint)
            model, opt, sched = fresh()
            saved = lib.load(checkpoint)
            model.load_state_dict(saved["model"])
            opt.load_state_dict(saved["opt"])
            sched.load_state_dict(saved["sched"])
            lib.set_rng_state(saved["rng"])
        opt.zero_grad()
        batch = slice(i % 4 * 4, i % 4 * 4 + 4)
        lib.nn.functional.mse_loss(model(x[batch]), y[batch]).backward()
        opt.step()
        sched.step()
    return model, opt, sched


@pytest.mark.parametrize("name", sorted(_OPTIMIZERS))
def test_a_run_saved_and_resumed_is_bit_for_bit_the_uninterrupted_one(name, tmp_path):
    """Model, optimizer, scheduler and RNG state through save/load: the resumed run's
    parameters equal the uninterrupted run's bit for bit (dropout draws the same masks);
    what each library keeps in its state dicts has PyTorch's keys, types and shapes."""
    whole, _, _ = _training_run(torch, name, (10,))
    resumed, opt, sched = _training_run(torch, name, (4, 6), tmp_path / "ckpt.pt")
    for a, b in zip(whole.parameters(), resumed.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert sched.state_dict()["last_epoch"] == 10 and sched.get_last_lr() == [
        opt.param_groups[0]["lr"]]
    real = pytest.importorskip("torch")
    _, their_opt, their_sched = _training_run(real, name, (4, 6), tmp_path / "theirs.pt")
    ours, theirs = opt.state_dict(), their_opt.state_dict()
    assert ours["param_groups"] == theirs["param_groups"]

    def layout(state):
        return {k: (type(v).__name__, str(getattr(v, "dtype", "")).split(".")[-1],
                    tuple(getattr(v, "shape", ()))) for k, v in state.items()}

    assert [layout(s) for s in ours["state"].values()] == [
        layout(s) for s in theirs["state"].values()]
    assert sched.state_dict() == their_sched.state_dict()


def test_save_into_a_missing_directory_is_pytorchs_runtime_error(tmp_path):
    # A learner's torch.save(model.state_dict(), "checkpoints/model.pt") before the folder
    # exists: PyTorch's RuntimeError (not Python's FileNotFoundError), and no file written.
    missing = tmp_path / "checkpoints"
    with pytest.raises(RuntimeError) as caught:
        torch.save({"w": torch.ones(2)}, missing / "model.pt")
    first, hint = str(caught.value).split("\n")
    assert first == f"Parent directory {missing} does not exist."
    assert hint.startswith("Hint: create it first") and "os.makedirs" in hint
    assert not missing.exists()
    with pytest.raises(RuntimeError, match=f"^Parent directory {missing} does not exist"):
        torch.save(torch.ones(1), str(missing / "x.pt"))  # a str path as well


def test_save_to_something_that_is_not_a_file_is_refused():
    with pytest.raises(AttributeError, match="^expected 'f' to be string, path, or a "
                                             "file-like object with a 'write' attribute$"):
        torch.save(torch.ones(1), 5)


@pytest.mark.torch
def test_save_refusals_word_for_word_as_pytorch(tmp_path):
    real = pytest.importorskip("torch")
    for target in (tmp_path / "missing" / "x.pt", 5):
        with pytest.raises(Exception) as theirs:
            real.save(real.ones(1), target)
        with pytest.raises(Exception) as ours:
            torch.save(torch.ones(1), target)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).split("\nHint:")[0] == str(theirs.value)


@pytest.mark.parametrize("target", ["cuda", "cuda:0", torch.device("cuda"), {"cpu": "cuda:0"}])
def test_load_onto_cuda_is_pytorchs_refusal_on_a_cpu_only_machine(target):
    # Code written for a GPU (torch.load(path, map_location="cuda")): PyTorch on a machine
    # without CUDA refuses it; teachgrad, which has none, refused nothing and loaded.
    buffer = io.BytesIO()
    torch.save(nn.Linear(2, 1).state_dict(), buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError) as caught:
        torch.load(buffer, map_location=target)
    first, hint = str(caught.value).split("\n")
    assert first == ("Attempting to deserialize object on a CUDA device but "
                     "torch.cuda.is_available() is False. If you are running on a CPU-only "
                     "machine, please use torch.load with map_location=torch.device('cpu') "
                     "to map your storages to the CPU.")
    assert hint.startswith("Hint: teachgrad runs on the CPU only")


@pytest.mark.parametrize("target", ["cpu", torch.device("cpu"), {"cuda:0": "cpu"},
                                    lambda storage, location: storage])
def test_load_onto_the_cpu_still_loads(target):
    assert torch.equal(round_trip(torch.ones(2), map_location=target), torch.ones(2))


def test_load_onto_cuda_of_a_file_without_tensors_loads_as_in_pytorch():
    assert round_trip({"epoch": 3}, map_location="cuda") == {"epoch": 3}


@pytest.mark.torch
def test_load_onto_cuda_message_is_pytorchs():
    real = pytest.importorskip("torch")
    if real.cuda.is_available():
        pytest.skip("PyTorch here has CUDA")
    buffer = io.BytesIO()
    real.save(real.ones(1), buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError) as theirs:
        real.load(buffer, map_location="cuda")
    with pytest.raises(RuntimeError) as ours:
        round_trip(torch.ones(1), map_location="cuda")
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)
