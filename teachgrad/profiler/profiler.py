"""``torch.profiler.profile``: where does the time go?

::

    import teachgrad as torch
    from teachgrad.profiler import profile, record_function, ProfilerActivity

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

Long runs are profiled a few steps at a time with a :func:`schedule`: call
``prof.step()`` after each step, and the profiler skips, warms up and records as the
schedule says, handing each recorded cycle to ``on_trace_ready`` (for example
:func:`tensorboard_trace_handler`, which writes a Chrome trace file).

teachgrad runs on the CPU only: asking for CUDA activity gives PyTorch's warning
("CUDA is not available, disabling CUDA profiling"), as a CPU-only PyTorch does.
``with_flops`` and ``with_modules`` are accepted and record nothing extra.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable
from enum import Enum, IntEnum
from functools import partial
from typing import Any

from .._warn import warn_user
from . import recording
from .events import EventList
from .record_function import record_function

__all__ = [
    "profile", "schedule", "ProfilerAction", "ProfilerActivity", "DeviceType",
    "supported_activities", "kineto_available", "tensorboard_trace_handler",
]


class ProfilerActivity(IntEnum):
    """What to profile: ``CPU`` (ops on the CPU). The others exist for PyTorch's code."""

    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


class DeviceType(IntEnum):
    """Where an event ran (always ``CPU`` in teachgrad)."""

    CPU = 0
    CUDA = 1


class ProfilerAction(Enum):
    """What the profiler does during a step (what a :func:`schedule` returns)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set[ProfilerActivity]:
    """The activities this build can profile: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


