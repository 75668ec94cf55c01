"""How the profiler sees what runs, at no cost when no profiler is on.

Every op a program runs goes through one function, ``Op.apply``, and every step of a
backward pass through one method, a node's ``_run_backward`` (and, at the leaves, the
engine's ``_accumulate``). Putting an ``if profiling:`` there would slow every op of
every program. Instead, while a profiler records, :func:`start` *replaces* those
functions with timing wrappers, and :func:`stop` puts the originals back: a program that
is not profiled runs exactly the code it always ran.

What each wrapper records (PyTorch's names, so tables read the same):

* an op: ``aten::<name>`` (``naming.aten_name``), with its inputs' shapes if asked;
* a backward step: ``autograd::engine::evaluate_function: MulBackward0`` holding
  ``MulBackward0`` (the node's own backward formula; NumPy runs it, so unlike PyTorch it
  has no ``aten::`` children, except under ``create_graph=True`` where the formula
  records ops);
* an in-place method (``x.mul_(2)``) or a tensor factory called as ``torch.randn(...)``:
  ``aten::mul_``, ``aten::randn`` (an in-place method runs the out-of-place op and writes
  the result back: that inner ``aten::mul`` is folded into ``aten::mul_``, as PyTorch
  shows one op);
* a custom ``autograd.Function``'s forward: a range named after the class (``Square``);
* a leaf's gradient: ``torch::autograd::AccumulateGrad`` inside its evaluate_function;
* an optimizer's ``step()`` / ``zero_grad()``: ``Optimizer.step#SGD.step`` (the ops of
  the update, if it uses any, inside);
* a ``record_function("name")`` block: ``name``.

Ranges nest as they run: an event opened while another is open is its child, which is
what separates *self* time from *total* time.

Limits: ops run inside a forward-AD ``dual_level`` entered during profiling are not
recorded (forward AD swaps ``Op.apply`` itself); one profiler records at a time.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from .._tensor import Tensor
from ..autograd import engine
from ..autograd.function import Function
from ..autograd.graph import Node
from ..ops.op import Op
from ..optim.optimizer import Optimizer
from .events import FunctionEvent, Interval
from .naming import aten_name

__all__ = ["Recorder", "active", "start", "stop"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_EVALUATE = "autograd::engine::evaluate_function: "
_ACCUMULATE = "torch::autograd::AccumulateGrad"


class Recorder:
    """The events of one recording, and the ranges open right now."""

    def __init__(self, record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events: list[FunctionEvent] = []
        self.open_ranges: list[FunctionEvent] = []
        self.thread = threading.get_ident()

    def open(self, name: str, input_shapes: list | None = None,
             is_user_annotation: bool = False, sequence_nr: int = -1) -> FunctionEvent:
        """Start a range now: a child of the innermost open range."""
        event = FunctionEvent(len(self.events), name, _now_us(), input_shapes=input_shapes,
                              thread=self.thread, sequence_nr=sequence_nr,
                              is_user_annotation=is_user_annotation)
        if self.open_ranges:
            parent = self.open_ranges[-1]
            event.cpu_parent = parent
            parent.cpu_children.append(event)
        if self.with_stack:
            event.stack = _user_stack()
        self.events.append(event)
        self.open_ranges.append(event)
        return event

    def close(self, event: FunctionEvent) -> None:
        """End ``event`` now (and any range left open inside it)."""
        end = _now_us()
        while self.open_ranges:
            inner = self.open_ranges.pop()
            inner.time_range = Interval(inner.time_range.start, end)
            if inner is event:
                return


active: Recorder | None = None  # the recorder of the running profiler, or None
_saved: dict = {}  # what start() replaced: (owner, attribute) -> original


def _now_us() -> float:
    return time.perf_counter_ns() / 1000.0


def _user_stack(limit: int = 5) -> list[str]:
    """The innermost frames outside teachgrad, as ``file(line): function``."""
    frames = []
    frame = sys._getframe(2)
    while frame is not None and len(frames) < limit:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            frames.append(f"{filename}({frame.f_lineno}): {frame.f_code.co_name}")
        frame = frame.f_back
    return frames


def _shapes(values) -> list:
    """PyTorch's ``input_shapes``: a tensor's shape as a list, ``[]`` for anything else."""
    return [list(v._data.shape) if isinstance(v, Tensor) else [] for v in values]


# ----------------------------------------------------------------------------------------
# The wrappers
# ----------------------------------------------------------------------------------------
def _timed_apply(plain_apply):
    """``Op.apply`` that records an ``aten::`` range around ``plain_apply``."""

    def apply(cls, *inputs, **params):
        recorder = active
        if recorder is None:  # (a stale wrapper someone kept a reference to)
            return plain_apply(cls, *inputs, **params)
        name = "aten::" + params["aten_name"] if "aten_name" in params else aten_name(cls)
        event = recorder.open(name, _shapes(inputs) if recorder.record_shapes else None)
        try:
            out = plain_apply(cls, *inputs, **params)
        finally:
            recorder.close(event)
        if recorder.profile_memory:
            event.self_cpu_memory_usage = _new_bytes(out)
        return out

    apply.__doc__ = "``Op.apply`` while a profiler records (see teachgrad.profiler.recording)."
    return apply


def _new_bytes(out) -> int:
    """Bytes of fresh memory an op's result(s) hold (views allocate none)."""
    outputs = out if type(out) is tuple else (out,)
    return sum(o._data.nbytes for o in outputs if isinstance(o, Tensor) and o._base is None)


