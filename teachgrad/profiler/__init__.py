"""``torch.profiler``: which ops take the time, forward and backward.

::

    import teachgrad as torch
    from teachgrad.profiler import profile, record_function, ProfilerActivity

    x = torch.randn(64, 32, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("forward"):
            loss = (x @ x.T).relu().sum()
        loss.backward()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

Forward ops are listed as PyTorch lists them (``aten::mm``, ``aten::relu``), each step
of the backward pass as ``autograd::engine::evaluate_function: MmBackward0`` holding
``MmBackward0``. How it records at no cost when off: see ``recording.py``.
"""

from .events import EventList, FunctionEvent, FunctionEventAvg
from .profiler import (
    DeviceType,
    ProfilerAction,
    ProfilerActivity,
    kineto_available,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)
from .record_function import record_function

__all__ = [
    "profile", "schedule", "supported_activities", "tensorboard_trace_handler",
    "ProfilerAction", "ProfilerActivity", "kineto_available", "DeviceType",
    "record_function", "EventList", "FunctionEvent", "FunctionEventAvg",
]