def kineto_available() -> bool:
    """PyTorch's question "is the Kineto profiler built in?": this profiler stands in."""
    return True


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """A schedule for ``profile(schedule=...)``: which steps to skip, warm up and record.

    After ``skip_first`` steps, cycles of ``wait`` (nothing), ``warmup`` (running but
    discarded, so first-call costs don't count) and ``active`` (recorded) steps; the last
    active step of a cycle saves (``on_trace_ready``). ``repeat=0`` cycles forever.

    >>> s = schedule(wait=1, warmup=1, active=2)
    >>> [s(step).name for step in range(4)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE']
    """

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:  # start the first cycle at its warmup
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return (ProfilerAction.RECORD if mod_step < num_steps - 1
                else ProfilerAction.RECORD_AND_SAVE)

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warn_user("Profiler won't be using warmup, this can skew profiler results")
    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    """No schedule: record every step."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False,
                              use_python_export: bool = False) -> Callable[[Any], None]:
    """An ``on_trace_ready`` that writes each recorded cycle into ``dir_name``.

    The file is ``<worker_name>.<time in ns>.pt.trace.json`` (a Chrome trace; open it in
    chrome://tracing or https://ui.perfetto.dev). ``worker_name`` defaults to
    ``hostname_pid``.
    """

    def handler_fn(prof) -> None:
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


def _activity_set(activities: Iterable | None, use_cuda: bool | None) -> set:
    """The requested activities, CUDA dropped with PyTorch's CPU-only warning."""
    requested: set = set()
    if activities is None:
        requested = supported_activities()
    else:
        for item in activities:
            requested.update(item.keys() if isinstance(item, dict) else [item])
    if use_cuda is not None:
        warn_user("`use_cuda` is deprecated, use `activities` argument instead",
                  category=FutureWarning)
        if use_cuda:
            requested.add(ProfilerActivity.CUDA)
    if len(requested) == 0:
        raise AssertionError("No valid profiler activities found")
    if ProfilerActivity.CUDA in requested:
        warn_user("CUDA is not available, disabling CUDA profiling")
        requested.discard(ProfilerActivity.CUDA)
    return requested


class profile:  # noqa: N801 - PyTorch's name
    """Profiler context manager: records every op, backward step and labelled range.

    Args (PyTorch's): ``activities`` (``[ProfilerActivity.CPU]``), ``schedule`` (see
    :func:`schedule`), ``on_trace_ready`` (called with the profiler after each recorded
    cycle), ``record_shapes`` (keep each op's input shapes), ``profile_memory`` (bytes
    each op's results allocate), ``with_stack`` (the user's source lines of each op).

    After the block: ``prof.key_averages().table(...)``, ``prof.events()``,
    ``prof.export_chrome_trace(path)``. Without ``with``: ``prof.start()``, then
    ``prof.step()`` after each step, then ``prof.stop()``.
    """

    def __init__(self, *, activities: Iterable | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[..., Any] | None = None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None,
                 execution_trace_observer: Any = None, acc_events: bool = False,
                 use_cuda: bool | None = None, custom_trace_id_callback: Any = None,
                 post_processing_timeout_s: float | None = None) -> None:
        self.activities = _activity_set(activities, use_cuda)
        if ProfilerActivity.CPU not in self.activities:
            raise AssertionError("No activities specified for the profiler")
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        if schedule:
            self.schedule = schedule
            self.record_steps = True  # each recorded step becomes a ProfilerStep#N range
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn: record_function | None = None
        self._events: EventList | None = None
        A = ProfilerAction  # noqa: N806 - the table below reads better short
        # (previous action, next action) -> what to do; None = the profiler stops.
        self.action_map: dict[tuple, list[Callable[[], Any]]] = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [
                partial(warn_user, "Incorrect schedule: WARMUP followed by NONE"),
                self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [
                partial(warn_user, "Incorrect schedule: RECORD followed by NONE"),
                self.stop_trace],
            (A.RECORD, A.WARMUP): [
                partial(warn_user, "Incorrect schedule: RECORD followed by WARMUP"),
                self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [
                self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [
                self.stop_trace, self._trace_ready, self.prepare_trace, self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [
                self.stop_trace, self._trace_ready, self.prepare_trace, self.start_trace],
            (A.NONE, None): [],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    # --- the context manager and the step API ----------------------------------------------
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.stop()

    def start(self) -> None:
        """Start profiling (as entering the ``with`` block does)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self) -> None:
        """Stop profiling; a recording cycle still open is finished (and handed on)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self) -> None:
        """Signal that the next step begins: the schedule decides what happens now."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _transit_action(self, prev_action, current_action) -> None:
        for action in self.action_map.get((prev_action, current_action), []):
            action()

    # --- one recording cycle -----------------------------------------------------------
    def prepare_trace(self) -> None:
        """Get ready to record (nothing to prepare: recording starts instantly)."""

    def start_trace(self) -> None:
        """Begin recording events."""
        recording.start(recording.Recorder(
            record_shapes=self.record_shapes, profile_memory=self.profile_memory,
            with_stack=self.with_stack))

    def stop_trace(self) -> None:
        """Stop recording; the events become what ``events()`` returns."""
        recorder = recording.stop()
        events = recorder.events if recorder is not None else []
        if self.acc_events and self._events is not None:
            events = [*self._events, *events]
        self._events = EventList(events, profile_memory=self.profile_memory,
                                 with_flops=self.with_flops)

    def _trace_ready(self) -> None:
        if self.on_trace_ready:
            self.on_trace_ready(self)

    # --- results -----------------------------------------------------------------------
    def events(self) -> EventList:
        """Every recorded range, in the order they started (of the last cycle)."""
        if self._events is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """One averaged row per op name (and input shapes, if asked): what ``table`` prints."""
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self._events.key_averages(group_by_input_shape, group_by_stack_n,
                                         group_by_overload_name)

    def export_chrome_trace(self, path: str, use_python_export: bool = False) -> None:
        """Write the recorded events as a Chrome trace JSON file."""
        self.events().export_chrome_trace(path)

    def add_metadata(self, key: str, value: str) -> None:
        """Accepted for PyTorch's code; teachgrad's traces carry no extra metadata."""

    def add_metadata_json(self, key: str, value: str) -> None:
        """Accepted for PyTorch's code; teachgrad's traces carry no extra metadata."""