def _timed_run_backward(plain_run_backward):
    """A node's ``_run_backward`` recorded as PyTorch's evaluate_function + node ranges."""

    def _run_backward(node, grads):
        recorder = active
        if recorder is None:
            return plain_run_backward(node, grads)
        name = node.name()
        shapes = ([list(getattr(g, "shape", ())) for g in grads]
                  if recorder.record_shapes else None)
        outer = recorder.open(_EVALUATE + name, sequence_nr=node._sequence_nr())
        recorder.open(name, shapes, sequence_nr=node._sequence_nr())
        try:
            return plain_run_backward(node, grads)
        finally:
            recorder.close(outer)

    return _run_backward


def _timed_accumulate(plain_accumulate):
    """The engine's ``_accumulate`` (a leaf's ``.grad += g``), recorded."""

    def _accumulate(node, g, create_graph, step):
        recorder = active
        if recorder is None:
            return plain_accumulate(node, g, create_graph, step)
        outer = recorder.open(_EVALUATE + _ACCUMULATE)
        recorder.open(_ACCUMULATE)
        try:
            return plain_accumulate(node, g, create_graph, step)
        finally:
            recorder.close(outer)

    return _accumulate


#: Tensor methods ending in "_" that are Python bookkeeping, not ATen operators
_NOT_OPERATORS = frozenset({"requires_grad_", "apply_", "map_"})
#: tensor factories PyTorch's profiler lists as aten::<name> (looked up on the module)
FACTORIES = (
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
    "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
    "rand_like", "randn_like", "randint_like",
)


def _timed_call(plain, name: str, allocates: bool = False):
    """A plain function (factory or in-place method) recorded as the range ``name``.

    ``allocates``: the result is new memory (a factory's), counted by ``profile_memory``.
    """
    folded = (name, name.rstrip("_"))  # aten::mul_ may run aten::mul inside

    def call(*args, **kwargs):
        recorder = active
        if recorder is None:
            return plain(*args, **kwargs)
        event = recorder.open(name, _shapes(args) if recorder.record_shapes else None)
        try:
            out = plain(*args, **kwargs)
        finally:
            recorder.close(event)
            children = event.cpu_children
            if len(children) == 1 and children[0].name in folded and not children[0].cpu_children:
                _fold(recorder, event, children[0])
        if allocates and recorder.profile_memory:
            event.self_cpu_memory_usage += _new_bytes(out)
        return out

    call.__name__ = getattr(plain, "__name__", name)
    call.__doc__ = getattr(plain, "__doc__", None)
    return call


def _fold(recorder: Recorder, event: FunctionEvent, inner: FunctionEvent) -> None:
    """Drop ``inner``, the one op that ``event`` ran, keeping what it allocated."""
    event.cpu_children.remove(inner)
    event.self_cpu_memory_usage += inner.self_cpu_memory_usage
    if recorder.events[-1] is inner:
        recorder.events.pop()
    else:
        recorder.events.remove(inner)


