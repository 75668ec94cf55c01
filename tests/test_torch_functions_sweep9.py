"""Differences from PyTorch closed in the twenty-sixth session, found by the sweeps
(tests/sweep_*_against_torch.py and their ``--missing`` lists).

Expected values are worked by hand or are PyTorch 2.13's, written out, so these tests run
without PyTorch; the tests that need PyTorch to compare with skip without it."""

from __future__ import annotations

import math

import pytest

import teachgrad as tg

F = tg.nn.functional


def _nodes(root):
    """Every node of the graph under ``root``, each once (depth first)."""
    found, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


# ----------------------------------------------------------------- saved values


def test_label_smoothing_nodes_show_the_numbers_they_multiply_by():
    # cross_entropy with label_smoothing ε over C classes: PyTorch's C++ multiplies the
    # two loss terms by (1 - ε) and ε / C with the tensor-times-scalar overload
    # (MulBackward1), whose grad_fn._saved_other is the Python number.
    x = tg.ones(1, 3, requires_grad=True)
    loss = F.cross_entropy(x, tg.tensor([1]), label_smoothing=0.1)
    factors = sorted(node._saved_other for node in _nodes(loss.grad_fn)
                     if type(node).__name__ == "MulBackward1")
    assert factors == pytest.approx([0.1 / 3, 0.9])
    assert all(isinstance(f, float) for f in factors)


def test_probability_targets_divide_by_the_batch_as_a_number():
    # cross_entropy with class probabilities and reduction='mean': the sum over the batch
    # divided by N = 2 (DivBackward1, _saved_other the int 2)
    x = tg.ones(2, 3, requires_grad=True)
    loss = F.cross_entropy(x, tg.full((2, 3), 1 / 3))
    assert type(loss.grad_fn).__name__ == "DivBackward1"
    assert loss.grad_fn._saved_other == 2


def test_attention_scale_shown_as_pytorch_shows_it():
    # scaled_dot_product_attention scales q and k each by 1/sqrt(sqrt(E)) (E = 3 here)
    q = tg.ones(1, 2, 3, requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q)
    scales = [node._saved_other for node in _nodes(out.grad_fn)
              if type(node).__name__ == "MulBackward1"]
    assert scales and all(s == pytest.approx(1 / math.sqrt(math.sqrt(3))) for s in scales)


def test_saved_numbers_as_pytorch():
    torch = pytest.importorskip("torch")

    def factors(lib):
        x = lib.ones(2, 4, requires_grad=True)
        losses = [lib.nn.functional.cross_entropy(x, lib.tensor([1, 3]), label_smoothing=0.25),
                  lib.nn.functional.cross_entropy(x, lib.full((2, 4), 0.25)),
                  lib.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None])]
        return [sorted((type(n).__name__, n._saved_other) for n in _nodes(loss.grad_fn)
                       if type(n).__name__ in ("MulBackward1", "DivBackward1"))
                for loss in losses]

    ours, theirs = factors(tg), factors(torch)
    assert [[name for name, _ in nodes] for nodes in ours] == \
        [[name for name, _ in nodes] for nodes in theirs]
    for nodes, expected in zip(ours, theirs):
        assert [v for _, v in nodes] == pytest.approx([v for _, v in expected])


# ----------------------------------------------------------------- missing public names
#
# From ``sweep_functions_against_torch.py --missing`` and the same question asked of the
# other namespaces: names tutorials and device-agnostic training code use.


def test_version_answers_as_a_cpu_build():
    # tutorials print torch.version.cuda to see whether PyTorch was built with CUDA
    assert tg.version.cuda is None
    assert tg.version.hip is None and tg.version.rocm is None and tg.version.xpu is None
    assert tg.version.debug is False
    assert tg.version.__version__ == tg.__version__
    assert isinstance(tg.version.git_version, str)


def test_cpu_answers_device_agnostic_questions():
    # PyTorch 2.13: torch.cpu.is_available() True, device_count() 1 (the CPU is one
    # device), current_device() 'cpu', synchronize()/set_device() None
    backend = getattr(tg, tg.device("cpu").type)
    assert backend is tg.cpu
    assert (backend.is_available(), backend.device_count(), backend.current_device(),
            backend.is_initialized()) == (True, 1, "cpu", True)
    assert backend.synchronize() is None and backend.synchronize("cpu") is None
    assert backend.set_device("cpu") is None
    event = tg.cpu.Event()
    event.record()
    assert event.query() is True


