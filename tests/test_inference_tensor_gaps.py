"""Inference tensors (made inside ``inference_mode``) in three corners PyTorch 2.13 defines:

(a) one made to require grad (``ones(2, requires_grad=True)`` in the block) says
    ``requires_grad=True``, yet an op whose only tensor inputs are inference tensors is
    not recorded (PyTorch keeps no autograd state for them);
(b) its ``detach()`` / ``.data`` is an inference tensor with a version counter of its own:
    it may be changed in place outside the block, which changes the original;
(c) ``backward()`` / ``autograd.grad`` run inside the block record no graph, and a new
    ``.grad`` is an inference tensor;
(d) an op with an ordinary tensor among its inputs, or a Python number (PyTorch wraps it
    into an ordinary tensor: ``a + 1``, ``a * 2``), is recorded, with the tensor of (a) as
    a leaf that gets an ordinary ``.grad``.

The expectations follow from those rules; the torch-marked test runs the same programs
with PyTorch and compares.
"""

from __future__ import annotations

import pytest

import teachgrad


def _made_requiring_grad(lib):
    with lib.inference_mode():
        return lib.ones(2, requires_grad=True)


def _inference_ones(lib):
    with lib.inference_mode():
        return lib.ones(3)


def _outcome(fn):
    try:
        return fn()
    except RuntimeError as error:
        return "RuntimeError", str(error).split("\nHint:")[0]


def _recorded(t):
    return t.requires_grad, None if t.grad_fn is None else type(t.grad_fn).__name__


def _version(t):
    try:
        return t._version
    except RuntimeError:
        return "no version"


def _not_recorded_ops(lib):
    a = _made_requiring_grad(lib)
    return {
        "flag": (a.requires_grad, a.is_leaf, a.is_inference(), a.grad_fn),
        "exp": _recorded(a.exp()),
        "sum": _recorded(a.sum()),
        "mul_self": _recorded(a * a),
        "view": _recorded(a[0:1]),
        "backward": _outcome(lambda: a.sum().backward()),
        "grad": a.grad,
        "mixed_saves_it": _outcome(lambda: a * lib.ones(2, requires_grad=True)),
        "set_true_outside": _outcome(lambda: a.requires_grad_()),
        # it says it requires grad, so hooks may be registered and retain_grad() is the
        # no-op it is for any leaf (nothing recorded here ever calls them)
        "retain_grad": (_outcome(a.retain_grad), a.retains_grad),
        "hook": type(_outcome(lambda: a.register_hook(lambda g: g))).__name__,
        "post_accumulate_hook": type(_outcome(
            lambda: a.register_post_accumulate_grad_hook(lambda t: None))).__name__,
        "set_false_outside": a.requires_grad_(False).requires_grad,
    }


def _detached_changes(lib):
    results = {}
    for how in ("detach", "data"):
        t = _inference_ones(lib)
        d = t.detach() if how == "detach" else t.data
        d.add_(1)
        d.mul_(2)
        results[how] = (t.tolist(), d.is_inference(), _version(d), _version(t))
    t = _inference_ones(lib)
    results["original_still_refused"] = _outcome(lambda: t.add_(1))
    results["detached_may_not_require_grad"] = _outcome(lambda: t.detach().requires_grad_())
    results["view_of_detached_has_no_version"] = _version(t.detach()[0:2])
    # (a fresh one: PyTorch's refused t.add_(1) above has changed t before refusing, which
    # teachgrad does not do: a refused change changes nothing)
    t = _inference_ones(lib)
    v = t[0:2].detach()
    v.fill_(5.0)
    results["detached_view"] = t.tolist()
    d = t.detach()
    with teachgrad.no_grad() if lib is teachgrad else lib.no_grad():
        d.zero_()
    results["under_no_grad"] = t.tolist()
    return results


def _backward_inside(lib):
    w = lib.ones(2, requires_grad=True)
    y = (w * w).sum()
    with lib.inference_mode():
        y.backward(retain_graph=True)
    first = (w.grad.tolist(), w.grad.is_inference(), w.grad.requires_grad)
    with lib.inference_mode():
        y.backward(retain_graph=True)  # adds to the inference .grad, inside the block
    second = w.grad.tolist()
    outside = _outcome(lambda: y.backward())  # but not outside it
    v = lib.ones(2, requires_grad=True)
    z = (v * v).sum()
    with lib.inference_mode():
        (g,) = lib.autograd.grad(z, v, create_graph=True)
    return first, second, outside, (g.tolist(), g.is_inference(), g.requires_grad)


