"""``torch.autograd.profiler``: the older profiler API, on the same recorder.

::

    with torch.autograd.profiler.profile(record_shapes=True) as prof:
        y = (x * 2).sum()
        y.backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total"))

It records exactly what :class:`teachgrad.profiler.profile` records (see
``teachgrad/profiler/recording.py``); only the API differs: no schedule, and the results
are attributes (``prof.function_events``) as well as methods. ``use_cuda=True`` gives
PyTorch's deprecation warning and its CPU-only warning, then profiles the CPU.
"""

from __future__ import annotations

from typing import Any

from .._warn import warn_user
from ..profiler import recording
from ..profiler.events import EventList, FunctionEvent, FunctionEventAvg
from ..profiler.record_function import record_function

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList",
           "FunctionEvent", "FunctionEventAvg"]


class profile:  # noqa: N801 - PyTorch's name
    """Context manager that records every op and backward step run inside it.

    ``enabled=False`` makes it do nothing. ``record_shapes``, ``profile_memory`` and
    ``with_stack`` as in :class:`teachgrad.profiler.profile`; the other arguments are
    accepted for PyTorch's code.
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False,
                 use_device: str | None = None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False,
                 use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Any = None,
                 post_processing_timeout_s: float | None = None,
                 activity_filters: Any = None) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.use_device = None
        if use_cuda:
            warn_user("The attribute `use_cuda` will be deprecated soon, please use "
                      "``use_device = 'cuda'`` instead.")
            use_device = "cuda"
        if use_device == "cuda":
            warn_user("CUDA is not available, disabling CUDA profiling")
        self.function_events: EventList | None = None
        self.entered = False

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        recording.start(recording.Recorder(
            record_shapes=self.record_shapes, profile_memory=self.profile_memory,
            with_stack=self.with_stack))
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        if not self.enabled:
            return
        recorder = recording.stop()
        self.function_events = EventList(
            recorder.events if recorder is not None else [],
            profile_memory=self.profile_memory, with_flops=self.with_flops)

    def _check_finished(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def events(self) -> EventList:
        """Every recorded range, in the order they started."""
        return self._check_finished()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """One averaged row per op name (and input shapes, if asked)."""
        return self._check_finished().key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """The table of the *events* (not averaged; see ``key_averages().table``)."""
        return self._check_finished().table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def total_average(self) -> FunctionEventAvg:
        """All events added into one row."""
        return self._check_finished().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The profiled time in microseconds (the sum of all self times)."""
        return self._check_finished().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace JSON file."""
        self._check_finished().export_chrome_trace(path)

    def __str__(self) -> str:
        return self._check_finished().table()

    def __repr__(self) -> str:
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)


class emit_nvtx:  # noqa: N801 - PyTorch's name
    """A no-op here: PyTorch's version marks ranges for NVIDIA's nvprof (no GPU in teachgrad)."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled

    def __enter__(self) -> emit_nvtx:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


class emit_itt(emit_nvtx):  # noqa: N801 - PyTorch's name
    """A no-op here: PyTorch's version marks ranges for Intel VTune's ITT API."""