def test_cpu_stream_context_chooses_the_current_stream():
    default = tg.cpu.current_stream()
    mine = tg.cpu.Stream()
    with tg.cpu.stream(mine):
        assert tg.cpu.current_stream() is mine
        with tg.cpu.stream(None):  # None: no change
            assert tg.cpu.current_stream() is mine
    assert tg.cpu.current_stream() is default


def test_compiler_marks_and_questions():
    def f(x):
        return x * 2

    assert tg.compiler.is_compiling() is False
    assert tg.compiler.is_dynamo_compiling() is False
    assert tg.compiler.is_exporting() is False
    assert tg.compiler.disable(f)(tg.tensor(3.0)).item() == 6.0

    @tg.compiler.disable(recursive=False)
    def g(x):
        return x + 1

    assert g(tg.tensor(1.0)).item() == 2.0
    assert tg.compiler.allow_in_graph(f) is f
    assert tg.compiler.assume_constant_result(f) is f
    assert tg.compiler.reset() is None and tg.compiler.cudagraph_mark_step_begin() is None
    assert tg.compiler.compile(f) is f  # (torch.compile is the identity here)


def test_error_classes_and_grad_scaler_at_the_top_level():
    # PyTorch: torch.OutOfMemoryError and torch.AcceleratorError derive from RuntimeError,
    # torch.cuda.OutOfMemoryError is torch.OutOfMemoryError, torch.GradScaler torch.amp's
    assert issubclass(tg.OutOfMemoryError, RuntimeError)
    assert issubclass(tg.AcceleratorError, RuntimeError)
    assert tg.cuda.OutOfMemoryError is tg.OutOfMemoryError
    assert tg.GradScaler is tg.amp.GradScaler
    try:
        raise tg.cuda.OutOfMemoryError("out of memory")
    except RuntimeError as error:  # what a batch-size finder catches
        assert str(error) == "out of memory"


def test_new_modules_import_as_torch_submodules():
    from tests.test_as_torch import run_python

    done = run_python(
        "import teachgrad\nteachgrad.install_as_torch()\n"
        "import torch.version, torch.cpu, torch.compiler\n"
        "from torch.func import replace_all_batch_norm_modules_\n"
        "print(torch.version.cuda, torch.cpu.device_count(), torch.compiler.is_compiling(),"
        " torch.OutOfMemoryError)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "1", "False", "<class", "'torch.OutOfMemoryError'>"]


# ----------------------------------------------------------------- batch norm, not instance norm


def _norm_net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4),
                         nn.InstanceNorm1d(4, track_running_stats=True), nn.BatchNorm1d(4))


def test_replace_all_batch_norm_modules_drops_running_stats_of_batch_norm_only():
    net = _norm_net(tg)
    assert tg.func.replace_all_batch_norm_modules_(net) is net
    for bn in (net[1], net[3]):
        assert bn.running_mean is None and bn.running_var is None
        assert bn.num_batches_tracked is None and bn.track_running_stats is False
    # instance norm is not batch norm (PyTorch leaves it alone too)
    assert net[2].track_running_stats is True and net[2].running_mean is not None
    assert list(net.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias",
                                      "2.running_mean", "2.running_var",
                                      "2.num_batches_tracked", "3.weight", "3.bias"]


def test_batch_norm_without_running_stats_uses_the_batch_in_eval_mode():
    # after the replacement, eval mode normalises with the batch's own statistics:
    # mean 0 and (biased) variance 1 per channel, by hand
    bn = tg.func.replace_all_batch_norm_modules_(tg.nn.BatchNorm1d(2)).eval()
    x = tg.tensor([[1.0, 10.0], [3.0, 30.0]])  # channel means 2, 20; variances 1, 100
    first, second = 1 / math.sqrt(1 + 1e-5), 10 / math.sqrt(100 + 1e-5)
    assert bn(x).detach().flatten().tolist() == pytest.approx([-first, -second,
                                                               first, second])