def _timed_function_apply(plain_apply):
    """``autograd.Function.apply``: the forward as a range named after the Function."""

    def apply(cls, *args, **kwargs):
        recorder = active
        if recorder is None:
            return plain_apply(cls, *args, **kwargs)
        event = recorder.open(cls.__name__)
        try:
            return plain_apply(cls, *args, **kwargs)
        finally:
            recorder.close(event)

    return apply


def _timed_optimizer_method(plain_method, method_name: str):
    """``Optimizer.step`` / ``zero_grad`` as PyTorch's ``Optimizer.step#SGD.step`` range."""

    def method(optimizer, *args, **kwargs):
        recorder = active
        name = f"Optimizer.{method_name}#{type(optimizer).__name__}.{method_name}"
        # (a subclass's step calling super().step() is one range, not two)
        if recorder is None or (recorder.open_ranges and recorder.open_ranges[-1].name == name):
            return plain_method(optimizer, *args, **kwargs)
        event = recorder.open(name, is_user_annotation=True)
        try:
            return plain_method(optimizer, *args, **kwargs)
        finally:
            recorder.close(event)

    method.__doc__ = plain_method.__doc__
    return method


def _classes_defining(root: type, attribute: str) -> list[type]:
    """``root`` and its subclasses that define ``attribute`` themselves (not inherited)."""
    found, todo = [], [root]
    while todo:
        cls = todo.pop()
        if attribute in cls.__dict__ and cls not in found:
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


# ----------------------------------------------------------------------------------------
# Switching recording on and off
# ----------------------------------------------------------------------------------------
def _swap(owner, attribute: str, new) -> None:
    _saved[(owner, attribute)] = (owner.__dict__[attribute], new)
    setattr(owner, attribute, new)


def start(recorder: Recorder) -> None:
    """Begin recording into ``recorder``: swap in the timing wrappers."""
    global active
    if active is not None:
        raise RuntimeError(
            "Profiler is already enabled on this thread"
            "\nHint: stop the other profiler (leave its `with` block) first."
        )
    active = recorder
    try:
        _swap_in_wrappers()
    except BaseException:  # never leave half the functions swapped
        stop()
        raise


def _swap_in_wrappers() -> None:
    """Put a timing wrapper in place of each function listed in the module docstring."""
    plain = Op.__dict__["apply"].__func__
    _swap(Op, "apply", classmethod(_timed_apply(plain)))
    for cls in _classes_defining(Node, "_run_backward"):  # Op, custom Functions ...
        _swap(cls, "_run_backward", _timed_run_backward(cls.__dict__["_run_backward"]))
    if isinstance(Function.__dict__.get("apply"), classmethod):
        _swap(Function, "apply",
              classmethod(_timed_function_apply(Function.__dict__["apply"].__func__)))
    import teachgrad  # (the package: its namespace functions are what user code calls)

    for name in FACTORIES:
        if name in teachgrad.__dict__:
            _swap(teachgrad, name, _timed_call(teachgrad.__dict__[name], "aten::" + name,
                                               allocates=True))
    for name, method in list(Tensor.__dict__.items()):
        if (name.endswith("_") and not name.startswith("_") and name not in _NOT_OPERATORS
                and callable(method)):
            _swap(Tensor, name, _timed_call(method, "aten::" + name))
    for method_name in ("step", "zero_grad"):
        for cls in _classes_defining(Optimizer, method_name):
            _swap(cls, method_name,
                  _timed_optimizer_method(cls.__dict__[method_name], method_name))
    _swap(engine, "_accumulate", _timed_accumulate(engine.__dict__["_accumulate"]))


def stop() -> Recorder | None:
    """End recording: put every original back, close ranges left open. Returns the recorder.

    An original is put back only where our wrapper is still in place: if something else
    swapped the function meanwhile (forward AD's ``dual_level`` does), its choice stands.
    """
    global active
    recorder, active = active, None
    for (owner, attribute), (original, wrapper) in _saved.items():
        if owner.__dict__.get(attribute) is wrapper:
            setattr(owner, attribute, original)
    _saved.clear()
    if recorder is not None and recorder.open_ranges:
        recorder.close(recorder.open_ranges[0])
    return recorder