def _recorded_with_an_ordinary_input(lib):
    """An op with an ordinary tensor among its inputs is recorded, and a Python number
    counts as one (PyTorch wraps it into an ordinary tensor); the inference tensor that
    requires grad is a leaf of it then, and gets an ordinary ``.grad``."""
    results = {}
    ops = {
        "add_number": lambda a: a + 1, "mul_number": lambda a: a * 2,
        "div_number": lambda a: a / 2, "add_method": lambda a: a.add(1.5),
        "add_tensor": lambda a: a + lib.ones(2), "mul_tensor_left": lambda a: lib.ones(2) * a,
        "cat": lambda a: lib.cat([a, lib.ones(2)]), "dot": lambda a: a @ lib.ones(2),
        "where": lambda a: lib.where(a > 0, a, lib.zeros(2)),
        # only inference tensors (an exponent, bounds or weight given as numbers are not
        # wrapped by PyTorch): nothing is recorded
        "exp": lambda a: a.exp(), "mul_self": lambda a: a * a, "pow": lambda a: a ** 2,
        "clamp": lambda a: a.clamp(0, 1), "stack": lambda a: lib.stack([a, a]),
        "lerp": lambda a: a.lerp(a, 0.5),
    }
    for name, op in ops.items():
        a = _made_requiring_grad(lib)
        out = op(a)
        seen = _recorded(out)
        if out.grad_fn is not None:
            out.sum().backward()
            seen += (a.grad.tolist(), a.grad.is_inference())
        results[name] = seen
    a = _made_requiring_grad(lib)
    x = lib.ones(2, requires_grad=True)
    (a + x).sum().backward()
    results["with_a_leaf"] = (a.grad.tolist(), x.grad.tolist())
    a = _made_requiring_grad(lib)
    y = a + 1
    results["one_accumulator"] = (
        y.grad_fn.next_functions[0][0] is (a * 3).grad_fn.next_functions[0][0])
    n = lib.zeros(2)
    n.add_(a)  # an ordinary tensor changed in place with it: recorded
    results["inplace_into_ordinary"] = _recorded(n)
    with lib.inference_mode():
        model = lib.nn.Linear(2, 1)  # parameters: inference tensors that require grad
    results["model_on_inference_input"] = _recorded(model(_made_requiring_grad(lib)))
    results["model_on_ordinary_input"] = _outcome(lambda: model(lib.ones(1, 2, requires_grad=True)))
    return results


def _index_and_number_arguments(lib):
    """An index or mask tensor is an input of PyTorch's op too (teachgrad passes it as a
    constant), and a Python number that PyTorch's kernel wraps into an ordinary tensor
    (``fmod``, ``remainder``, ``1 - a``) makes it record the op of two tensors; an index
    made in ``inference_mode`` cannot be saved for backward, as any inference tensor."""
    results = {}
    ops = {
        "index_select": lambda a: a.index_select(0, lib.tensor([1])),
        "list_index": lambda a: a[[1, 0]], "mask_index": lambda a: a[a > 0],
        "masked_fill": lambda a: a.masked_fill(lib.tensor([True, False]), 0.0),
        "scatter": lambda a: a.scatter(0, lib.tensor([1]), 0.0),
        "index_fill": lambda a: a.index_fill(0, lib.tensor([1]), 0.0),
        "gather_saves_it": lambda a: a.gather(0, lib.tensor([1])),
        "fmod": lambda a: a.fmod(2), "remainder": lambda a: a.remainder(2),
        "rsub": lambda a: 1 - a,
        "xlogy_saves_it": lambda a: a.xlogy(2), "copysign_saves_it": lambda a: a.copysign(1.0),
    }
    for name, op in ops.items():
        a = _made_requiring_grad(lib)
        out = _outcome(lambda op=op, a=a: op(a))
        if type(out) is tuple:
            results[name] = out
            continue
        seen = _recorded(out)
        if out.grad_fn is not None:
            out.sum().backward()
            seen += (a.grad.tolist(),)
        results[name] = seen
    with lib.inference_mode():
        index, mask, target = lib.tensor([1, 0]), lib.tensor([True, False]), lib.tensor([1])
    x = lib.ones(2, requires_grad=True)
    F = lib.nn.functional
    for name, op in {"index_select": lambda: x.index_select(0, index),
                     "index": lambda: x[index], "masked_fill": lambda: x.masked_fill(mask, 0.0),
                     "where": lambda: lib.where(mask, x, 0.0),
                     "nll_loss": lambda: F.nll_loss(x.view(1, 2), target)}.items():
        results["inference_" + name] = _outcome(op)
    return results


