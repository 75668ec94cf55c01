"""``grad_fn._saved_self`` / ``_saved_other`` / ``_saved_result``: what a node keeps.

PyTorch's autograd notes ("Saved tensors") suggest looking at these attributes to see what
an operation saved for its backward. Expectations follow the notes (and PyTorch itself when
it is installed).
"""

from __future__ import annotations

import re

import pytest

import teachgrad as torch


def test_the_autograd_notes_examples():
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self) and x is y.grad_fn._saved_self
    y = x.exp()
    saved = y.grad_fn._saved_result
    assert y.equal(saved) and y is not saved  # the output, rebuilt: same values and node
    assert saved.grad_fn is y.grad_fn


def test_a_value_no_gradient_needs_is_not_saved():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    y = a * b  # a's gradient needs b; nothing needs a (b does not require grad)
    assert y.grad_fn._saved_self is None and y.grad_fn._saved_other is b
    q = a / b
    assert q.grad_fn._saved_self is None and q.grad_fn._saved_other is b


def test_saved_values_are_gone_after_backward_and_unknown_names_are_attribute_errors():
    y = torch.tensor([1.0, 2.0], requires_grad=True).sigmoid()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        _ = y.grad_fn._saved_result
    with pytest.raises(AttributeError, match="'SigmoidBackward0' object has no attribute "
                                             "'_saved_self'"):
        _ = y.grad_fn._saved_self
    assert not hasattr(y.grad_fn, "_saved_other")


@pytest.mark.torch
@pytest.mark.parametrize("expression, attribute", [
    ("x * w", "_saved_self"), ("x * w", "_saved_other"), ("x / w", "_saved_other"),
    ("x ** 2", "_saved_self"), ("x.exp()", "_saved_result"), ("x.log()", "_saved_self"),
    ("x.sqrt()", "_saved_result"), ("x.sin()", "_saved_self"), ("x.cos()", "_saved_self"),
    ("x.tanh()", "_saved_result"), ("x.sigmoid()", "_saved_result"),
    ("x.relu()", "_saved_result"),
])
def test_saved_attributes_match_pytorch(expression, attribute):
    real = pytest.importorskip("torch")

    def saved(lib):
        x = lib.tensor([0.5, 1.5, 2.0], requires_grad=True)
        w = lib.tensor([2.0, -1.0, 0.25], requires_grad=True)
        out = eval(expression, {"x": x, "w": w})
        value = getattr(out.grad_fn, attribute)
        same = "x" if value is x else "w" if value is w else "output" if (
            value.grad_fn is out.grad_fn) else "other"
        return type(out.grad_fn).__name__, [round(v, 5) for v in value.tolist()], same

    assert saved(torch) == saved(real)


# --- every _saved_* attribute of the ops a learner meets first --------------------------
# (PyTorch also shows strides, ``_saved_self_sym_strides``, and the sizes of matrix
# products' factors: teachgrad does not.)
_SAVED_CASES = [
    "x @ w", "x.mm(w)", "torch.matmul(x, w)", "x.mv(b)", "x @ b", "b.dot(x[0])",
    "torch.addmm(b, x, w)",
    "torch.addmm(b, x, w, beta=0.5, alpha=2)", "F.linear(x, w, b)",
    "x ** w", "x ** 2", "x ** 2.5", "x.pow(3)", "2 ** x", "x / w", "x / 2",
    "x + w", "x - w", "x.add(w, alpha=2)", "x.sub(w, alpha=2.5)", "3 - x",
    "x.exp()", "x.log()", "x.sin()", "x.cos()", "x.tanh()", "x.sigmoid()", "x.sqrt()",
    "x.relu()", "x.sum()", "x.sum(0)", "x.sum((0, 1), keepdim=True)", "x.mean()",
    "x.mean(1, keepdim=True)", "x.softmax(1)", "x.log_softmax(0)",
    "torch.maximum(x, w)", "torch.minimum(x, w)", "torch.where(x > 1, x, w)",
    "torch.where(x > 1, x, 0.0)", "x.clamp(0.5, 1)", "x.clamp(min=1)", "x.clamp(max=1.5)",
    "x.clamp_min(1)", "x.clamp_max(1.0)", "x.clamp(w, w + 1)", "x.clamp(min=w)",
    "x.clamp_min(w)", "x.clamp_max(w)", "F.mse_loss(x, w)",
    "F.mse_loss(x, w, reduction='sum')", "F.mse_loss(x, w, reduction='none')",
    "x.max(1)[0]", "x.min(0, keepdim=True)[0]", "x.median(1)[0]", "x.mode(1)[0]",
    "x.sigmoid().logit(1e-3)",
]


