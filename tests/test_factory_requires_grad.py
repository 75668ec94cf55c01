"""``requires_grad=`` on the factories that take it (``linspace``, ``randint``, the
``*_like`` functions ...), and the dtypes the random ones refuse, as in PyTorch 2.13.

The rule: a factory's result is a leaf that requires grad exactly when asked, and only a
floating-point one may ("Only Tensors of floating point and complex dtype can require
gradients"); ``rand``/``randn``/``normal`` draw floats only (an integer dtype is
PyTorch's NotImplementedError naming the sampling kernel, before the gradient check).
"""

from __future__ import annotations

import pytest

import teachgrad

ONLY_FLOAT = "Only Tensors of floating point and complex dtype can require gradients"


def _calls(lib):
    f, i = lib.ones(3), lib.ones(3, dtype=lib.int64)
    return {
        "linspace": lambda: lib.linspace(0, 1, 3, requires_grad=True),
        "linspace_int": lambda: lib.linspace(0, 1, 3, dtype=lib.int64, requires_grad=True),
        "logspace": lambda: lib.logspace(0, 1, 3, requires_grad=True),
        "logspace_int": lambda: lib.logspace(0, 1, 3, dtype=lib.int64, requires_grad=True),
        "randint": lambda: lib.randint(0, 5, (3,), requires_grad=True),
        "randint_float": lambda: lib.randint(0, 5, (3,), dtype=lib.float32, requires_grad=True),
        "randperm": lambda: lib.randperm(3, requires_grad=True),
        "randperm_float": lambda: lib.randperm(3, dtype=lib.float64, requires_grad=True),
        "normal_numbers": lambda: lib.normal(0.0, 1.0, (3,), requires_grad=True),
        "normal_numbers_int": lambda: lib.normal(0.0, 1.0, (3,), dtype=lib.int64),
        "normal_tensors_flag": lambda: lib.normal(f, f, requires_grad=True),
        "normal_tensor_flag_false": lambda: lib.normal(f, requires_grad=False),
        "normal_number_tensor_dtype": lambda: lib.normal(0.0, f, dtype=lib.float64),
        "normal_tensor_size": lambda: lib.normal(f, 1.0, (3,)),
        "normal_numbers_no_size": lambda: lib.normal(0.0, 1.0),
        "normal_int_tensor": lambda: lib.normal(i, 1.0),
        "rand_int": lambda: lib.rand(2, dtype=lib.int32),
        "rand_bool": lambda: lib.rand(2, dtype=lib.bool),
        "randn_int_flag": lambda: lib.randn(2, dtype=lib.int64, requires_grad=True),
        **{f"{name}{suffix}": (lambda name=name, x=x: getattr(lib, name)(
            *((x, 2) if name in ("full_like", "randint_like") else (x,)),
            requires_grad=True))
           for name in ("zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
                        "randint_like", "empty_like")
           for suffix, x in (("", f), ("_int", i))},
        "zeros_like_int_as_float": lambda: lib.zeros_like(i, dtype=lib.float32,
                                                          requires_grad=True),
        "randint_like_low_high": lambda: lib.randint_like(f, 1, 5, requires_grad=True),
        "ones_like_of_a_grad_tensor": lambda: lib.ones_like(lib.ones(1, requires_grad=True)),
    }


def _outcome(make):
    try:
        t = make()
    except Exception as error:  # noqa: BLE001 - the outcome is what is compared
        return type(error).__name__, str(error).split("Hint:")[0].rstrip("\n")
    return str(t.dtype).split(".")[-1], t.requires_grad, t.is_leaf


def test_factories_requires_grad_as_pytorch():
    real = pytest.importorskip("torch")
    ours, theirs = _calls(teachgrad), _calls(real)
    for name in ours:
        assert _outcome(ours[name]) == _outcome(theirs[name]), name


@pytest.mark.parametrize("name", ["linspace", "logspace", "randint_float", "randperm_float",
                                  "normal_numbers", "zeros_like", "ones_like", "full_like",
                                  "rand_like", "randn_like", "randint_like", "empty_like",
                                  "zeros_like_int_as_float", "randint_like_low_high"])
def test_a_float_result_is_a_leaf_that_requires_grad(name):
    t = _calls(teachgrad)[name]()
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    assert t.dtype.is_floating_point


@pytest.mark.parametrize("name", ["linspace_int", "logspace_int", "randint", "randperm",
                                  "zeros_like_int", "ones_like_int", "full_like_int",
                                  "randint_like_int", "empty_like_int"])
def test_an_integer_result_may_not_require_grad(name):
    with pytest.raises(RuntimeError, match=ONLY_FLOAT):
        _calls(teachgrad)[name]()


@pytest.mark.parametrize("name, kernel, type_name", [
    ("rand_int", "check_uniform_bounds", "Int"), ("rand_bool", "check_uniform_bounds", "Bool"),
    ("rand_like_int", "check_uniform_bounds", "Long"),
    ("randn_int_flag", "normal_kernel_cpu", "Long"),  # (before the gradient check)
    ("randn_like_int", "normal_kernel_cpu", "Long"),
    ("normal_numbers_int", "normal_kernel_cpu", "Long"),
    ("normal_int_tensor", "normal_kernel_cpu", "Long"),
])
def test_random_floats_refuse_other_dtypes(name, kernel, type_name):
    with pytest.raises(NotImplementedError) as caught:
        _calls(teachgrad)[name]()
    assert str(caught.value).startswith(f'"{kernel}" not implemented for \'{type_name}\'')
    assert "Hint:" in str(caught.value)


@pytest.mark.parametrize("name, got", [
    ("normal_tensors_flag", "(Tensor, Tensor, requires_grad=bool)"),
    ("normal_tensor_flag_false", "(Tensor, requires_grad=bool)"),
    ("normal_number_tensor_dtype", "(float, Tensor, dtype=torch.dtype)"),
])
def test_normal_with_a_tensor_takes_no_factory_keywords(name, got):
    with pytest.raises(TypeError) as caught:
        _calls(teachgrad)[name]()
    message = str(caught.value)
    assert message.startswith(f"normal() received an invalid combination of arguments - got "
                              f"{got}, but expected one of:\n * (Tensor mean, Tensor std, ")
    assert "bool requires_grad = False)\nHint:" in message


def test_normal_with_numbers_needs_a_size():
    with pytest.raises(TypeError, match="invalid combination of arguments - got "
                                        r"\(float, float\)"):
        teachgrad.normal(0.0, 1.0)
    assert teachgrad.normal(teachgrad.zeros(2, 3), 1.0).shape == (2, 3)
    assert teachgrad.normal(0.0, teachgrad.ones(4)).shape == (4,)
