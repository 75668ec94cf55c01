"""torch.amp as PyTorch runs it without a GPU: PyTorch's mixed-precision recipe runs
unchanged, switched off with PyTorch's warnings, and what teachgrad cannot do is refused."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad

LIBRARIES = ["teachgrad", "torch"]


def library(name):
    return teachgrad if name == "teachgrad" else pytest.importorskip("torch")


def _train(torch, use_amp: bool | None):
    """Three SGD steps of a linear model; with the AMP recipe's lines when use_amp is not
    None. Returns the weights and the warnings' messages."""
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    with torch.no_grad():  # the same start in both libraries
        model.weight.copy_(torch.tensor([[0.5, -1.0, 2.0]]))
        model.bias.fill_(0.25)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    y = torch.tensor([[1.0], [0.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = torch.amp.GradScaler("cuda", enabled=bool(use_amp))
        for _ in range(3):
            opt.zero_grad()
            if use_amp is None:
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
            else:
                with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
    weights = np.concatenate([model.weight.detach().numpy().ravel(),
                              model.bias.detach().numpy()])
    return weights, sorted({str(w.message) for w in caught})


@pytest.mark.parametrize("name", LIBRARIES)
@pytest.mark.parametrize("use_amp", [True, False])
def test_the_recipe_trains_as_the_plain_loop(name, use_amp):
    torch = library(name)
    plain, _ = _train(torch, None)
    amp, _ = _train(torch, use_amp)
    np.testing.assert_array_equal(amp, plain)
    # the plain loop by hand: mse's gradient 2/N (Xw + b - y) X, three times
    w, b = np.array([0.5, -1.0, 2.0], np.float32), np.float32(0.25)
    X = np.array([[1, 2, 3], [-1, 0.5, 0]], np.float32)
    Y = np.array([1, 0], np.float32)
    for _ in range(3):
        r = X @ w + b - Y
        w, b = w - 0.1 * (r @ X), b - 0.1 * r.sum()
    np.testing.assert_allclose(plain, np.append(w, b), rtol=1e-5)  # (float32 sums)


@pytest.mark.parametrize("name", LIBRARIES)
def test_switched_on_for_cuda_it_warns_as_pytorch_without_a_gpu(name):
    torch = library(name)
    if name == "torch" and torch.cuda.is_available():
        pytest.skip("PyTorch has a GPU here")
    _, messages = _train(torch, True)
    assert messages == [
        "CUDA is not available or torch_xla is imported. Disabling autocast.",
        "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
    ]
    _, messages = _train(torch, False)
    assert messages == []


@pytest.mark.parametrize("name", LIBRARIES)
def test_a_switched_off_scaler_is_the_identity(name):
    torch = library(name)
    scaler = torch.amp.GradScaler(enabled=False)
    loss = torch.tensor(3.0, requires_grad=True) * 2
    assert scaler.scale(loss) is loss
    assert not scaler.is_enabled()
    assert scaler.get_scale() == 1.0
    assert scaler.state_dict() == {}
    assert scaler.unscale_(torch.optim.SGD([torch.zeros(1, requires_grad=True)])) is None
    assert scaler.load_state_dict({}) is None


@pytest.mark.parametrize("name", LIBRARIES)
def test_autocast_switched_off_changes_no_dtype_and_decorates(name):
    torch = library(name)
    with torch.autocast("cpu", enabled=False):
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.float32

    @torch.autocast("cpu", enabled=False)
    def product(a):
        return a @ a

    assert product(torch.eye(2, dtype=torch.float64)).dtype == torch.float64
    assert not torch.is_autocast_enabled()


@pytest.mark.parametrize("name", LIBRARIES)
def test_bad_device_types_get_pytorchs_errors(name):
    torch = library(name)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`, got: "
                                         "`<class 'int'>`"):
        torch.autocast(1)
    with pytest.raises(RuntimeError, match="Invalid device string: 'xpu2'"):
        torch.autocast("xpu2")


def test_what_teachgrad_cannot_do_is_refused_with_a_hint():
    # PyTorch computes matmuls in bfloat16 under CPU autocast; NumPy has no bfloat16.
    for make in (lambda: teachgrad.autocast("cpu"),
                 lambda: teachgrad.autocast("cpu", dtype=teachgrad.float16),
                 lambda: teachgrad.amp.GradScaler("cpu")):
        with pytest.raises(RuntimeError, match="not available in teachgrad\nHint: .*"
                                               "enabled=False"):
            make()


# --- torch.cuda.amp: the old, deprecated names of torch.amp's tools ---

def _warnings_of(make):
    """(category, message, file) of each warning ``make()`` gives, and its result."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = make()
    return [(w.category.__name__, str(w.message), w.filename) for w in caught], result


def _old_name_uses(torch):
    identity = lambda *args: args  # noqa: E731
    return {
        "GradScaler()": lambda: torch.cuda.amp.GradScaler(),
        "GradScaler(enabled=False)": lambda: torch.cuda.amp.GradScaler(enabled=False),
        "autocast()": lambda: torch.cuda.amp.autocast(),
        "autocast(enabled=False)": lambda: torch.cuda.amp.autocast(enabled=False),
        "custom_fwd(f)": lambda: torch.cuda.amp.custom_fwd(identity),
        "custom_fwd(cast_inputs=)": lambda: torch.cuda.amp.custom_fwd(cast_inputs=torch.float32),
        "custom_bwd(f)": lambda: torch.cuda.amp.custom_bwd(identity),
    }


@pytest.mark.parametrize("use", list(_old_name_uses(teachgrad)))
def test_old_cuda_amp_names_warn_as_pytorchs(use):
    real = pytest.importorskip("torch")
    if real.cuda.is_available():
        pytest.skip("PyTorch has a GPU here")
    ours, _ = _warnings_of(_old_name_uses(teachgrad)[use])
    theirs, _ = _warnings_of(_old_name_uses(real)[use])
    assert [w[:2] for w in ours] == [w[:2] for w in theirs]
    assert ours[0][0] == "FutureWarning" and "is deprecated. Please use `torch.amp." in ours[0][1]
    # the FutureWarning points at the line that used the old name: this file
    assert ours[0][2] == __file__ == theirs[0][2]


@pytest.mark.parametrize("name", LIBRARIES)
def test_old_cuda_amp_names_are_torch_amps_with_cuda_filled_in(name):
    torch = library(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler = torch.cuda.amp.GradScaler(init_scale=8.0, enabled=False)
        block = torch.cuda.amp.autocast(enabled=False, dtype=torch.float32)
    assert isinstance(scaler, torch.amp.GradScaler) and not scaler.is_enabled()
    assert isinstance(block, torch.amp.autocast)
    assert (block.device, block.fast_dtype) == ("cuda", torch.float32)
    assert torch.cuda.amp.amp_definitely_not_available() is (not torch.cuda.is_available())


def _train_with_old_names(torch):
    """The AMP recipe as older tutorials write it, with torch.cuda.amp's names."""
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[1.0, -2.0]]))
        model.bias.zero_()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    x, y = torch.tensor([[1.0, 1.0]]), torch.tensor([[0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler = torch.cuda.amp.GradScaler()
        for _ in range(2):
            opt.zero_grad()
            with torch.cuda.amp.autocast():
                loss = ((model(x) - y) ** 2).mean()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
    return model.weight.detach().numpy().tolist(), model.bias.item()


def test_the_recipe_with_old_names_trains_in_float32():
    # by hand: r = w·x + b - y; w -= 0.5·2r·x, b -= 0.5·2r. Step 1: r = -1 -> w = [2, -1],
    # b = 1. Step 2: r = 2 -> w = [0, -3], b = -1.
    assert _train_with_old_names(teachgrad) == ([[0.0, -3.0]], -1.0)
    real = pytest.importorskip("torch")
    if not real.cuda.is_available():
        assert _train_with_old_names(real) == ([[0.0, -3.0]], -1.0)


def _scaled_square(torch, fwd, bwd):
    """An autograd.Function x -> 3x² whose forward and backward are decorated."""

    class ScaledSquare(torch.autograd.Function):
        @staticmethod
        @fwd
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return 3 * x * x

        @staticmethod
        @bwd
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 6 * x

    return ScaledSquare


@pytest.mark.parametrize("name", LIBRARIES)
@pytest.mark.parametrize("spelling", ["amp cuda", "amp cpu", "amp cast_inputs", "cuda.amp",
                                      "cuda.amp cast_inputs"])
def test_custom_fwd_and_bwd_leave_a_function_as_written_outside_autocast(name, spelling):
    torch = library(name)
    amp = torch.amp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        fwd, bwd = {
            "amp cuda": (amp.custom_fwd(device_type="cuda"), amp.custom_bwd(device_type="cuda")),
            "amp cpu": (amp.custom_fwd(device_type="cpu"), amp.custom_bwd(device_type="cpu")),
            "amp cast_inputs": (amp.custom_fwd(device_type="cuda", cast_inputs=torch.float16),
                                amp.custom_bwd(device_type="cuda")),
            "cuda.amp": (torch.cuda.amp.custom_fwd, torch.cuda.amp.custom_bwd),
            "cuda.amp cast_inputs": (torch.cuda.amp.custom_fwd(cast_inputs=torch.float16),
                                     torch.cuda.amp.custom_bwd),
        }[spelling]
    x = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # (the old names warn when applied)
        function = _scaled_square(torch, fwd, bwd)
    y = function.apply(x)
    y.sum().backward()
    assert y.dtype == torch.float64  # (cast_inputs acts only inside an enabled autocast)
    assert y.tolist() == [3.0, 12.0] and x.grad.tolist() == [6.0, -12.0]  # d(3x²) = 6x


@pytest.mark.parametrize("name", LIBRARIES)
def test_custom_fwd_and_bwd_argument_errors_are_pytorchs(name):
    torch = library(name)
    with pytest.raises(TypeError, match="custom_fwd\\(\\) missing 1 required keyword-only "
                                        "argument: 'device_type'"):
        torch.amp.custom_fwd(lambda ctx: ctx)
    with pytest.raises(TypeError, match="custom_bwd\\(\\) missing 1 required keyword-only "
                                        "argument: 'device_type'"):
        torch.amp.custom_bwd(lambda ctx: ctx)
    for decorate in (torch.amp.custom_fwd, torch.amp.custom_bwd):
        with pytest.raises(ValueError, match="^Expected `device_type` of type `str`, got: "
                                             "`<class 'int'>`$"):
            decorate(device_type=0)


@pytest.mark.parametrize("kind", ["cpu", "cuda", "mps", "xpu", "privateuseone", "meta", "lazy",
                                  "vulkan", "fpga"])
def test_is_autocast_available_answers_as_pytorch(kind):
    real = pytest.importorskip("torch")
    assert teachgrad.amp.is_autocast_available(kind) is real.amp.is_autocast_available(kind)


# --- torch.cuda: the answers of a PyTorch built without CUDA ---

SAFE_CUDA_CALLS = {
    "is_available": (), "device_count": (), "is_initialized": (), "get_arch_list": (),
    "get_gencode_flags": (), "is_bf16_supported": (), "is_tf32_supported": (),
    "empty_cache": (), "memory_allocated": (), "max_memory_allocated": (),
    "memory_reserved": (), "max_memory_reserved": (), "memory_stats": (),
    "manual_seed": (0,), "manual_seed_all": (0,), "seed": (), "seed_all": (),
    "get_rng_state_all": (),
}


@pytest.mark.parametrize("call", list(SAFE_CUDA_CALLS))
def test_safe_cuda_calls_answer_as_a_cpu_only_pytorch(call):
    real = pytest.importorskip("torch")
    if real.cuda.is_available():
        pytest.skip("PyTorch has a GPU here")
    args = SAFE_CUDA_CALLS[call]
    ours, theirs = getattr(teachgrad.cuda, call)(*args), getattr(real.cuda, call)(*args)
    assert ours == theirs and type(ours) is type(theirs)


GPU_QUESTIONS = {
    "init": (), "current_device": (), "get_device_name": (), "get_device_capability": (),
    "get_device_properties": (), "synchronize": (), "mem_get_info": (), "initial_seed": (),
    "get_rng_state": (), "ipc_collect": (),
}


@pytest.mark.parametrize("call", list(GPU_QUESTIONS))
def test_gpu_questions_fail_as_in_a_cpu_only_pytorch_with_a_hint(call):
    real = pytest.importorskip("torch")
    if real.cuda.is_available():
        pytest.skip("PyTorch has a GPU here")
    with pytest.raises(AssertionError) as theirs:
        getattr(real.cuda, call)(*GPU_QUESTIONS[call])
    with pytest.raises(AssertionError) as ours:
        getattr(teachgrad.cuda, call)(*GPU_QUESTIONS[call])
    first, hint = str(ours.value).split("\n", 1)
    assert first == str(theirs.value) and hint.startswith("Hint: ")


def test_set_device_and_peak_resets_say_there_is_no_cuda():
    # (PyTorch's CPU build fails here by accident, with an AttributeError about torch._C;
    # teachgrad says what is meant.)
    for call in (lambda: teachgrad.cuda.set_device(0), teachgrad.cuda.reset_peak_memory_stats,
                 teachgrad.cuda.reset_max_memory_allocated, teachgrad.cuda.memory_summary):
        with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled\nHint"):
            call()
    assert teachgrad.cuda.set_device(-1) is None  # -1: "leave it", as in PyTorch


@pytest.mark.parametrize("name", LIBRARIES)
def test_cuda_device_blocks_as_in_a_cpu_only_pytorch(name):
    torch = library(name)
    if name == "torch" and torch.cuda.is_available():
        pytest.skip("PyTorch has a GPU here")
    assert torch.cuda.device(1).idx == torch.cuda.device("cuda:1").idx == 1
    assert torch.cuda.device(torch.device("cuda", 2)).idx == 2
    with pytest.raises(ValueError, match="^Expected a cuda device, but got: cpu$"):
        torch.cuda.device("cpu")
    with torch.cuda.device(-1):  # "the current device": nothing to switch
        pass
    with pytest.raises(RuntimeError, match="^PyTorch was compiled without CUDA support"), \
            torch.cuda.device(0):
        pass


def test_import_forms_of_torch_cuda_amp_under_the_alias():
    from test_as_torch import run_python

    result = run_python("""
        import warnings
        import teachgrad
        teachgrad.install_as_torch()
        import torch
        import torch.cuda.amp
        from torch.cuda.amp import GradScaler, autocast
        from torch.cuda import is_available, device_count
        from torch.amp import custom_fwd, custom_bwd
        assert torch.cuda is teachgrad.cuda and torch.cuda.amp is teachgrad.cuda.amp
        assert custom_fwd is teachgrad.amp.custom_fwd and not is_available()
        assert device_count() == 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            print(type(GradScaler()), type(autocast()))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("<class 'torch.cuda.amp.grad_scaler.GradScaler'> "
                             "<class 'torch.cuda.amp.autocast_mode.autocast'>\n")