def _saved_attributes(lib, expression, x_grad=True, w_grad=True):
    """Each ``_saved_*`` of the expression's grad_fn: its name, type, value and what it is."""
    x = lib.tensor([[0.5, 1.5], [2.0, 0.25]], requires_grad=x_grad)
    w = lib.tensor([[2.0, -1.0], [0.25, 3.0]], requires_grad=w_grad)
    b = lib.tensor([0.1, -0.2], requires_grad=True)
    out = eval(expression, {"torch": lib, "F": lib.nn.functional, "x": x, "w": w, "b": b})
    node = out.grad_fn
    found = {}
    for name in dir(node):
        if not name.startswith("_saved_") or name.endswith("_sym_strides") or (
                name.endswith("_sym_sizes") and "mm" in type(node).__name__.lower()):
            continue  # (strides, and sizes of matrix products: not in teachgrad)
        value = getattr(node, name)
        if isinstance(value, lib.Tensor):
            what = ("x" if value is x else "w" if value is w else "b" if value is b
                    else "output" if value.grad_fn is out.grad_fn else "a tensor")
            # (A Python number, ``x / 2``, is saved as a 0-d tensor: PyTorch's keeps the
            # number's type, int64 or float64, teachgrad's the tensor's: dtypes not compared.)
            dtype = str(value.dtype).split(".")[-1] if what != "a tensor" or value.dim() else ""
            value = ("Tensor", what, dtype, [round(v, 5) for v in value.flatten().tolist()])
        else:
            value = (type(value).__name__, value)
        found[name] = value
    return type(node).__name__, found


@pytest.mark.torch
@pytest.mark.parametrize("expression", _SAVED_CASES)
@pytest.mark.parametrize("x_grad, w_grad", [(True, True), (False, True), (True, False)])
def test_every_saved_attribute_matches_pytorch(expression, x_grad, w_grad):
    real = pytest.importorskip("torch")
    if not (x_grad or "w" in expression) or not (w_grad or "x" in expression):
        pytest.skip("no input requires grad")
    assert (_saved_attributes(torch, expression, x_grad, w_grad)
            == _saved_attributes(real, expression, x_grad, w_grad))


def test_a_matrix_product_keeps_each_factor_for_the_other_ones_gradient():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    W = torch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
    node = (x @ W).grad_fn
    assert type(node).__name__ == "MmBackward0"
    assert node._saved_self is x and node._saved_mat2 is W
    data = torch.tensor([[1.0, 2.0], [3.0, 4.0]])  # a batch: no gradient, only W's is needed
    y = data @ W
    assert y.grad_fn._saved_self is data and y.grad_fn._saved_mat2 is None
    y.sum().backward()  # dL/dW = dataᵀ @ ones
    assert W.grad.tolist() == [[4.0, 4.0], [6.0, 6.0]]
    v = torch.tensor([1.0, -1.0], requires_grad=True)
    node = (data @ v).grad_fn  # matrix @ vector: MvBackward0, only v needs a gradient
    assert type(node).__name__ == "MvBackward0"
    assert node._saved_self is data and node._saved_vec is None
    (data @ v).sum().backward()  # dL/dv = dataᵀ @ ones
    assert v.grad.tolist() == [4.0, 6.0]


def test_linear_keeps_input_and_transposed_weight_and_alpha_beta():
    layer = torch.nn.Linear(2, 3)
    data = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    node = layer(data).grad_fn
    assert type(node).__name__ == "AddmmBackward0"
    assert node._saved_mat1 is data and node._saved_mat2 is None  # data needs no gradient
    assert (node._saved_alpha, node._saved_beta) == (1, 1)
    x = data.clone().requires_grad_()
    node = layer(x).grad_fn
    assert node._saved_mat2.equal(layer.weight.t())
    node = torch.addmm(torch.zeros(2), x, x, beta=0.5, alpha=2).grad_fn
    assert (node._saved_alpha, node._saved_beta) == (2, 0.5)


