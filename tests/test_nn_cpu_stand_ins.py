"""The last public names of ``torch.nn`` a learner meets: ``DataParallel`` and
``SyncBatchNorm`` (which, without GPUs, PyTorch runs as the plain module / batch norm),
the deprecated ``NLLLoss2d`` and ``Container``, ``nn.parameter``'s lazy names,
``nn.utils.convert_conv2d_weight_memory_format`` and ``F.conv_tbc``; and the optimizers'
hook type aliases. Each is checked against PyTorch (values, gradients, state dicts, reprs,
errors, warnings)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad
from tests.parity import raises_as_torch, same_as_torch

nn = teachgrad.nn


def _torch():
    return pytest.importorskip("torch")


# ---------------------------------------------------------------------------- DataParallel

def test_data_parallel_wraps_the_module_as_pytorch_does_without_gpus():
    torch = _torch()
    ours = nn.DataParallel(nn.Linear(3, 2))
    theirs = torch.nn.DataParallel(torch.nn.Linear(3, 2))
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["module.weight",
                                                                     "module.bias"]
    assert ours.device_ids == theirs.device_ids == []
    # The same weights give the same outputs and gradients: calling it calls the module.
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    ours(teachgrad.tensor(x)).pow(2).sum().backward()
    theirs(torch.tensor(x)).pow(2).sum().backward()
    np.testing.assert_allclose(ours.module.weight.grad.numpy(),
                               theirs.module.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert nn.parallel.DataParallel is nn.DataParallel


def test_data_parallel_passes_keywords_and_loads_a_wrapped_checkpoint():
    model = nn.DataParallel(nn.Bilinear(2, 2, 1))
    a, b = teachgrad.ones(1, 2), teachgrad.zeros(1, 2)
    assert teachgrad.equal(model(a, input2=b), model.module(a, b))
    copy = nn.DataParallel(nn.Bilinear(2, 2, 1))
    copy.load_state_dict(model.state_dict())
    assert teachgrad.equal(copy.module.weight, model.module.weight)


# ---------------------------------------------------------------------------- SyncBatchNorm

def test_sync_batch_norm_is_batch_norm_on_one_process():
    torch = _torch()
    assert repr(nn.SyncBatchNorm(3, momentum=None, bias=False)) == repr(
        torch.nn.SyncBatchNorm(3, momentum=None, bias=False))
    x = np.random.default_rng(1).standard_normal((4, 3, 2, 5))

    def run(lib, x):
        bn = lib.nn.SyncBatchNorm(3, dtype=lib.float64)
        out = bn(x) * 2
        bn(x * 3)  # a second step moves the running statistics again
        bn.eval()
        return out, bn(x + 1), bn.running_mean, bn.running_var, bn.num_batches_tracked

    same_as_torch(run, x)


def test_sync_batch_norm_refuses_as_pytorch():
    raises_as_torch(lambda lib: lib.nn.SyncBatchNorm(3)(lib.zeros(3)))
    raises_as_torch(lambda lib: lib.nn.SyncBatchNorm(3)(lib.zeros(3, 0)))


def test_convert_sync_batchnorm_keeps_the_same_tensors():
    torch = _torch()
    bn = nn.BatchNorm2d(4)
    bn.eval()
    model = nn.Sequential(nn.Conv2d(1, 4, 3), bn, nn.Sequential(nn.BatchNorm1d(2)))
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert converted is model  # a container is changed in place, as in PyTorch
    assert type(model[1]) is nn.SyncBatchNorm and type(model[2][0]) is nn.SyncBatchNorm
    assert model[1].weight is bn.weight and model[1].running_var is bn.running_var
    assert model[1].training is False
    theirs = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3), torch.nn.BatchNorm2d(4),
        torch.nn.Sequential(torch.nn.BatchNorm1d(2))))
    assert repr(model) == repr(theirs)
    # A batch norm itself comes back as a new module.
    single = nn.BatchNorm1d(2, affine=False)
    assert type(nn.SyncBatchNorm.convert_sync_batchnorm(single)) is nn.SyncBatchNorm


# ------------------------------------------------------------- deprecated NLLLoss2d, Container

def test_nll_loss_2d_warns_then_is_nll_loss():
    torch = _torch()
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        ours = nn.NLLLoss2d(ignore_index=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.NLLLoss2d(ignore_index=1)
    assert repr(ours) == repr(theirs) == "NLLLoss2d()"
    assert isinstance(ours, nn.NLLLoss)
    logits = np.random.default_rng(2).standard_normal((2, 3, 4, 4))
    target = np.random.default_rng(3).integers(0, 3, (2, 4, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_as_torch(lambda lib, x, t: lib.nn.NLLLoss2d(ignore_index=1)(
            x.log_softmax(1), t), logits, target)


def test_container_warns_then_registers_its_keywords():
    torch = _torch()
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        ours = nn.Container(fc=nn.Linear(2, 1), act=nn.ReLU())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.nn.Container(fc=torch.nn.Linear(2, 1), act=torch.nn.ReLU())
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == ["fc.weight", "fc.bias"]


# ------------------------------------------------------------------------ nn.parameter names

def test_nn_parameter_lazy_names():
    from teachgrad.nn.parameter import (
        UninitializedBuffer,
        UninitializedParameter,
        UninitializedTensorMixin,
        is_lazy,
    )

    assert UninitializedParameter is nn.UninitializedParameter
    assert UninitializedBuffer is nn.UninitializedBuffer
    layer = nn.LazyLinear(2)
    assert is_lazy(layer.weight) and isinstance(layer.weight, UninitializedTensorMixin)
    layer(teachgrad.ones(1, 3))
    assert not is_lazy(layer.weight) and not is_lazy(nn.Parameter(teachgrad.ones(1)))
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        nn.parameter.Nope  # noqa: B018


# ------------------------------------------------------------ conv weight memory format

def test_convert_conv_weight_memory_format_as_pytorch():
    torch = _torch()

    def build(lib):
        return lib.nn.Sequential(lib.nn.Conv2d(2, 4, 3), lib.nn.Sequential(
            lib.nn.ConvTranspose2d(4, 2, 3)), lib.nn.Conv3d(2, 2, 1), lib.nn.Conv1d(2, 2, 1))

    ours, theirs = build(teachgrad), build(torch)
    before = [p for p in ours.parameters()]
    values = [p.detach().clone() for p in before]
    out = nn.utils.convert_conv2d_weight_memory_format(ours, teachgrad.channels_last)
    torch.nn.utils.convert_conv2d_weight_memory_format(theirs, torch.channels_last)
    assert out is ours
    assert [p.stride() for p in ours.parameters()] == [p.stride() for p in theirs.parameters()]
    nn.utils.convert_conv3d_weight_memory_format(ours, teachgrad.channels_last_3d)
    torch.nn.utils.convert_conv3d_weight_memory_format(theirs, torch.channels_last_3d)
    assert [p.stride() for p in ours.parameters()] == [p.stride() for p in theirs.parameters()]
    # Same Parameter objects, same values: only the layout changed.
    assert all(a is b for a, b in zip(ours.parameters(), before))
    assert all(teachgrad.equal(a, b) for a, b in zip(ours.parameters(), values))
    raises_as_torch(lambda lib: lib.nn.utils.convert_conv2d_weight_memory_format(
        lib.nn.Conv2d(1, 1, 1), lib.channels_last_3d))


# ----------------------------------------------------------------------------- F.conv_tbc

@pytest.mark.parametrize("pad", [0, 1, 2, -1])
def test_conv_tbc_values_and_gradients(pad):
    rng = np.random.default_rng(pad + 10)
    x, w, b = rng.standard_normal((6, 2, 3)), rng.standard_normal((3, 3, 4)), \
        rng.standard_normal(4)
    # PyTorch records one ConvTbcBackward0 node; ours is conv1d between two permutes.
    same_as_torch(lambda lib, x, w, b: lib.nn.functional.conv_tbc(x, w, b, pad), x, w, b,
                  grad_fn=False)


@pytest.mark.parametrize("shapes", [
    ((5, 3), (2, 3, 4), (4,)), ((5, 2, 3), (3, 4), (4,)), ((5, 2, 3), (2, 3, 4), (4, 1)),
    ((5, 2, 3), (2, 2, 4), (4,)), ((5, 2, 3), (2, 3, 4), (3,)), ((1, 2, 3), (4, 3, 4), (4,)),
])
def test_conv_tbc_refuses_as_pytorch(shapes):
    raises_as_torch(lambda lib: lib.nn.functional.conv_tbc(*(lib.zeros(s) for s in shapes)))


def test_conv_tbc_argument_types():
    raises_as_torch(lambda lib: lib.nn.functional.conv_tbc(
        lib.zeros(5, 2, 3), lib.zeros(2, 3, 4), lib.zeros(4), 1.5))
    raises_as_torch(lambda lib: lib.nn.functional.conv_tbc(
        lib.zeros(5, 2, 3), lib.zeros(2, 3, 4), None))


# ------------------------------------------------------------------- optimizer hook aliases

def test_optimizer_hook_type_aliases_exist():
    import typing

    for name in ("OptimizerPreHook", "OptimizerPostHook"):
        alias = getattr(teachgrad.optim.Optimizer, name)
        assert typing.get_origin(alias) is not None  # a Callable[...] annotation
        assert getattr(teachgrad.optim.Adam, name) is alias
