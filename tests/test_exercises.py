"""teachgrad.notebook.exercises.check: placeholder, right and wrong answers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.notebook.exercises import NotYet, check


def test_placeholder_is_not_an_error(capsys):
    assert check(..., 3.0, "dz/dx") is None
    out = capsys.readouterr().out
    assert out == (
        "… Not answered yet: replace the ... above with your dz/dx, then run this cell again.\n"
    )


def test_a_function_that_is_not_written_yet_counts_as_not_answered(capsys):
    def answer():
        raise NotImplementedError("your turn")

    check(answer, 1.0, "the gradient")
    assert capsys.readouterr().out.startswith("… Not answered yet (your turn): write your code")


def test_a_number_typed_as_a_string_is_shown_with_its_quotes():
    # "✘ Not yet: 20 is not the right dw/dx ... got str" left the learner puzzled: 20 is
    # the right number; the quotes say what is wrong.
    with pytest.raises(NotYet, match=r"^✘ Not yet: '20' is not the right dw/dx: expected a "
                                     r"number or a tensor, got str\.$"):
        check("20", 20.0, "dw/dx")


def test_right_answers_of_every_kind(capsys):
    check(6.0, 6, "number")
    check(torch.tensor([1.0, 2.0], requires_grad=True), [1.0, 2.0], "tensor")
    check(np.array([[1, 2]]), torch.tensor([[1.0, 2.0]]), "array")
    check(True, True, "bool")
    check(lambda: 2.0 * 3.0, 6.0, "computed answer")
    check("MulBackward0", "MulBackward0", "name")
    check(1.00001, 1.0, "close enough")
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 7 and all(line.startswith("✔ Correct! ") for line in out)
    assert out[0] == "✔ Correct! That is the right number."


def test_wrong_value_says_so_without_giving_the_answer():
    with pytest.raises(NotYet) as error:
        check(240.0, 242.0, "∂L/∂a", hint="a is used twice")
    message = str(error.value)
    assert message.startswith("✘ Not yet: 240.0 is not the right ∂L/∂a: ")
    assert "242" not in message
    assert message.endswith("Hint: a is used twice")
    assert isinstance(error.value, AssertionError)


def test_wrong_shape_is_named():
    with pytest.raises(NotYet, match=r"its shape is \(3,\), expected \(2, 2\)"):
        check(torch.ones(3), torch.ones(2, 2), "x.grad")
    with pytest.raises(NotYet, match=r"its shape is \(1,\), expected a single number"):
        check([1.0], torch.tensor(1.0), "x.grad")
    with pytest.raises(NotYet, match=r": it is a single number, expected shape \(2,\)"):
        check(7.0, [7.0, 10.0], "x.grad")


def test_wrong_elements_are_counted():
    with pytest.raises(NotYet, match="1 of its 4 values differ"):
        check([1.0, 2.0, 3.0, 5.0], [1.0, 2.0, 3.0, 4.0], "v")


def test_bool_expected_wants_a_bool():
    with pytest.raises(NotYet, match="True or False"):
        check(1.0, True, "is it a leaf")
    with pytest.raises(NotYet):
        check(False, True, "is it a leaf")


def test_non_numbers_compare_by_equality():
    with pytest.raises(NotYet, match="not the expected answer"):
        check("AddBackward0", "MulBackward0", "grad_fn")
    with pytest.raises(NotYet, match="expected a number or a tensor, got str"):
        check("six", 6.0, "dy/dx")


def test_a_list_that_is_not_all_numbers_says_which_item_is_wrong():
    # Lesson 2 asks for "a nested list like [[1, 2], [3, 4]]"; a list holding a string was
    # answered "expected a number or a tensor, got list", as if lists were not allowed.
    grad = [[6.0, 8.0], [14.0, 10.0]]
    with pytest.raises(NotYet, match="expected a list of numbers, but '6' in it is not a number"):
        check([["6", 8], [14, 10]], grad, "tensor.grad")
    with pytest.raises(NotYet, match="None in it is not a number"):
        check([[6, 8], [None, 10]], grad, "tensor.grad")
    with pytest.raises(NotYet, match=r"a \.\.\. placeholder is still in it"):
        check([[6, 8], [14, ...]], grad, "tensor.grad")


def test_none_is_called_none():
    # Lesson 12's exercise with a backward() that returns nothing: x.grad stays None, and
    # the message said "got NoneType".
    with pytest.raises(NotYet, match=r"expected a number or a tensor, got None\.$"):
        check(lambda: None, [0.1, 0.2], "gradient of MySigmoid")


def test_a_list_with_rows_of_different_lengths_says_so():
    with pytest.raises(NotYet, match=r"rows of equal length \(like \[\[1, 2\], \[3, 4\]\]\)"):
        check([[6, 8], [14]], [[6.0, 8.0], [14.0, 10.0]], "tensor.grad")


def test_other_errors_in_the_students_function_propagate():
    def answer():
        raise ZeroDivisionError("oops")

    with pytest.raises(ZeroDivisionError):
        check(answer, 1.0)


# ---------------------------------------------------------------------------------------
# The lessons' own checking cells reject the tempting wrong answers
# ---------------------------------------------------------------------------------------
LESSONS = Path(__file__).resolve().parents[1] / "notebooks"

WRONG_SIGMOID = '''
class MySigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, grad_output):
        (s,) = ctx.saved_tensors
        return s * (1 - s)          # forgot grad_output: the chain rule's other half
'''

TEMPTING = {
    # x.grad = Wᵀv: the column sums of W are right only when v is all ones.
    "07_": "answer = [4.0, 6.0]",
    # A backward without grad_output passes any check whose upstream gradient is all ones.
    "12_": WRONG_SIGMOID,
    # The direction divided by its length, as calculus books do: the exercise asks for J t
    # with t = (1, 2) as it is (20), not for the slope per unit of distance (20 / √5).
    "13_": (
        "import teachgrad.autograd.forward_ad as fwAD\n"
        "answer = 20 / 5 ** 0.5\n"
    ),
    # Recomputing once for all backward passes: but each pass frees what it recomputed.
    "15_": "answer = 2",
    # The lesson's own warning, written as it looks: where hides log's NaN from the values
    # only; log's backward still runs at -1 (log(-1) = nan) and 0 (1/0 times 0).
    "16_": "def x_log_x(x):\n    return torch.where(x > 0, x * x.log(), 0.0)\n",
    # Clamping at 0 fixes -1 but not 0, where clamp passes the gradient of log(0) on.
    "16_clamp": (
        "def x_log_x(x):\n    c = x.clamp(min=0)\n    return torch.where(x > 0, c * c.log(), 0.0)\n"
    ),
    # w is used at every step, but only the last step's use is counted (no sum over time).
    "17_": (
        "import math\n"
        "def bptt(w, xs):\n"
        "    states = [0.0]\n"
        "    for x in xs:\n"
        "        states.append(math.tanh(w * states[-1] + x))\n"
        "    return (1 - states[-1] ** 2) * states[-2]\n"
    ),
    # Summed over time, but the gradient goes back to h_{t-1} as grad_h * w: tanh's local
    # derivative is applied to each step's term and forgotten on the way back.
    "17_tanh": (
        "import math\n"
        "def bptt(w, xs):\n"
        "    states = [0.0]\n"
        "    for x in xs:\n"
        "        states.append(math.tanh(w * states[-1] + x))\n"
        "    grad_h, grad_w = 1.0, 0.0\n"
        "    for t in range(len(xs), 0, -1):\n"
        "        grad_w += grad_h * (1 - states[t] ** 2) * states[t - 1]\n"
        "        grad_h = grad_h * w\n"
        "    return grad_w\n"
    ),    # Label smoothing ignored: section 1's p − onehot, right only for eps = 0.
    "18_": (
        "def smoothed_grad(logits, targets, eps):\n"
        "    onehot = torch.nn.functional.one_hot(targets, logits.shape[1])\n"
        "    return (torch.softmax(logits, dim=1) - onehot) / len(targets)\n"
    ),
    # The softened target spread over the K − 1 wrong classes (a definition some papers
    # use), not over all K as PyTorch's label_smoothing does.
    "18_others": (
        "def smoothed_grad(logits, targets, eps):\n"
        "    k = logits.shape[1]\n"
        "    onehot = torch.nn.functional.one_hot(targets, k)\n"
        "    q = (1 - eps) * onehot + eps / (k - 1) * (1 - onehot)\n"
        "    return (torch.softmax(logits, dim=1) - q) / len(targets)\n"
    ),
    # The sum's gradient: the mean's division by the batch size forgotten.
    "18_sum": (
        "def smoothed_grad(logits, targets, eps):\n"
        "    k = logits.shape[1]\n"
        "    q = (1 - eps) * torch.nn.functional.one_hot(targets, k) + eps / k\n"
        "    return torch.softmax(logits, dim=1) - q\n"
    ),
    # Stride ignored: each g[p]·w goes back to x[p:p + k], right only for stride 1.
    "19_": (
        "def conv1d_input_grad(g, w, length, stride):\n"
        "    grad = torch.zeros(length)\n"
        "    for p in range(len(g)):\n"
        "        grad[p:p + len(w)] += g[p] * w\n"
        "    return grad\n"
    ),
    # Section 3's flipped kernel carried over to the spreading form, which does not flip.
    "19_flipped": (
        "def conv1d_input_grad(g, w, length, stride):\n"
        "    grad = torch.zeros(length)\n"
        "    for p in range(len(g)):\n"
        "        grad[p * stride:p * stride + len(w)] += g[p] * w.flip(0)\n"
        "    return grad\n"
    ),
    # Zeros between and a full convolution with the flipped kernel, right, but the inputs
    # after the kernel's last step forgotten: too short when the kernel does not reach
    # the end of x.
    "19_short": (
        "def conv1d_input_grad(g, w, length, stride):\n"
        "    F = torch.nn.functional\n"
        "    spread = torch.zeros((len(g) - 1) * stride + 1)\n"
        "    spread[::stride] = g\n"
        "    full = F.pad(spread, (len(w) - 1, len(w) - 1))\n"
        "    return F.conv1d(full[None, None], w.flip(0)[None, None])[0, 0]\n"
    ),
    # The transpose forgotten: dS Q / √d, the shape of K (self-attention: as many
    # queries as keys) but the sum runs along the rows of dS, over the keys.
    "20_": (
        "def attention_dK(Q, K, V, dO):\n"
        "    import math\n"
        "    d = Q.shape[-1]\n"
        "    A = torch.softmax(Q @ K.T / math.sqrt(d), dim=-1)\n"
        "    dA = dO @ V.T\n"
        "    dS = A * (dA - (dA * A).sum(dim=-1, keepdim=True))\n"
        "    return dS @ Q / math.sqrt(d)\n"
    ),
    # The 1/√d of the forward pass left out of the backward pass.
    "20_scale": (
        "def attention_dK(Q, K, V, dO):\n"
        "    import math\n"
        "    d = Q.shape[-1]\n"
        "    A = torch.softmax(Q @ K.T / math.sqrt(d), dim=-1)\n"
        "    dA = dO @ V.T\n"
        "    dS = A * (dA - (dA * A).sum(dim=-1, keepdim=True))\n"
        "    return dS.T @ Q\n"
    ),
    # The softmax's derivative taken as its diagonal only, diag(A): the −a aᵀ of
    # lesson 18's Jacobian forgotten (each weight's change moves every other weight).
    "20_diag": (
        "def attention_dK(Q, K, V, dO):\n"
        "    import math\n"
        "    d = Q.shape[-1]\n"
        "    A = torch.softmax(Q @ K.T / math.sqrt(d), dim=-1)\n"
        "    dA = dO @ V.T\n"
        "    dS = A * dA\n"
        "    return dS.T @ Q / math.sqrt(d)\n"
    ),
    # Lesson 18's row sum taken over the queries (dim=0) instead of over the keys.
    "20_axis": (
        "def attention_dK(Q, K, V, dO):\n"
        "    import math\n"
        "    d = Q.shape[-1]\n"
        "    A = torch.softmax(Q @ K.T / math.sqrt(d), dim=-1)\n"
        "    dA = dO @ V.T\n"
        "    dS = A * (dA - (dA * A).sum(dim=0, keepdim=True))\n"
        "    return dS.T @ Q / math.sqrt(d)\n"
    ),
    # Batch norm's mean path forgotten: only the direct and the variance's terms (section 3's
    # dx = dx_c, without dμ / N); its columns no longer sum to 0.
    "21_": (
        "def batchnorm_dx(x, gamma, dy, eps):\n"
        "    N = x.shape[0]\n"
        "    sigma = torch.sqrt(x.var(dim=0, correction=0) + eps)\n"
        "    x_hat = (x - x.mean(dim=0)) / sigma\n"
        "    return gamma / sigma / N * (N * dy - x_hat * (dy * x_hat).sum(dim=0))\n"
    ),
    # The variance's path forgotten: σ treated as a constant, as in eval() mode.
    "21_variance": (
        "def batchnorm_dx(x, gamma, dy, eps):\n"
        "    N = x.shape[0]\n"
        "    sigma = torch.sqrt(x.var(dim=0, correction=0) + eps)\n"
        "    return gamma / sigma / N * (N * dy - dy.sum(dim=0))\n"
    ),
    # var's default, the unbiased variance (running_var's), in place of forward's biased one.
    "21_unbiased": (
        "def batchnorm_dx(x, gamma, dy, eps):\n"
        "    N = x.shape[0]\n"
        "    sigma = torch.sqrt(x.var(dim=0) + eps)\n"
        "    x_hat = (x - x.mean(dim=0)) / sigma\n"
        "    return gamma / sigma / N * (N * dy - dy.sum(dim=0)\n"
        "                                - x_hat * (dy * x_hat).sum(dim=0))\n"
    ),
    # A sign error: the variance's term added instead of subtracted.
    "21_sign": (
        "def batchnorm_dx(x, gamma, dy, eps):\n"
        "    N = x.shape[0]\n"
        "    sigma = torch.sqrt(x.var(dim=0, correction=0) + eps)\n"
        "    x_hat = (x - x.mean(dim=0)) / sigma\n"
        "    return gamma / sigma / N * (N * dy - dy.sum(dim=0)\n"
        "                                + x_hat * (dy * x_hat).sum(dim=0))\n"
    ),
    # The sums taken over the features (dim=1, layer norm's axis) instead of over the batch.
    "21_axis": (
        "def batchnorm_dx(x, gamma, dy, eps):\n"
        "    N = x.shape[0]\n"
        "    sigma = torch.sqrt(x.var(dim=0, correction=0) + eps)\n"
        "    x_hat = (x - x.mean(dim=0)) / sigma\n"
        "    return gamma / sigma / N * (N * dy - dy.sum(dim=1, keepdim=True)\n"
        "                                - x_hat * (dy * x_hat).sum(dim=1, keepdim=True))\n"
    ),
    # EvenMax's backward without the split: each of k tied elements gets the whole
    # gradient, k times too much in all (right only where the max is not tied).
    "23_": (
        "class EvenMax(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        result = x.max()\n"
        "        ctx.save_for_backward(x, result)\n"
        "        return result\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_output):\n"
        "        x, result = ctx.saved_tensors\n"
        "        return grad_output * (x == result).to(x.dtype)\n"
    ),
    # max(dim)'s convention in place of max()'s: the whole gradient to the first max.
    "23_first": (
        "class EvenMax(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        result = x.max()\n"
        "        ctx.save_for_backward(x, result)\n"
        "        return result\n"
        "\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad_output):\n"
        "        x, result = ctx.saved_tensors\n"
        "        first = torch.zeros_like(x).flatten()\n"
        "        first[x.flatten().argmax()] = 1.0\n"
        "        return grad_output * first.reshape(x.shape)\n"
    ),
    # Adam's coupled decay (section 5's weight_decay=) in place of AdamW's: λ·p added to
    # the gradient, so that it is divided by √v̂ with the rest.
    "24_": (
        "def adamw_step(p, m, v, t, lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.1):\n"
        "    beta1, beta2 = betas\n"
        "    with torch.no_grad():\n"
        "        g = p.grad + weight_decay * p\n"
        "        m = beta1 * m + (1 - beta1) * g\n"
        "        v = beta2 * v + (1 - beta2) * g ** 2\n"
        "        m_hat = m / (1 - beta1 ** t)\n"
        "        v_hat = v / (1 - beta2 ** t)\n"
        "        p -= lr * m_hat / (v_hat.sqrt() + eps)\n"
        "    return m, v\n"
    ),
    # No bias correction: m and v used as they are, too small in the first steps.
    "24_uncorrected": (
        "def adamw_step(p, m, v, t, lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.1):\n"
        "    beta1, beta2 = betas\n"
        "    with torch.no_grad():\n"
        "        p *= 1 - lr * weight_decay\n"
        "        m = beta1 * m + (1 - beta1) * p.grad\n"
        "        v = beta2 * v + (1 - beta2) * p.grad ** 2\n"
        "        p -= lr * m / (v.sqrt() + eps)\n"
        "    return m, v\n"
    ),
    # Each example's gradient read off the batch's mean loss: the 1/N of section 3 left in.
    "25_": (
        "def per_example_norms(model, x, y):\n"
        "    norms = []\n"
        "    for i in range(len(x)):\n"
        "        model.zero_grad()\n"
        "        ((model(x[i:i + 1]) - y[i:i + 1]) ** 2).sum().div(len(x)).backward()\n"
        "        norms.append(torch.cat([p.grad.flatten() for p in model.parameters()]).norm())\n"
        "    return torch.stack(norms)\n"
    ),
    # The weights' norms only: the biases' gradients (g_i itself, for the last layer) left out.
    "25_weights": (
        "def per_example_norms(model, x, y):\n"
        "    norms = []\n"
        "    for i in range(len(x)):\n"
        "        model.zero_grad()\n"
        "        ((model(x[i:i + 1]) - y[i:i + 1]) ** 2).sum().backward()\n"
        "        weights = [model[0].weight.grad.flatten(), model[2].weight.grad.flatten()]\n"
        "        norms.append(torch.cat(weights).norm())\n"
        "    return torch.stack(norms)\n"
    ),
}


def checking_cell(prefix: str) -> str:
    nbformat = pytest.importorskip("nbformat")
    (path,) = LESSONS.glob(f"{prefix[:3]}*.ipynb")
    nb = nbformat.read(path, as_version=4)
    (cell,) = [c for c in nb.cells if "check" in c.metadata.get("tags", [])]
    return cell.source


@pytest.mark.parametrize("prefix", sorted(TEMPTING))
def test_lesson_checks_reject_the_tempting_wrong_answer(prefix):
    namespace = {"torch": torch}
    exec(TEMPTING[prefix], namespace)
    with pytest.raises(NotYet):
        exec(checking_cell(prefix), namespace)


def test_lesson_11_check_counts_the_model_the_exercise_names(capsys):
    """The exercise asks about Linear(2, 16), Tanh, Linear(16, 2): 82 numbers. A learner who
    did the "What to try" (a smaller hidden layer) has another `model`; the right answer must
    still pass, and the smaller model's count must not."""
    smaller = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))
    namespace = {"torch": torch, "nn": torch.nn, "model": smaller, "answer": 82}
    exec(checking_cell("11_"), namespace)
    assert "✔ Correct!" in capsys.readouterr().out
    namespace["answer"] = sum(p.numel() for p in smaller.parameters())   # 17
    with pytest.raises(NotYet):
        exec(checking_cell("11_"), namespace)
