"""The backward engine behaves as PyTorch's.

Most tests here run small programs (fixtures/program_cases.json, group "engine",
generated with real PyTorch by fixtures/make_program_cases.py) with teachgrad and compare
everything they recorded: execution order of the nodes, gradients, errors and warnings.
The rest spell out single rules with hand-derived values.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import programs
import pytest

import teachgrad
from teachgrad.autograd import engine

CASES = json.loads((Path(__file__).parent / "fixtures" / "program_cases.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES["engine"]))
def test_same_as_pytorch(name):
    programs.check_against_pytorch(CASES["engine"][name], teachgrad)


# ----------------------------------------------------------------------------------------
# Single rules, with values derived by hand
# ----------------------------------------------------------------------------------------
def test_double_backward_of_cube_is_6x():
    """d(x³)/dx = 3x², d²(x³)/dx² = 6x."""
    x = teachgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = teachgrad.autograd.grad((x**3).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0, 27.0]
    assert g.requires_grad and g.grad_fn is not None
    (h,) = teachgrad.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0, 18.0]


def test_100000_op_chain_backward_without_recursion_error():
    limit = sys.getrecursionlimit()
    x = teachgrad.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1.0
    y.backward()
    assert x.grad.item() == 1.0
    assert sys.getrecursionlimit() == limit  # no cheating by raising the limit
    del y  # freeing a 100,000-node graph must not recurse either


def test_deep_chain_backward_through_double_backward():
    x = teachgrad.tensor(0.5, dtype=teachgrad.float64, requires_grad=True)
    y = x
    for _ in range(2_000):
        y = y * 1.0
    (g,) = teachgrad.autograd.grad(y * y, x, create_graph=True)  # 2x
    (h,) = teachgrad.autograd.grad(g, x)
    assert abs(g.item() - 1.0) < 1e-12 and abs(h.item() - 2.0) < 1e-12


def test_gradcheck_of_a_composite_function():
    x = teachgrad.tensor([0.3, -0.7, 1.2], dtype=teachgrad.float64, requires_grad=True)
    w = teachgrad.tensor([[0.5], [-1.0]], dtype=teachgrad.float64, requires_grad=True)

    def f(x, w):
        return ((x * w).tanh() + (x - w) ** 2 / (1 + w.exp())).sum(0)

    assert teachgrad.autograd.gradcheck(f, (x, w))
    assert teachgrad.autograd.gradgradcheck(f, (x, w))


def test_observer_reports_every_step_with_gradients():
    a = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    b = teachgrad.tensor([3.0, 4.0], requires_grad=True)
    y = (a * b).sum()
    steps = []
    with engine.observe(steps.append):
        y.backward()
    assert [s.node.name() for s in steps] == [
        "SumBackward0", "MulBackward0",
        "torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad",
    ]
    assert [s.index for s in steps] == [0, 1, 2, 3]
    total, mul = steps[0], steps[1]
    assert np.asarray(total.grads_in[0]).tolist() == 1.0
    assert [np.asarray(g).tolist() for g in total.grads_out] == [[1.0, 1.0]]
    # d(a*b)/da = b and d(a*b)/db = a, times the incoming ones
    assert [np.asarray(g).tolist() for g in mul.grads_out] == [[3.0, 4.0], [1.0, 2.0]]
    assert mul.ready == [steps[2].node, steps[3].node]  # what runs next, in order
    leaf_steps = {id(s.variable): s for s in steps[2:]}
    assert leaf_steps[id(a)].grad_before is None
    assert leaf_steps[id(a)].grad_after.tolist() == [3.0, 4.0]


def test_observer_sees_grad_before_when_accumulating():
    a = teachgrad.tensor([1.0], requires_grad=True)
    (a * 2).sum().backward()
    steps = []
    with engine.observe(steps.append):
        (a * 3).sum().backward()
    leaf = steps[-1]
    assert leaf.grad_before.tolist() == [2.0] and leaf.grad_after.tolist() == [5.0]


def test_no_observer_no_steps_and_observers_are_removed():
    a = teachgrad.tensor([1.0], requires_grad=True)
    seen = []
    with engine.observe(seen.append):
        pass
    (a * 2).sum().backward()
    assert seen == []


def test_autograd_grad_reports_capture_steps_without_accumulating():
    """teachgrad shows where autograd.grad picks up a wanted gradient (Step.captured);
    PyTorch runs nothing there, and nothing is accumulated into .grad."""
    a = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    t = a * 3
    y = (t * t).sum()
    steps = []
    with engine.observe(steps.append):
        (g,) = teachgrad.autograd.grad(y, t)
    assert g.tolist() == [6.0, 12.0]
    assert steps[-1].node is t.grad_fn and steps[-1].captured
    assert steps[-1].grads_out == ()
    assert a.grad is None


def test_gradient_is_summed_over_broadcast_dimensions():
    a = teachgrad.tensor([[1.0], [2.0]], requires_grad=True)  # (2, 1)
    b = teachgrad.tensor([1.0, 10.0, 100.0], requires_grad=True)  # (3,)
    (a * b).sum().backward()
    assert a.grad.tolist() == [[111.0], [111.0]]
    assert b.grad.tolist() == [3.0, 3.0, 3.0]


def test_retain_graph_false_frees_saved_tensors_only_of_nodes_that_saved():
    a = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (a * a).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.backward()
    z = (a + 1).sum()  # AddBackward0 and SumBackward0 save no tensors
    z.backward()
    z.backward()


def test_non_leaf_grad_warning_is_a_user_warning():
    a = teachgrad.tensor([1.0], requires_grad=True)
    t = a * 2
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert t.grad is None
    t.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert t.grad is None


# ----------------------------------------------------------------------------------------
# Anomaly detection
# ----------------------------------------------------------------------------------------
def test_anomaly_mode_names_the_nan_producing_node_and_the_forward_line():
    x = teachgrad.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = teachgrad.autograd.detect_anomaly()
    with mode:
        assert teachgrad.autograd.is_anomaly_enabled()
        y = x.sqrt()  # the line the warning must show
        nan_error = r"^Function 'SqrtBackward0' returned nan values in its 0th output\.$"
        with pytest.warns(UserWarning) as caught, pytest.raises(RuntimeError, match=nan_error):
            (y * 0).sum().backward()
    assert not teachgrad.autograd.is_anomaly_enabled()
    message = str(caught[0].message)
    assert message.startswith(
        "Error detected in SqrtBackward0. Traceback of forward call that caused the error:"
    )
    assert "y = x.sqrt()  # the line the warning must show" in message
    assert "teachgrad/ops" not in message  # only the user's frames


def test_anomaly_trace_starts_at_the_cell_under_ipython():
    # IPython runs a cell with exec from IPython/core/interactiveshell.py, some forty frames
    # (runpy, the kernel's event loop, ipykernel) below the cell: the trace leaves them out.
    namespace = {}
    exec(compile("def kernel_loop(run):\n    return run()\n", "kernel_stand_in.py", "exec"),
         namespace)
    shell_file = os.path.join("site-packages", "IPython", "core", "interactiveshell.py")
    exec(compile("def run_code(code, ns):\n    exec(code, ns)\n", shell_file, "exec"),
         namespace)
    cell = compile("y = x.sqrt()\n", "cell_stand_in.py", "exec")
    user = {"x": teachgrad.tensor([0.0, 1.0], requires_grad=True)}
    with teachgrad.autograd.set_detect_anomaly(True):
        namespace["kernel_loop"](lambda: namespace["run_code"](cell, user))
        with pytest.warns(UserWarning) as caught, pytest.raises(RuntimeError, match="nan"):
            (user["y"] * 0).sum().backward()
    trace = str(caught[0].message).split("\n", 1)[1]
    assert trace.startswith('  File "cell_stand_in.py", line 1, in <module>'), trace
    assert "kernel_stand_in" not in trace and "interactiveshell" not in trace


def test_anomaly_mode_reports_errors_of_custom_backward():
    class Broken(teachgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("boom")

    x = teachgrad.tensor([1.0], requires_grad=True)
    with teachgrad.autograd.set_detect_anomaly(True):
        y = Broken.apply(x)
        with pytest.warns(UserWarning, match="Error detected in BrokenBackward"), pytest.raises(
            ValueError, match="boom"
        ):
            y.sum().backward()
    assert not teachgrad.autograd.is_anomaly_enabled()


def test_set_detect_anomaly_as_a_function_and_check_nan_off():
    x = teachgrad.tensor([0.0], requires_grad=True)
    teachgrad.autograd.set_detect_anomaly(True, check_nan=False)
    try:
        assert teachgrad.autograd.is_anomaly_enabled()
        assert not teachgrad.autograd.is_anomaly_check_nan_enabled()
        (x.sqrt() * 0).sum().backward()  # nan, but not checked
        assert np.isnan(x.grad.numpy()).all()
    finally:
        teachgrad.autograd.set_detect_anomaly(False)
    assert not teachgrad.autograd.is_anomaly_enabled()


def test_anomaly_mode_off_records_nothing():
    x = teachgrad.tensor([1.0], requires_grad=True)
    y = x.exp()
    assert "_forward_trace" not in y.grad_fn.__dict__
    (y * 0 * float("nan")).sum().backward()  # no check when off: nan flows silently
    assert np.isnan(x.grad.numpy()).all()


def test_a_grad_fn_post_hook_can_replace_the_gradients_it_sends():
    # y = x * w: the node sends dy/dx = w = [3, 4] and dy/dw = x = [1, 2]. The first hook
    # multiplies x's by 10; the second sees that, returns None and changes nothing.
    x = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    w = teachgrad.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    seen = []

    def times_ten(grad_inputs, grad_outputs):
        return (grad_inputs[0] * 10, grad_inputs[1])

    def look(grad_inputs, grad_outputs):
        seen.append(grad_inputs[0].tolist())

    y.grad_fn.register_hook(times_ten)
    y.grad_fn.register_hook(look)
    y.sum().backward()
    assert x.grad.tolist() == [30.0, 40.0]
    assert w.grad.tolist() == [1.0, 2.0]
    assert seen == [[30.0, 40.0]]


def test_a_post_hook_returning_the_wrong_number_of_gradients_is_refused():
    x = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    z = (x * 2).sum()

    def twice(grad_inputs, grad_outputs):
        return grad_inputs[0], grad_inputs[0]

    z.grad_fn.register_hook(twice)
    with pytest.raises(RuntimeError, match=r"hook 'twice' has returned an incorrect number "
                                           r"of values \(got 2, but expected 1\)"):
        z.backward()


def _hooked_square():
    """out = sum(v * v), v = 3x at x = [1, 2]: d out/dv = 2v = [6, 12]. v's tensor hook
    doubles that to [12, 24]; its grad_fn's pre-hook would multiply by 100."""
    x = teachgrad.tensor([1.0, 2.0], requires_grad=True)
    v = x * 3
    out = (v * v).sum()
    calls = []
    v.grad_fn.register_prehook(lambda grads: calls.append("pre") or (grads[0] * 100,))
    v.register_hook(lambda g: calls.append("tensor") or g * 2)
    return v, out, calls


def test_autograd_grad_of_a_non_leaf_is_taken_before_its_node_would_run():
    v, out, calls = _hooked_square()
    (g,) = teachgrad.autograd.grad(out, [v])
    assert g.tolist() == [12.0, 24.0]
    assert calls == ["tensor"]  # the node does not run, so neither do its pre-hooks


def test_backward_with_a_non_leaf_input_accumulates_into_its_grad():
    v, out, calls = _hooked_square()
    out.backward(inputs=[v, v], retain_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a .grad that is set is read without a warning
        assert v.grad.tolist() == [12.0, 24.0]
    out.backward(inputs=[v])
    assert v.grad.tolist() == [24.0, 48.0]
