"""notebook: what a student waits for in Jupyter (teachgrad only; absolute targets).

* ``notebook/table``: the inspector table of a 1000x1000 tensor (with a gradient), as
  ``teachgrad.notebook.inspect(x)._repr_html_()`` renders it.
* ``notebook/graph``: ``teachgrad.notebook.draw(out)`` of a 200-node graph, with the
  Graphviz layout to SVG (``_repr_html_()``, what Jupyter displays).
* ``notebook/stepper``: ``step_backward(out)`` on a 50-node graph (it runs the real
  backward), the static stepper HTML that is displayed, the live widget, and one step
  forward in it. Building the forward graph is set-up, not timed.

Each benchmark is skipped, with the reason, when its optional dependency (graphviz and a
layout engine, ipywidgets) is missing.
"""

from __future__ import annotations

import numpy as np

from .harness import Benchmark, Implementation, Skip
from .peers import Peers


def chain_graph(n_nodes: int, size: int = 3):
    """A graph of exactly ``n_nodes`` autograd nodes: ``h = tanh(h * w_k) + h`` blocks.

    Returns ``(out, x, weights)``. Each block adds four nodes (mul, tanh, add and the
    AccumulateGrad of ``w_k``); unary ``exp``/``tanh`` ops pad to the exact count.
    """
    import teachgrad

    gen = np.random.default_rng(1)
    x = teachgrad.tensor(gen.uniform(-1, 1, size).astype(np.float32), requires_grad=True)
    remaining = n_nodes - 2  # x's AccumulateGrad and the final sum
    h, weights = x, []
    while remaining >= 4:
        w = teachgrad.tensor(gen.uniform(-1, 1, size).astype(np.float32), requires_grad=True)
        weights.append(w)
        h = (h * w).tanh() + h
        remaining -= 4
    for _ in range(remaining):
        h = h.tanh()
    return h.sum(), x, weights


def _count_nodes(out) -> int:
    from teachgrad.autograd.graph import collect_nodes

    return len(collect_nodes([out.grad_fn]))


def benchmarks(quick: bool, peers: Peers) -> list[Benchmark]:
    return [_table(quick), _graph(quick), _stepper(quick)]


def _skipped(name: str, description: str, reason: str, target: float) -> Benchmark:
    def skip():
        raise Skip(reason)

    return Benchmark(name, description, [Implementation("teachgrad", lambda _: None, skip)],
                     reference=None, time_target=target)


def _table(quick: bool) -> Benchmark:
    import teachgrad

    n = 100 if quick else 1000
    description = f"inspect(x)._repr_html_() of a {n}x{n} float32 tensor with a grad"
    try:
        from teachgrad.notebook import inspect
    except ImportError as error:
        return _skipped("notebook/table", description, str(error), 0.050)
    x = teachgrad.tensor(np.random.default_rng(0).standard_normal((n, n), dtype=np.float32),
                         requires_grad=True)
    (x * 2).sum().backward()  # so the table has a gradient to show as well

    def run(_):
        return inspect(x)._repr_html_()

    def check():
        html = run(None)
        assert "<table" in html and "requires_grad" in html, "no inspector table rendered"
        assert len(html) < 200_000, f"the table of a {n}x{n} tensor is {len(html)} characters"
        return {}

    return Benchmark(
        "notebook/table", description,
        [Implementation("teachgrad", run, check)], reference=None,
        time_target=0.050, repeats=3 if quick else 30,
    )


def _layout_problem() -> str | None:
    """Why no graph can be laid out here (None: it can)."""
    try:
        import graphviz  # noqa: F401

        from teachgrad.notebook.layout import LayoutUnavailable, layout_svg
    except ImportError as error:
        return f"graphviz is not installed ({error})"
    try:
        layout_svg("digraph { a -> b }")
    except LayoutUnavailable as error:
        return str(error)
    return None


def _graph(quick: bool) -> Benchmark:
    n_nodes = 40 if quick else 200
    description = f"draw(out)._repr_html_() of a {n_nodes}-node graph, Graphviz layout included"
    problem = _layout_problem()
    if problem:
        return _skipped("notebook/graph", description, problem, 1.0)
    from teachgrad.notebook import draw

    out, _, _ = chain_graph(n_nodes)

    def run(_):
        return draw(out)._repr_html_()

    def check():
        assert _count_nodes(out) == n_nodes, f"the graph has {_count_nodes(out)} nodes"
        drawing = draw(out)
        assert drawing.model.mode == "full", f"drawn {drawing.model.mode}, not in full"
        html = drawing._repr_html_()
        assert "<svg" in html and "MulBackward0" in html, "no laid-out graph in the HTML"
        return {}

    return Benchmark("notebook/graph", description, [Implementation("teachgrad", run, check)],
                     reference=None, time_target=1.0, repeats=3 if quick else 10)


def _stepper(quick: bool) -> Benchmark:
    n_nodes = 20 if quick else 50
    description = (f"step_backward(out) on a {n_nodes}-node graph, its static HTML, the live "
                   "widget and one step")
    problem = _layout_problem()
    if problem:
        return _skipped("notebook/stepper", description, problem, 1.0)
    from teachgrad.notebook import step_backward

    try:
        import ipywidgets  # noqa: F401

        has_widgets = True
    except ImportError:
        has_widgets = False

    def run(problem):
        out, x, weights = problem
        stepper = step_backward(out)
        html = stepper._repr_mimebundle_()["text/html"]  # the static stepper (all frames)
        if has_widgets:
            stepper.frame = 1  # opens the live view and steps once
        return stepper, html

    def check():
        out, x, weights = chain_graph(n_nodes)
        assert _count_nodes(out) == n_nodes, f"the graph has {_count_nodes(out)} nodes"
        stepper, html = run((out, x, weights))
        # The stepper ran the real backward: compare with a plain backward of the same graph.
        again, x2, weights2 = chain_graph(n_nodes)
        again.backward()
        for got, want in zip([x, *weights], [x2, *weights2]):
            assert np.array_equal(got.grad.numpy(), want.grad.numpy()), "gradients differ"
        assert "<svg" in html, "no graph in the stepper"
        assert len(stepper.steps) == n_nodes, f"{len(stepper.steps)} steps for {n_nodes} nodes"
        return {}

    notes = [] if has_widgets else ["ipywidgets is not installed: the static stepper only"]
    return Benchmark(
        "notebook/stepper", description,
        [Implementation("teachgrad", run, check, prepare=lambda: chain_graph(n_nodes))],
        reference=None, time_target=1.0, repeats=3 if quick else 10, notes=notes,
    )
