"""What a profile holds: one :class:`FunctionEvent` per timed range, and their averages.

PyTorch's names (``torch.autograd.profiler_util``): an event has a name, a start and an
end (microseconds), the shapes of its inputs, its parent (the range it ran inside) and
its children. Two times matter when reading a profile:

* **total** (``cpu_time_total``): from start to end, everything that ran inside included;
* **self** (``self_cpu_time_total``): total minus the children's totals, the time spent
  in this range itself. The self times of all events add up to the profiled time, which
  is why the table's percentages of self time sum to 100 %.

:meth:`EventList.key_averages` groups events by name (and input shapes if asked) into
:class:`FunctionEventAvg` rows; :meth:`EventList.table` prints them (see ``table.py``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import NamedTuple

from .table import build_table, format_time

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList", "Interval"]


class Interval(NamedTuple):
    """A ``(start, end)`` in microseconds, as ``event.time_range``."""

    start: float
    end: float

    def elapsed_us(self) -> float:
        """``end - start``: how long the range lasted."""
        return self.end - self.start


class _TimeStrings:
    """The ``*_str`` views PyTorch's events offer (times formatted as in the table)."""

    @property
    def cpu_time_str(self) -> str:
        return format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return format_time(self.self_cpu_time_total)

    # A CPU-only profile: no device time, as in PyTorch built without CUDA.
    device_time = device_time_total = self_device_time_total = 0.0
    cuda_time = self_cuda_time_total = cuda_time_total = 0.0
    device_memory_usage = self_device_memory_usage = 0
    cuda_memory_usage = self_cuda_memory_usage = 0
    flops = 0
    node_id = -1
    is_async = False
    is_remote = False
    is_legacy = False
    overload_name = ""
    use_device = None

    @property
    def device_type(self):
        from . import DeviceType

        return DeviceType.CPU


class FunctionEvent(_TimeStrings):
    """One timed range: an op (``aten::mul``), a backward node, or a ``record_function``."""

    def __init__(self, id: int, name: str, start_us: float, end_us: float = 0.0,  # noqa: A002
                 input_shapes: list | None = None, thread: int = 0, sequence_nr: int = -1,
                 is_user_annotation: bool = False) -> None:
        self.id = id
        # Each step of a schedule is a range "ProfilerStep#3"; tables group them all as
        # "ProfilerStep*", the trace keeps the numbers (PyTorch's ``trace_name``).
        self.trace_name = name
        self.name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.thread = thread
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.cpu_parent: FunctionEvent | None = None
        self.cpu_children: list[FunctionEvent] = []
        self.self_cpu_memory_usage = 0  # bytes this op's results hold (profile_memory=True)
        self.stack: list[str] = []
        self.count = 1

    @property
    def key(self) -> str:
        """What ``key_averages`` groups by: the name."""
        return self.name

    @property
    def cpu_time_total(self) -> float:
        """Start to end, in microseconds (children included)."""
        return self.time_range.end - self.time_range.start

    @property
    def cpu_time(self) -> float:
        """The average time per call: for a single event, its total."""
        return self.cpu_time_total

    @property
    def self_cpu_time_total(self) -> float:
        """Total minus the time of the ranges directly inside this one."""
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def cpu_memory_usage(self) -> int:
        """Bytes allocated in this range, by itself and the ranges inside it."""
        return self.self_cpu_memory_usage + sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
            f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
            f"cpu_children={[child.id for child in self.cpu_children]} "
            f"input_shapes={self.input_shapes} thread={self.thread} seq_nr={self.sequence_nr}>"
        )


class FunctionEventAvg(_TimeStrings):
    """All events of one key (name, and input shapes if grouped by them), added up."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes: list | str = []
        self.stack: list[str] = []
        self.cpu_parent = None
        self.cpu_children: list = []
        self.is_user_annotation = False

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        """Add one more event (or average) of this key."""
        if self.key is None:  # the first one: it gives the row its name and shapes
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        """Average total time per call, in microseconds."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


class EventList(list):
    """A list of events (or averages) that can average and print itself."""

    def __init__(self, events: Iterable = (), *, profile_memory: bool = False,
                 with_flops: bool = False, use_device: str | None = None) -> None:
        super().__init__(events)
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._use_device = use_device

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of every event's self time: the profiled time, in microseconds."""
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """One :class:`FunctionEventAvg` per name (and per input shapes, if asked).

        Rows come in the order their key first appeared.
        """
        stats: dict[tuple, FunctionEventAvg] = {}
        for event in self:
            key = (event.key, event.is_user_annotation)
            if group_by_input_shapes:
                key += (str(event.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(event.stack[:group_by_stack_n])
            stats.setdefault(key, FunctionEventAvg()).add(event)
        averages = EventList(stats.values(), profile_memory=self._profile_memory,
                             with_flops=self._with_flops)
        for average in averages:
            average.stack = average.stack[:group_by_stack_n]
            if not group_by_input_shapes:  # PyTorch's way to hide the column
                average.input_shapes = ""
        return averages

    def total_average(self) -> FunctionEventAvg:
        """Every event added into one row (key ``"Total"``)."""
        total = FunctionEventAvg()
        for event in self:
            total.add(event)
        total.key = "Total"
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """The events as PyTorch's table (see ``table.build_table``).

        ``sort_by`` is an attribute to sort by, largest first: ``"cpu_time_total"``,
        ``"self_cpu_time_total"``, ``"cpu_time"``, ``"count"``, ``"cpu_memory_usage"`` ...
        (``cuda_*`` names are accepted and are all zero on the CPU).
        """
        return build_table(
            self, sort_by=sort_by, row_limit=row_limit, header=header,
            max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            profile_memory=self._profile_memory,
            top_level_events_only=top_level_events_only, time_unit=time_unit,
        )

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (open it in chrome://tracing or Perfetto)."""
        with open(path, "w") as f:
            json.dump(chrome_trace(self), f)


def chrome_trace(events: Iterable[FunctionEvent]) -> dict:
    """The Chrome "Trace Event Format" of ``events``: one complete ("X") event per range.

    Tools nest ranges by their times, so parents and children need no links.
    """
    pid = os.getpid()
    trace = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "thread_name", "pid": pid, "tid": pid,
         "args": {"name": f"thread {pid} (python)"}},
    ]
    for event in events:
        args = {"External id": event.id}
        if event.input_shapes:
            args["Input Dims"] = event.input_shapes
        trace.append({
            "ph": "X",
            "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
            "name": event.trace_name, "pid": pid, "tid": pid,
            "ts": event.time_range.start, "dur": event.cpu_time_total, "args": args,
        })
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": trace,
            "traceName": "teachgrad"}
