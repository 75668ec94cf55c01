"""A bool is not an int and an int is not a bool, for PyTorch's argument parser:
``x.sum(0, keepdim=1)`` and ``x.topk(True)`` are TypeErrors there, though Python would
take ``1`` for ``True`` and ``True`` for ``1``. teachgrad refuses them with the same words.

The plain tests check the messages derived from the rule ("argument 'keepdim' must be
bool, not int"); the torch-marked one runs every call with both libraries and compares.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad

CALLS = {
    # keepdim takes a bool only
    "sum": lambda lib, x: x.sum(0, keepdim=1),
    "sum_positional": lambda lib, x: x.sum(0, 1),
    "sum_function": lambda lib, x: lib.sum(x, 0, keepdim=0),
    "sum_numpy_bool": lambda lib, x: x.sum(0, keepdim=np.True_),
    "sum_tensor_bool": lambda lib, x: x.sum(0, keepdim=lib.tensor(True)),
    "mean": lambda lib, x: x.mean(0, keepdim=1),
    "prod": lambda lib, x: x.prod(0, keepdim=1),
    "max": lambda lib, x: x.max(0, keepdim=1),
    "min": lambda lib, x: x.min(0, keepdim=1),
    "amax": lambda lib, x: x.amax(0, keepdim=1),
    "argmax": lambda lib, x: x.argmax(0, keepdim=1),
    "argmin": lambda lib, x: x.argmin(0, keepdim=1),
    "logsumexp": lambda lib, x: x.logsumexp(0, keepdim=1),
    "median": lambda lib, x: x.median(0, keepdim=1),
    "nanmedian": lambda lib, x: x.nanmedian(0, keepdim=1),
    "mode": lambda lib, x: x.mode(0, keepdim=1),
    "kthvalue_keepdim": lambda lib, x: x.kthvalue(1, 0, keepdim=1),
    "nansum": lambda lib, x: x.nansum(0, keepdim=1),
    "nanmean": lambda lib, x: x.nanmean(0, keepdim=1),
    "aminmax": lambda lib, x: x.aminmax(dim=0, keepdim=1),
    "var_keepdim": lambda lib, x: x.var(0, keepdim=1),
    # (x.var(unbiased=1) is refused too, but PyTorch's last line then names "unbiased" as
    # an incorrect keyword, which teachgrad's message does not reproduce)
    "std_unbiased": lambda lib, x: x.std(0, unbiased=0),
    # largest / sorted / descending / stable take a bool only
    "topk_largest": lambda lib, x: x.topk(1, largest=1),
    "topk_sorted": lambda lib, x: x.topk(1, sorted=0),
    "sort_descending": lambda lib, x: x.sort(descending=1),
    "sort_stable": lambda lib, x: x.sort(stable=1),
    "argsort_descending": lambda lib, x: x.argsort(descending=1),
    "argsort_dim_true": lambda lib, x: x.argsort(True),
    "argsort_function": lambda lib, x: lib.argsort(x, 0, 1),
    # an int (a dim, k, a diagonal ...) takes no bool
    "topk_k": lambda lib, x: x.topk(True),
    "topk_dim": lambda lib, x: x.topk(1, True),
    "kthvalue_k": lambda lib, x: x.kthvalue(True),
    "sum_dim": lambda lib, x: x.sum(True),
    "argmax_dim": lambda lib, x: x.argmax(True),
    "cummax_dim": lambda lib, x: x.cummax(True),
    "cummin_function": lambda lib, x: lib.cummin(x, True),
    "logcumsumexp_dim": lambda lib, x: x.logcumsumexp(True),
    "tril": lambda lib, x: x.tril(True),
    "triu_function": lambda lib, x: lib.triu(x, True),
    "round_decimals": lambda lib, x: x.round(decimals=True),
    "chunk": lambda lib, x: x.chunk(True),
    "cat": lambda lib, x: lib.cat([x, x], True),
    "cat_keyword": lambda lib, x: lib.cat([x, x], dim=True),
    "stack": lambda lib, x: lib.stack([x, x], True),
    "select": lambda lib, x: x.select(True, 0),
    "select_function": lambda lib, x: lib.select(x, True, 0),
    "diff": lambda lib, x: x.diff(True),
    "diff_function": lambda lib, x: lib.diff(x, True),
    "movedim": lambda lib, x: x.movedim(True, 0),
    "count_nonzero": lambda lib, x: x.count_nonzero(True),
    "repeat": lambda lib, x: x.repeat(True, 1),
    "reshape": lambda lib, x: x.reshape(True, 6),
    "permute": lambda lib, x: x.permute(True, 0),
    "ones": lambda lib, x: lib.ones(True),
    "full": lambda lib, x: lib.full((True,), 1.0),
    "eye": lambda lib, x: lib.eye(True),
    "eye_m": lambda lib, x: lib.eye(2, True),
    "eye_float": lambda lib, x: lib.eye(2.0),
    "randperm": lambda lib, x: lib.randperm(True),
    "randperm_float": lambda lib, x: lib.randperm(2.0),
    "randint_high": lambda lib, x: lib.randint(0, True, (2,)),
    "randint_low": lambda lib, x: lib.randint(True, 5, (2,)),
    "multinomial": lambda lib, x: lib.multinomial(lib.ones(3), True),
    # these are fine in both (a bool where a bool goes; ints after the first in a size)
    "fine_keepdim": lambda lib, x: x.sum(0, keepdim=True),
    "fine_var_unbiased_positional": lambda lib, x: x.var(True),
    "fine_zeros_later_bool": lambda lib, x: lib.zeros(2, True),
    "fine_topk": lambda lib, x: x.topk(1, 0, False, True),
    "fine_numpy_int_dim": lambda lib, x: x.sum(np.int64(0)),
    "fine_cat_axis": lambda lib, x: lib.cat([x, x], axis=1),
    "fine_movedim_tuples": lambda lib, x: x.movedim((0, 1), (1, 0)),
    "fine_count_nonzero_tuple": lambda lib, x: x.count_nonzero((0, 1)),
}


def _outcome(lib, call):
    x = lib.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    try:
        call(lib, x)
    except TypeError as error:
        return str(error).split("Hint:")[0].rstrip("\n")
    return "ok"


@pytest.mark.parametrize("name", CALLS)
def test_bool_int_arguments_as_pytorch(name):
    real = pytest.importorskip("torch")
    assert _outcome(teachgrad, CALLS[name]) == _outcome(real, CALLS[name])


@pytest.mark.parametrize("name, message", [
    ("sum", "sum(): argument 'keepdim' must be bool, not int"),
    ("sum_positional", "sum(): argument 'keepdim' (position 2) must be bool, not int"),
    ("sum_numpy_bool", "sum(): argument 'keepdim' must be bool, not numpy.bool"),
    ("sum_tensor_bool", "sum(): argument 'keepdim' must be bool, not Tensor"),
    ("median", "median(): argument 'keepdim' must be bool, not int"),
    ("topk_largest", "topk(): argument 'largest' must be bool, not int"),
    ("topk_k", "topk(): argument 'k' (position 1) must be int, not bool"),
    ("kthvalue_k", "kthvalue(): argument 'k' (position 1) must be int, not bool"),
    ("cummax_dim", "cummax(): argument 'dim' (position 1) must be int, not bool"),
    ("tril", "tril(): argument 'diagonal' (position 1) must be int, not bool"),
    ("round_decimals", "round(): argument 'decimals' must be int, not bool"),
    ("ones", "ones(): argument 'size' (position 1) must be tuple of ints, not bool"),
    ("randperm", "randperm(): argument 'n' (position 1) must be int, not bool"),
    ("randperm_float", "randperm(): argument 'n' (position 1) must be int, not float"),
    ("multinomial", "multinomial(): argument 'num_samples' (position 2) must be int, not bool"),
])
def test_the_messages(name, message):
    assert _outcome(teachgrad, CALLS[name]) == message


def test_sort_with_an_int_flag_lists_both_signatures():
    message = _outcome(teachgrad, CALLS["argsort_descending"])
    assert message.startswith("argsort() received an invalid combination of arguments - got "
                              "(descending=int, ), but expected one of:\n"
                              " * (*, bool stable, int dim = -1, bool descending = False)\n")


def test_correct_calls_still_work():
    x = teachgrad.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    assert x.sum(1, keepdim=True).tolist() == [[6.0], [9.0]]
    assert x.topk(1, 0, False, True).values.tolist() == [[0.0, 1.0, 2.0]]
    assert x.var(True).item() == pytest.approx(np.var(x.tolist(), ddof=1))
    assert teachgrad.zeros(2, True).shape == (2, 1)  # PyTorch reads only the first as a size
    assert x.argsort(1, True).tolist() == [[0, 2, 1], [1, 2, 0]]
    assert teachgrad.randint(teachgrad.tensor(3), (4,)).shape == (4,)
