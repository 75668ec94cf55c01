"""teachgrad has no complex dtypes: every way a complex number gets in gives a clear error.

Before, ``torch.full((2,), 1j)`` and ``x.fill_(1j)`` quietly dropped the imaginary part,
``torch.tensor(np.array([1j]))`` made a tensor that could not even print, and ``x * 1j``
failed with an AttributeError from deep inside ``Op.apply``. Now:

* where PyTorch would make a complex tensor, teachgrad says it has no complex dtypes (its
  own message: PyTorch has none to copy);
* where PyTorch refuses too (a complex value written into a real tensor, a complex
  ``alpha``), teachgrad raises PyTorch's error, word for word;
* comparisons that PyTorch answers (``x == 1j``) are answered.

The expected messages are written out here; where PyTorch is installed, its message is
checked to be the same.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad

REFUSED = "teachgrad has no complex dtypes, and {} would make a complex tensor"


def _run(code: str, torch):
    x = torch.ones(2)
    xi = torch.ones(2, dtype=torch.int64)
    return eval(code, {"torch": torch, "np": np, "x": x, "xi": xi})  # noqa: S307


# PyTorch makes a complex tensor here; teachgrad refuses, naming what was complex.
PYTORCH_WOULD_MAKE_COMPLEX = [
    ("torch.tensor(1+2j)", "the number (1+2j)"),
    ("torch.tensor([[1.0, 2.0], [3.0, 1j]])", "the number 1j"),
    ("torch.as_tensor([1j])", "the number 1j"),
    ("torch.tensor(np.array([1j]))", "an array of dtype complex128"),
    ("torch.from_numpy(np.array([1j], dtype=np.complex64))", "an array of dtype complex64"),
    ("torch.as_tensor(np.array([1j]))", "an array of dtype complex128"),
    ("x * 1j", "the number 1j"),
    ("1j * x", "the number 1j"),
    ("x + (1+1j)", "the number (1+1j)"),
    ("1j - x", "the number 1j"),
    ("x / 1j", "the number 1j"),
    ("x ** 1j", "the number 1j"),
    ("2j ** x", "the number 2j"),
    ("xi * 1j", "the number 1j"),
    ("x * np.complex64(1j)", "the number np.complex64(1j)"),
    ("x + np.array([1j, 2])", "an array of dtype complex128"),
    ("torch.where(x > 0, x, 1j)", "the number 1j"),
    ("torch.full((2,), 1j)", "the fill value 1j"),
    ("torch.linspace(0, 1j, 3)", "the end point 1j"),
]


@pytest.mark.parametrize(("code", "what"), PYTORCH_WOULD_MAKE_COMPLEX)
def test_what_pytorch_makes_complex_is_refused_with_a_hint(code, what):
    with pytest.raises(RuntimeError) as error:
        _run(code, teachgrad)
    sentence, hint = str(error.value).split("\n")
    assert sentence == REFUSED.format(what)
    assert hint.startswith("Hint: teachgrad's tensors are real")


@pytest.mark.parametrize(("code", "what"), PYTORCH_WOULD_MAKE_COMPLEX[:6])
def test_pytorch_does_make_a_complex_tensor_there(code, what):
    torch = pytest.importorskip("torch")
    assert _run(code, torch).is_complex()


# PyTorch refuses these too (the result would be real): its words.
PYTORCH_REFUSES = [
    ("x.fill_(1j)", RuntimeError, "value cannot be converted to type float without overflow"),
    ("x.double().fill_(1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    ("x.masked_fill(x > 0, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("x.__setitem__(0, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.full_like(x, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("x.new_full((2,), 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.full((2,), 1j, dtype=torch.float64)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    ("torch.scalar_tensor(1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.scalar_tensor(1j, dtype=torch.int32)", RuntimeError,
     "value cannot be converted to type int without overflow"),
    ("torch.ones(2, dtype=torch.int32).fill_(float('inf'))", RuntimeError,
     "value cannot be converted to type int without overflow"),
    ("torch.arange(1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    ("torch.arange(0, 3, 1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    ("torch.lerp(x, x, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.addcmul(x, x, x, value=1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.addcdiv(x, x, x, value=1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("x.index_fill(0, torch.tensor([0]), 1j)", RuntimeError,
     "index_fill_(): Converting complex Scalar to non-complex type is not supported"),
    ("torch.isclose(x, x, rtol=1j)", TypeError,
     "isclose(): argument 'rtol' must be float, not complex"),
    ("torch.linspace(0, 1j, 3, dtype=torch.float64)", RuntimeError,
     "torch.linspace(): inferred dtype c10::complex<float> can't be safely cast to passed "
     "dtype Double"),
    ("torch.logspace(0, 1j, 3, dtype=torch.float32)", RuntimeError,
     "torch.logspace(): inferred dtype c10::complex<float> can't be safely cast to passed "
     "dtype Float"),
    ("x.add(x, alpha=1j)", RuntimeError,
     "For non-complex input tensors, argument alpha must not be a complex number."),
    # a complex number argument of an op (Op.apply checks them all: one mechanism)
    ("torch.nn.functional.threshold(x, 1j, 2.)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.nn.functional.leaky_relu(x, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.nn.functional.elu(x, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.nn.functional.softplus(x, beta=1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.nn.functional.hardshrink(x, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
    ("torch.nn.init.constant_(x, 1j)", RuntimeError,
     "value cannot be converted to type float without overflow"),
]


@pytest.mark.parametrize(("code", "kind", "message"), PYTORCH_REFUSES)
def test_pytorch_errors_are_pytorch_words(code, kind, message):
    with pytest.raises(kind) as error:
        _run(code, teachgrad)
    assert str(error.value) == message


@pytest.mark.parametrize(("code", "kind", "message"), PYTORCH_REFUSES)
def test_pytorch_says_the_same(code, kind, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind) as error:
        _run(code, torch)
    assert str(error.value).split("\n")[0] == message


def test_a_refused_fill_changes_nothing():
    x = teachgrad.tensor([1.0, 2.0])
    version = x._version
    for fill in (lambda: x.fill_(1j), lambda: x.masked_fill_(x > 0, 1j),
                 lambda: x.__setitem__(0, 1j)):
        with pytest.raises(RuntimeError):
            fill()
    assert x.tolist() == [1.0, 2.0]
    assert x._version == version


def test_a_bool_tensor_takes_a_complex_fill_as_true():
    # As in PyTorch: any nonzero number is True.
    assert teachgrad.zeros(2, dtype=teachgrad.bool).fill_(1j).tolist() == [True, True]
    assert teachgrad.full((2,), 1j, dtype=teachgrad.bool).tolist() == [True, True]


def test_equality_with_a_complex_number_is_answered():
    x = teachgrad.tensor([2.0, 3.0])
    assert (x == 1j).tolist() == [False, False]
    assert (x == 2 + 0j).tolist() == [True, False]
    assert (x != 2 + 0j).tolist() == [False, True]
    assert teachgrad.ne(x, 1j).tolist() == [True, True]


def test_complex_only_names_say_why_they_are_missing():
    for name in ("complex64", "cfloat", "view_as_complex", "fft"):
        with pytest.raises(AttributeError, match="teachgrad has no complex dtypes"):
            getattr(teachgrad, name)
        assert not hasattr(teachgrad, name)
    with pytest.raises(AttributeError) as error:
        teachgrad.no_such_function  # noqa: B018
    assert str(error.value) == "module 'teachgrad' has no attribute 'no_such_function'"


# --- add/sub's alpha: PyTorch's alpha_check ----------------------------------------------
ALPHA_ERRORS = [
    ("xi.add(xi, alpha=1.5)",
     "For integral input tensors, argument alpha must not be a floating point number."),
    ("xi.sub(xi, alpha=1.5)",
     "For integral input tensors, argument alpha must not be a floating point number."),
    ("torch.add(xi, 2, alpha=0.5)",
     "For integral input tensors, argument alpha must not be a floating point number."),
    ("torch.rsub(xi, 2, alpha=0.5)",
     "For integral input tensors, argument alpha must not be a floating point number."),
    ("xi.add(1, alpha=1.0)",
     "For integral input tensors, argument alpha must not be a floating point number."),
    ("x.add(x, alpha=True)", "Boolean alpha only supported for Boolean results."),
]


@pytest.mark.parametrize(("code", "message"), ALPHA_ERRORS)
def test_alpha_is_checked_against_the_result_dtype(code, message):
    with pytest.raises(RuntimeError) as error:
        _run(code, teachgrad)
    assert str(error.value).split("\n")[0] == message
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as error:
        _run(code, torch)
    assert str(error.value) == message


def test_alphas_pytorch_accepts():
    x = teachgrad.tensor([1.0, 2.0])
    i = teachgrad.tensor([1, 2])
    assert x.add(x, alpha=0.5).tolist() == [1.5, 3.0]
    assert x.sub(x, alpha=2).tolist() == [-1.0, -2.0]
    assert i.add(i, alpha=3).tolist() == [4, 8]
    assert i.add(i, alpha=3).dtype is teachgrad.int64
    assert i.add(x, alpha=0.5).tolist() == [1.5, 3.0]  # the result is float: a float alpha
    assert x.add(x, alpha=teachgrad.tensor(2.0)).tolist() == [3.0, 6.0]
    # bool + alpha·bool stays bool: "or", where alpha is nonzero
    t, f = teachgrad.tensor([True, False]), teachgrad.tensor([False, False])
    assert f.add(t, alpha=2).tolist() == [True, False]
    assert f.add(t, alpha=2).dtype is teachgrad.bool
    assert f.add(t, alpha=0).tolist() == [False, False]
    assert t.add(t, alpha=True).tolist() == [True, False]


def test_alpha_gradients_are_scaled():
    a = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    b = teachgrad.tensor([3.0, 4.0], requires_grad=True)
    a.sub(b, alpha=0.5).sum().backward()  # d/db of a - 0.5 b is -0.5
    assert a.grad.tolist() == [1.0, 1.0]
    assert b.grad.tolist() == [-0.5, -0.5]


# nn.functional's real parameters given a complex number: PyTorch's argument parser
# ("must be float, not complex", at the position PyTorch's Python passes it), its
# kernels' conversion to double, or its own words (one mechanism:
# _input_check.refuses_complex). teachgrad adds a Hint line.
_X = "torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.3, -0.2]])"
_Y = "torch.tensor([[0.1, -0.5, 1.0], [0.2, 0.3, 0.4]])"
_F = "torch.nn.functional."
NN_SCALARS = [
    (f"{_F}smooth_l1_loss({_X}, {_Y}, beta=1j)", TypeError,
     "smooth_l1_loss(): argument 'beta' (position 4) must be float, not complex"),
    (f"{_F}huber_loss({_X}, {_Y}, delta=1j)", TypeError,
     "huber_loss(): argument 'delta' (position 4) must be float, not complex"),
    (f"{_F}margin_ranking_loss({_X}, {_Y}, {_Y}, margin=1j)", TypeError,
     "margin_ranking_loss(): argument 'margin' (position 4) must be float, not complex"),
    (f"{_F}hinge_embedding_loss({_X}, {_Y}, 1j)", TypeError,
     "hinge_embedding_loss(): argument 'margin' (position 3) must be float, not complex"),
    (f"{_F}cosine_embedding_loss({_X}, {_Y}, torch.tensor([1., -1.]), margin=1j)", TypeError,
     "cosine_embedding_loss(): argument 'margin' (position 4) must be float, not complex"),
    (f"{_F}triplet_margin_loss({_X}, {_Y}, {_Y}, p=1j)", TypeError,
     "triplet_margin_loss(): argument 'p' (position 5) must be float, not complex"),
    (f"{_F}triplet_margin_loss({_X}, {_Y}, {_Y}, eps=1j)", TypeError,
     "triplet_margin_loss(): argument 'eps' (position 6) must be float, not complex"),
    (f"{_F}poisson_nll_loss({_X}, {_Y}, eps=1j)", TypeError,
     "poisson_nll_loss(): argument 'eps' (position 5) must be float, not complex"),
    (f"{_F}cross_entropy({_X}, torch.tensor([0, 2]), label_smoothing=1j)", TypeError,
     "cross_entropy_loss(): argument 'label_smoothing' (position 6) must be float, not "
     "complex"),
    (f"{_F}pairwise_distance({_X}, {_Y}, p=1j)", TypeError,
     "pairwise_distance(): argument 'p' must be float, not complex"),
    (f"{_F}pairwise_distance({_X}, {_Y}, 1j)", TypeError,
     "pairwise_distance(): argument 'p' (position 3) must be float, not complex"),
    (f"{_F}cosine_similarity({_X}, {_Y}, eps=1j)", TypeError,
     "cosine_similarity(): argument 'eps' must be float, not complex"),
    (f"{_F}pdist({_X}, p=1j)", TypeError, "pdist(): argument 'p' must be float, not complex"),
    (f"{_F}layer_norm({_X}, (3,), eps=1j)", TypeError,
     "layer_norm(): argument 'eps' (position 5) must be float, not complex"),
    (f"{_F}rms_norm({_X}, (3,), eps=1j)", TypeError,
     "rms_norm(): argument 'eps' (position 4) must be float, not complex"),
    (f"{_F}group_norm(torch.ones(1, 2, 4), 1, eps=1j)", TypeError,
     "group_norm(): argument 'eps' (position 5) must be float, not complex"),
    (f"{_F}instance_norm(torch.ones(1, 2, 4), eps=1j)", TypeError,
     "instance_norm(): argument 'eps' (position 8) must be float, not complex"),
    (f"{_F}batch_norm({_X}, torch.zeros(3), torch.ones(3), training=True, momentum=1j)",
     TypeError, "batch_norm(): argument 'momentum' (position 7) must be float, not complex"),
    (f"{_F}batch_norm({_X}, torch.zeros(3), torch.ones(3), eps=1j)", TypeError,
     "'<' not supported between instances of 'complex' and 'float'"),
    (f"{_F}pad({_X}, (1, 1), value=1j)", TypeError,
     "pad(): argument 'value' (position 4) must be float, not complex"),
    (f"{_F}embedding(torch.tensor([0, 2]), torch.ones(3, 2), max_norm=1j)", TypeError,
     "embedding_renorm_(): argument 'max_norm' (position 3) must be float, not complex"),
    (f"{_F}embedding(torch.tensor([0, 2]), torch.ones(3, 2), max_norm=1., norm_type=1j)",
     TypeError,
     "embedding_renorm_(): argument 'norm_type' (position 4) must be float, not complex"),
    (f"{_F}scaled_dot_product_attention(torch.ones(1, 2, 3), torch.ones(1, 2, 3), "
     "torch.ones(1, 2, 3), scale=1j)", TypeError,
     "scaled_dot_product_attention(): argument 'scale' must be float, not complex"),
    (f"{_F}scaled_dot_product_attention(torch.ones(1, 2, 3), torch.ones(1, 2, 3), "
     "torch.ones(1, 2, 3), dropout_p=1j)", TypeError,
     "scaled_dot_product_attention(): argument 'dropout_p' must be float, not complex"),
    (f"{_F}hardtanh_({_X}, 1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    (f"{_F}celu({_X}, 1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    # (in place, autograd's check of a leaf comes first, as in PyTorch)
    (f"{_F}celu(torch.ones(2, requires_grad=True), 1j, inplace=True)", RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (f"{_F}hardtanh_(torch.ones(2, requires_grad=True), 1j)", RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
    (f"{_F}rrelu(torch.ones(2, requires_grad=True), 1j, inplace=True)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    (f"{_F}softshrink({_X}, 1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    (f"{_F}rrelu({_X}, 1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    (f"{_F}rrelu({_X}, 0.1, 1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    (f"{_F}gaussian_nll_loss({_X}, {_Y}, torch.ones(2, 3), eps=1j)", RuntimeError,
     "value cannot be converted to type double without overflow"),
    (f"{_F}normalize({_X}, p=1j)", RuntimeError,
     "linalg.vector_norm: Expected a non-complex scalar as the order of norm."),
    (f"{_F}normalize({_X}, eps=1j)", NotImplementedError,
     "clamp is not supported for complex types"),
    ("torch.nn.utils.clip_grad_norm_([torch.ones(2)], 1j)", TypeError,
     "float() argument must be a string or a real number, not 'complex'"),
    # (PyTorch 2.13's own Python compares the number first: Python's TypeError is its
    # answer too, and teachgrad's already)
    (f"{_F}hardtanh({_X}, 1j)", TypeError,
     "'>' not supported between instances of 'complex' and 'float'"),
    (f"{_F}hardtanh({_X}, -1.0, 1j)", TypeError,
     "'>' not supported between instances of 'float' and 'complex'"),
    (f"{_F}dropout({_X}, 1j)", TypeError,
     "'<' not supported between instances of 'complex' and 'float'"),
    (f"{_F}dropout2d(torch.ones(1, 2, 4, 4), 1j)", TypeError,
     "'<' not supported between instances of 'complex' and 'float'"),
    # (int parameters: _input_check.takes_ints; were taken silently or failed in NumPy)
    (f"{_F}cross_entropy({_X}, torch.tensor([0, 2]), ignore_index=1j)", TypeError,
     "cross_entropy_loss(): argument 'ignore_index' (position 5) must be int, not complex"),
    (f"{_F}nll_loss({_X}, torch.tensor([0, 2]), ignore_index=1j)", TypeError,
     "nll_loss_nd(): argument 'ignore_index' (position 5) must be int, not complex"),
    (f"{_F}avg_pool2d(torch.ones(1, 1, 2, 2), 1, divisor_override=1j)", TypeError,
     "avg_pool2d(): argument 'divisor_override' must be int, not complex"),
    (f"{_F}avg_pool3d(torch.ones(1, 1, 1, 2, 2), 1, divisor_override=1j)", TypeError,
     "avg_pool3d(): argument 'divisor_override' must be int, not complex"),
    (f"{_F}one_hot(torch.tensor([0, 1]), 1j)", TypeError,
     "one_hot(): argument 'num_classes' (position 2) must be int, not complex"),
    (f"{_F}glu(torch.ones(2, 4), 1j)", TypeError,
     "glu(): argument 'dim' (position 2) must be int, not complex"),
    (f"{_F}gelu({_X}, approximate=1j)", TypeError,
     "gelu(): argument 'approximate' must be str, not complex"),
    (f"{_F}instance_norm(torch.ones(1, 2, 4), torch.zeros(2), torch.ones(2), momentum=1j)",
     TypeError, "instance_norm(): argument 'momentum' (position 7) must be float, not complex"),
    (f"{_F}embedding_bag(torch.tensor([[0, 1]]), torch.ones(3, 2), max_norm=1j)", TypeError,
     "embedding_renorm_(): argument 'max_norm' (position 3) must be float, not complex"),
    ("torch.nn.init.uniform_(torch.ones(2), 1j)", TypeError,
     "uniform_(): argument 'from' (position 1) must be float, not complex"),
    ("torch.nn.init.uniform_(torch.ones(2), 0.0, 1j)", TypeError,
     "uniform_(): argument 'to' (position 2) must be float, not complex"),
    ("torch.nn.init.normal_(torch.ones(2), 1j)", TypeError,
     "normal_(): argument 'mean' (position 1) must be float, not complex"),
    ("torch.nn.init.xavier_uniform_(torch.ones(2, 2), 1j)", TypeError,
     "uniform_(): argument 'from' (position 1) must be float, not complex"),
    ("torch.nn.init.xavier_normal_(torch.ones(2, 2), 1j)", TypeError,
     "normal_(): argument 'std' (position 2) must be float, not complex"),
    ("torch.nn.init.orthogonal_(torch.ones(2, 2), 1j)", RuntimeError,
     "result type ComplexFloat can't be cast to the desired output type Float"),
    ("torch.nn.init.orthogonal_(torch.ones(2, 2, dtype=torch.float64), 1j)", RuntimeError,
     "result type ComplexDouble can't be cast to the desired output type Double"),
    # (interpolate: the kernel's parser, named by mode and dimensions; where PyTorch's
    # Python computes the size first, its int())
    (f"{_F}interpolate(torch.ones(1, 1, 2, 2), scale_factor=1j)", TypeError,
     "upsample_nearest2d(): argument 'scale_factors' must be tuple of floats, but found "
     "element of type complex at pos 1"),
    (f"{_F}interpolate(torch.ones(1, 1, 2), scale_factor=1j, mode='linear')", TypeError,
     "upsample_linear1d(): argument 'scale_factors' must be tuple of floats, but found "
     "element of type complex at pos 1"),
    (f"{_F}interpolate(torch.ones(1, 1, 4, 4), scale_factor=(2.0, 1j), mode='bicubic', "
     "antialias=True)", TypeError,
     "_upsample_bicubic2d_aa(): argument 'scale_factors' must be tuple of floats, but found "
     "element of type complex at pos 2"),
    (f"{_F}interpolate(torch.ones(1, 1, 2, 2, 2), scale_factor=1j, mode='nearest-exact')",
     TypeError, "_upsample_nearest_exact3d(): argument 'scale_factors' must be tuple of "
     "floats, but found element of type complex at pos 1"),
    (f"{_F}interpolate(torch.ones(1, 1, 2, 2), scale_factor=1j, mode='area')", TypeError,
     "int() argument must be a string, a bytes-like object or a real number, not 'complex'"),
]

# Not complex, but wrong the same way: an int parameter given a float, a bool or a string,
# a tensor parameter given a number
# (before: avg_pool2d divided by 2.5, one_hot(x, 2.5) made 3 classes, nll_loss and ctc_loss
# took 1.5 or True; gelu and init.uniform_ failed with Python's or NumPy's words).
_CTC = ("torch.nn.functional.ctc_loss(torch.zeros(3, 1, 4).log_softmax(2), "
        "torch.tensor([[1, 2]]), [3], (2,), ")
_CTC_FORMS = (
    "but expected one of:\n"
    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
    "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity "
    "= False)\n      didn't match because some of the arguments have invalid types: (Tensor, "
    "Tensor, !list of [int]!, !tuple of (int,)!, {blank}, !int!, {zero})\n"
    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int "
    "blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n"
    "      didn't match because some of the arguments have invalid types: (Tensor, Tensor, "
    "!list of [int]!, !tuple of (int,)!, {blank}, !int!, {zero})\n")
NN_WRONG_TYPES = [
    (f"{_F}avg_pool2d(torch.ones(1, 1, 2, 2), 1, divisor_override=2.5)", TypeError,
     "avg_pool2d(): argument 'divisor_override' must be int, not float"),
    (f"{_F}avg_pool2d(torch.ones(1, 1, 2, 2), 1, 1, 0, False, True, True)", TypeError,
     "avg_pool2d(): argument 'divisor_override' (position 7) must be int, not bool"),
    (f"{_F}one_hot(torch.tensor([0, 1]), num_classes=2.5)", TypeError,
     "one_hot(): argument 'num_classes' must be int, not float"),
    (f"{_F}glu(torch.ones(2, 4), dim=1.0)", TypeError,
     "glu(): argument 'dim' (position 2) must be int, not float"),
    (f"{_F}nll_loss({_X}, torch.tensor([0, 2]), ignore_index=True)", TypeError,
     "nll_loss_nd(): argument 'ignore_index' (position 5) must be int, not bool"),
    (f"{_F}cross_entropy({_X}, torch.tensor([0, 2]), None, None, 1.5)", TypeError,
     "cross_entropy_loss(): argument 'ignore_index' (position 5) must be int, not float"),
    (f"{_F}gelu({_X}, approximate=None)", TypeError,
     "gelu(): argument 'approximate' must be str, not NoneType"),
    ("torch.nn.init.uniform_(torch.ones(2), 'a')", TypeError,
     "uniform_(): argument 'from' (position 1) must be float, not str"),
    (f"{_F}prelu({_X}, 0.25)", TypeError,
     "prelu(): argument 'weight' (position 2) must be Tensor, not float"),
    (f"{_F}prelu({_X}, weight=1j)", TypeError,
     "prelu(): argument 'weight' must be Tensor, not complex"),
    (f"{_F}binary_cross_entropy_with_logits({_X}, {_Y}, pos_weight=2.0)", TypeError,
     "binary_cross_entropy_with_logits(): argument 'pos_weight' (position 4) must be "
     "Tensor, not float"),
    (f"{_F}binary_cross_entropy_with_logits({_X}, {_Y}, 2.0)", TypeError,
     "binary_cross_entropy_with_logits(): argument 'weight' (position 3) must be Tensor, "
     "not float"),
    (_CTC + "blank=1.5)", TypeError,
     "ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, list, "
     "tuple, float, int, bool), " + _CTC_FORMS.format(blank="!float!", zero="!bool!")),
    (_CTC + "zero_infinity=1)", TypeError,
     "ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, list, "
     "tuple, int, int, int), " + _CTC_FORMS.format(blank="!int!", zero="!int!")),
]


@pytest.mark.parametrize(("code", "kind", "message"), NN_WRONG_TYPES)
def test_nn_int_and_tensor_parameters_refuse_other_types_in_pytorchs_words(code, kind, message):
    with pytest.raises(kind) as error:
        _run(code, teachgrad)
    assert str(error.value).split("\nHint:")[0] == message


@pytest.mark.parametrize(("code", "kind", "message"), NN_WRONG_TYPES)
def test_pytorch_refuses_those_alike(code, kind, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind) as error:
        _run(code, torch)
    assert str(error.value) == message


def test_int_parameters_still_take_numpy_ints_and_0d_int_tensors():
    F = teachgrad.nn.functional
    x = teachgrad.tensor([[[[1.0, 3.0], [5.0, 7.0]]]])
    # the window sums 16 divided by 4: 0-d tensor and NumPy int as the divisor
    assert F.avg_pool2d(x, 2, divisor_override=teachgrad.tensor(4)).item() == 4.0
    assert F.avg_pool2d(x, 2, divisor_override=np.int64(8)).item() == 2.0
    assert F.one_hot(teachgrad.tensor([1]), np.int32(3)).tolist() == [[0, 1, 0]]
    logp = teachgrad.tensor([[-1.0, -2.0], [-3.0, -4.0]])
    # sample 0 (target 1) ignored: the mean is sample 1's -logp[1, 0] = 3
    assert F.nll_loss(logp, teachgrad.tensor([1, 0]), ignore_index=np.int64(1)).item() == 3.0


@pytest.mark.parametrize(("code", "kind", "message"), NN_SCALARS)
def test_nn_functional_refuses_a_complex_scalar_in_pytorchs_words(code, kind, message):
    with pytest.raises(kind) as error:
        _run(code, teachgrad)
    assert str(error.value).split("\nHint:")[0] == message


@pytest.mark.parametrize(("code", "kind", "message"), NN_SCALARS)
def test_pytorch_refuses_the_complex_scalar_alike(code, kind, message):
    torch = pytest.importorskip("torch")
    with pytest.raises(kind) as error:
        _run(code, torch)
    assert str(error.value).split("\n")[0] == message


def test_refused_complex_scalars_leave_the_tensors_as_they_were():
    x = teachgrad.tensor([0.5, -2.0])
    with pytest.raises(RuntimeError):
        teachgrad.nn.functional.hardtanh_(x, 1j)
    np.testing.assert_array_equal(x.numpy(), np.float32([0.5, -2.0]))
    with pytest.raises(TypeError):
        teachgrad.nn.functional.batch_norm(teachgrad.ones(2, 2), x.clone(), x.clone(),
                                           training=True, momentum=1j)