def test_first_layer_weight_gradient_without_a_saved_weight():
    # The layout trick (the weight's gradient computed already transposed) must still give
    # the right numbers when the weight itself is not saved: dL/dW = onesᵀ @ data.
    layer = torch.nn.Linear(2, 3)
    data = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    layer(data).sum().backward()
    assert layer.weight.grad.tolist() == [[4.0, 6.0]] * 3
    assert layer.weight.grad.is_contiguous()


def test_powers_keep_their_exponent_as_given():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    for exponent in (2, 2.5):
        node = (x ** exponent).grad_fn
        assert node._saved_exponent == exponent and type(node._saved_exponent) is type(exponent)
        assert node._saved_self is x
    e = torch.tensor([3.0, 0.5], dtype=torch.float64, requires_grad=True)
    y = x ** e
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_exponent is e
    assert y.grad_fn._saved_result.tolist() == [1.0, 2.0 ** 0.5]
    y = 2 ** e
    assert y.grad_fn._saved_self == 2 and y.grad_fn._saved_exponent is e
    assert y.grad_fn._saved_result.tolist() == [8.0, 2.0 ** 0.5]


def test_add_and_sub_keep_only_alpha():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert (x + x).grad_fn._saved_alpha == 1
    assert x.sub(x, alpha=2.5).grad_fn._saved_alpha == 2.5
    assert not hasattr((x + x).grad_fn, "_saved_self")


def test_tensors_are_freed_by_backward_but_plain_values_stay():
    # As in PyTorch: backward frees the saved tensors; numbers, dims and flags stay readable.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 3
    y.sum().backward()
    assert y.grad_fn._saved_exponent == 3
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        _ = y.grad_fn._saved_self
    y = x.reshape(1, 2) @ torch.ones(2, 2, requires_grad=True)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        _ = y.grad_fn._saved_self


