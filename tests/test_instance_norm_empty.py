"""instance_norm on an empty batch, as PyTorch 2.13 does it.

PyTorch runs batch norm on the input seen as one sample of N·C channels, repeating the
per-channel tensors N times. With N·C = 0: the running statistics become the mean of no
instances (nan) while training, and weight or bias make its kernel read the first of none
(an IndexError). The outcomes were printed by PyTorch 2.13; the torch-marked test runs the
same calls in it.
"""

from __future__ import annotations

import math
import warnings

import pytest

import teachgrad as torch
import teachgrad.nn.functional as F

SELECT = r"^select\(\): index 0 out of range for tensor of size \[0\] at dimension 0"


def test_running_stats_of_an_empty_batch_are_the_mean_of_nothing():
    mean, var = torch.full((3,), 0.5), torch.full((3,), 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = F.instance_norm(torch.ones(0, 3, 4), mean, var, momentum=0.1)
    assert out.shape == (0, 3, 4)
    assert all(math.isnan(v) for v in mean.tolist() + var.tolist())
    kept_mean, kept_var = torch.full((3,), 0.5), torch.full((3,), 2.0)
    F.instance_norm(torch.ones(2, 3, 0), kept_mean, kept_var)  # instances, no positions
    assert kept_mean.tolist() == [0.5] * 3 and kept_var.tolist() == [2.0] * 3


@pytest.mark.parametrize("shape", [(0, 3, 4), (0, 3, 2, 2), (0, 3, 0)])
@pytest.mark.parametrize("affine", [dict(weight=torch.ones(3)), dict(bias=torch.zeros(3)),
                                    dict(weight=torch.ones(3), bias=torch.zeros(3))])
def test_weight_or_bias_with_an_empty_batch_is_refused(shape, affine):
    with pytest.raises(IndexError, match=SELECT):
        F.instance_norm(torch.ones(shape), **affine)


def test_so_is_the_affine_module_on_an_empty_batch():
    with pytest.raises(IndexError, match=SELECT):
        torch.nn.InstanceNorm1d(3, affine=True)(torch.ones(0, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (NumPy's 0/0, which teachgrad's filter drops)
        assert torch.nn.InstanceNorm1d(3)(torch.ones(0, 3, 4)).shape == (0, 3, 4)


def test_the_function_takes_no_momentum_none_the_module_does():
    with pytest.raises(TypeError, match=r"^instance_norm\(\): argument 'momentum' "
                                        r"\(position 7\) must be float, not NoneType"):
        F.instance_norm(torch.ones(2, 3, 4), momentum=None)
    module = torch.nn.InstanceNorm1d(3, momentum=None, track_running_stats=True)
    assert module(torch.ones(2, 3, 4)).shape == (2, 3, 4)


CALLS = [
    "F.instance_norm(torch.ones(0, 3, 4), torch.zeros(3), torch.ones(3))",
    "F.instance_norm(torch.ones(0, 3, 4), torch.zeros(3), torch.ones(3), "
    "use_input_stats=False)",
    "F.instance_norm(torch.ones(0, 3, 4), weight=torch.ones(3))",
    "F.instance_norm(torch.ones(2, 3, 0), weight=torch.ones(3), bias=torch.zeros(3))",
    "F.instance_norm(torch.ones(2, 0, 4), weight=torch.ones(0))",
    "F.instance_norm(torch.ones(0, 3, 4), momentum=None)",
    "torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True).eval()"
    "(torch.ones(0, 3, 2, 2))",
]


@pytest.mark.torch
@pytest.mark.parametrize("call", CALLS)
def test_same_outcome_as_pytorch(call):
    real = pytest.importorskip("torch")

    def run(lib, functional):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = eval(call, {"torch": lib, "F": functional})
        except (IndexError, TypeError, RuntimeError) as e:
            return type(e).__name__, str(e).split("\nHint:")[0]
        return tuple(out.shape)

    assert run(torch, F) == run(real, real.nn.functional)