def test_per_sample_gradients_through_batch_norm_under_vmap():
    # the reason the function exists: vmap over single samples of a model with batch norm
    net = tg.nn.Sequential(tg.nn.Linear(2, 3), tg.nn.BatchNorm1d(3), tg.nn.Linear(3, 1))
    tg.func.replace_all_batch_norm_modules_(net)
    params = {k: v.detach() for k, v in net.named_parameters()}
    x = tg.tensor([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]])

    def loss(p, sample):
        pair = sample * tg.tensor([[1.0], [-2.0]])  # a batch of two for batch norm
        return (tg.func.functional_call(net, p, (pair,)) ** 2).sum()

    grads = tg.func.vmap(tg.func.grad(loss), in_dims=(None, 0))(params, x)
    for i in range(3):  # each sample's gradient is the ordinary one of that sample alone
        one = tg.func.grad(loss)(params, x[i])
        for name in params:
            assert one[name].abs().sum() > 0
            assert grads[name][i].flatten().tolist() == pytest.approx(
                one[name].flatten().tolist(), abs=1e-6)


def test_instance_norm_is_not_converted_to_sync_batch_norm():
    net = tg.nn.Sequential(tg.nn.InstanceNorm1d(3, track_running_stats=True),
                           tg.nn.BatchNorm1d(2))
    converted = tg.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(converted[0]) is tg.nn.InstanceNorm1d
    assert type(converted[1]) is tg.nn.SyncBatchNorm
    assert not isinstance(tg.nn.InstanceNorm2d(3), tg.nn.modules.batchnorm._BatchNorm)
    assert isinstance(tg.nn.InstanceNorm2d(3), tg.nn.modules.batchnorm._NormBase)


def test_update_bn_leaves_instance_norm_statistics_to_its_own_momentum():
    # swa_utils.update_bn recomputes batch norm statistics as a plain average (momentum
    # None) over the loader; instance norm keeps its momentum 0.1, as in PyTorch
    torch = pytest.importorskip("torch")

    def run(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.BatchNorm1d(2),
                                lib.nn.InstanceNorm1d(2, track_running_stats=True))
        batch = lib.tensor([[[1.0, 2.0, 4.0], [0.0, -1.0, 3.0]],
                            [[5.0, 1.0, 0.5], [2.0, 2.0, 9.0]]])
        batches = [batch, batch * batch]
        lib.optim.swa_utils.update_bn(batches, net)
        return [net[0].running_mean.tolist(), net[0].momentum,
                net[1].running_var.tolist(), net[1].momentum]

    ours, theirs = run(tg), run(torch)
    assert ours[1] == theirs[1] == 0.1 and ours[3] == theirs[3] == 0.1
    assert ours[0] == pytest.approx(theirs[0]) and ours[2] == pytest.approx(theirs[2])
    assert theirs[2] != pytest.approx([1.0, 1.0])  # (instance norm's statistics did move)


def test_replace_all_batch_norm_modules_as_pytorch():
    torch = pytest.importorskip("torch")

    def run(lib):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
        lib.func.replace_all_batch_norm_modules_(net)
        net.eval()
        x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -2.0], [0.0, 1.0, 1.0]])
        with lib.no_grad():
            for layer in net:  # the same weights in both libraries
                if isinstance(layer, lib.nn.Linear):
                    layer.weight.copy_(lib.arange(12.0).reshape(4, 3) / 10 - 0.5)
                    layer.bias.fill_(0.1)
        return list(net.state_dict()), net(x).flatten().tolist()

    (keys, out), (torch_keys, torch_out) = run(tg), run(torch)
    assert keys == torch_keys
    assert out == pytest.approx(torch_out, abs=1e-5)


# ----------------------------------------------------------------- igamma_ / igammac_


