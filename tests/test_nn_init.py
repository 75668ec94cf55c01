"""nn.init: gains and fans by hand, the distributions' bounds and spreads by statistics."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn
from teachgrad.nn import init


def test_calculate_gain_by_hand():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01**2)))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init.calculate_gain("selu") == 0.75


def test_fans():
    assert init._calculate_fan_in_and_fan_out(torch.empty(3, 5)) == (5, 3)
    assert init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)) == (36, 72)


def test_fill_functions_work_in_place_on_parameters():
    p = nn.Parameter(torch.empty(2, 3))
    version = p._version
    assert init.constant_(p, 0.25) is p
    assert (p.detach() == 0.25).all() and p.is_leaf and p.grad_fn is None
    assert p._version > version  # an in-place change, visible to autograd's checks
    assert (init.zeros_(p).detach() == 0).all() and (init.ones_(p).detach() == 1).all()


def spread_check(values: np.ndarray, std: float) -> None:
    assert abs(values.mean()) < 0.02 * std
    assert abs(values.std() / std - 1) < 0.02


def test_uniform_and_normal():
    torch.manual_seed(0)
    u = init.uniform_(torch.empty(300, 300), -2.0, 3.0).numpy()
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.02
    n = init.normal_(torch.empty(300, 300), 1.0, 0.5).numpy()
    spread_check(n - 1.0, 0.5)


def test_xavier():
    torch.manual_seed(1)
    fan_in, fan_out = 300, 200
    w = init.xavier_uniform_(torch.empty(fan_out, fan_in), gain=2.0).numpy()
    bound = 2.0 * math.sqrt(6 / (fan_in + fan_out))
    assert np.abs(w).max() <= bound
    spread_check(w, bound / math.sqrt(3))
    w = init.xavier_normal_(torch.empty(fan_out, fan_in)).numpy()
    spread_check(w, math.sqrt(2 / (fan_in + fan_out)))


def test_kaiming():
    torch.manual_seed(2)
    w = init.kaiming_uniform_(torch.empty(200, 400), nonlinearity="relu").numpy()
    bound = math.sqrt(2) * math.sqrt(3 / 400)
    assert np.abs(w).max() <= bound
    spread_check(w, bound / math.sqrt(3))
    w = init.kaiming_normal_(torch.empty(400, 200), mode="fan_out", nonlinearity="relu").numpy()
    spread_check(w, math.sqrt(2 / 400))


def test_generator_makes_init_reproducible():
    a = init.normal_(torch.empty(5), generator=torch.Generator().manual_seed(4))
    b = init.normal_(torch.empty(5), generator=torch.Generator().manual_seed(4))
    assert torch.equal(a, b)


def test_zero_element_tensor_is_left_alone_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = init.kaiming_uniform_(torch.empty(0, 3))
    assert t.shape == (0, 3)
    assert [str(w.message) for w in caught] == ["Initializing zero-element tensors is a no-op"]
