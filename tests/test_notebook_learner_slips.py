"""What draw, step_backward and step_forward say to a learner's slips.

Found by using them as a learner would in JupyterLab: passing ``out.grad_fn`` or a model
where a tensor goes, ``max_nodes="500"``, replaying the forward pass of a graph that
backward already used. Each message keeps its first line and adds a short hint.
"""

from __future__ import annotations

import pytest

import teachgrad as torch
from teachgrad.notebook import draw, step_backward, step_forward

pytest.importorskip("graphviz")


def graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return x, (x * x).sum()


@pytest.mark.parametrize("function", [draw, step_backward, step_forward])
def test_a_grad_fn_where_a_tensor_goes_says_to_pass_the_tensor(function):
    x, out = graph()
    name = function.__name__
    with pytest.raises(TypeError) as error:
        function(out.grad_fn)
    message = str(error.value)
    assert message.startswith(f"{name}() expects a Tensor or a list of Tensors, got "
                              "SumBackward0\nHint: ")
    assert f"{name}(out), not {name}(out.grad_fn)" in message
    assert x.grad is None            # nothing ran


def test_a_model_where_a_tensor_goes_says_to_pass_its_output():
    model = torch.nn.Linear(2, 1)
    with pytest.raises(TypeError, match=r"got Linear\nHint: .*draw\(model\(x\)\)"):
        draw(model)


@pytest.mark.parametrize("given", [None, 3.0])
def test_none_or_a_number_gets_a_hint_too(given):
    with pytest.raises(TypeError, match=r"expects a Tensor .*\nHint: \S"):
        step_backward(given)


@pytest.mark.parametrize("function", [draw, step_backward, step_forward])
@pytest.mark.parametrize("max_nodes", ["500", 2.5, None])
def test_max_nodes_that_is_not_an_int_is_a_type_error_that_says_so(function, max_nodes):
    x, out = graph()
    name = function.__name__
    kind = type(max_nodes).__name__
    with pytest.raises(TypeError, match=rf"^{name}\(\) argument 'max_nodes' must be int, "
                                        rf"not {kind}\nHint: "):
        function(out, max_nodes=max_nodes)
    assert x.grad is None            # step_backward refused before backward ran


def test_a_forward_replay_after_backward_says_the_saved_values_are_gone():
    x, out = graph()
    fresh = step_forward(out, names={"x": x, "out": out}).log()
    assert "saved in forward: b (_saved_other) = [1., 2.], a (_saved_self) = [1., 2.]" in fresh
    out.backward()
    replay = step_forward(out, names={"x": x, "out": out}).log()
    assert "saved in forward" not in replay
    assert "What this op saved for backward is gone: a backward() through this graph " \
        "freed it" in replay
    # SumBackward0 saved no tensor (only its input's shape): nothing gone to speak of
    assert replay.count("is gone") == 1


def test_an_op_with_more_inputs_than_letters_steps():
    # torch.stack of 30 tensors: input_symbols ran out of letters after z, and both
    # step_backward and step_forward failed with an IndexError from inside the panel.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    parts = [x * float(i) for i in range(30)]
    L = torch.stack(parts).sum()
    stepper = step_backward(L, names={"x": x, "L": L})
    stack = next(p for p in stepper.panels if "StackBackward0" in p.title)
    assert "a₀ → MulBackward0" in stack.text and "a₂₉ → MulBackward0" in stack.text
    assert x.grad.tolist() == [435.0, 435.0]          # 0 + 1 + ... + 29, by hand
    replay = step_forward(L, names={"x": x, "L": L}).log()
    assert "a₂₉ = the result (made by MulBackward0)" in replay


def test_a_long_ready_queue_names_eight_and_counts_the_rest():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    L = torch.stack([x * float(i) for i in range(30)]).sum()
    panel = step_backward(L, names={"x": x}).panels[2]       # after the stack's step
    assert panel.title.startswith("Step 2 of ") and "StackBackward0" in panel.title
    ready = panel.text.split("ready next: ", 1)[1]
    assert ready.count("MulBackward0") == 8 and ready.endswith("… 22 more")


