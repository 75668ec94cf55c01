"""Hooks on a leaf's AccumulateGrad node (``acc.register_hook``, ``acc.register_prehook``)
and their order beside the leaf's tensor hooks and post-accumulate-grad hooks.

PyTorch 2.13's order for a leaf ``x`` in backward: ``x.register_hook`` hooks, the node's
pre-hooks (which may replace the gradient), the accumulation into ``x.grad``,
``x.register_post_accumulate_grad_hook`` hooks, then the node's post-hooks, called as
``hook(grad_inputs=(), grad_outputs=(g,))``. The node is weakly held by the leaf: hooks
put on a node nobody refers to any more are lost, the tensor's own hooks are not.

The gradients are derived by hand (``d/dx sum(3x) = 3``); the torch-marked tests run the
same programs with PyTorch and compare what the hooks saw.
"""

from __future__ import annotations

import gc

import pytest

import teachgrad as torch


def _accumulator(lib, x):
    """The AccumulateGrad node of leaf ``x``, reached as PyTorch's docs reach it."""
    return lib.autograd.graph.get_gradient_edge(x).node


def _as_list(g):
    return None if g is None else g.tolist()


def _order_program(lib) -> list:
    """Two hooks of each kind on one leaf; every hook logs what it saw."""
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    acc = _accumulator(lib, x)
    for i in range(2):
        x.register_hook(lambda g, i=i: log.append((f"tensor{i}", _as_list(g))))
        acc.register_prehook(lambda go, i=i: log.append((f"pre{i}", [_as_list(g) for g in go])))
        x.register_post_accumulate_grad_hook(
            lambda t, i=i: log.append((f"post_accumulate{i}", _as_list(t.grad))))
        acc.register_hook(lambda gi, go, i=i: log.append(
            (f"post{i}", list(gi), [_as_list(g) for g in go])))
    (x * 3).sum().backward()
    return log


def test_acc_hooks_run_after_tensor_hooks_and_post_hooks_after_the_accumulation():
    assert _order_program(torch) == [
        ("tensor0", [3.0, 3.0]),
        ("tensor1", [3.0, 3.0]),
        ("pre0", [[3.0, 3.0]]),
        ("pre1", [[3.0, 3.0]]),
        ("post_accumulate0", [3.0, 3.0]),
        ("post_accumulate1", [3.0, 3.0]),
        ("post0", [], [[3.0, 3.0]]),  # grad_inputs=(): a leaf's node has no inputs
        ("post1", [], [[3.0, 3.0]]),
    ]


def _replacing_program(lib) -> list:
    """A tensor hook adds 1, the node's pre-hook multiplies by 10: what each later hook
    and ``x.grad`` see."""
    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    acc = _accumulator(lib, x)
    x.register_hook(lambda g: g + 1)
    acc.register_prehook(lambda go: (go[0] * 10,))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post_accumulate", t.grad.tolist())))
    acc.register_hook(lambda gi, go: log.append(("post", go[0].tolist())))
    (x * 3).sum().backward()
    log.append(("grad", x.grad.tolist()))
    return log


def test_the_pre_hook_replaces_the_gradient_that_is_accumulated():
    # (3 + 1) * 10 = 40: the post-hook is shown the gradient that was accumulated
    assert _replacing_program(torch) == [
        ("post_accumulate", [40.0, 40.0]), ("post", [40.0, 40.0]), ("grad", [40.0, 40.0])]


