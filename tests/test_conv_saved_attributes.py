"""``ConvolutionBackward0`` shows what it saved under PyTorch's ``_saved_*`` names: the
input and weight tensors, and the options (lesson 19 reads them)."""

from __future__ import annotations

import pytest

import teachgrad as torch
import teachgrad.nn.functional as F


def test_a_convolution_node_names_its_tensors_and_options():
    x = torch.ones(1, 1, 5, requires_grad=True)
    w = torch.ones(1, 1, 3, requires_grad=True)
    node = F.conv1d(x, w, torch.ones(1), stride=2, padding=1).grad_fn
    assert node._saved_input is x and node._saved_weight is w
    assert node._saved_stride == (2,) and node._saved_padding == (1,)
    assert node._saved_dilation == (1,) and node._saved_groups == 1
    assert node._saved_transposed is False and node._saved_output_padding == (0,)
    assert node._saved_bias_sym_sizes_opt == (1,)
    assert F.conv1d(x, w).grad_fn._saved_bias_sym_sizes_opt == (0,)


def test_a_transposed_convolution_reports_its_output_padding():
    # (5 − 1)·2 − 2·1 + 1·(3 − 1) + 1 = 9 rows without output padding; 10 asked for
    x = torch.ones(1, 2, 5, 5)
    w = torch.ones(2, 4, 3, 3, requires_grad=True)
    y = F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    assert y.shape == (1, 4, 10, 10)
    node = y.grad_fn
    assert node._saved_transposed is True
    assert node._saved_output_padding == (1, 1) and node._saved_padding == (1, 1)


def test_the_saved_tensors_are_freed_by_backward_as_pytorchs():
    x = torch.ones(1, 1, 5, requires_grad=True)
    y = F.conv1d(x, torch.ones(1, 1, 3))
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.grad_fn._saved_input  # noqa: B018 - reading it is the test


def test_the_same_as_pytorchs_attributes():
    real = pytest.importorskip("torch")

    cases = [
        dict(x=(1, 2, 5), w=(2, 2, 3), kwargs=dict(stride=3, output_padding=2, dilation=2,
                                                   groups=2), transposed=True),
        dict(x=(2, 4, 6, 7), w=(6, 2, 3, 2), kwargs=dict(stride=(2, 1), padding=(1, 0),
                                                         dilation=(1, 2), groups=2)),
    ]
    for case in cases:
        x = torch.randn(*case["x"], requires_grad=True)
        w = torch.randn(*case["w"], requires_grad=True)
        name = "conv_transpose" if case.get("transposed") else "conv"
        name += f"{len(case['x']) - 2}d"
        mine = getattr(F, name)(x, w, **case["kwargs"]).grad_fn
        theirs = getattr(real.nn.functional, name)(
            real.tensor(x.detach().numpy()), real.tensor(w.detach().numpy(), requires_grad=True),
            **case["kwargs"]).grad_fn
        for attribute in ("stride", "padding", "dilation", "groups", "transposed",
                          "output_padding", "bias_sym_sizes_opt"):
            assert getattr(mine, f"_saved_{attribute}") == getattr(
                theirs, f"_saved_{attribute}"), attribute