def test_the_create_graph_warning_reaches_a_python_c_script():
    # Re-issued at the caller's line with its globals, so that the line is shown; under
    # ``python -c`` those globals' loader is the built-in importer, which raised
    # "ImportError: '__main__' is not a built-in module" instead of the warning.
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import teachgrad as torch\n"
            "from teachgrad.notebook import step_backward\n"
            "x = torch.tensor(2.0, requires_grad=True)\n"
            "s = step_backward(x ** 3, create_graph=True)\n"
            "print('grad', x.grad.item())\n")
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        root, os.environ.get("PYTHONPATH")])))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "grad 12.0" in run.stdout                       # 3 · 2², by hand
    assert run.stderr.startswith("<string>:4: UserWarning: Using backward() with "
                                 "create_graph=True"), run.stderr


def modified_graph():
    """``c`` changed in place after ``sin`` saved it; ``b``'s branch runs first."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = a * 2
    d = c.sin()
    L = d.sum() + b.sum()
    c.add_(1)
    return L, {"a": a, "b": b, "c": c, "d": d, "L": L}


def test_a_tensor_changed_in_place_is_refused_before_any_grad_changes():
    # The engine raises at SinBackward0, after b's AccumulateGrad had already written
    # b.grad: the stepper left b.grad = [1., 1.] behind a failed cell. Checked first,
    # like a graph already used, nothing changes.
    L, names = modified_graph()
    with pytest.raises(RuntimeError) as refused:
        step_backward(L, names=names)
    assert names["a"].grad is None and names["b"].grad is None
    plain, _ = modified_graph()
    with pytest.raises(RuntimeError) as engine:
        plain.backward()
    assert str(refused.value).startswith(str(engine.value))   # the engine's own words
    assert "nothing was changed" in str(refused.value).split("\n")[-1]
    real = pytest.importorskip("torch")
    a = real.tensor([1.0, 2.0], requires_grad=True)
    c = a * 2
    d = c.sin()
    c.add_(1)
    with pytest.raises(RuntimeError) as theirs:
        d.sum().backward()
    assert str(refused.value).split(" Hint:")[0] == str(theirs.value).split(" Hint:")[0]


def test_nn_linears_step_notes_only_what_pytorch_saves():
    real = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    x = torch.tensor([[1.0, 2.0]])
    loss = model(x).pow(2).mean()
    addmm = next(p for p in step_backward(loss, names={"model": model, "x": x}).panels
                 if "AddmmBackward0" in p.title)
    noted = addmm.text.split("also noted in forward: ", 1)[1].split("\n")[0]
    assert noted == "beta (_saved_beta) = 1, alpha (_saved_alpha) = 1", noted
    theirs = real.nn.Linear(2, 1)(real.tensor([[1.0, 2.0]])).grad_fn
    assert theirs.name() == "AddmmBackward0"
    assert theirs._saved_beta == 1 and theirs._saved_alpha == 1
    assert not [a for a in dir(theirs) if "transposed" in a or "column_major" in a]


def test_a_forward_replay_of_a_tensor_without_a_graph_says_why():
    # It said "0 ops follow, in the order the forward pass ran them." and nothing else.
    plain = torch.ones(3)
    log = step_forward(plain, names={"plain": plain}).log()
    assert "plain has no graph: requires_grad is False and grad_fn is None" in log
    assert "No op was recorded, so there is nothing to replay." in log
    assert "0 ops follow" not in log
    leaf = torch.ones(3, requires_grad=True)
    log = step_forward(leaf, names={"leaf": leaf}).log()
    assert "leaf is a leaf: it has no grad_fn, so backward() ends at it, in its " \
        "AccumulateGrad" in log
    with torch.no_grad():
        made = leaf * 2
    assert "has no graph" in step_forward(made).log()
    assert made.grad_fn is None                      # (as in PyTorch under no_grad)


def test_max_nodes_may_be_a_numpy_integer():
    import numpy as np

    x, out = graph()
    assert "3 autograd nodes" in repr(draw(out, max_nodes=np.int64(500)))
    with pytest.raises(TypeError, match="must be int, not bool"):
        draw(out, max_nodes=True)
