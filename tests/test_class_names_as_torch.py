"""Classes print as PyTorch's once ``install_as_torch()`` has run: ``type(model)`` is
``<class 'torch.nn.modules.linear.Linear'>``, ``type(y.grad_fn)`` is
``<class 'MulBackward0'>``; and every renamed class still pickles (``torch.save(model)``).

Each program runs in a fresh interpreter (see test_as_torch.py): the alias changes what
``import torch`` means for the whole process.
"""

from __future__ import annotations

import json

import pytest
from test_as_torch import run_python

# What PyTorch 2.13 prints for these (its documentation and its own reprs).
EXPECTED = {
    "type(torch.tensor(1.0))": "<class 'torch.Tensor'>",
    "torch.nn.Linear": "<class 'torch.nn.modules.linear.Linear'>",
    "type(torch.nn.Parameter(torch.ones(1)))": "<class 'torch.nn.parameter.Parameter'>",
    "torch.nn.Dropout1d": "<class 'torch.nn.modules.dropout.Dropout1d'>",
    "torch.nn.LazyLinear": "<class 'torch.nn.modules.linear.LazyLinear'>",
    "torch.nn.ParameterList": "<class 'torch.nn.modules.container.ParameterList'>",
    "torch.nn.MultiheadAttention": "<class 'torch.nn.modules.activation.MultiheadAttention'>",
    "torch.optim.SGD": "<class 'torch.optim.sgd.SGD'>",
    "torch.optim.lr_scheduler.StepLR": "<class 'torch.optim.lr_scheduler.StepLR'>",
    "torch.utils.data.DataLoader": "<class 'torch.utils.data.dataloader.DataLoader'>",
    "torch.dtype": "<class 'torch.dtype'>",
    "type(torch.float32)": "<class 'torch.dtype'>",
    "torch.Size": "<class 'torch.Size'>",
    "torch.device": "<class 'torch.device'>",
    "torch.FloatTensor": "<class 'torch.FloatTensor'>",
    "torch.no_grad": "<class 'torch.autograd.grad_mode.no_grad'>",
    "torch.autograd.Function": "<class 'torch.autograd.function.Function'>",
    "torch.autograd.graph.Node": "<class 'torch.autograd.graph.Node'>",
    "torch.autograd.graph.saved_tensors_hooks":
        "<class 'torch.autograd.graph.saved_tensors_hooks'>",
    "torch.utils.hooks.RemovableHandle": "<class 'torch.utils.hooks.RemovableHandle'>",
    "type(torch.max(torch.ones(2, 2), 0))": "<class 'torch.return_types.max'>",
    "torch.distributions.Normal": "<class 'torch.distributions.normal.Normal'>",
    # grad_fn classes are C++ classes in PyTorch: no module
    "type(x.exp().grad_fn)": "<class 'ExpBackward0'>",
    "type((x * x).grad_fn)": "<class 'MulBackward0'>",
    "type((x * x).grad_fn.next_functions[0][0])": "<class 'AccumulateGrad'>",
    # a custom Function's node is a Python class made by PyTorch's FunctionMeta
    "type(Double.apply(x).grad_fn)": "<class 'torch.autograd.function.DoubleBackward'>",
}

SETUP = """
import teachgrad
teachgrad.install_as_torch()
import torch

class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, grad):
        return 2 * grad

x = torch.ones(2, requires_grad=True)
"""


def _reprs(setup: str, expressions) -> dict:
    program = setup + f"""
import json
print(json.dumps({{e: repr(eval(e)) for e in {list(expressions)!r}}}))
"""
    done = run_python(program)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_classes_print_as_pytorchs_once_teachgrad_is_torch():
    got = _reprs(SETUP, EXPECTED)
    assert {e: got[e] for e in EXPECTED if got[e] != EXPECTED[e]} == {}


def test_objects_print_their_class_as_pytorchs_do():
    got = _reprs(SETUP, ["Double.apply(x).grad_fn", "torch.Generator()"])
    assert got["Double.apply(x).grad_fn"].startswith(
        "<torch.autograd.function.DoubleBackward object at 0x")
    assert got["torch.Generator()"].startswith("<torch._C.Generator object at 0x")


def test_without_the_alias_classes_say_where_teachgrad_defines_them():
    setup = SETUP.replace("teachgrad.install_as_torch()\nimport torch", "import teachgrad as torch")
    got = _reprs(setup, ["torch.nn.Linear", "type(x.exp().grad_fn)", "torch.FloatTensor",
                         "type(Double.apply(x).grad_fn)"])
    assert got == {
        "torch.nn.Linear": "<class 'teachgrad.nn.modules.linear.Linear'>",
        "type(x.exp().grad_fn)": "<class 'teachgrad.ops.pointwise.ExpBackward0'>",
        "torch.FloatTensor": "<class 'teachgrad.FloatTensor'>",
        "type(Double.apply(x).grad_fn)":
            "<class 'teachgrad.autograd.function.DoubleBackward'>",
    }