def test_igamma_in_place_values_by_hand():
    # P(1, x) = 1 - e^-x, Q(1, x) = e^-x; P(1/2, x) = erf(sqrt(x))
    a = tg.tensor([1.0, 1.0, 0.5], dtype=tg.float64)
    x = tg.tensor([2.0, 0.5, 1.0], dtype=tg.float64)
    p = a.clone()
    assert p.igamma_(x) is p
    assert p.tolist() == pytest.approx([1 - math.exp(-2), 1 - math.exp(-0.5), math.erf(1)])
    q = a.clone()
    q.igammac_(x)
    assert q.tolist() == pytest.approx([math.exp(-2), math.exp(-0.5), 1 - math.erf(1)])
    f32 = a.float()
    f32.igamma_(x)  # the float64 result written into the float32 tensor
    assert f32.dtype == tg.float32


def test_igamma_in_place_gradient_in_x_is_the_gamma_density():
    # ∂P(a, x)/∂x = x^(a-1) e^-x / Γ(a); ∂Q/∂x is its negative
    a = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    x = tg.tensor([0.5, 3.0], dtype=tg.float64, requires_grad=True)
    out = (a * 1).igammac_(x)
    assert type(out.grad_fn).__name__ == "IgammacBackward0"
    out.sum().backward()
    density = [math.exp(-0.5), 3.0 * math.exp(-3.0) / math.gamma(2.0)]
    assert x.grad.tolist() == pytest.approx([-d for d in density])


