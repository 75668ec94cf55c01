"""When does each box and arrow of the drawing change its look?

A stepper shows *frames*: frame 0 is "backward is about to start", frame ``k`` is "step
``k - 1`` has just run". Every box goes through states, each for a run of frames:

=============  ==========================================================================
(none)         no gradient has reached it yet (the default look)
``partial``    some, not all, contributions arrived (a tensor used twice, half done)
``ready``      its gradient is complete; it waits in the engine's ready queue
``current``    the engine runs it in this frame's step
``done``       it ran; its gradient went on to its inputs
``active``     (a folded chain box) some of its nodes ran, not all yet
=============  ==========================================================================

Arrows are ``current`` in the frame their gradient is sent and ``done`` afterwards.

Everything is derived from the engine's own step reports (when a node was in the ready
list, which step sent it gradient, when it ran), never from a re-derived order. A state is
stored as ``(state, first_frame, end_frame)`` with ``end_frame`` ``None`` for "until the
end", so the static HTML needs one CSS rule per change, not one per frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph_model import GraphModel
from .steps import Recording


@dataclass(eq=False)
class Timeline:
    """The states of every box and arrow, as runs of frames."""

    n_frames: int
    states: dict  # element id (box or arrow) -> [(state, start, end or None), ...]

    def state_at(self, element_id: str, frame: int) -> str | None:
        """The state of a box or arrow in ``frame`` (``None``: the default look)."""
        for state, start, end in self.states.get(element_id, ()):
            if start <= frame and (end is None or frame < end):
                return state
        return None

    def frame_states(self, frame: int) -> dict:
        """``{state: [element ids]}`` for one frame (the live widget restyles with this)."""
        by_state: dict = {}
        for element_id, runs in self.states.items():
            for state, start, end in runs:
                if start <= frame and (end is None or frame < end):
                    by_state.setdefault(state, []).append(element_id)
                    break
        return by_state


def build_timeline(model: GraphModel, recording: Recording) -> Timeline:
    """Turn the step reports into state runs for every box and arrow of ``model``."""
    steps = recording.steps
    first_arrival: dict = {}   # node -> first frame with some gradient at it
    queued: dict = {}          # node -> first frame in which its gradient was complete
    ran: dict = {}             # node -> the frame of its step
    for record in steps:
        frame = record.index + 1
        ran[record.node] = frame
        if any(a.step < 0 for per_output in record.arrivals for a in per_output):
            first_arrival.setdefault(record.node, 0)   # a starting point of backward()
        for sent in record.sent:
            if sent.target is not None and sent.value is not None:
                first_arrival.setdefault(sent.target, frame)
        for node in record.ready:
            queued.setdefault(node, frame)
    for node in ran:
        queued.setdefault(node, 0)  # ran without being reported queued: queued at the start
        first_arrival.setdefault(node, queued[node])

    states: dict = {}
    for box in model.boxes:
        if box.kind == "root":
            states[box.id] = [("done", 0, None)]
        elif box.kind in ("op", "leaf"):
            node = box.members[0]
            states[box.id] = _node_runs(
                first_arrival.get(node), queued.get(node), ran.get(node)
            )
        elif box.kind in ("chain", "summary"):
            starts = [first_arrival[n] for n in box.members if n in first_arrival]
            frames = sorted({ran[n] for n in box.members if n in ran})
            complete = all(n in ran for n in box.members)
            runs = []
            if starts and (not frames or min(starts) < frames[0]):
                runs.append(("partial", min(starts), frames[0] if frames else None))
            runs += work_runs(frames, complete, "current", "active", "done")
            states[box.id] = runs
    for arrow in model.arrows:
        if model.box(arrow.head).kind == "none":
            continue  # no gradient ever travels to a None: those arrows stay faded
        sources = [node for node, _ in arrow.members]
        frames = sorted({0 if node is None else ran[node] for node in sources
                         if node is None or node in ran})
        complete = all(node is None or node in ran for node in sources)
        states[arrow.id] = work_runs(frames, complete, "current", "active", "done")
    return Timeline(n_frames=len(steps) + 1, states=states)


def _node_runs(arrived: int | None, queued: int | None, ran: int | None) -> list:
    runs = []
    if arrived is not None:
        runs.append(("partial", arrived, queued if queued is not None else ran))
    if queued is not None:
        runs.append(("ready", queued, ran))
    if ran is not None:
        runs.append(("current", ran, ran + 1))
        runs.append(("done", ran + 1, None))
    return [r for r in runs if r[2] is None or r[1] < r[2]]


def work_runs(frames: list, complete: bool, each: str, between: str, after: str) -> list:
    """Runs for something that works at several frames (a folded chain, merged arrows).

    ``each`` at every frame in ``frames``, ``between`` in the gaps, then ``after`` if
    ``complete`` (else ``between`` again) until the end.
    """
    if not frames:
        return []
    runs: list = []
    for i, frame in enumerate(frames):
        _append(runs, each, frame, frame + 1)
        if i + 1 < len(frames) and frames[i + 1] > frame + 1:
            _append(runs, between, frame + 1, frames[i + 1])
    _append(runs, after if complete else between, frames[-1] + 1, None)
    return runs


def _append(runs: list, state: str, start: int, end: int | None) -> None:
    """Add a run, merging it into the previous one when they touch and look the same."""
    if runs and runs[-1][0] == state and runs[-1][2] == start:
        runs[-1] = (state, runs[-1][1], end)
    elif end is None or start < end:
        runs.append((state, start, end))


__all__ = ["Timeline", "build_timeline", "work_runs"]
