"""``state_dict`` / ``load_state_dict`` hooks (PyTorch 2.13): who runs when, with what, and
what a hook may change or return.

Each program below is written once for a library ``lib``; the plain tests check teachgrad
against what the hooks must see by the rules (pre-hooks parents first, post-hooks children
first), the torch-marked ones run the same program with PyTorch and compare the logs.
"""

from __future__ import annotations

import copy

import pytest

import teachgrad

PROGRAMS = []


def program(fn):
    PROGRAMS.append(fn)
    return fn


def _tree(lib):
    """root (Sequential) -> '0' Linear(2, 2), '1' Sequential -> '0' Linear(2, 1)."""
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Linear(2, 1)))


def _names(model):
    return {id(m): name or "root" for name, m in model.named_modules()}


@program
def save_hook_order(lib):
    model, log = _tree(lib), []
    names = _names(model)
    for module in model.modules():
        module.register_state_dict_pre_hook(
            lambda m, prefix, keep_vars: log.append(("pre", names[id(m)], prefix, keep_vars)))
        module.register_state_dict_post_hook(
            lambda m, sd, prefix, meta: log.append(
                ("post", names[id(m)], prefix, list(sd), dict(meta))))
    state = model.state_dict(keep_vars=True)
    log.append(("keys", list(state), {k: dict(v) for k, v in state._metadata.items()}))
    return log


@program
def save_post_hook_edits_in_place(lib):
    model = _tree(lib)

    def rename(m, sd, prefix, meta):
        sd[prefix + "w"] = sd.pop(prefix + "weight")

    model[1][0].register_state_dict_post_hook(rename)
    return list(model.state_dict())


@program
def save_public_post_hook_must_return_none(lib):
    model = _tree(lib)
    model[0].register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
    with pytest.raises(RuntimeError) as info:
        model.state_dict()
    return str(info.value)


@program
def save_private_hook_result_counts_at_the_root_only(lib):
    model = _tree(lib)
    model[0]._register_state_dict_hook(lambda m, sd, prefix, meta: {"child": 1})
    keys_child = list(model.state_dict())
    handle = model._register_state_dict_hook(lambda m, sd, prefix, meta: {"root": 2})
    replaced = model.state_dict()
    handle.remove()
    return keys_child, dict(replaced), list(model.state_dict())


@program
def save_same_function_public_then_private(lib):
    model = _tree(lib)

    def hook(m, sd, prefix, meta):
        pass

    model.register_state_dict_post_hook(hook)
    with pytest.raises(RuntimeError) as info:
        model._register_state_dict_hook(hook)
    return str(info.value)


@program
def save_handles_remove(lib):
    model, log = _tree(lib), []
    pre = model.register_state_dict_pre_hook(lambda *a: log.append("pre"))
    post = model.register_state_dict_post_hook(lambda *a: log.append("post"))
    model.state_dict()
    pre.remove()
    post.remove()
    post.remove()  # twice is harmless
    model.state_dict()
    return log


@program
def save_into_a_given_destination_and_prefix(lib):
    model, seen = _tree(lib), []
    model[1].register_state_dict_post_hook(
        lambda m, sd, prefix, meta: seen.append((prefix, dict(meta))))
    plain = {}
    result = model.state_dict(destination=plain, prefix="net.")
    return result is plain, list(plain), seen


@program
def load_hook_order_and_arguments(lib):
    model, log = _tree(lib), []
    names = _names(model)
    state = _tree(lib).state_dict()
    del state["1.0.bias"]
    state["extra"] = lib.zeros(1)
    for module in model.modules():
        module.register_load_state_dict_pre_hook(
            lambda m, sd, prefix, meta, strict, missing, unexpected, errors: log.append(
                ("pre", names[id(m)], prefix, sorted(sd), dict(meta), strict,
                 list(missing), list(unexpected), list(errors))))
        module.register_load_state_dict_post_hook(
            lambda m, keys: log.append(("post", names[id(m)], list(keys.missing_keys),
                                        list(keys.unexpected_keys))))
    result = model.load_state_dict(state, strict=False)
    log.append(("result", result.missing_keys, result.unexpected_keys))
    return log


@program
def load_pre_hook_renames_old_keys(lib):
    model = _tree(lib)
    source = _tree(lib)
    with lib.no_grad():
        for p in source.parameters():
            p.add_(1.0)
    old = {k.replace("weight", "w"): v for k, v in source.state_dict().items()}

    def upgrade(m, sd, prefix, meta, strict, missing, unexpected, errors):
        if prefix + "w" in sd:  # each module renames its own old key
            sd[prefix + "weight"] = sd.pop(prefix + "w")

    for module in model.modules():
        module.register_load_state_dict_pre_hook(upgrade)
    result = model.load_state_dict(old)
    return str(result), [p.tolist() for p in model.parameters()] == \
        [p.tolist() for p in source.parameters()]


@program
def load_private_pre_hook_without_module(lib):
    model, seen = _tree(lib), []
    model[1]._register_load_state_dict_pre_hook(
        lambda sd, prefix, *rest: seen.append((prefix, sorted(sd))))
    model[1]._register_load_state_dict_pre_hook(
        lambda m, sd, prefix, *rest: seen.append((type(m).__name__, prefix)), with_module=True)
    model.load_state_dict(model.state_dict())
    return seen


