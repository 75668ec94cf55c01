"""The reductions added to reduce.py (cummax/cummin, logcumsumexp, aminmax, var_mean/std_mean,
nansum/nanmean) and order_statistics.py (nanmedian, mode, quantile/nanquantile).

Gradients: finite differences (first and second order) and hand derivations. Values,
indices, dtypes, named tuples, grad_fn names and errors: PyTorch (tests marked ``torch``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from parity import same_as_torch, same_error

import teachgrad
from teachgrad.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(21)
NAN = math.nan


def leaf(data, dtype=teachgrad.float64):
    return teachgrad.tensor(data, dtype=dtype, requires_grad=True)


# Distinct values (no ties) so that every picked element is well defined for finite differences.
def distinct(*shape):
    return leaf(RNG.permutation(np.prod(shape)).reshape(shape) * 0.37 + RNG.uniform(0, 0.1))


DIFFERENTIABLE = {
    "cummax": lambda x: teachgrad.cummax(x, 1).values,
    "cummin dim 0": lambda x: x.cummin(0).values,
    "logcumsumexp": lambda x: teachgrad.logcumsumexp(x, 1),
    "logcumsumexp dim 0": lambda x: x.logcumsumexp(-2),
    "aminmax": lambda x: teachgrad.aminmax(x).min * 2 + teachgrad.aminmax(x).max,
    "aminmax dim": lambda x: teachgrad.aminmax(x, dim=1, keepdim=True).max,
    "var_mean": lambda x: sum(teachgrad.var_mean(x, 1, correction=0)),
    "std_mean": lambda x: teachgrad.std_mean(x, (0, 1), keepdim=True)[0] * 3
    - teachgrad.std_mean(x, (0, 1), keepdim=True)[1],
    "std_mean all": lambda x: teachgrad.std_mean(x)[0],
    "nansum": lambda x: teachgrad.nansum(x, 1),
    "nanmean": lambda x: teachgrad.nanmean(x, 0, keepdim=True),
    "nanmedian": lambda x: teachgrad.nanmedian(x),
    "nanmedian dim": lambda x: x.nanmedian(1).values,
    "mode": lambda x: teachgrad.mode(x, 0).values,
    "quantile": lambda x: teachgrad.quantile(x, 0.3),
    "quantile tensor q": lambda x: x.quantile(teachgrad.tensor([0.1, 0.9], dtype=x.dtype), dim=1),
    "quantile keepdim": lambda x: teachgrad.quantile(x, 0.6, dim=0, keepdim=True),
    "nanquantile midpoint": lambda x: x.nanquantile(0.45, 1, interpolation="midpoint"),
    "quantile lower": lambda x: teachgrad.quantile(x, 0.45, 1, interpolation="lower"),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_gradients_match_finite_differences(name):
    x = distinct(3, 4)
    assert gradcheck(DIFFERENTIABLE[name], (x,))
    assert gradgradcheck(DIFFERENTIABLE[name], (x,))


def test_cummax_indices_ties_and_nan_by_hand():
    values, indices = teachgrad.cummax(teachgrad.tensor([1.0, 3.0, 3.0, 2.0, 5.0]), 0)
    assert values.tolist() == [1.0, 3.0, 3.0, 3.0, 5.0]
    assert indices.tolist() == [0, 1, 2, 2, 4]  # a tie takes the newer index
    with_nan = teachgrad.cummin(teachgrad.tensor([1.0, NAN, 0.0, NAN]), 0)
    assert with_nan.indices.tolist() == [0, 1, 1, 3]  # NaN stays; each new NaN takes over
    assert math.isnan(with_nan.values[2].item())


def test_cummax_gradient_goes_to_the_running_maximum():
    x = leaf([1.0, 3.0, 2.0, 5.0])
    teachgrad.cummax(x, 0).values.backward(teachgrad.tensor([1.0, 10.0, 100.0, 1000.0],
                                                            dtype=teachgrad.float64))
    assert x.grad.tolist() == [1.0, 110.0, 0.0, 1000.0]  # the 3 was the max twice


def test_logcumsumexp_is_stable_and_its_gradient_is_a_running_softmax():
    out = teachgrad.logcumsumexp(teachgrad.tensor([1000.0, 1000.0, -math.inf]), 0)
    np.testing.assert_allclose(out.numpy(), [1000.0, 1000.0 + math.log(2), 1000.0 + math.log(2)])
    x = leaf([0.0, math.log(3.0)])
    teachgrad.logcumsumexp(x, 0)[1].backward()  # log(1 + 3): softmax weights 1/4 and 3/4
    np.testing.assert_allclose(x.grad.numpy(), [0.25, 0.75], rtol=1e-15)


def test_aminmax_shares_ties_and_var_mean_by_hand():
    x = leaf([1.0, 5.0, 5.0, 1.0])
    low, high = teachgrad.aminmax(x)
    (low * 2 + high * 3).backward()
    assert x.grad.tolist() == [1.0, 1.5, 1.5, 1.0]
    variance, mean = teachgrad.var_mean(teachgrad.tensor([1.0, 2.0, 3.0, 4.0]))
    assert (round(variance.item(), 6), mean.item()) == (round(5 / 3, 6), 2.5)
    y = leaf([1.0, 3.0])
    variance, mean = teachgrad.var_mean(y, correction=0)  # ((y0−y1)/2)², (y0+y1)/2
    (variance + mean).backward()
    assert y.grad.tolist() == [-1.0 + 0.5, 1.0 + 0.5]


def test_nan_reductions_by_hand():
    x = leaf([[1.0, NAN], [NAN, NAN]])
    total = teachgrad.nansum(x, 1)
    assert total.tolist() == [1.0, 0.0]
    total.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0], [0.0, 0.0]]
    mean = teachgrad.nanmean(teachgrad.tensor([[1.0, NAN, 3.0], [NAN, NAN, NAN]]), 1)
    assert mean[0].item() == 2.0 and math.isnan(mean[1].item())
    y = leaf([1.0, NAN, 2.0, 2.0])
    teachgrad.nanmedian(y).backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.5, 0.5]  # the tie shares, as for median
    assert teachgrad.nansum(teachgrad.tensor([True, True])).dtype == teachgrad.int64


def test_quantile_by_hand():
    x = teachgrad.tensor([1.0, 2.0, 3.0, 4.0])
    # rank q·(n−1) = 0.3·3 = 0.9: 0.9 of the way from 1 to 2
    assert teachgrad.quantile(x, 0.3).item() == pytest.approx(1.9)
    expected = {"linear": 1.9, "lower": 1.0, "higher": 2.0, "midpoint": 1.5, "nearest": 2.0}
    for mode, value in expected.items():
        assert teachgrad.quantile(x, 0.3, interpolation=mode).item() == pytest.approx(value)
    y = leaf([1.0, 5.0, 2.0, 3.0, 8.0])
    teachgrad.quantile(y, 0.3).backward()  # rank 1.2 between the sorted 2 and 3
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.0, 0.8, 0.2, 0.0])
    assert math.isnan(teachgrad.quantile(teachgrad.tensor([1.0, NAN]), 0.5).item())
    assert teachgrad.nanquantile(teachgrad.tensor([1.0, NAN, 3.0]), 0.5).item() == 2.0


def test_mode_picks_the_smallest_most_frequent_value():
    values, indices = teachgrad.tensor([[1, 2, 2, 3, 3], [5, 5, 1, 1, 0]]).mode()
    assert values.tolist() == [2, 1] and indices.tolist() == [2, 3]


# ----------------------------------------------------------------------------------------
# Parity with PyTorch
# ----------------------------------------------------------------------------------------
def _data(*shape, dtype=np.float64):
    return (RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.37 - 1.0).astype(dtype)


WITH_NAN = np.array([[3.0, 1.0, 4.0, 1.5], [NAN, 2.0, 0.0, 5.0], [NAN, NAN, NAN, NAN]])
TIES = np.array([[1.0, 3.0, 3.0, 2.0, 5.0, 5.0], [2.0, 2.0, 1.0, 1.0, 1.0, 0.0]])

PARITY = {
    "cummax": (lambda lib, x: lib.cummax(x, 1), (TIES,)),
    "cummin": (lambda lib, x: x.cummin(dim=0), (TIES,)),
    "cummax nan": (lambda lib, x: lib.cummax(x, 1), (WITH_NAN[:2],)),
    "cummax int": (lambda lib, x: lib.cummax(x, 0), (np.array([1, 3, 2, 3]),)),
    "cummin bool": (lambda lib, x: lib.cummin(x, 0), (np.array([True, False, True]),)),
    "cummax 0-d": (lambda lib, x: lib.cummax(x, 0), (np.array(2.0),)),
    "cummax empty": (lambda lib, x: lib.cummax(x, 1), (np.zeros((0, 3)),)),
    "logcumsumexp": (lambda lib, x: lib.logcumsumexp(x, 1), (_data(3, 4),)),
    "logcumsumexp f32": (lambda lib, x: x.logcumsumexp(0), (_data(5, dtype=np.float32),)),
    "logcumsumexp inf": (lambda lib, x: lib.logcumsumexp(x, 0),
                         (np.array([-np.inf, 1.0, -np.inf, 1000.0]),)),
    "aminmax": (lambda lib, x: lib.aminmax(x), (_data(3, 4),)),
    "aminmax dim": (lambda lib, x: lib.aminmax(x, dim=0, keepdim=True), (_data(3, 4),)),
    "aminmax keepdim": (lambda lib, x: x.aminmax(keepdim=True), (_data(2, 3),)),
    "aminmax ties": (lambda lib, x: lib.aminmax(x, dim=1), (TIES,)),
    "aminmax int": (lambda lib, x: lib.aminmax(x), (np.array([[3, -1], [7, 2]]),)),
    "var_mean": (lambda lib, x: lib.var_mean(x, 1), (_data(3, 4),)),
    "var_mean correction": (lambda lib, x: lib.var_mean(x, dim=(0, 1), correction=0),
                            (_data(3, 4),)),
    "std_mean unbiased": (lambda lib, x: lib.std_mean(x, 0, False, True), (_data(3, 4),)),
    "std_mean bool": (lambda lib, x: lib.std_mean(x, False), (_data(3, 4),)),
    "std_mean f32": (lambda lib, x: lib.std_mean(x, -1), (_data(2, 5, dtype=np.float32),)),
    "nansum": (lambda lib, x: lib.nansum(x, 1), (WITH_NAN,)),
    "nansum all": (lambda lib, x: x.nansum(), (WITH_NAN,)),
    "nansum keepdim": (lambda lib, x: lib.nansum(x, 0, keepdim=True), (WITH_NAN,)),
    "nansum int32": (lambda lib, x: lib.nansum(x), (np.array([1, 2], np.int32),)),
    "nansum dtype": (lambda lib, x: lib.nansum(x, dtype=lib.float64),
                     (WITH_NAN.astype(np.float32),)),
    "nanmean": (lambda lib, x: lib.nanmean(x, 1), (WITH_NAN,)),
    "nanmean all": (lambda lib, x: x.nanmean(), (WITH_NAN,)),
    "nanmedian": (lambda lib, x: lib.nanmedian(x), (WITH_NAN[:2],)),
    "nanmedian dim": (lambda lib, x: lib.nanmedian(x, 1), (WITH_NAN[:2],)),
    "nanmedian keepdim": (lambda lib, x: x.nanmedian(0, True), (_data(4, 3),)),
    "nanmedian int": (lambda lib, x: lib.nanmedian(x), (np.array([3, 1, 2, 4]),)),
    "nanmedian all nan": (lambda lib, x: lib.nanmedian(x), (np.array([NAN, NAN]),)),
    "mode": (lambda lib, x: lib.mode(x), (TIES,)),
    "mode dim 0": (lambda lib, x: x.mode(0, keepdim=True), (np.array([[3, 1], [1, 1], [3, 2]]),)),
    "mode 0-d": (lambda lib, x: lib.mode(x), (np.array(2.0),)),
}

for _mode in ("linear", "lower", "higher", "midpoint", "nearest"):
    PARITY[f"quantile {_mode}"] = (
        lambda lib, x, mode=_mode: lib.quantile(
            x, lib.tensor([0.0, 0.25, 0.4, 0.5, 1.0], dtype=x.dtype), dim=1, interpolation=mode),
        (_data(3, 6),))
    PARITY[f"nanquantile {_mode}"] = (
        lambda lib, x, mode=_mode: lib.nanquantile(
            x, lib.tensor([0.0, 0.25, 0.4, 0.5, 1.0], dtype=x.dtype), dim=1, interpolation=mode),
        (WITH_NAN[:2],))
PARITY.update({
    "quantile nan": (lambda lib, x: lib.quantile(x, 0.5, dim=1), (WITH_NAN,)),
    "quantile all": (lambda lib, x: x.quantile(0.3), (_data(3, 4),)),
    "quantile keepdim": (lambda lib, x: lib.quantile(x, 0.5, keepdim=True), (_data(3, 4),)),
    "quantile q keepdim": (lambda lib, x: lib.quantile(x, lib.tensor([0.5, 0.2]), 0, True),
                           (_data(3, 4, dtype=np.float32),)),
    "quantile 0-d q": (lambda lib, x: lib.quantile(x, lib.tensor(0.5), dim=0),
                       (_data(3, 4, dtype=np.float32),)),
    "quantile nearest halves": (
        lambda lib, x: lib.quantile(x, lib.tensor([0.125, 0.375, 0.625, 0.875]),
                                    interpolation="nearest"),
        (np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32),)),
    "quantile 0-d": (lambda lib, x: lib.quantile(x, 0.5), (np.array(3.0),)),
})


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(PARITY))
def test_matches_torch(case):
    expr, arrays = PARITY[case]
    f32 = any(a.dtype == np.float32 for a in arrays)
    same_as_torch(expr, *arrays, rtol=1e-5 if f32 else 1e-12, atol=1e-6 if f32 else 1e-12)


@pytest.mark.torch
def test_quantile_graph_top_matches_torch():
    same_as_torch(lambda lib, x: lib.quantile(x, 0.3), _data(3, 4))
    same_as_torch(lambda lib, x: lib.quantile(x, lib.tensor([0.3, 0.8], dtype=x.dtype), dim=1),
                  _data(3, 4))


ERRORS = {
    "cummax dim": (lambda lib, x: lib.cummax(x, 1), (_data(3),)),
    "logcumsumexp int": (lambda lib, x: lib.logcumsumexp(x, 0), (np.array([1, 2]),)),
    "aminmax empty": (lambda lib, x: lib.aminmax(x), (np.zeros(0),)),
    "aminmax empty dim": (lambda lib, x: lib.aminmax(x, dim=1), (np.zeros((2, 0)),)),
    "aminmax positional dim": (lambda lib, x: lib.aminmax(x, 0), (_data(2),)),
    "var_mean int": (lambda lib, x: lib.var_mean(x), (np.array([1, 2]),)),
    "nanmean int": (lambda lib, x: lib.nanmean(x), (np.array([1, 2]),)),
    "mode empty": (lambda lib, x: lib.mode(x), (np.zeros(0),)),
    "quantile q range": (lambda lib, x: lib.quantile(x, 1.5), (_data(3),)),
    "quantile q tensor range": (lambda lib, x: lib.quantile(x, lib.tensor([1.5])), (_data(3),)),
    "quantile q 2-d": (lambda lib, x: lib.quantile(x, lib.tensor([[0.5]])), (_data(3),)),
    "quantile q dtype": (lambda lib, x: lib.quantile(x, lib.tensor([0.5])), (_data(3),)),
    "quantile ints": (lambda lib, x: lib.quantile(x, 0.5), (np.array([1, 2]),)),
    "quantile empty": (lambda lib, x: lib.quantile(x, 0.5), (np.zeros(0),)),
    "quantile interpolation": (lambda lib, x: lib.quantile(x, 0.5, interpolation="foo"),
                               (_data(3),)),
    "quantile list": (lambda lib, x: lib.quantile(x, [0.5]), (_data(3),)),
    "nanquantile q range": (lambda lib, x: lib.nanquantile(x, -0.1), (_data(3),)),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    expr, arrays = ERRORS[case]
    same_error(expr, *arrays)