PROGRAMS = [_not_recorded_ops, _detached_changes, _backward_inside,
            _recorded_with_an_ordinary_input, _index_and_number_arguments]


def _comparable(value):
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_comparable(v) for v in value]
    if hasattr(value, "tolist"):
        return ("tensor", value.tolist())
    return value


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_inference_tensors_as_pytorch(program):
    real = pytest.importorskip("torch")
    assert _comparable(program(teachgrad)) == _comparable(program(real))


def test_ops_on_inference_tensors_that_require_grad_are_not_recorded():
    seen = _not_recorded_ops(teachgrad)
    assert seen["flag"] == (True, True, True, None)
    for op in ("exp", "sum", "mul_self", "view"):
        assert seen[op] == (False, None), op
    assert seen["backward"][1].startswith("element 0 of tensors does not require grad")
    assert seen["grad"] is None
    assert seen["mixed_saves_it"][1].startswith("Inference tensors cannot be saved")
    assert seen["set_true_outside"][1].startswith("Setting requires_grad=True on inference")
    assert seen["set_false_outside"] is False
    assert seen["retain_grad"] == (None, False)
    assert seen["hook"] == seen["post_accumulate_hook"] == "RemovableHandle"
    assert "requires_grad=True" in repr(_made_requiring_grad(teachgrad))


def test_detach_and_data_of_an_inference_tensor_may_change_it():
    seen = _detached_changes(teachgrad)
    for how in ("detach", "data"):
        assert seen[how] == ([4.0, 4.0, 4.0], True, 2, "no version"), how
    assert seen["original_still_refused"][1].startswith("Inplace update to inference tensor")
    assert seen["detached_may_not_require_grad"][1].startswith("Setting requires_grad=True")
    assert seen["view_of_detached_has_no_version"] == "no version"
    assert seen["detached_view"] == [5.0, 5.0, 1.0]
    assert seen["under_no_grad"] == [0.0, 0.0, 0.0]


def test_backward_inside_inference_mode():
    first, second, outside, from_grad = _backward_inside(teachgrad)
    assert first == ([2.0, 2.0], True, False)  # d(sum w²)/dw = 2w
    assert second == [4.0, 4.0]
    assert outside[1].startswith("Inplace update to inference tensor")
    assert from_grad == ([2.0, 2.0], True, False)  # no graph: grad mode is off in the block


def test_an_op_with_an_ordinary_input_or_a_number_is_recorded():
    seen = _recorded_with_an_ordinary_input(teachgrad)
    # d/da of sum(a + 1), sum(2a), sum(a / 2), sum(a + 1.5), sum(a + 1), sum(1 * a),
    # sum(cat(a, 1)), a · 1, sum(where(a > 0, a, 0)) at a = [1, 1]
    expected = {"add_number": ("AddBackward0", [1.0, 1.0]),
                "mul_number": ("MulBackward0", [2.0, 2.0]),
                "div_number": ("DivBackward0", [0.5, 0.5]),
                "add_method": ("AddBackward0", [1.0, 1.0]),
                "add_tensor": ("AddBackward0", [1.0, 1.0]),
                "mul_tensor_left": ("MulBackward0", [1.0, 1.0]),
                "cat": ("CatBackward0", [1.0, 1.0]), "dot": ("DotBackward0", [1.0, 1.0]),
                "where": ("WhereBackward0", [1.0, 1.0])}
    for name, (node, grad) in expected.items():
        assert seen[name] == (True, node, grad, False), name
    for name in ("exp", "mul_self", "pow", "clamp", "stack", "lerp"):
        assert seen[name] == (False, None), name
    assert seen["with_a_leaf"] == ([1.0, 1.0], [1.0, 1.0])
    assert seen["one_accumulator"] is True
    assert seen["inplace_into_ordinary"] == (True, "AddBackward0")
    assert seen["model_on_inference_input"] == (False, None)
    assert seen["model_on_ordinary_input"][1].startswith("Inference tensors cannot be saved")