def test_handles_remove_the_hooks():
    log = []
    x = torch.ones(2, requires_grad=True)
    acc = _accumulator(torch, x)
    post = acc.register_hook(lambda gi, go: log.append("post"))
    pre = acc.register_prehook(lambda go: log.append("pre"))
    (x * 2).sum().backward()
    assert log == ["pre", "post"]
    post.remove()
    pre.remove()
    pre.remove()  # twice is harmless
    (x * 2).sum().backward()
    assert log == ["pre", "post"]
    with acc.register_hook(lambda gi, go: log.append("scoped")):
        (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert log == ["pre", "post", "scoped"]


def _lifetime_program(lib) -> list:
    """Hooks on a node that dies are lost; a graph that uses the node keeps it alive."""
    log = []
    x = lib.ones(2, requires_grad=True)
    x.register_hook(lambda g: log.append("tensor"))
    _accumulator(lib, x).register_hook(lambda gi, go: log.append("lost"))
    gc.collect()  # nothing refers to that node any more: the next graph gets a new one
    (x * 2).sum().backward()
    log.append("|")
    acc = _accumulator(lib, x)
    acc.register_hook(lambda gi, go: log.append("kept"))
    y = (x * 2).sum()
    del acc
    gc.collect()
    log.append(_accumulator(lib, x) is y.grad_fn.next_functions[0][0].next_functions[0][0])
    y.backward()
    log.append("|")
    del y
    gc.collect()
    (x * 2).sum().backward()
    return log


def test_hooks_on_a_dead_accumulate_grad_node_are_lost_but_tensor_hooks_stay():
    assert _lifetime_program(torch) == ["tensor", "|", True, "tensor", "kept", "|", "tensor"]


def test_autograd_grad_does_not_run_the_node_but_backward_inputs_does():
    log = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    acc = _accumulator(torch, x)
    x.register_hook(lambda g: log.append("tensor"))
    acc.register_prehook(lambda go: log.append("pre"))
    acc.register_hook(lambda gi, go: log.append("post"))
    (grad,) = torch.autograd.grad((x * x).sum(), x)
    assert grad.tolist() == [2.0, 4.0]  # 2x
    assert log == ["tensor"]  # autograd.grad stops at x: its node does not run
    log.clear()
    (x * x).sum().backward(inputs=[x])
    assert log == ["tensor", "pre", "post"]
    assert x.grad.tolist() == [2.0, 4.0]


def test_post_hooks_of_a_leaf_run_even_when_no_gradient_arrived():
    # A pre-hook returning (None,) leaves nothing to accumulate; PyTorch still calls the
    # post-accumulate hooks (x.grad is None) and the node's post-hooks with (None,).
    log = []
    x = torch.ones(2, requires_grad=True)
    acc = _accumulator(torch, x)
    acc.register_prehook(lambda go: (None,))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("post_accumulate", t.grad)))
    acc.register_hook(lambda gi, go: log.append(("post", gi, go)))
    (x * 2).sum().backward()
    assert log == [("post_accumulate", None), ("post", (), (None,))]
    assert x.grad is None


def test_post_hooks_see_tensors_with_history_under_create_graph():
    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    acc = _accumulator(torch, x)  # (held: hooks on a node that dies are lost)
    acc.register_hook(lambda gi, go: seen.append(go[0]))
    with pytest.warns(UserWarning, match="reference cycle"):
        (x * x).sum().backward(create_graph=True)
    (g,) = seen
    assert g.tolist() == [2.0, 4.0] and g.grad_fn is not None
    (gg,) = torch.autograd.grad(g.sum(), x)  # d/dx sum(2x) = 2
    assert gg.tolist() == [2.0, 2.0]


def test_what_an_accumulate_grad_hook_may_return():
    x = torch.ones(2, requires_grad=True)
    acc = _accumulator(torch, x)
    with acc.register_hook(lambda gi, go: ()):  # () is fine: the node has no inputs
        (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with acc.register_hook(lambda gi, go: go), pytest.raises(
        RuntimeError, match=r"^hook '<lambda>' has returned an incorrect number of values "
                            r"\(got 1, but expected 0\)"):
        (x * 2).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]  # (the error comes after the accumulation, as PyTorch)
    with acc.register_hook(lambda gi, go: 5), pytest.raises(
            TypeError, match="^expected tuple, but hook returned 'int'"):
        (x * 2).sum().backward()
    x.grad = None
    with acc.register_prehook(lambda go: (torch.ones(3),)), pytest.raises(
            RuntimeError, match="has changed the size of value"):
        (x * 2).sum().backward()
    with acc.register_prehook(lambda go: ()), pytest.raises(
            RuntimeError, match=r"incorrect number of values \(got 0, but expected 1\)"):
        (x * 2).sum().backward()