def test_softmax_keeps_its_output_and_dim():
    x = torch.tensor([[1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    y = x.softmax(1)
    node = y.grad_fn
    assert node._saved_dim == 1 and node._saved_result.equal(y)
    assert node._saved_result.grad_fn is node
    assert node._saved_result[1].tolist() == [0.5, 0.5]  # equal scores, equal shares
    # a negative dim as PyTorch shows it: as given, read as unsigned 64-bit (2⁶⁴ − 1)
    assert x.log_softmax(-1).grad_fn._saved_dim == 2 ** 64 - 1


def test_where_keeps_the_condition_and_clamp_its_bounds():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.where(x > 1.5, x, 0.0)
    assert y.grad_fn._saved_condition.tolist() == [False, True, True]
    assert not hasattr(y.grad_fn, "_saved_self")
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        _ = y.grad_fn._saved_condition
    node = x.clamp(min=2).grad_fn
    assert node._saved_self is x and (node._saved_min, node._saved_max) == (2, None)
    node = x.clamp_max(2.5).grad_fn
    assert node._saved_max == 2.5 and not hasattr(node, "_saved_min")
    low = torch.tensor([0.0, 2.5, 0.0])
    node = x.clamp(low).grad_fn
    assert node._saved_min is low and node._saved_max is None and node._saved_self is x


def test_maximum_mse_and_reductions_keep_what_pytorch_shows():
    a = torch.tensor([1.0, 5.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    node = torch.maximum(a, b).grad_fn
    assert node._saved_self is a and node._saved_other is b
    node = torch.nn.functional.mse_loss(a, b, reduction="sum").grad_fn
    assert node._saved_self is a and node._saved_target is b and node._saved_reduction == 2
    m = torch.ones(2, 3, requires_grad=True)
    assert m.sum().grad_fn._saved_self_sym_sizes == (2, 3)
    node = m.mean(1, keepdim=True).grad_fn
    assert (node._saved_dim, node._saved_keepdim, node._saved_self_sym_numel) == ((1,), True, 6)


# --- an in-place change of what a node kept: refused exactly where PyTorch refuses ------
# (found by differential fuzzing: sgn, nan_to_num, gather... kept nothing, lerp,
# copysign, dot, cross, ldexp, addmv kept inputs no needed gradient uses)
_KEPT_CASES = [
    "x.sgn()", "x.nan_to_num()", "torch.xlogy(x, 2.0)", "x.gather(0, torch.tensor([1, 0]))",
    "x.take(torch.tensor([2]))", "x.cummax(0)[0]", "x.cummin(0)[0]", "torch.lerp(x, w, u)",
    "torch.lerp(x, w, 0.3)", "torch.copysign(x, w)", "torch.copysign(x, 2.0)", "x.exp()",
    "torch.maximum(x, w)", "x.clamp(w, u)", "torch.dot(x, w)", "torch.cross(x, w, dim=0)",
    "torch.ldexp(x, w)", "torch.nextafter(x, w)", "torch.addcdiv(x, w, u, value=0.5)",
    "torch.addcmul(x, w, u, value=0.5)", "torch.addmv(x, torch.stack([w, u, w]), u)",
    "x.div(w, rounding_mode='floor')", "torch.div(x, 2.0, rounding_mode='trunc')",
    "x.index_add(0, torch.tensor([2, 0, 1]), w, alpha=2)",
    "x.index_copy(0, torch.tensor([2, 0, 1]), w)",
]


@pytest.mark.torch
@pytest.mark.parametrize("expression", _KEPT_CASES)
@pytest.mark.parametrize("needs", ["x", "w", "u", "xw", "xwu"])
@pytest.mark.parametrize("changed", ["x", "w", "u", "out"])
def test_an_in_place_change_is_refused_where_pytorch_refuses(expression, needs, changed):
    real = pytest.importorskip("torch")

    def outcome(lib):
        values = {"x": [0.5, 1.5, -2.0], "w": [2.0, -1.0, 0.25], "u": [0.3, 0.6, -0.2]}
        env = {}
        for name, vals in values.items():
            t = lib.tensor(vals, dtype=lib.float64, requires_grad=name in needs)
            env[name] = t * 1 if name in needs else t  # (a leaf may not change in place)
        out = eval(expression, {**env, "torch": lib})
        if out.grad_fn is None:
            return "no graph"
        {**env, "out": out}[changed].add_(1)
        try:
            out.sum().backward()
        except RuntimeError as e:
            return str(e).split(" Hint:")[0].replace("teachgrad", "torch")
        return "ok"

    assert outcome(torch) == outcome(real)


# --- the saved tensors of the other ops (``saved_names``) --------------------------------
# Only the tensors are compared: PyTorch's nodes also keep plain values (dims, flags,
# ``_saved_ord``) that teachgrad's do not show for these ops.
_TENSOR_CASES = [
    "x.abs()", "x.rsqrt()", "torch.atan2(x, w)", "x.log1p()", "x.expm1()", "x.reciprocal()",
    "x.tan()", "x.asin()", "x.acos()", "x.sinh()", "x.cosh()", "x.atan()", "x.asinh()",
    "x.acosh()", "x.atanh()", "x.erf()", "x.erfc()", "x.erfinv()", "x.log2()", "x.log10()",
    "x.exp2()", "x.digamma()", "x.lgamma()", "F.silu(x)", "F.mish(x)", "F.softplus(x)",
    "F.gelu(x)", "F.leaky_relu(x)", "F.elu(x)", "F.selu(x)", "F.celu(x)", "F.hardswish(x)",
    "F.hardsigmoid(x)", "F.logsigmoid(x)", "x.max()", "x.min()", "x.prod()", "x.prod(1)",
    "x.median()", "x.logsumexp(1)", "x.norm()", "x.amax(1)", "x.amin(1)", "x.var()", "x.std()",
    "x.cumprod(0)", "torch.addcmul(x, x, w)", "torch.addcdiv(x, x, w)", "torch.hypot(x, w)",
    "torch.fmod(x, w)", "torch.remainder(x, w)", "torch.xlogy(x, w)", "torch.copysign(x, w)",
    "torch.logaddexp(x, w)", "F.smooth_l1_loss(x, w)", "F.huber_loss(x, w)", "x.inverse()",
    "(x @ x.t() + torch.eye(2)).cholesky()", "x.renorm(2, 0, 1)", "x.dist(w)",
    "torch.cdist(x, w)", "x.sort(1)[0]", "x.topk(1)[0]", "x.kthvalue(1, 1)[0]",
]


def _saved_tensors(lib, expression, x_grad, w_grad):
    """Each tensor ``_saved_*`` of the expression's grad_fn, as what it is (x, w, the
    output) and its values."""
    x = lib.tensor([[0.5, 1.5], [2.0, 0.25]], requires_grad=x_grad)
    w = lib.tensor([[2.0, -1.0], [0.25, 3.0]], requires_grad=w_grad)
    out = eval(expression, {"torch": lib, "F": lib.nn.functional, "x": x, "w": w})
    node = out.grad_fn
    found = {}
    for name in dir(node):
        if not name.startswith("_saved_"):
            continue
        value = getattr(node, name)
        if isinstance(value, lib.Tensor):
            what = ("x" if value is x else "w" if value is w
                    else "output" if value.grad_fn is out.grad_fn
                    else "indices" if name == "_saved_indices" and value.grad_fn is None
                    else None)
            if what is not None:  # (PyTorch's own buffers, e.g. log_sigmoid's: not compared)
                found[name] = (what, [round(v, 4) for v in value.flatten().tolist()])
    return type(node).__name__, found


@pytest.mark.torch
@pytest.mark.parametrize("expression", _TENSOR_CASES)
@pytest.mark.parametrize("x_grad, w_grad", [(True, True), (False, True), (True, False)])
def test_saved_tensors_of_more_ops_match_pytorch(expression, x_grad, w_grad):
    real = pytest.importorskip("torch")
    uses = set(re.findall(r"\b[xw]\b", expression))  # (not the w of "hardswish")
    if not any(grad for name, grad in (("x", x_grad), ("w", w_grad)) if name in uses):
        pytest.skip("no input requires grad")
    ours = _saved_tensors(torch, expression, x_grad, w_grad)
    if x_grad and w_grad:  # (with one input constant, an op may need nothing saved)
        assert ours[1], "teachgrad shows no saved tensor"
    assert ours == _saved_tensors(real, expression, x_grad, w_grad)


def test_saved_names_without_pytorch():
    # Hand-checked: atan2 keeps both inputs (its derivatives need a and b), rsqrt its
    # output (∂(a^-1/2)/∂a = -r³/2), prod both (Π/aᵢ and the zero cases).
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    node = torch.atan2(x, w).grad_fn
    assert node._saved_self is x and node._saved_other is w
    out = x.rsqrt()
    assert out.grad_fn._saved_result.equal(out)
    out = x.prod()
    assert out.grad_fn._saved_self is x and out.grad_fn._saved_result.equal(out)


def test_nll_loss_keeps_its_reduction_and_ignore_index():
    scores = torch.tensor([[0.5, 1.5], [2.0, 0.25]], requires_grad=True)
    target = torch.tensor([1, 0])
    node = torch.nn.functional.nll_loss(scores, target, reduction="sum", ignore_index=1).grad_fn
    assert (node._saved_reduction, node._saved_ignore_index) == (2, 1)  # PyTorch's: 2 is sum
    node = torch.nn.functional.cross_entropy(scores, target).grad_fn
    # (-100 as PyTorch shows it: read as unsigned 64-bit, 2⁶⁴ − 100)
    assert (node._saved_reduction, node._saved_ignore_index) == (1, 2 ** 64 - 100)


# x[index]: PyTorch's IndexBackward0 keeps the index tensors by dimension of the view
# that the basic items (ints, slices, None) made, None where that view is taken whole,
# and the view's shape (written from PyTorch's applySlicing rules)
_X = "torch.arange(12.).reshape(3, 4).requires_grad_()"
INDEX_CASES = {
    "x[i]": ([[0, 2]], (3, 4)),
    "x[:, i]": ([None, [0, 2]], (3, 4)),
    "x[..., i]": ([None, [0, 2]], (3, 4)),
    "x[[0, 1], [1, 2]]": ([[0, 1], [1, 2]], (3, 4)),  # (lists become tensors)
    "x[i, 1:]": ([[0, 2]], (3, 3)),  # (the slice is a view first: its shape)
    "x[None, i]": ([None, [0, 2]], (1, 3, 4)),
    "x[1, i]": ([[0, 2]], (4,)),
    "x[[True, False, True]]": ([[True, False, True]], (3, 4)),  # (a mask, as it is)
}


@pytest.mark.parametrize("source", sorted(INDEX_CASES))
def test_index_keeps_its_index_tensors_by_dimension(source):
    names = {"x": eval(_X), "i": torch.tensor([0, 2])}
    node = eval(source, {"torch": torch}, names).grad_fn
    indices, sizes = INDEX_CASES[source]
    assert [None if t is None else t.tolist() for t in node._saved_indices] == indices
    assert node._saved_self_sym_sizes == sizes
    assert node._saved_indices[-1].dtype in (torch.int64, torch.bool)


def test_index_keeps_a_mask_whole_and_frees_its_indices_in_backward():
    x = eval(_X)
    mask = x > 5
    y = x[mask]
    (saved,) = y.grad_fn._saved_indices
    assert saved.shape == (3, 4) and saved.tolist() == mask.tolist()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        _ = y.grad_fn._saved_indices
    assert y.grad_fn._saved_self_sym_sizes == (3, 4)  # (a plain value: kept)


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(INDEX_CASES))
def test_index_saved_values_match_pytorch(source):
    real = pytest.importorskip("torch")

    def saved(lib):
        x, i = eval(_X, {"torch": lib}), lib.tensor([0, 2])
        node = eval(source, {"x": x, "i": i}).grad_fn
        return ([None if t is None else (t.tolist(), str(t.dtype).split(".")[-1])
                 for t in node._saved_indices], tuple(node._saved_self_sym_sizes))

    assert saved(torch) == saved(real)


# Plain values of the shape ops and reductions: (expression on x = 3×4, v = 4 values,
# i = tensor([0, 2])) -> PyTorch's names and values, written from the call's arguments
PLAIN_CASES = {
    "x[1]": {"dim": 0, "index": 1, "self_sym_sizes": (3, 4)},
    "x.select(1, 2)": {"dim": 1, "index": 2, "self_sym_sizes": (3, 4)},
    "x.view(4, 3)": {"self_sym_sizes": (3, 4)},
    "x.transpose(0, 1)": {"dim0": 0, "dim1": 1},
    "x.unsqueeze(1)": {"dim": 1},
    "x.unsqueeze(0).squeeze(0)": {"dim": 0, "self_sym_sizes": (1, 3, 4)},
    "torch.cat([x, x], 1)": {"dim": 1},
    "torch.stack([x, x], 1)": {"dim": 1},
    "x.cumsum(1)": {"dim": 1},
    "x.prod(0, keepdim=True)": {"dim": 0, "keepdim": True},
    "x.split(2, 1)[0]": {"dim": 1, "split_size": 2, "self_sym_sizes": (3, 4)},
    "x.chunk(2)[0]": {"dim": 0, "split_size": 2, "self_sym_sizes": (3, 4)},  # (⌈3/2⌉)
    "x.split([1, 3], 1)[1]": {"dim": 1, "split_sizes": (1, 3), "self_sym_sizes": (3, 4)},
    "x.repeat(2, 1)": {"repeats": (2, 1), "self_sym_sizes": (3, 4)},
    "x.flip(0, 1)": {"dims": (0, 1)},
    "x.addcmul(x, v, value=2)": {"value": 2},
    "x.addcdiv(x, v + 1, value=0.5)": {"value": 0.5},
    "x.tril(1)": {"diagonal": 1},
    "x.unbind(1)[0]": {"dim": 1},
    "x.index_put((i,), v, accumulate=True)": {"accumulate": True},
    "x[:, :3].trace()": {"self_sym_sizes": (3, 3)},
    "x.permute(1, 0)": {"dims": (1, 0)},
    "x.unsqueeze(2).permute(2, 0, 1)": {"dims": (2, 0, 1)},
    "x.logsumexp(1)": {"dim": (1,), "keepdim": False},
    "x.norm()": {"ord": 2, "dim": None, "keepdim": False},
    "x.norm(p=1, dim=1, keepdim=True)": {"ord": 1, "dim": (1,), "keepdim": True},
}


def _plain_saved(library, source: str, names) -> dict:
    x = library.arange(12.).reshape(3, 4).requires_grad_()
    scope = {"torch": library, "x": x, "v": library.arange(4.), "i": library.tensor([0, 2])}
    node = eval(source, scope).grad_fn
    return {name: getattr(node, f"_saved_{name}") for name in names}


@pytest.mark.parametrize("source", sorted(PLAIN_CASES))
def test_shape_ops_keep_their_plain_values(source):
    expected = PLAIN_CASES[source]
    assert _plain_saved(torch, source, expected) == expected


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(PLAIN_CASES))
def test_shape_ops_plain_values_match_pytorch(source):
    real = pytest.importorskip("torch")
    names = PLAIN_CASES[source]
    assert _plain_saved(torch, source, names) == _plain_saved(real, source, names)
