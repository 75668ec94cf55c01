"""Devices: ``teachgrad.device`` objects, ``torch.accelerator`` and ``torch.backends``.

The tutorials pick their device with code like
``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``
or ``torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")``; these must
run and give the CPU. Expected strings are PyTorch's (checked against it when installed).
"""

from __future__ import annotations

import pickle

import pytest

import teachgrad as torch

SPELLINGS = [("cpu",), ("cuda",), ("cuda:1",), ("cuda", 1), ("cpu", 0), ("mps",)]
BAD_SPELLINGS = [("gpu",), ("cuda:01",), ("cuda:x",), ("cuda:-1",), ("cuda:1", 2), ("cpu", -1)]


def test_a_device_has_a_type_an_index_and_pytorchs_repr():
    dev = torch.device("cuda:1")
    assert (dev.type, dev.index) == ("cuda", 1)
    assert repr(dev) == "device(type='cuda', index=1)" and str(dev) == "cuda:1"
    assert repr(torch.device("cpu")) == "device(type='cpu')" and torch.device("cpu").index is None
    assert torch.device("cuda", 1) == dev and torch.device(dev) == dev
    assert torch.device("cpu") != "cpu"  # devices equal devices only, as in PyTorch
    assert len({torch.device("cpu"), torch.device("cpu"), torch.device("cpu", 0)}) == 2
    assert pickle.loads(pickle.dumps(dev)) == dev


def test_every_tensor_and_parameter_is_on_the_cpu_device():
    x = torch.ones(2)
    assert x.device == torch.device("cpu") and isinstance(x.device, torch.device)
    assert f"{x.device}" == "cpu" and repr(x.device) == "device(type='cpu')"
    assert next(torch.nn.Linear(2, 2).parameters()).device == torch.device("cpu")
    assert torch.get_default_device() == torch.device("cpu")


def test_moving_to_the_cpu_device_works_and_to_a_gpu_is_refused():
    x = torch.ones(2)
    assert x.to(torch.device("cpu")) is x and x.to(x.device) is x
    assert torch.zeros(2, device=torch.device("cpu")).device == x.device
    layer = torch.nn.Linear(2, 2)
    assert layer.to(torch.device("cpu")) is layer
    with pytest.raises(RuntimeError, match="CPU only"):
        x.to(torch.device("cuda"))
    with pytest.raises(RuntimeError, match="CPU only"):
        layer.to(torch.device("cuda"))


def test_unknown_device_strings_raise_pytorchs_errors():
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, .* device string: gpu$"):
        torch.device("gpu")
    with pytest.raises(RuntimeError, match=r"^Invalid device string: 'cuda:01'$"):
        torch.device("cuda:01")
    with pytest.raises(RuntimeError, match="^Device index must not be negative$"):
        torch.device("cpu", -1)
    with pytest.raises(RuntimeError, match="none is available"):
        torch.device(0)


def test_the_tutorials_device_pickers_choose_the_cpu():
    assert not torch.accelerator.is_available() and torch.accelerator.device_count() == 0
    assert torch.accelerator.current_accelerator() is None
    device = (torch.accelerator.current_accelerator().type
              if torch.accelerator.is_available() else "cpu")
    assert device == "cpu"
    device = ("cuda" if torch.cuda.is_available()
              else "mps" if torch.backends.mps.is_available() else "cpu")
    assert device == "cpu"
    assert torch.device("cuda").index is None  # the tensors tutorial's GPU check


def test_cudnn_switches_can_be_set_and_nothing_is_available():
    import teachgrad.backends.cudnn as cudnn

    saved = cudnn.deterministic, cudnn.benchmark
    try:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        assert cudnn.deterministic is True
    finally:
        cudnn.deterministic, cudnn.benchmark = saved
    assert not torch.backends.cudnn.is_available() and torch.backends.cudnn.version() is None
    assert not torch.backends.mps.is_available() and not torch.backends.mps.is_built()


@pytest.mark.torch
@pytest.mark.parametrize("args", SPELLINGS)
def test_devices_match_pytorch(args):
    real = pytest.importorskip("torch")
    ours, theirs = torch.device(*args), real.device(*args)
    assert (repr(ours), str(ours), ours.type, ours.index) == (
        repr(theirs), str(theirs), theirs.type, theirs.index)


@pytest.mark.torch
@pytest.mark.parametrize("args", BAD_SPELLINGS)
def test_device_errors_match_pytorch(args):
    real = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        real.device(*args)
    with pytest.raises(RuntimeError) as ours:
        torch.device(*args)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.torch
def test_accelerator_and_backends_answer_as_a_cpu_only_pytorch():
    real = pytest.importorskip("torch")
    if real.accelerator.is_available():
        pytest.skip("this PyTorch sees an accelerator")
    assert torch.accelerator.current_accelerator() == real.accelerator.current_accelerator()
    assert torch.backends.mps.is_available() == real.backends.mps.is_available()
    assert torch.backends.cudnn.benchmark == real.backends.cudnn.benchmark


def test_cuda_clean_up_calls_are_harmless_and_gpu_questions_fail_as_in_cpu_pytorch():
    assert torch.cuda.empty_cache() is None and not torch.cuda.is_initialized()
    assert torch.cuda.memory_allocated() == torch.cuda.max_memory_allocated() == 0
    assert torch.cuda.memory_reserved() == 0
    for ask in (torch.cuda.synchronize, torch.cuda.current_device, torch.cuda.get_device_name):
        with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled\nHint"):
            ask()


def test_cuda_matmul_switches_can_be_set():
    matmul = torch.backends.cuda.matmul
    saved = matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = True
        assert torch.backends.cuda.matmul.allow_tf32 is True
    finally:
        matmul.allow_tf32 = saved
    assert not torch.backends.cuda.is_built()


@pytest.mark.torch
def test_cuda_switch_defaults_match_pytorch():
    real = pytest.importorskip("torch")
    if real.cuda.is_available():
        pytest.skip("this PyTorch sees a GPU")
    ours, theirs = torch.backends.cuda.matmul, real.backends.cuda.matmul
    for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction"):
        assert getattr(ours, name) == getattr(theirs, name)
    assert torch.cuda.memory_allocated() == real.cuda.memory_allocated()
    with pytest.raises(AssertionError) as error:
        real.cuda.synchronize()
    assert str(error.value) == "Torch not compiled with CUDA enabled"


def test_device_arguments_accept_device_objects(tmp_path):
    x = torch.ones(2)
    cpu = torch.device("cpu")
    assert x.new_tensor([1.0], device=x.device).device == cpu
    assert x.new_zeros(2, device=cpu).tolist() == [0.0, 0.0]
    assert x.new_ones(1, device=cpu).tolist() == [1.0]
    assert x.new_full((1,), 3.0, device=cpu).tolist() == [3.0]
    assert x.new_empty(2, device=cpu).shape == (2,)
    with pytest.raises(RuntimeError, match="CPU only"):
        x.new_zeros(2, device=torch.device("cuda"))
    assert torch.Generator(device=cpu).device == cpu
    path = tmp_path / "checkpoint.pt"
    torch.save({"epoch": 3, "device": cpu}, path)
    assert torch.load(path, weights_only=True)["device"] == cpu  # allowed, as in PyTorch