def test_index_tensors_and_wrapped_numbers_count_as_ordinary_inputs():
    seen = _index_and_number_arguments(teachgrad)
    # the gradients at a = [1, 1]: the picked / kept / unfilled elements get 1; fmod and
    # remainder by 2 have slope 1; 1 - a has slope -1
    expected = {"index_select": ("IndexSelectBackward0", [0.0, 1.0]),
                "list_index": ("IndexBackward0", [1.0, 1.0]),
                "mask_index": ("IndexBackward0", [1.0, 1.0]),
                "masked_fill": ("MaskedFillBackward0", [0.0, 1.0]),
                "scatter": ("ScatterBackward1", [1.0, 0.0]),
                "index_fill": ("IndexFillBackward0", [1.0, 0.0]),
                "fmod": ("FmodBackward1", [1.0, 1.0]),
                "remainder": ("RemainderBackward1", [1.0, 1.0]),
                "rsub": ("SubBackward0", [-1.0, -1.0])}
    for name, (node, grad) in expected.items():
        assert seen[name] == (True, node, grad), name
    refused = [name for name, outcome in seen.items() if outcome[0] == "RuntimeError"]
    assert sorted(refused) == sorted(
        ["gather_saves_it", "xlogy_saves_it", "copysign_saves_it", "inference_index_select",
         "inference_index", "inference_masked_fill", "inference_where", "inference_nll_loss"])
    for name in refused:
        assert seen[name][1].startswith("Inference tensors cannot be saved for backward")


# (e) PyTorch's composite kernels: with only inference tensors as inputs (one requiring
#     grad), clone and a dtype conversion are empty_like(self).copy_(self), whose copy_ is
#     recorded (CopyBackwards, an ordinary tensor; the gradient reaches the inference
#     tensor's .grad); mean, abs, number ** tensor ... write through their out= variant,
#     which refuses a tensor that requires grad; masked_select saves its input.
OUT_REFUSED = "functions with out=... arguments don't support automatic differentiation, " \
    "but one of the arguments requires grad."


def _copies_and_out_variants(lib):
    a = _made_requiring_grad(lib)
    seen = {}
    for name, make in [("clone", lambda: a.clone()), ("to", lambda: a.to(lib.float64)),
                       ("double", lambda: a.double()), ("half", lambda: a.half()),
                       ("to_copy", lambda: a.to(lib.float32, copy=True)),
                       ("torch_clone", lambda: lib.clone(a))]:
        out = make()
        seen[name] = (out.requires_grad, type(out.grad_fn).__name__, out.is_inference(),
                      out.is_leaf, out._version, str(out.dtype).split(".")[-1])
    weights = lib.tensor([2.0, 3.0])
    (a.clone() * weights).sum().backward()
    seen["grad"] = (a.grad.tolist(), a.grad.is_inference())
    (a.to(lib.float64) * 3).sum().backward()  # (cast back to float32 on the way)
    seen["grad_after_to"] = (a.grad.tolist(), str(a.grad.dtype).split(".")[-1])
    for name, run in [("mean", lambda: a.mean()), ("mean_dim", lambda: a.mean(0)),
                      ("abs", lambda: a.abs()), ("torch_abs", lambda: lib.abs(a)),
                      ("absolute", lambda: a.absolute()), ("rpow", lambda: 2 ** a),
                      ("rpow_float", lambda: 2.0 ** a), ("var", lambda: a.var()),
                      ("std", lambda: a.std()), ("logsumexp", lambda: a.logsumexp(0)),
                      ("nan_to_num", lambda: a.nan_to_num()),
                      ("hardtanh", lambda: lib.nn.functional.hardtanh(a)),
                      ("masked_select", lambda: a.masked_select(lib.tensor([True, False])))]:
        seen[name] = _outcome(run)
    seen["pow_number_exponent"] = _recorded(a ** 2)  # (not a composite: nothing recorded)
    return seen


PROGRAMS.append(_copies_and_out_variants)


def test_clone_and_to_are_recorded_as_a_copy_and_composites_refuse():
    seen = _copies_and_out_variants(teachgrad)
    for name in ("clone", "to", "double", "half", "to_copy", "torch_clone"):
        assert seen[name][:5] == (True, "CopyBackwards", False, False, 1), name
    assert seen["grad"] == ([2.0, 3.0], False)  # an ordinary .grad, summed: 1·w
    assert seen["grad_after_to"] == ([5.0, 6.0], "float32")  # 2 + 3, 3 + 3
    for name, op in [("mean", "sum"), ("mean_dim", "sum"), ("abs", "abs"),
                     ("torch_abs", "abs"), ("absolute", "abs"), ("rpow", "pow"),
                     ("rpow_float", "pow"), ("var", "sum"), ("std", "sum"),
                     ("logsumexp", "logsumexp"), ("nan_to_num", "nan_to_num"),
                     ("hardtanh", "hardtanh")]:
        assert seen[name] == ("RuntimeError", f"{op}(): {OUT_REFUSED}"), name
    assert seen["masked_select"][1].startswith("Inference tensors cannot be saved for backward")
    assert seen["pow_number_exponent"] == (False, None)