@program
def load_post_hook_may_forgive_or_add_keys(lib):
    model = _tree(lib)
    partial = model.state_dict()
    del partial["0.bias"]
    handle = model.register_load_state_dict_post_hook(
        lambda m, keys: keys.missing_keys.clear())
    forgiven = str(model.load_state_dict(partial))
    handle.remove()
    model.register_load_state_dict_post_hook(
        lambda m, keys: keys.unexpected_keys.append("made.up"))
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(model.state_dict())
    return forgiven, str(info.value)


@program
def load_post_hook_must_return_none(lib):
    model = _tree(lib)
    model[0].register_load_state_dict_post_hook(lambda m, keys: keys)
    with pytest.raises(AssertionError) as info:
        model.load_state_dict(model.state_dict())
    return str(info.value)


@program
def load_pre_hook_error_message(lib):
    model = _tree(lib)
    model[1][0].register_load_state_dict_pre_hook(
        lambda m, sd, prefix, meta, strict, missing, unexpected, errors: errors.append("no!"))
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(model.state_dict())
    return str(info.value)


@program
def load_pre_hook_follows_a_deepcopy(lib):
    model, seen = _tree(lib), []
    model.register_load_state_dict_pre_hook(lambda m, *rest: seen.append(m))
    twin = copy.deepcopy(model)
    twin.load_state_dict(twin.state_dict())
    return [m is twin for m in seen]


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda f: f.__name__)
def test_state_dict_hooks_as_pytorch(prog):
    real = pytest.importorskip("torch")
    assert prog(teachgrad) == prog(real)


# --- the same rules, derived by hand (run without PyTorch) --------------------------------

def test_save_hooks_run_parents_first_then_children_first():
    log = save_hook_order(teachgrad)
    pre = [(entry[1], entry[2]) for entry in log if entry[0] == "pre"]
    post = [(entry[1], entry[2]) for entry in log if entry[0] == "post"]
    assert pre == [("root", ""), ("0", "0."), ("1", "1."), ("1.0", "1.0.")]
    assert post == [("0", "0."), ("1.0", "1.0."), ("1", "1."), ("root", "")]
    # a child's post-hook sees what has been saved so far
    assert log[2] == ("post", "0", "0.", ["0.weight", "0.bias"], {"version": 1})
    assert log[-1][2] == {"": {"version": 1}, "0": {"version": 1}, "1": {"version": 1},
                          "1.0": {"version": 1}}


def test_save_hook_results():
    assert save_post_hook_edits_in_place(teachgrad) == ["0.weight", "0.bias", "1.0.bias",
                                                        "1.0.w"]
    assert save_public_post_hook_must_return_none(teachgrad) == \
        "state_dict post-hook must return None"
    keys, replaced, after = save_private_hook_result_counts_at_the_root_only(teachgrad)
    assert keys == after == ["0.weight", "0.bias", "1.0.weight", "1.0.bias"]
    assert replaced == {"root": 2}
    assert save_handles_remove(teachgrad) == ["pre", "post"]


def test_load_hooks_see_this_modules_keys_and_the_lists_so_far():
    log = load_hook_order_and_arguments(teachgrad)
    order = [(entry[0], entry[1]) for entry in log[:-1]]
    assert order == [("pre", "root"), ("pre", "0"), ("post", "0"), ("pre", "1"),
                     ("pre", "1.0"), ("post", "1.0"), ("post", "1"), ("post", "root")]
    root_pre = log[0]
    assert root_pre[3] == ["0.bias", "0.weight", "1.0.weight", "extra"]
    assert root_pre[5] is True  # the hooks always see strict=True (PyTorch passes True)
    assert log[4][3] == ["1.0.weight"]  # the child's own copy of the state dict
    assert log[5] == ("post", "1.0", ["1.0.bias"], ["extra"])
    assert log[-1] == ("result", ["1.0.bias"], ["extra"])


def test_a_load_that_a_post_hook_fails_changes_nothing():
    model = teachgrad.nn.Linear(2, 1)
    with teachgrad.no_grad():
        model.weight.fill_(1.0)
        model.bias.fill_(1.0)
    seen = []
    model.register_load_state_dict_post_hook(
        lambda m, keys: (seen.append(m.weight.tolist()), keys.missing_keys.append("x")))
    with pytest.raises(AssertionError):  # the hook returned a tuple
        model.load_state_dict({"weight": teachgrad.zeros(1, 2), "bias": teachgrad.zeros(1)})
    assert seen == [[[0.0, 0.0]]]  # the hook saw the loaded values (as in PyTorch) ...
    assert model.weight.tolist() == [[1.0, 1.0]]  # ... which were then put back
    assert model.bias.tolist() == [1.0]


def test_a_strict_load_failed_by_a_pre_hook_changes_nothing():
    model = teachgrad.nn.Sequential(teachgrad.nn.Linear(2, 1), teachgrad.nn.Linear(1, 1))
    before = [p.tolist() for p in model.parameters()]
    state = {k: teachgrad.zeros_like(v) for k, v in model.state_dict().items()}
    model[1].register_load_state_dict_pre_hook(
        lambda m, sd, prefix, *rest: sd.pop(prefix + "bias"))
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "1.bias"'):
        model.load_state_dict(state)
    assert [p.tolist() for p in model.parameters()] == before
    model.load_state_dict(state, strict=False)
    assert model[1].bias.tolist() == before[3]  # not in the state dict the module saw
    assert model[0].weight.tolist() == [[0.0, 0.0]]