def test_every_renamed_class_pickles_back_to_itself():
    done = run_python(SETUP + """
import pickle, sys
renamed, lost = 0, []
for name, module in list(sys.modules.items()):
    if name == "teachgrad" or name.startswith("teachgrad."):
        for cls in list(vars(module).values()):
            if isinstance(cls, type) and cls.__module__.split(".")[0] == "torch":
                renamed += 1
                try:
                    if pickle.loads(pickle.dumps(cls)) is not cls:
                        lost.append(repr(cls))
                except Exception as error:
                    lost.append(f"{cls!r}: {error}")
print(renamed, lost)
""")
    assert done.returncode == 0, done.stderr
    renamed, lost = done.stdout.split(" ", 1)
    assert int(renamed) > 500  # (nn, optim, distributions, data ... all of them)
    assert lost.strip() == "[]"


def test_a_model_saved_as_torch_loads_without_the_alias(tmp_path):
    saved = run_python(SETUP + f"""
model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Dropout1d(), torch.nn.RMSNorm(3))
torch.save(model, {str(tmp_path / "model.pt")!r})
torch.save({{"size": torch.Size([2, 3]), "device": torch.device("cpu")}},
           {str(tmp_path / "plain.pt")!r})
""")
    assert saved.returncode == 0, saved.stderr
    loaded = run_python(f"""
import teachgrad as torch
model = torch.load({str(tmp_path / "model.pt")!r}, weights_only=False)
print(type(model[1]).__name__, model[0].weight.shape)
print(torch.load({str(tmp_path / "plain.pt")!r}, weights_only=True))
""", without_pytorch=True)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.splitlines() == [
        "Dropout1d teachgrad.Size([3, 2])",
        "{'size': teachgrad.Size([2, 3]), 'device': device(type='cpu')}",
    ]


# Where teachgrad prints another name than PyTorch, and why.
KNOWN_DIFFERENCES = {
    "torch.Generator": "PyTorch's is torch._C.Generator; teachgrad has no torch._C",
    "torch.random.Generator": "PyTorch's torch.random exposes collections.abc.Generator",
    "torch.linalg.LinAlgError": "PyTorch's is torch._C._LinAlgError",
    "torch.profiler.DeviceType": "a C++ enum in PyTorch",
    "torch.profiler.ProfilerActivity": "a C++ enum in PyTorch",
    "torch.nn.ChannelShuffle": "teachgrad has no torch.nn.modules.channelshuffle",
    "torch.nn.modules.ChannelShuffle": "the same",
    "torch.nn.LinearCrossEntropyOptions": "teachgrad has no ...linear_cross_entropy_options",
    "torch.nn.modules.LinearCrossEntropyOptions": "the same",
    "torch.autograd.Variable": "its module is imported only when asked for, after the alias",
}

NAMESPACES = [
    "torch", "torch.nn", "torch.nn.modules", "torch.nn.functional", "torch.nn.init",
    "torch.nn.parameter", "torch.nn.utils", "torch.nn.utils.rnn", "torch.nn.utils.parametrize",
    "torch.optim", "torch.optim.lr_scheduler", "torch.optim.swa_utils", "torch.utils.data",
    "torch.utils.hooks", "torch.utils.checkpoint", "torch.distributions",
    "torch.distributions.constraints", "torch.distributions.transforms", "torch.autograd",
    "torch.autograd.graph", "torch.autograd.forward_ad", "torch.autograd.function",
    "torch.return_types", "torch.linalg", "torch.special", "torch.func", "torch.profiler",
    "torch.testing", "torch.random", "torch.storage", "torch.amp", "torch.cuda", "torch.cuda.amp",
]

COLLECT = f"""
import importlib, json
found = {{}}
for space in {NAMESPACES!r}:
    try:
        module = importlib.import_module(space)
    except ImportError:
        continue
    for name in dir(module):
        value = getattr(module, name, None)
        if not name.startswith("_") and isinstance(value, type):
            found[space + "." + name] = repr(value)
print(json.dumps(found))
"""


def test_every_class_both_have_prints_as_pytorchs():
    pytest.importorskip("torch")
    real = run_python("import torch\n" + COLLECT)
    ours = run_python("import teachgrad\nteachgrad.install_as_torch()\nimport torch\n" + COLLECT)
    assert real.returncode == 0 and ours.returncode == 0, real.stderr + ours.stderr
    real_reprs, our_reprs = json.loads(real.stdout), json.loads(ours.stdout)
    both = [name for name in real_reprs if name in our_reprs]
    assert len(both) > 500
    differ = {name: (real_reprs[name], our_reprs[name]) for name in both
              if real_reprs[name] != our_reprs[name] and name not in KNOWN_DIFFERENCES}
    assert differ == {}