@pytest.mark.parametrize("source, error, message", [
    ("torch.tensor([1, 2]).igamma_(torch.tensor([1.0, 2.0]))", RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    ("torch.ones(3).igamma_(2.0)", TypeError,
     "igamma_(): argument 'other' (position 1) must be Tensor, not float"),
    ("torch.ones(3).igammac_(torch.ones(2, 3))", RuntimeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    ("torch.ones(3, requires_grad=True).igamma_(torch.ones(3))", RuntimeError,
     "a leaf Variable that requires grad is being used in an in-place operation."),
])
def test_igamma_in_place_refusals_in_pytorchs_words(source, error, message):
    x = tg.ones(3)
    with pytest.raises(error) as caught:
        eval(source, {"torch": tg})
    assert str(caught.value).split("\nHint: ")[0] == message
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_igamma_in_place_as_pytorch():
    torch = pytest.importorskip("torch")
    a, x = [0.5, 1.0, 2.5, 4.0], [1.0, 0.25, 3.0, 0.0]
    for name in ("igamma_", "igammac_"):
        ours = getattr(tg.tensor(a, dtype=tg.float64), name)(tg.tensor(x, dtype=tg.float64))
        theirs = getattr(torch.tensor(a, dtype=torch.float64), name)(
            torch.tensor(x, dtype=torch.float64))
        assert ours.tolist() == pytest.approx(theirs.tolist(), rel=1e-12)


# ----------------------------------------------------------------- testing.assert_allclose


def test_assert_allclose_warns_and_uses_its_looser_tolerances():
    # float32: rtol 1e-4, atol 1e-5 (assert_close's are 1.3e-6 and 1e-5)
    with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated since 1.12"):
        tg.testing.assert_allclose(tg.tensor([1.0, 2.0]), [1.00005, 2.0])
    with pytest.warns(FutureWarning):
        tg.testing.assert_allclose([1.0, math.nan], [1.0, math.nan])  # NaN equal to NaN
    with pytest.warns(FutureWarning):  # int against float: dtypes not compared
        tg.testing.assert_allclose(tg.tensor([1, 2]), tg.tensor([1.0, 2.0]))


def test_assert_allclose_failures_as_pytorch():
    # PyTorch 2.13's messages, written out
    with pytest.warns(FutureWarning), pytest.raises(AssertionError) as caught:
        tg.testing.assert_allclose(tg.tensor([1.0, 2.0]), [1.001, 2.0])
    assert str(caught.value).startswith(
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n")
    assert "(up to 1e-05 allowed)" in str(caught.value)
    assert "(up to 0.0001 allowed)" in str(caught.value)
    with pytest.warns(FutureWarning), pytest.raises(ValueError) as caught:
        tg.testing.assert_allclose(tg.tensor([1.0]), [1.1], rtol=0.2)
    assert str(caught.value) == ("Both 'rtol' and 'atol' must be either specified or "
                                 "omitted, but got no atol.")
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="^no$"):
        tg.testing.assert_allclose(tg.tensor([1.0]), [1.1], msg="no")


# ----------------------------------------------------------------- torch.cuda's other names


def test_cuda_rng_state_restore_is_a_no_op_that_copies_its_tensor():
    # checkpoint code: torch.cuda.set_rng_state(ckpt['cuda_rng_state']) -- PyTorch's CPU
    # build copies the state for later and returns None; a non-tensor fails on the copy
    assert tg.cuda.set_rng_state(tg.get_rng_state()) is None
    assert tg.cuda.set_rng_state_all([tg.get_rng_state()]) is None
    assert tg.cuda.set_rng_state_all(tg.cuda.get_rng_state_all()) is None
    with pytest.raises(AttributeError, match="'str' object has no attribute 'clone'"):
        tg.cuda.set_rng_state("a")


def test_cuda_old_memory_names():
    with pytest.warns(FutureWarning, match="`torch.cuda.memory_cached` has been renamed to "
                                           "`torch.cuda.memory_reserved`"):
        assert tg.cuda.memory_cached() == 0
    with pytest.warns(FutureWarning, match="max_memory_reserved"):
        assert tg.cuda.max_memory_cached() == 0
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        tg.cuda.reset_max_memory_cached()


def test_cuda_device_of_a_cpu_tensor_does_nothing():
    with tg.cuda.device_of(tg.ones(1)):
        y = tg.ones(2) * 2
    assert y.tolist() == [2.0, 2.0]
    with pytest.raises(AttributeError, match="'int' object has no attribute 'is_cuda'"):
        tg.cuda.device_of(3)


# ----------------------------------------------------------------- Tensor's memory questions


def test_is_set_to_is_the_same_memory_seen_the_same_way():
    # PyTorch 2.13: same storage, first element, sizes and strides
    x = tg.ones(2, 3)
    assert x.is_set_to(x[:]) and x.is_set_to(x.detach()) and x[0].is_set_to(x[0])
    assert x.t().is_set_to(x.t()) and x.is_set_to(x.expand(2, 3))
    assert not x.is_set_to(x.clone())
    assert not x[0].is_set_to(x[1])  # another first element
    assert not x.t().is_set_to(x)  # other sizes and strides
    assert not x.view(6).is_set_to(x)
    assert not tg.ones(0).is_set_to(tg.ones(0))  # two storages


def test_is_set_to_refuses_what_is_not_a_tensor():
    with pytest.raises(TypeError) as caught:
        tg.ones(2).is_set_to(3)
    assert str(caught.value).split("\nHint")[0] == (
        "is_set_to(): argument 'tensor' (position 1) must be Tensor, not int")
    with pytest.raises(TypeError) as caught:
        tg.ones(2).is_set_to()
    assert str(caught.value).split("\nHint")[0] == (
        'is_set_to() missing 1 required positional arguments: "tensor"')


def test_const_data_ptr_share_memory_and_volatile():
    x = tg.ones(2, 3)
    assert x.const_data_ptr() == x.data_ptr()
    assert x[1].const_data_ptr() - x.const_data_ptr() == 3 * 4  # three float32 further
    w = tg.ones(2, requires_grad=True)
    assert w.share_memory_() is w and w.requires_grad
    with pytest.raises(TypeError, match=r"^Tensor.share_memory_\(\) takes 1 positional "):
        w.share_memory_(1)
    with pytest.warns(UserWarning, match=r"^volatile was removed \(Variable.volatile is "
                                         r"always False\)$"):
        assert w.volatile is False


# ----------------------------------------------------------------- bfloat16, refused with a hint


def test_bfloat16_conversions_say_there_is_none_and_what_to_use():
    # (PyTorch converts; NumPy has no bfloat16, so teachgrad refuses as for torch.bfloat16)
    x = tg.ones(2)
    with pytest.raises(AttributeError) as caught:
        x.bfloat16()
    first, hint = str(caught.value).split("\nHint: ")
    assert first == "'Tensor' object has no attribute 'bfloat16'"
    assert "x.half()" in hint
    model = tg.nn.Linear(2, 2)
    with pytest.raises(AttributeError) as caught:
        model.bfloat16()
    assert str(caught.value).startswith("'Linear' object has no attribute 'bfloat16'\nHint: ")
    assert model.weight.dtype == tg.float32  # nothing changed


# ----------------------------------------------------------------- layers given bad arguments
#
# Found by calling nn's layer constructors with values of the wrong kind (as
# sweep_nn_arguments_against_torch.py does for nn.functional): PyTorch's layers make
# their parameters with torch.empty((a, b, ...)) -- a tuple -- so a size that is not an
# int is named by empty()'s parser; teachgrad's passed the sizes one by one and got
# Python's "empty() takes 1 positional argument but 3 were given". PyTorch 2.13's words:

EMPTY_ELEMENT = ("empty(): argument 'size' (position 1) must be tuple of ints, but found "
                 "element of type {} at pos 0")
LAYER_ERRORS = {
    "torch.nn.Bilinear(3, 2, 'a')": (TypeError, EMPTY_ELEMENT.format("str")),
    "torch.nn.Bilinear(3, 2, 1.5)": (TypeError, EMPTY_ELEMENT.format("float")),
    "torch.nn.Embedding(1.5, 3)": (TypeError, EMPTY_ELEMENT.format("float")),
    "torch.nn.Embedding((1, 2), 3)": (TypeError, EMPTY_ELEMENT.format("tuple")),
    "torch.nn.Conv2d(2, True, 3)": (TypeError, EMPTY_ELEMENT.format("bool")),
    "torch.nn.LSTMCell(3, 1.5)": (TypeError, EMPTY_ELEMENT.format("float")),
    "torch.nn.LSTM(3, 4, proj_size=True)": (TypeError, EMPTY_ELEMENT.format("bool")),
    "torch.nn.RNN(3, True)": (TypeError, EMPTY_ELEMENT.format("bool")),
    "torch.nn.LayerNorm('a')": (TypeError, EMPTY_ELEMENT.format("str")),
    "torch.nn.LayerNorm(True)": (TypeError, EMPTY_ELEMENT.format("bool")),
    "torch.nn.LayerNorm((1.5, 2))": (TypeError, EMPTY_ELEMENT.format("float")),
    "torch.nn.RMSNorm((1.5, 2))": (TypeError, EMPTY_ELEMENT.format("float")),
    "torch.nn.BatchNorm1d('a')":
        (TypeError, "empty(): argument 'size' (position 1) must be tuple of ints, not str"),
    "torch.nn.BatchNorm1d(1.5, affine=False)":
        (TypeError, "zeros(): argument 'size' (position 1) must be tuple of ints, not float"),
    "torch.nn.Bilinear(0, 2, 2)":
        (ValueError, "in1_features must be > 0, but got (in1_features=0)"),
    "torch.nn.Embedding(5, 3, padding_idx='a')":
        (TypeError, "'>' not supported between instances of 'str' and 'int'"),
    "torch.nn.Embedding(5, 3, padding_idx=5)":
        (AssertionError, "Padding_idx must be within num_embeddings"),
    "torch.nn.Conv1d(2, 4, 3, padding='a')":
        (ValueError, f"Invalid padding string 'a', should be one of {({'same', 'valid'})}"),
}


@pytest.mark.parametrize("source", LAYER_ERRORS)
def test_layer_constructors_refuse_in_pytorchs_words(source):
    error, message = LAYER_ERRORS[source]
    with pytest.raises(error) as caught:
        eval(source, {"torch": tg})
    assert str(caught.value).split("\nHint: ")[0] == message


@pytest.mark.parametrize("source", LAYER_ERRORS)
def test_layer_constructor_errors_as_pytorch(source):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        try:
            eval(source, {"torch": lib})
        except Exception as error:  # noqa: BLE001 - compared
            return type(error).__name__, str(error).split("\nHint: ")[0]
        return "ok", ""

    assert outcome(tg) == outcome(torch)


def test_padding_layers_take_what_pytorch_takes_and_refuse_it_in_forward():
    # PyTorch's _pair/_quadruple repeat anything that is not iterable: ZeroPad2d(1.5) is
    # made, and F.pad refuses its padding when the layer runs
    layer = tg.nn.ZeroPad2d(1.5)
    assert layer.padding == (1.5, 1.5, 1.5, 1.5)
    assert tg.nn.ConstantPad1d(None, 0.5).padding == (None, None)
    assert tg.nn.ZeroPad2d((1, 2)).padding == (1, 2)
    with pytest.raises(TypeError):
        layer(tg.ones(1, 2, 3, 3))


def test_padding_layers_as_pytorch():
    torch = pytest.importorskip("torch")

    def run(lib, source):
        try:
            layer = eval(source, {"torch": lib})
            return "ok", layer.padding, tuple(layer(lib.ones(1, 2, 3, 3)).shape)
        except Exception as error:  # noqa: BLE001 - compared
            return type(error).__name__, str(error).split("\nHint: ")[0]

    for cls in ("ZeroPad2d", "ConstantPad1d", "ReflectionPad2d", "CircularPad2d"):
        for padding in ("1.5", "None", "'a'", "(1, 2)", "(1.5, 1, 1, 1)", "True", "-1"):
            extra = ", 0.5" if cls.startswith("Constant") else ""
            source = f"torch.nn.{cls}({padding}{extra})"
            assert run(tg, source) == run(torch, source), source


def test_unflatten_layer_checks_dim_when_it_runs():
    # PyTorch 2.13's Unflatten takes any dim; unflatten() refuses it in forward
    layer = tg.nn.Unflatten("a", (2, 2))
    with pytest.raises(TypeError) as caught:
        layer(tg.ones(2, 4))
    assert str(caught.value).split("\nHint: ")[0] == (
        "unflatten(): argument 'dim' (position 1) must be int, not str")


@pytest.mark.parametrize("source, message", [
    ("x.unflatten(1, 'a')",
     "unflatten(): argument 'sizes' (position 2) must be tuple of ints, not str"),
    ("torch.unflatten(x, 1, 2.5)",
     "unflatten(): argument 'sizes' (position 3) must be tuple of ints, not float"),
    ("x.unflatten(1, (2, 2.0))",
     "unflatten(): argument 'sizes' failed to unpack the object at pos 2 with error "
     "\"type must be tuple of ints,but got float\""),
    ("x.unflatten(1, (True, 4))", "unflatten(): argument 'sizes' (position 2) must be tuple "
                                  "of ints, but found element of type bool at pos 0"),
    ("torch.unflatten(x, 1.5, (2, 2))",
     "unflatten(): argument 'dim' (position 2) must be int, not float"),
])
def test_unflatten_refuses_sizes_that_are_not_ints(source, message):
    # (it took 2.0 and True as sizes, and said "'float' object is not iterable")
    x = tg.ones(2, 4)
    with pytest.raises(TypeError) as caught:
        eval(source, {"torch": tg, "x": x})
    assert str(caught.value).split("\nHint: ")[0] == message
    assert x.unflatten(1, [2, -1]).shape == (2, 2, 2)


def test_reflect_pad_to_a_negative_size_names_the_dimension():
    # (nn fuzz seed 519826) PyTorch 2.13's reflection_pad2d leaves this unchecked and its
    # allocation says "numel: integer multiplication overflow" (a known difference in
    # fuzz_nn_against_torch.py's SKIPS); teachgrad says what is wrong: 3 - 2 - 2 = -1
    with pytest.raises(RuntimeError) as caught:
        F.pad(tg.ones(2, 1, 3), (-2, -2, 0, 0), mode="reflect")
    assert str(caught.value).split("\nHint: ")[0] == (
        "Trying to create tensor with negative dimension -1: [2, 1, -1]")


def test_unflatten_method_asks_for_sizes_first_as_pytorchs_python_method():
    # PyTorch's Tensor.unflatten is Python: `if not sizes` first, then Python's own
    # missing-argument words
    x = tg.ones(2, 4)
    with pytest.raises(RuntimeError, match="^unflatten: sizes must be non-empty$"):
        x.unflatten(1, None)
    with pytest.raises(TypeError) as caught:
        x.unflatten(0)
    assert str(caught.value) == (
        "Tensor.unflatten() missing 1 required positional argument: 'sizes'")