def _post_accumulate_returns_program(lib) -> list:
    """What backward() does with each thing a post-accumulate-grad hook may return: the
    first of two hooks returns it, the second logs whether it got the leaf itself."""
    outcomes = []
    for returned in ("None", "the leaf", "another tensor", "an int", "another shape"):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        answers = {"None": None, "the leaf": x, "another tensor": lib.zeros(2),
                   "an int": 0, "another shape": lib.zeros(3)}
        x.register_post_accumulate_grad_hook(lambda t, a=answers[returned]: a)
        x.register_post_accumulate_grad_hook(lambda t, log=log, x=x: log.append(t is x))
        try:
            (x * 3).sum().backward()
            outcome = "ok"
        except (RuntimeError, TypeError) as error:
            outcome = f"{type(error).__name__}: {str(error).splitlines()[0]}"
        outcomes.append((returned, outcome, log, x.grad.tolist()))
    return outcomes


def test_a_post_accumulate_grad_hook_must_return_none():
    # PyTorch's _call_hooks: None or the argument itself pass; anything else must be a
    # tensor shaped like the leaf, and is handed to the next hook in place of the leaf,
    # after which backward() fails. (teachgrad ignored what the hook returned.)
    assert _post_accumulate_returns_program(torch) == [
        ("None", "ok", [True], [3.0, 3.0]),
        ("the leaf", "ok", [True], [3.0, 3.0]),
        ("another tensor", "RuntimeError: Tensor post accumulate grad hooks should return "
                           "None.", [False], [3.0, 3.0]),
        ("an int", "TypeError: expected Variable, but hook returned 'int'", [], [3.0, 3.0]),
        ("another shape", "RuntimeError: hook '<lambda>' has changed the size of value", [],
         [3.0, 3.0]),
    ]


@pytest.mark.torch
def test_what_a_post_accumulate_grad_hook_returns_as_pytorch():
    real = pytest.importorskip("torch")
    assert _post_accumulate_returns_program(torch) == _post_accumulate_returns_program(real)


def test_get_gradient_edge():
    x = torch.ones(3, requires_grad=True)
    edge = torch.autograd.graph.get_gradient_edge(x)
    assert edge.node.name() == "torch::autograd::AccumulateGrad" and edge.output_nr == 0
    assert edge.node.variable is x
    parts = (x * 2).split(1)
    node, output_nr, token = torch.autograd.graph.get_gradient_edge(parts[2])
    assert (node, output_nr, token) == (parts[2].grad_fn, 2, None)
    with pytest.raises(RuntimeError, match="^It is not possible to get the gradient edge for "
                                           "a Tensor that does not require gradients$"):
        torch.autograd.graph.get_gradient_edge(torch.ones(2))


@pytest.mark.torch
@pytest.mark.parametrize("program", [_order_program, _replacing_program, _lifetime_program])
def test_matches_pytorch(program):
    real = pytest.importorskip("torch")
    assert program(torch) == program(real)


@pytest.mark.torch
def test_a_gradient_that_is_none_reaches_the_leaf_hooks_as_pytorchs():
    real = pytest.importorskip("torch")
    results = []
    for lib in (torch, real):
        log = []
        x = lib.ones(2, requires_grad=True)
        acc = _accumulator(lib, x)
        acc.register_prehook(lambda go: (None,))
        x.register_post_accumulate_grad_hook(lambda t, log=log: log.append(("pa", t.grad)))
        acc.register_hook(lambda gi, go, log=log: log.append(("post", gi, go)))
        with acc.register_hook(lambda gi, go: go), pytest.raises(RuntimeError) as error:
            (x * 2).sum().backward()
        results.append((log, str(error.value).split("\n")[0], x.grad))
    assert results[0] == results[1]
