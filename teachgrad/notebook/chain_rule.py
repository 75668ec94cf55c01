"""The chain-rule panel: what one step of backward did, in words and numbers.

For a step at an op node the panel shows

* the node and its local derivative, as the op itself writes it (``MulBackward0.formula``,
  e.g. ``∂(a·b)/∂a = b    ∂(a·b)/∂b = a``: one part per input);
* the gradient that arrived (``∂out/∂z``), and when it came from several places, the
  contributions being summed;
* for each input: ``upstream × local = contribution``, with the engine's actual numbers;
* what the op saved in the forward pass (the values its local derivative uses);
* the engine's ready queue after the step, so the order is explained, not magic.

For an AccumulateGrad step it shows the leaf's ``.grad`` changing: ``None → [...]`` the
first time, ``old + new`` after that.

Every number is one the engine reported (see :mod:`.steps`); nothing is recomputed here,
except the sum of arrivals when a hook changed the gradient (we then show both:
what the hook received and what it returned), and the local derivative's value where
the step is one number to one number: contribution ÷ upstream, which is then exactly
the 1×1 Jacobian (``cos a`` is worth -0.6282 at a = 2.25; the formula alone left the
student to work that out before the product could be checked). An elementwise step of a
few elements (``tanh`` of 3 numbers) gets one local value per element the same way: its
Jacobian is diagonal, so element ``i`` of the contribution is ``upstream[i] × local[i]``.
Where a nan or an inf is born at an elementwise step (lesson 16's ``0 × inf = nan``), the
local factor of those elements comes from the op's own backward run on ones (see
:mod:`.born`): dividing by an upstream of 0 could not give it.

A value saved from an input is shown as the input is (``_saved_self`` of ``x * y`` with an
int ``x`` is ``tensor(4)``), with a note where the op computed with a promoted copy.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import numpy as np

from .._dtypes import from_numpy_dtype
from ..autograd import graph as autograd_graph
from ..autograd.graph import AccumulateGrad
from ..autograd.saved_hooks import PackedSaved
from .assets import escape_text
from .born import elementwise_birth, kinds_born, stopped_at, sum_births
from .graph_model import as_saved, input_tensor, node_name
from .naming import Names
from .steps import Recording, StepRecord
from .unpacked import Packed, Unpacked
from .values import as_array, count, long_value, panel_printing

LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: the longest line a screen reader announces of a step (a long tensor is cut there)
SPOKEN_LINE = 160
#: a panel title's classes: kept out of tables of contents (see PanelWriter.heading)
TITLE_CLASSES = "tg-title jp-toc-ignore tocSkip"


@dataclass(eq=False)
class Panel:
    """The chain-rule panel of one frame, as HTML and as plain text (the step log)."""

    frame: int
    title: str
    html: str
    text: str
    #: what a screen reader announces when the frame comes on show: the title, what
    #: arrived, the chain-rule lines and what changed, each line kept short
    spoken: str = ""


class PanelWriter:
    """Writes the panel of every frame of one recorded backward pass."""

    def __init__(
        self, recording: Recording | None, names: Names, roots: tuple, saved: dict
    ) -> None:
        self.recording = recording
        self.names = names
        self.roots = roots
        self.saved = saved  # node -> (values, sources), taken before backward freed them
        self.root_name = (names.of_tensor(roots[0]) if roots else "") or "output"
        given = getattr(recording, "given", [])
        # What the gradients are gradients *of*. backward() from one output without
        # gradient= differentiates that output; with gradient=v (or from several outputs)
        # it differentiates the scalar ℓ = (y * v).sum() (a vector-Jacobian product), and
        # writing ∂y/∂y for v would be wrong.
        self.top = "ℓ" if len(roots) > 1 or any(g is not None for g in given) else self.root_name
        self.n_steps = len(recording.steps) if recording is not None else 0
        self._texts: dict = {}  # id(array) -> its printed text (arrays recur across panels)
        self._tensor_names: set[str] | None = None

    # --- naming things -------------------------------------------------------------------
    def label(self, node) -> str:
        """``'MulBackward0 (z)'``, ``'AccumulateGrad (x)'``, ``'MulBackward0'``."""
        if node is None:
            return "None"
        name = self.names.of_node(node)
        if not name:
            name = self._root_name_of(node)
        return f"{node_name(node)} ({name})" if name else node_name(node)

    def _root_name_of(self, node) -> str:
        for r in self.roots:
            if r._grad_fn is node:
                return self.names.of_tensor(r) or "output"
        return ""

    def grad_symbol(self, node, output_nr: int = 0) -> str:
        """``'∂out/∂z'``: which derivative the gradient at ``node`` is."""
        if isinstance(node, AccumulateGrad):
            what = self.names.of_tensor(node.variable) or f"(leaf {_shape(node.variable)})"
        else:
            what = self.names.of_output(node, output_nr) or self._root_name_of(node)
            if not what:
                what = f"(output of {node_name(node)})"
                if len(node._meta) > 1:
                    what = f"(output {output_nr} of {node_name(node)})"
        return f"∂{self.top}/∂{what}"

    def _letters_note(self, node, record: StepRecord, symbols: list[str]) -> str:
        """Say what the formula's letters are, when the student's tensors go by the same
        letters for something else (lesson 3's ``b = w1 * a``: the formula's ``a`` is
        ``w1``, its ``b`` the student's ``a``). Empty when nothing can be mixed up.
        Names are `quoted` (set as code in the panel)."""
        what = {}  # input letter -> what the student calls that input
        for sent in record.sent:
            if sent.index < len(symbols):
                what[symbols[sent.index]] = self._input_name(node, sent)
        mixed = [letter for letter, name in what.items()
                 if letter in self.tensor_names() and name != f"your `{letter}`"]
        if not mixed:
            return ""
        op, quoted = node_name(node), [f"`{letter}`" for letter in symbols]
        if len(symbols) == 1:
            return (f"In this formula {quoted[0]} is {op}'s input, not your {quoted[0]}: "
                    f"it is {what.get(symbols[0], 'an input')}.")
        theirs = ", ".join(f"its `{letter}` is {name}" for letter, name in what.items())
        return (f"In this formula {_listed(quoted)} are {op}'s inputs, not your "
                f"{_listed([f'`{letter}`' for letter in mixed])}: {theirs}.")

    def _input_name(self, node, sent) -> str:
        """Input ``sent.index`` of ``node`` as the student knows it, from the node its
        gradient goes to: "your `a`" (quoted for the panel), "the output of MulBackward0";
        for an input that needs no gradient (no node), its name when the node saved it,
        "your `w1` (which needs no gradient)" (lesson 3's ``b = w1 * a``: the note named
        the formula's ``a`` only as "a tensor that needs no gradient", while the row under
        it said ``None (w1)``), else "a tensor that needs no gradient"."""
        target = sent.target
        if target is None:
            name = self._unneeded_name(node, sent.index)
            if name:
                return f"your `{name}` (which needs no gradient)"
            return "a tensor that needs no gradient"
        name = self.names.of_node(target)
        return f"your `{name}`" if name else f"the output of {node_name(target)}"

    def _unneeded_name(self, node, slot: int) -> str:
        """The student's name of the input at ``slot`` that needs no gradient (an edge to
        None), when the node saved that input; else ``""``."""
        saved = self.saved.get(node)
        tensor = input_tensor(node, slot, saved[1]) if saved is not None else None
        return self.names.of_tensor(tensor) if tensor is not None else ""

    def tensor_names(self) -> set[str]:
        """The names the student gave the tensors of this graph (``{'a', 'b', 'L'}``)."""
        if self._tensor_names is None:
            nodes = [step.node for step in getattr(self.recording, "steps", [])]
            nodes += [sent.target for step in getattr(self.recording, "steps", [])
                      for sent in step.sent if sent.target is not None]
            self._tensor_names = {
                name for node in nodes for name in self.names.of_node(node).split(", ") if name
            } | {self.root_name}
        return self._tensor_names

    def _printed(self, value) -> str:
        if value is None:
            return "None"
        key = id(value)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = long_value(value)
        return text

    # --- panels ----------------------------------------------------------------------------
    def panels(self) -> list[Panel]:
        """One panel per frame: the start, then one per step."""
        with panel_printing():  # set the print options once, not once per number
            panels = [self.start_panel()]
            panels.extend(self.step_panel(record) for record in self.recording.steps)
        return panels

    def start_panel(self) -> Panel:
        """The first panel: backward starts at the output with gradient 1."""
        out = self.new_panel()
        first = self.recording.steps[0] if self.recording.steps else None
        heading = f"Start: backward() from {self.outputs_text()}"
        out.heading(heading)
        if self.top == self.root_name:
            start = f"The chain rule starts at the output: ∂{self.top}/∂{self.top} = 1."
        else:
            start = self.loss_text()
        # (It said "every step below": the steps come one after the other, not below, and
        # it left out what happens where two paths meet.)
        out.para(
            f"{start} Each step multiplies the gradient its node receives by the node's "
            "local derivative and sends the product on, towards the leaves; where paths "
            "meet, the contributions are added."
        )
        if first is not None:
            for arrivals in first.arrivals:
                for a in arrivals:
                    out.value(f"starting gradient at {self.label(first.node)}", a.value,
                              say=True)
            # The queue before the first step: the first node, and any other output's node
            # that was ready from the start and is still waiting after step 1.
            starts = {r._grad_fn for r in self.roots}
            out.queue([first.node] + [n for n in first.ready if n in starts], self.label)
        else:
            out.para("Nothing to run: no node of this graph needs a gradient.")
        return out.panel(0, heading)

    def outputs_text(self) -> str:
        """``y``, or ``y1, y2`` when backward() starts from several outputs."""
        names = [self.names.of_tensor(r) or f"output {k}" for k, r in enumerate(self.roots)]
        return ", ".join(names) if len(names) > 1 else self.root_name

    def given_name(self, k: int) -> str:
        """The ``gradient=`` of output ``k`` as the student named it (``v``), else ``v``,
        ``v1``...; ``"1"`` when none was passed."""
        given = self.recording.given[k] if k < len(self.recording.given) else None
        if given is None:
            return "1"
        return self.names.of_tensor(given) or ("v" if len(self.roots) == 1 else f"v{k}")

    def loss_text(self) -> str:
        """``backward(gradient=v) differentiates the scalar ℓ = (y * v).sum() ...``."""
        terms, starts = [], []
        for k, root in enumerate(self.roots):
            name = self.names.of_tensor(root) or f"output {k}"
            given = self.given_name(k)
            # Written as code, as lesson 7 writes it: "(v·y).sum()" mixed the notations
            # (read as a dot product, v·y is already a scalar, and .sum() made no sense).
            terms.append(name if given == "1" else f"({name} * {given}).sum()")
            starts.append(f"∂ℓ/∂{name} = {given}")
        how = "backward(gradient=...)"
        if len(self.roots) > 1:
            how = "backward() from several outputs"
        return (f"{how} differentiates the scalar ℓ = {' + '.join(terms)} (a vector-Jacobian "
                f"product), so the chain rule starts at {', '.join(starts)}.")

    def step_panel(self, record: StepRecord) -> Panel:
        """The panel for one step of the backward pass: what arrived, the local rule, what left."""
        node = record.node
        out = self.new_panel()
        title = f"Step {record.index + 1} of {self.n_steps}: {self.label(node)}"
        out.heading(title)
        self._arrived(out, record)
        if isinstance(node, AccumulateGrad):
            self._accumulated(out, record)
        else:
            self._sent(out, record)
            self._saved(out, node)
        for tensor, before, after in record.retained:
            name = self.names.of_tensor(tensor) or "this tensor"
            nr = tensor._output_nr
            added = record.grads_in[nr] if nr < len(record.grads_in) else None
            out.change(f"{name}.grad (kept by retain_grad)", before, after, added=added)
        for tensor, before, after in record.written:
            name = self.names.of_tensor(tensor) or "this tensor"
            added = record.grads_in[tensor._output_nr]
            out.change(f"{name}.grad (asked for by inputs=)", before, after, added=added)
        out.queue(record.ready, self.label)
        return out.panel(record.index + 1, title)

    def _arrived(self, out: _Out, record: StepRecord) -> None:
        node = record.node
        for nr, g in enumerate(record.grads_in):
            symbol = self.grad_symbol(node, nr)
            arrivals = record.arrivals[nr] if nr < len(record.arrivals) else []
            if len(arrivals) > 1:
                out.para(f"Gradient {symbol}: {len(arrivals)} contributions arrived; the engine "
                         "adds them up (this tensor was used more than once).")
                senders = [a.sender for a in arrivals]
                parts = [(self._sender(a, which_input=senders.count(a.sender) > 1), a.value)
                         for a in arrivals]
                out.sum(parts, g)
                self._born_in_sum(out, [a.value for a in arrivals])
            else:
                source = f" (from {self._sender(arrivals[0])})" if arrivals else ""
                out.value(f"Gradient arriving {symbol}{source}", g, say=True)
            total = _sum([a.value for a in arrivals])
            if g is not None and total is not None and not _same(total, g):
                out.para("A hook changed this gradient before the node ran: it received "
                         "the gradient below and returned the one above.")
                out.value("before the hook", total)

    def _born_in_sum(self, out: _Out, values: list) -> None:
        """Where the sum itself made a nan (inf + -inf = nan), each such element's sum."""
        kinds, items, total = sum_births(values, _sum(values))
        if not items:
            return
        lines = []
        for index, addends, result in items:
            where = f"[{', '.join(str(int(i)) for i in index)}]: " if index else ""
            # (printed afresh: temporaries, see _Out.born)
            lines.append(where + " + ".join(long_value(v) for v in addends)
                         + f" = {long_value(result)}")
        if total > len(items):
            lines.append(f"… and {count(total - len(items), 'more element')}")
        verb = "are" if " and " in kinds else "is"
        out.sub(f"{kinds} {verb} born in this sum, where no contribution had it: "
                + "; ".join(lines))

    def _none_label(self, node, slot: int) -> str:
        """``"None"``, or ``"None (carried)"`` when the input there is a tensor the student
        named and the node saved (a detached state: see graph_model.input_tensor)."""
        name = self._unneeded_name(node, slot)
        return f"None ({name})" if name else "None"

    def _sender(self, arrival, which_input: bool = False) -> str:
        """Where a contribution came from: ``"step 3, MulBackward0"``. ``which_input``:
        add the sender's input it went out through (``", its input a"``), for a node that
        sent two of the contributions (``y * y``: both came from step 3, MulBackward0, and
        the two captions read the same)."""
        if arrival.sender is None:
            return "the start of backward()"
        where = f"step {arrival.step + 1}, {self.label(arrival.sender)}"
        if which_input:  # (only then: a sender may have 1,500 inputs, a torch.stack)
            symbols = input_symbols(arrival.sender)
            if arrival.edge < len(symbols):
                where += f", its input {symbols[arrival.edge]}"
        return where

    def _accumulated(self, out: _Out, record: StepRecord) -> None:
        name = self.names.of_tensor(record.node.variable)
        grad = f"{name}.grad" if name else f"the .grad of the leaf {_shape(record.node.variable)}"
        if record.variable is None:
            out.para(f"AccumulateGrad would add the gradient into {grad}. Not written: this "
                     "leaf is not among the inputs= of this backward().")
            return
        # Say which of the two it is (lesson 6: None means "store", a tensor means "add"):
        # "adds into x.grad" beside "None → 6." read as if None were added to.
        if record.grad_before is None:
            out.para(f"AccumulateGrad stores the gradient in {grad}, which held None: "
                     "nothing to add to yet.")
        else:
            out.para(f"AccumulateGrad adds the gradient to what {grad} already holds.")
        out.change(grad, record.grad_before, record.grad_after,
                   added=record.grads_in[0] if record.grads_in else None)

    def _sent(self, out: _Out, record: StepRecord) -> None:
        node = record.node
        if record.captured and not record.sent:
            out.para(f"This node's backward() does not run: {self.grad_symbol(node)} is what "
                     "backward(inputs=...) asked for, so the gradient stops here.")
            return
        formula = formula_of(node)
        if formula:
            out.formula(formula)
        else:  # a custom autograd.Function: its own backward() is the local derivative
            out.para(f"{node_name(node)} has no formula text: its backward() computes the "
                     "local derivative.")
            formula = f"{node_name(node)}.backward"
        parts = formula_parts(node)
        derivatives = [part for part in parts if "/∂" in part]
        symbols = input_symbols(node)
        if formula_of(node):
            note = self._letters_note(node, record, symbols)
            if note:
                out.sub(note)
        upstream = record.grads_in[0] if len(record.grads_in) == 1 else None
        rows = []
        for sent in record.sent:
            letter = symbols[sent.index]
            local = parts[sent.index] if len(parts) == len(record.sent) else (
                # (conv's formula also writes its forward pass: one derivative per input)
                derivatives[sent.index] if len(derivatives) == len(record.sent) > 1 else formula)
            if sent.target is None:
                rows.append((letter, self._none_label(node, sent.index), None, local, None,
                             "no gradient needed", None))
                continue
            note = ""
            if getattr(node, "promotes", False) and sent.value is not None and (
                upstream is not None and as_array(sent.value).shape != as_array(upstream).shape
            ):
                # A broadcasting op: the engine summed the gradient down to the input's shape.
                note = "summed over the broadcast dimensions to the input's shape"
            if sent.value is None:
                note = "nothing sent"
            # A formula that is already a number ("∂(a+b)/∂a = 1") needs no "= 1." after it.
            number = None
            if not _ENDS_WITH_A_NUMBER.search(local):
                number = local_number(upstream, sent.value)
                if number is None and elementwise(node):
                    number = local_values(upstream, sent.value)
            rows.append((letter, self.label(sent.target), upstream, local, sent.value, note,
                         number))
        out.contributions(rows, multi_output=len(record.grads_in) > 1)
        self._births(out, record, symbols)

    def _births(self, out: _Out, record: StepRecord, symbols: list[str]) -> None:
        """Say where a nan or an inf is born at this step, with the products that made it
        (lesson 16: ``0. × inf = nan``), or, for an op that mixes elements, that it is;
        and where one that arrived goes no further (see :meth:`_stopped`)."""
        node = record.node
        upstream = record.grads_in[0] if len(record.grads_in) == 1 else None
        for sent in record.sent:
            if (sent.target is not None and sent.value is not None and upstream is not None
                    and elementwise(node) and not _all_finite(upstream)):
                self._stopped(out, sent, upstream)
            if sent.target is None or sent.value is None or _all_finite(sent.value):
                continue  # (the usual case, checked first: one pass over the numbers)
            head = f"{symbols[sent.index]} → {self.label(sent.target)}"
            birth = None
            if elementwise(node) and upstream is not None:
                birth = elementwise_birth(node, self.saved.get(node), upstream, sent.value,
                                          sent.index)
            if birth is not None and birth.products:
                out.born(head, birth)
                continue
            kinds = birth.kinds if birth is not None else kinds_born(record.grads_in,
                                                                     sent.value)
            if kinds:
                if birth is not None:
                    why = "its local factor there is not known"
                elif elementwise(node) and upstream is not None:  # (shapes differ)
                    why = "the gradient sent was summed over the broadcast dimensions"
                else:
                    why = "its local derivative mixes the elements (not one number per element)"
                out.sub(f"{kinds} {'are' if ' and ' in kinds else 'is'} born here, along "
                        f"{head}: the gradient arriving held none, the one sent on does. "
                        f"No single product shows it: {why}.")

    def _promotion_note(self, node, label: str, shown: np.ndarray, used: np.ndarray) -> str:
        """``"`x` is saved as it is, int64; the chain rule uses it promoted to float32:
        4."``: why the saved 4 turns up as 4. in the product above."""
        source = _source_of(self.saved.get(node), shown)
        name = self.names.of_tensor(source[0]) if source is not None else ""
        who = f"`{name}`" if name else label.split(" (")[0]
        return (f"{who} is saved as it is, {_dtype_name(shown)}; the chain rule uses it "
                f"promoted to {_dtype_name(used)} ({_inline(long_value(used))}), the dtype "
                "this op computes in.")

    def _stopped(self, out: _Out, sent, upstream) -> None:
        """Say where a nan or inf that arrived goes no further (clamp, relu, where send 0
        there: lesson 16's clamp), which a product could not do."""
        items, total = stopped_at(upstream, sent.value)
        if not items:
            return
        up = as_array(upstream)
        arrived = " and ".join(k for k, test in (("nan", np.isnan), ("inf", np.isinf))
                               if any(test(up[index]) for index, _ in items))
        places = _listed([f"[{', '.join(str(int(i)) for i in index)}]" for index, _ in items])
        if total > len(items):
            places += f" (and {count(total - len(items), 'more element')})"
        values = {long_value(value) for _, value in items}
        sends = f"sends {values.pop()} there" if len(values) == 1 else "sends finite numbers"
        at = f" at {places}" if items[0][0] else ""
        out.sub(f"The {arrived} that arrived{at} stops here: along "
                f"{self.label(sent.target)} this backward {sends}, whatever arrived. It "
                "selects by its condition, it does not multiply (0 × nan would be nan).")

    def new_panel(self) -> _Out:
        """An empty panel whose values are printed (and cached) by this writer."""
        return _Out(self._printed)

    def _saved(self, out: _Out, node) -> None:
        saved = self.saved.get(node)
        if saved is None and getattr(node, "_saved", None) is autograd_graph._FREED:
            # (a forward replay after backward: the panel showed nothing, as if the op
            # had saved nothing at all)
            out.para("What this op saved for backward is gone: a backward() through this "
                     "graph freed it (backward(retain_graph=True) keeps it).")
        if saved is not None:
            labelled = _labelled(node, *saved, names=self.names)
            if labelled:
                out.saved([(label, shown) for label, shown, _ in labelled],
                          unpacked=type(saved) is Unpacked)
            for label, shown, used in labelled:
                if shown is not used:
                    out.sub(self._promotion_note(node, label, shown, used))
            if type(saved) is Packed:
                out.para(f"{count(saved.count, 'saved tensor')} packed by saved_tensors_hooks: "
                         "backward gets them back from the unpack hook when this node runs.")
        notes = forward_notes(node)
        if notes:
            formula = formula_of(node)
            out.para("also noted in forward: " + ", ".join(
                f"{_with_symbol(k, formula)}{_as_attribute(node, k)} = {v}" for k, v in notes))


_ENDS_WITH_A_NUMBER = re.compile(r"=\s*[-+−]?\d+(\.\d*)?\s*$")


def local_number(upstream, contribution) -> np.ndarray | None:
    """The local derivative's value of a one-number-to-one-number step, or None.

    When the gradient arriving and the one sent on are single numbers, the chain rule
    ``contribution = upstream × local`` has a 1×1 Jacobian, so ``local`` is
    ``contribution / upstream`` exactly (up to float rounding, hence the 6 significant
    digits: float32's 3 × 0.6282 / 3 must read 0.6282, not 0.62819999). Anything larger
    (a sum, a matrix product, broadcasting) has no single local number: None. So has an
    upstream of 0 (nothing to divide by) or a value that is not finite.
    """
    if upstream is None or contribution is None:
        return None
    up, sent = as_array(upstream), as_array(contribution)
    if up.size != 1 or sent.size != 1 or sent.dtype.kind not in "fc":
        return None
    up_value, sent_value = up.reshape(-1)[0].item(), sent.reshape(-1)[0].item()
    if up_value == 0 or not np.isfinite(up_value) or not np.isfinite(sent_value):
        return None
    value = sent_value / up_value
    if isinstance(value, complex):
        value = complex(float(f"{value.real:.6g}"), float(f"{value.imag:.6g}"))
    else:
        value = float(f"{value:.6g}")
    return np.asarray(value, dtype=sent.dtype)


#: the most elements whose local derivatives a panel lists (more would not be read)
LOCAL_VALUES_LIMIT = 6
#: the modules whose ops work element by element (their Jacobian is diagonal)
_ELEMENTWISE_MODULES = ("teachgrad.ops.pointwise", "teachgrad.ops.elementary")


def elementwise(node) -> bool:
    """Does ``node``'s op work element by element (``tanh``, ``a * b``...)?

    Then output element ``i`` depends on input element ``i`` alone, so the local
    derivative is one number per element. Known for the ops of the pointwise modules and
    for the binary ops that broadcast (``promotes``); ``False`` for everything else
    (a sum, a matrix product, softmax, a custom Function), where it is not.
    """
    op = type(node)
    return op.__module__ in _ELEMENTWISE_MODULES or bool(getattr(op, "promotes", False))


def local_values(upstream, contribution) -> np.ndarray | None:
    """The local derivative of each element of a small elementwise step, or None.

    For an elementwise op (:func:`elementwise`) whose gradient keeps its shape (not
    summed over broadcast dimensions) ``contribution[i] = upstream[i] × local[i]``, so
    ``local[i]`` is ``contribution[i] / upstream[i]``, rounded to 7 significant digits
    (float32 rounding gone: 2.9999998 is 3.; and no second rounding that printed tanh's
    0.53704989, the saved b, as 0.5371 where b prints 0.5370). None above
    ``LOCAL_VALUES_LIMIT`` elements, and where some element of the upstream is 0
    (nothing to divide by) or a value is not finite: then no element is shown, rather
    than a list with holes.
    """
    if upstream is None or contribution is None:
        return None
    up, sent = as_array(upstream), as_array(contribution)
    if (up.shape != sent.shape or not 1 < sent.size <= LOCAL_VALUES_LIMIT
            or sent.dtype.kind not in "fc"):
        return None
    if not (np.all(up != 0) and np.all(np.isfinite(up)) and np.all(np.isfinite(sent))):
        return None
    ratios = [_significant(s / u, 7) for s, u in zip(sent.reshape(-1).tolist(),
                                                      up.reshape(-1).tolist())]
    return np.asarray(ratios, dtype=sent.dtype).reshape(sent.shape)


def _significant(value, digits: int):
    """``value`` rounded to ``digits`` significant digits (each part of a complex one)."""
    if isinstance(value, complex):
        return complex(_significant(value.real, digits), _significant(value.imag, digits))
    return float(f"{value:.{digits}g}")


def _listed(words: list[str]) -> str:
    """``'a'``, ``'a and b'``, ``'a, b and c'``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def formula_of(node) -> str:
    """The node's local derivative as the panel writes it: the op's ``formula``, with the
    bounds of a clamp by numbers written in (``1 where -1.5 ≤ a ≤ 3``: the op's text,
    "1 inside [min, max]", said clamp even for clamp_min)."""
    if type(node).__name__ in CLAMPS_BY_NUMBERS:
        low, high = node.bounds
        if high is None:  # "a ≥ 0" reads better than "0 ≤ a"
            inside = f"a ≥ {low!r}"
        else:
            inside = " ≤ ".join([repr(low)] * (low is not None) + ["a", repr(high)])
        name = CLAMPS_BY_NUMBERS[type(node).__name__]
        return f"∂{name}(a)/∂a = 1 where {inside}, else 0"
    return getattr(node, "formula", "") or ""


#: The clamps whose bounds are numbers (PyTorch keeps them as ``_saved_min``/``_saved_max``)
#: and the function each one records.
CLAMPS_BY_NUMBERS = {"ClampBackward1": "clamp", "ClampMinBackward0": "clamp_min",
                     "ClampMaxBackward0": "clamp_max"}


def formula_parts(node) -> list[str]:
    """The op's formula split into its parts, one per input when it has several.

    Ops write one part per input, separated by wide spaces:
    ``"∂(a·b)/∂a = b    ∂(a·b)/∂b = a"``.
    """
    formula = formula_of(node)
    return [part for part in re.split(r"\s{2,}", formula.strip()) if part]


def input_symbols(node) -> list[str]:
    """What to call each input of ``node``: the formula's own names when it has them.

    ``∂/∂mat1 = ...`` names an input ``mat1``; without such names inputs are ``a``,
    ``b``, ``c``... in order, as most formulas write them.
    """
    n = len(node.next_functions)
    # (a part without a derivative is a note: "(÷n for the mean)" after mse_loss's two)
    parts = [part for part in formula_parts(node) if "/∂" in part]
    if len(parts) == n > 0:
        found = [re.search(r"/∂\s*([^\s=)]+)", part) for part in parts]
        if all(found):
            # "∂(Σa)/∂aᵢ" and "∂L/∂x[i]" speak of one element; "∂L/∂x: ..." of x itself.
            return [_without_element(m.group(1)) for m in found]
    if n > len(LETTERS):  # torch.stack of 30 tensors: a₀ … a₂₉, as the list's indices
        return [f"a{_subscript(i)}" for i in range(n)]
    return list(LETTERS[:n]) if n > 1 else ["a"]


def _subscript(number: int) -> str:
    """``12 -> '₁₂'``."""
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _without_element(symbol: str) -> str:
    """``"a"`` for ``"aᵢ"``, ``"x"`` for ``"x[i]"`` and ``"x:"``: the input, not an element."""
    bare = re.sub(r"(\[[^\]]*\]|[ᵢⱼₖₗₘₙ₀-₉]+)?:?$", "", symbol)
    return bare or symbol


def saved_with_labels(node, values, sources, names: Names | None = None) -> list:
    """Pair each value a node saved with what it is: its letter in the formula and the
    attribute PyTorch shows it as, e.g. ``"a (_saved_self)"``, ``"c (_saved_condition)"``.

    The attribute is ``grad_fn._saved_<name>`` from the op's ``saved_names`` (lesson 15
    reads them). The letter: an input tensor is recognised by its graph edge (``a``,
    ``b``...); a constant input is the one input without an edge (``y * 3``: the 3); the
    op's own output is ``result``; anything else only has a letter where the formula
    writes it as one (``where(c, a, b)``'s condition is ``c``). The index tensors of
    ``x[i]`` are PyTorch's tuple ``_saved_indices``: each goes by the student's name
    (from ``names``), else "mask" or "index".
    """
    return [(label, value) for label, value, _ in _labelled(node, values, sources, names)]


def _labelled(node, values, sources, names: Names | None) -> list:
    """``[(label, value as saved, value the backward uses)]``: see saved_with_labels.

    The two values differ for an input the op computed with in another dtype (``x * y``
    with an int ``x``: a float32 copy of it): PyTorch's ``_saved_self`` is ``x`` itself,
    ``tensor(4)``, and the panel shows that, then where the chain rule uses the copy.
    """
    if type(node).__name__ in SAVED_TUPLES:
        return [(label, value, value) for label, value in
                _saved_tuple(SAVED_TUPLES[type(node).__name__], values, sources, names)]
    edges = list(node.next_functions)
    letters = input_symbols(node)
    none_slots = [i for i, (fn, _) in enumerate(edges) if fn is None]
    names = _saved_names(node, len(values))
    symbols = {**SAVED_SYMBOLS, **OP_SAVED_SYMBOLS.get(type(node).__name__, {})}
    formula = formula_of(node)
    labelled = []
    for position, (value, source) in enumerate(zip(values, sources)):
        if value is None:  # a slot the op left empty (x * 2 saves only the 2)
            continue
        name = names[position] if names else None
        letter = None
        output = source is not None and len(source) != 2  # one of the op's own outputs
        if name == "result" or (output and name is None):
            letter = "result"
        elif output:  # the indices max(dim), sort, topk return: PyTorch's name alone
            letter = None
        elif name in symbols:  # not an input (a where's condition, nll_loss's target...)
            letter = _symbol_in(symbols[name], formula)
        elif source is not None:                          # an input tensor
            tensor = source[0]
            fn = tensor._grad_fn
            if fn is None and tensor._accumulator is not None:
                fn = tensor._accumulator()
            matches = [
                i for i, (nxt, nr) in enumerate(edges)
                if nxt is not None and nxt is fn and nr == tensor._output_nr
            ]
            if matches:  # y * y saves y twice, as self (a) and other (b)
                slot = _input_slot(name, letters)
                letter = letters[slot if slot in matches else
                                 position if position in matches else matches[0]]
            elif not tensor._requires_grad and len(none_slots) == 1:
                letter = letters[none_slots[0]]
        elif len(none_slots) == 1 and np.ndim(value) == 0:
            # A number (ops keep ``y * 3``'s 3 as a 0-d array of y's dtype), not a mask.
            letter = letters[none_slots[0]]
        labelled.append((_saved_label(letter, name), as_saved(value, source), value))
    return labelled



#: The ops that save a tuple of tensors, and PyTorch's name for it (``x[i, j]`` saves
#: ``grad_fn._saved_indices == (i, j)``; for ``x[:, i]`` PyTorch puts None for the slice).
SAVED_TUPLES = {"IndexBackward0": "indices"}


def _saved_tuple(name: str, values, sources, names: Names | None) -> list:
    """``[("i (_saved_indices)", value), ...]``: each saved tensor by the student's name
    for it, else "mask" (booleans) or "index"."""
    labelled = []
    for value, source in zip(values, sources):
        who = names.of_tensor(source[0]) if names is not None and source else ""
        who = who or ("mask" if np.asarray(value).dtype == np.bool_ else "index")
        labelled.append((f"{who} (_saved_{name})", value))
    return labelled


#: What an op saves that is not one of its inputs, and the letter its formula writes it
#: as: ``∂where(c, a, b)/∂a = 1 where c``. (Without one, the panel gives PyTorch's name.)
SAVED_SYMBOLS = {"condition": "c", "mask": "mask"}


#: The same for one op: nll_loss's formula ``−w[t]·a[t] ... (÷Σw for the mean)`` writes
#: the target t, the class weights w and their sum Σw; binary cross entropy's, the target
#: t and the weights w and pw.
_NLL_SYMBOLS = {"target": "t", "weight": "w", "total_weight": "Σw"}
_BCE_SYMBOLS = {"target": "t", "weight": "w", "pos_weight": "pw"}
OP_SAVED_SYMBOLS = {"NllLossBackward0": _NLL_SYMBOLS, "NllLoss2DBackward0": _NLL_SYMBOLS,
                    "BinaryCrossEntropyBackward0": _BCE_SYMBOLS,
                    "BinaryCrossEntropyWithLogitsBackward0": _BCE_SYMBOLS}


def _nll_names(node, count: int) -> tuple:
    """nll_loss saves PyTorch's four under saved_tensors_hooks (the input, the target, the
    weight, the total weight), else the input, the target and the weight if given."""
    return ("self", "target", "weight", "total_weight")[:count if count < 4 else 4]


def _bce_names(node, count: int) -> tuple:
    """Binary cross entropy saves the input, the target, and the weights it was given."""
    given = [name for name in ("weight", "pos_weight") if getattr(node, name, None) is not None]
    return ("self", "target", *given)


#: Ops that do not list ``saved_names`` (what they save depends on the call), and how to
#: name what they saved as PyTorch's ``grad_fn._saved_<name>``.
SAVED_LAYOUTS = {"NllLossBackward0": _nll_names, "NllLoss2DBackward0": _nll_names,
                 "BinaryCrossEntropyBackward0": _bce_names,
                 "BinaryCrossEntropyWithLogitsBackward0": _bce_names}


def _saved_names(node, count: int) -> tuple:
    """PyTorch's name (``grad_fn._saved_<name>``) of each of the ``count`` values ``node``
    saved, or ``()`` when they are not known."""
    layout = SAVED_LAYOUTS.get(type(node).__name__)
    names = layout(node, count) if layout else getattr(node, "saved_names", ())
    return names if len(names) == count else ()  # (an op saving more than it names)


#: PyTorch's names of the two inputs of a two-input op (``a`` and ``b``, ``A`` and ``B``).
INPUT_NAMES = {"self": 0, "other": 1, "mat2": 1, "vec": 1, "tensor": 1, "target": 1,
               "exponent": 1}


def _input_slot(name: str | None, letters: list) -> int | None:
    """Which input a saved name stands for: by the formula's own letters (``mat1``) or,
    for a two-input op, PyTorch's names; None when the name does not say."""
    if name in letters:
        return letters.index(name)
    return INPUT_NAMES.get(name) if len(letters) == 2 else None


def _symbol_in(symbol: str, formula: str) -> str | None:
    """``symbol`` if ``formula`` uses it as a word of its own, else None."""
    return symbol if re.search(rf"(?<![A-Za-z]){symbol}(?![A-Za-z])", formula) else None


def _saved_label(letter: str | None, name: str | None) -> str:
    """``"a (_saved_self)"``: the formula's letter and PyTorch's attribute, or either
    (``"_saved_result"``, not ``"result (_saved_result)"``)."""
    attribute = f"_saved_{name}" if name else None
    if letter is not None and letter == name:  # "result (_saved_result)" says it twice
        return attribute
    if letter and attribute:
        return f"{letter} ({attribute})"
    return letter or attribute or "saved"


# The letter a formula uses for a value the op noted in forward under a longer name:
# PowBackward0 notes ``exponent`` and writes ``∂(aⁿ)/∂a = n·aⁿ⁻¹``.
FORMULA_SYMBOLS = {"exponent": ("n", "ⁿ"), "total_weight": ("Σw", "Σw")}


def _with_symbol(key: str, formula: str) -> str:
    """``'exponent n'`` when the formula writes the noted value ``exponent`` as ``n``."""
    symbol = FORMULA_SYMBOLS.get(key)
    if symbol and re.search(rf"(?<![A-Za-z]){symbol[0]}(?![A-Za-z])|{symbol[1]}", formula):
        return f"{key} {symbol[0]}"
    return key


def _as_attribute(node, key: str) -> str:
    """``" (_saved_self_sym_sizes)"``: the attribute PyTorch shows the value noted as
    ``ctx.<key>`` under (the op's ``saved_attributes``), or ``""`` when it has none."""
    if type(node).__name__ in CLAMPS_BY_NUMBERS:  # its notes are PyTorch's min and max
        return f" (_saved_{key})"
    renamed = NOTES_AS.get(type(node).__name__, {})
    if renamed.get(key):
        return f" (_saved_{renamed[key]})"
    names = [name for name, where in getattr(node, "saved_attributes", {}).items()
             if where == key]
    return f" ({', '.join(f'_saved_{name}' for name in names)})" if names else ""


#: What an op noted in forward, as PyTorch shows it: ``{op: {ctx attribute: PyTorch's
#: name}}``.
_NLL_NOTES = {"reduction": "reduction", "ignore_index": "ignore_index",
              "total_weight": "total_weight"}
_SIZES = {"shape": "self_sym_sizes"}
_SIZES_AND_DIM = {"shape": "self_sym_sizes", "dim": "dim"}
NOTES_AS = {"IndexBackward0": _SIZES, "ViewBackward0": _SIZES,
            "SelectBackward0": _SIZES_AND_DIM, "SliceBackward0": _SIZES_AND_DIM,
            "IndexSelectBackward0": _SIZES_AND_DIM, "SortBackward0": _SIZES_AND_DIM,
            "TopkBackward0": _SIZES_AND_DIM, "SplitBackward0": _SIZES_AND_DIM,
            "UnsqueezeBackward0": {"dim": "dim"},
            "NllLossBackward0": _NLL_NOTES, "NllLoss2DBackward0": _NLL_NOTES}
#: What teachgrad's ops note for their own bookkeeping, no value of the maths: a view's
#: version counter at its making (the in-place checks), max pooling's working shapes...
#: A learner read "view_version = 0" beside x[1]'s step (lesson 18) and could not place it.
#: (nn.Linear's addmm notes its weight's memory layout: "right_column_major = True" beside
#: ∂/∂mat2 = α·mat1ᵀ grad was read as something of the maths)
BOOKKEEPING = {"view_version", "sums_back", "has_bias", "plane_shape", "outs", "constant",
               "bias_sizes", "right_is_transposed", "right_column_major"}
#: Ops whose ctx also holds working values of their own backward (nll_loss's ``counted``
#: mask, ``class_dim``): only the notes PyTorch saves too are shown, in its order.
NOTES_SHOWN = {"NllLossBackward0": tuple(_NLL_NOTES), "NllLoss2DBackward0": tuple(_NLL_NOTES)}
_PLAIN = (bool, int, float, str, type(None))


def forward_notes(node, limit: int = 4) -> list:
    """Small plain values an op noted on ``ctx`` in forward (``ctx.exponent = 2``...).

    They complete the local derivative: ``∂(aⁿ)/∂a = n·aⁿ⁻¹`` needs ``n``.
    """
    if type(node).__name__ in CLAMPS_BY_NUMBERS:  # (ctx.bounds: PyTorch's min and max)
        return [(name, repr(read(node))) for name, read in node.saved_attributes.items()]
    shown = NOTES_SHOWN.get(type(node).__name__)
    if shown is not None:
        noted = getattr(node, "__dict__", {})
        # (a 0-d NumPy number, total_weight, as the number it is: 3.0, not np.float32(3.0))
        return [(key, repr(np.asarray(noted[key]).item() if isinstance(noted[key], np.generic)
                           else noted[key])) for key in shown if key in noted][:limit]
    notes = []
    for key, value in getattr(node, "__dict__", {}).items():
        if key.startswith("_") or key in BOOKKEEPING or not isinstance(value, (*_PLAIN, tuple)):
            continue
        if isinstance(value, tuple) and not all(isinstance(v, _PLAIN) for v in value):
            continue  # NumPy's view of an index (x[i]'s key: arrays), not a plain value
        text = repr(value)
        if len(text) <= 40:
            notes.append((key, text))
    return notes[:limit]


def snapshot_saved(nodes) -> dict:
    """What each node saved, before backward frees it: ``{node: (values, sources)}``."""
    snapshot = {}
    for node in nodes:
        saved = getattr(node, "_saved", None)
        if saved is None or saved is autograd_graph._FREED:
            continue
        if type(saved) is PackedSaved:  # unpacking would call the learner's hook: not here
            snapshot[node] = Packed(saved.values, saved.sources, len(saved.packed))
            continue
        try:
            values, sources = saved
        except (TypeError, ValueError):
            continue
        snapshot[node] = (tuple(values), tuple(sources))
    return snapshot


def _all_finite(value) -> bool:
    """No nan and no inf in ``value`` (integers and booleans never have them)."""
    array = as_array(value)
    return array.dtype.kind not in "fc" or bool(np.isfinite(array).all())


def _source_of(saved, own: np.ndarray):
    """The source (tensor, version) in ``saved`` whose tensor holds the array ``own``."""
    if saved is None:
        return None
    return next((source for source in saved[1] if source is not None and len(source) == 2
                 and getattr(source[0], "_data", None) is own), None)


def _dtype_name(array: np.ndarray) -> str:
    """``int64``, ``float32``: a NumPy dtype by the name PyTorch gives it (``bool``)."""
    return str(from_numpy_dtype(array.dtype)).rsplit(".", 1)[-1]


def _shape(tensor) -> str:
    return "[" + ", ".join(str(s) for s in tensor._data.shape) + "]"


def _sum(values):
    total = None
    for v in values:
        total = as_array(v) if total is None else total + as_array(v)
    return total


def _same(a, b) -> bool:
    a, b = as_array(a), as_array(b)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# ----------------------------------------------------------------------------------------
# Writing HTML and text side by side
# ----------------------------------------------------------------------------------------
def _inline(text: str) -> str:
    """A multi-line printed tensor on one line (for the plain-text log)."""
    return " ".join(line.strip() for line in text.splitlines())


class _Out:
    """Collects a panel's HTML and its plain-text twin (the step log) side by side.

    ``printed(value)`` gives a value's printed text (the writer caches it).
    """

    def __init__(self, printed=long_value) -> None:
        self.html: list[str] = []
        self.text: list[str] = []
        self.spoken: list[str] = []  # the lines of text a screen reader announces
        self.printed = printed

    # --- pieces --------------------------------------------------------------------------
    def _t(self, value) -> str:
        """A value on one line, for the text log."""
        return _inline(self.printed(value))

    def _fig(self, value, caption: str) -> str:
        """A value with a caption under it (``upstream``, ``local``...)."""
        shown = f'<pre class="tg-v">{escape_text(self.printed(value))}</pre>'
        return f"<figure>{shown}<figcaption>{html.escape(caption)}</figcaption></figure>"

    @staticmethod
    def _op(symbol: str) -> str:
        return f'<span class="tg-op">{symbol}</span>'

    def _say(self, line: str) -> None:
        """Announce ``line`` too (one line, and short: a long tensor is cut)."""
        line = " ".join(line.split())
        if len(line) > SPOKEN_LINE:
            line = line[:SPOKEN_LINE - 1] + "…"
        self.spoken.append(line)

    def _row(self, what: str, inner: str, css: str = "tg-row") -> None:
        self.html.append(f'<div class="{css}"><span>{html.escape(what)}:</span>{inner}</div>')

    # --- what a panel is made of -----------------------------------------------------------
    def heading(self, title: str) -> None:
        # Out of the notebook's table of contents (JupyterLab skips jp-toc-ignore, the
        # classic toc2 extension tocSkip): every frame of a static stepper is a heading,
        # and JupyterLab drew each as an entry, 2,001 of them for a 2,000-node graph
        # (8 of its 11 s to show that output; a 50-step lesson stepper, 51 entries).
        self.html.append(f'<h4 class="{TITLE_CLASSES}">{html.escape(title)}</h4>')
        self.text.append(title)
        self._say(title)

    def para(self, sentence: str) -> None:
        self.html.append(f"<p>{html.escape(sentence)}</p>")
        self.text.append("  " + sentence)

    def sub(self, sentence: str) -> None:
        """A side remark, in small print; `quoted` words (names) are set as code."""
        pieces = sentence.split("`")
        marked = "".join(f"<code>{html.escape(piece)}</code>" if k % 2 else html.escape(piece)
                         for k, piece in enumerate(pieces))
        self.html.append(f'<p class="tg-sub">{marked}</p>')
        self.text.append("  " + "".join(pieces))

    def formula(self, formula: str) -> None:
        # One unbreakable piece per input's part: a narrow panel wraps between the parts,
        # never inside one ("∂(a·b)/∂b" on one line and "= a" on the next).
        parts = [part for part in re.split(r"\s{2,}", formula.strip()) if part] or [formula]
        pieces = " ".join(f'<span class="tg-part">{html.escape(part)}</span>' for part in parts)
        self.html.append(f'<p class="tg-formula">local derivative: <code>{pieces}</code></p>')
        self.text.append(f"  local derivative: {formula}")

    def value(self, what: str, value, say: bool = False) -> None:
        self._row(what, f'<pre class="tg-v">{escape_text(self.printed(value))}</pre>')
        self.text.append(f"  {what}: {self._t(value)}")
        if say:
            self._say(self.text[-1])

    def sum(self, parts: list, total) -> None:
        cells = self._op("+").join(self._fig(value, who) for who, value in parts)
        cells += self._op("=") + self._fig(total, "total")
        self.html.append(f'<div class="tg-eq">{cells}</div>')
        summed = " + ".join(self._t(v) for _, v in parts)
        self.text.append(f"  {summed} = {self._t(total)}")
        self._say(f"{len(parts)} contributions arrived: {self.text[-1]}")

    def contributions(self, rows: list, multi_output: bool) -> None:
        rule = "along each input: upstream × local = contribution"
        if any(number is not None and np.size(number) > 1 for *_, number in rows):
            rule += ", element by element"  # (local_values: one local number per element)
        self.html.append(f'<p class="tg-sub">{rule}</p>')
        self.text.append("  " + rule)
        for letter, target, upstream, local, value, note, number in rows:
            head = f"{letter} → {target}"
            if value is None and target.startswith("None"):  # (also "None (carried)")
                self._row(head, f"<span>{html.escape(note)}</span>", "tg-row tg-faded")
                self.text.append(f"    {head}: {note}")
                continue
            if upstream is not None:
                up = self._fig(upstream, "upstream")
            else:
                up = ('<figure><span class="tg-faded">(the gradients of all outputs)</span>'
                      "<figcaption>upstream</figcaption></figure>")
            # The formula, and under it its value when it is one number (local_number):
            # "3. × -0.6282 = -1.8845" can be checked at a glance, "3. × cos a" cannot;
            # or one number per element of a small elementwise step (local_values).
            # (printed afresh: the writer's cache is keyed by id(), and this array is a
            # temporary whose id a later one reuses)
            shown = (f'<pre class="tg-v">{escape_text(long_value(number))}</pre>'
                     if number is not None else "")
            caption = "local, per element" if np.size(number) > 1 else "local"
            local_html = (f'<figure><code class="tg-local">{html.escape(local)}</code>'
                          f"{shown}<figcaption>{caption}</figcaption></figure>")
            cells = (up + self._op("×") + local_html + self._op("=")
                     + self._fig(value, f"to {target}"))
            extra = f'<p class="tg-note">{html.escape(note)}</p>' if note else ""
            self.html.append(
                f'<div class="tg-edge"><span class="tg-letter">{html.escape(letter)}</span>'
                f'<div class="tg-eq">{cells}</div>{extra}</div>'
            )
            up_text = self._t(upstream) if upstream is not None else "(all outputs)"
            local_text = local if number is None else f"{local} = {_inline(long_value(number))}"
            self.text.append(
                f"    {head}: {up_text} × ({local_text}) = {self._t(value)}"
                + (f"  [{note}]" if note else "")
            )
            self._say(self.text[-1])

    def born(self, head: str, birth) -> None:
        """The products along one edge where a nan or inf is born: ``[1]: 0. × inf = nan``."""
        verb = "are" if " and " in birth.kinds else "is"
        intro = (f"{birth.kinds} {verb} born here, along {head}, where the gradient "
                 "arriving had none")
        lines, rows = [], []
        for index, *numbers in birth.products:
            # (printed afresh, not by self.printed: its cache is keyed by id(), and these
            # one-element arrays are temporaries whose ids the next ones reuse)
            up, local, value = (long_value(number) for number in numbers)
            where = "[" + ", ".join(str(int(i)) for i in index) + "]" if index else ""
            cells = (self._number_fig(up, "upstream") + self._op("×")
                     + self._number_fig(local, "local") + self._op("=")
                     + self._number_fig(value, "contribution"))
            # (laid out as the rows above: the element where the input's letter was)
            rows.append(f'<div class="tg-edge"><span class="tg-letter">{html.escape(where)}'
                        f'</span><div class="tg-eq">{cells}</div></div>')
            product = f"{up} × {local} = {value}"
            lines.append(f"{where}: {product}" if where else product)
        more = birth.total - len(birth.products)
        if more:
            lines.append(f"… and {count(more, 'more element')}")
            rows.append(f'<p class="tg-sub">{html.escape(lines[-1])}</p>')
        self.html.append(f'<div class="tg-born"><p class="tg-sub">{html.escape(intro)}:</p>'
                         f'{"".join(rows)}</div>')
        self.text.append(f"    {intro}:")
        self.text.extend(f"      {line}" for line in lines)
        self._say(f"{birth.kinds} born along {head}: " + "; ".join(lines))

    @staticmethod
    def _number_fig(text: str, caption: str) -> str:
        """One printed number with a caption under it."""
        return (f'<figure><pre class="tg-v">{escape_text(text)}</pre>'
                f"<figcaption>{html.escape(caption)}</figcaption></figure>")

    def saved(self, pairs: list, unpacked: bool = False) -> None:
        # Under saved_tensors_hooks the values shown are what unpack gave this backward
        # (see .unpacked), which may differ from the forward's (a float16 copy).
        what = ("saved in forward, as the unpack hook gave them back" if unpacked
                else "saved in forward")
        items = "".join(self._fig(value, label) for label, value in pairs)
        self.html.append(f'<div class="tg-saved"><span>{what}:</span>{items}</div>')
        self.text.append(
            f"  {what}: " + ", ".join(f"{label} = {self._t(v)}" for label, v in pairs)
        )

    def change(self, what: str, before, after, added=None) -> None:
        """``what: None → after`` the first time, ``old + new = after`` later."""
        if before is None:
            cells = self._fig(None, "before") + self._op("→") + self._fig(after, "after")
            text = f"None → {self._t(after)}"
        else:
            cells, text = self._fig(before, "old"), self._t(before)
            if added is not None:
                cells += self._op("+") + self._fig(added, "new")
                text += f" + {self._t(added)}"
            cells += self._op("=") + self._fig(after, "after")
            text += f" = {self._t(after)}"
        self._row(what, f'<div class="tg-eq">{cells}</div>')
        self.text.append(f"  {what}: {text}")
        self._say(self.text[-1])

    def queue(self, nodes: list, label) -> None:
        if nodes:
            # (only the names shown are worked out: a stack of 1,500 tensors had 1,500
            # ready at once, named at each of 3,000 steps, 35 s of its 55)
            shown = [label(n) for n in nodes[:8]]
            if len(nodes) > 8:
                shown.append(f"… {len(nodes) - 8} more")
            items = "".join(f"<li>{html.escape(n)}</li>" for n in shown)
            self.html.append(
                '<div class="tg-queue"><span>ready queue (runs next, in order):</span>'
                f"<ol>{items}</ol></div>"
            )
            self.text.append("  ready next: " + ", ".join(shown))
        else:
            self.html.append('<div class="tg-queue"><span>ready queue: empty — backward() is '
                             "finished.</span></div>")
            self.text.append("  ready next: nothing, backward() is finished")

    def panel(self, frame: int, title: str) -> Panel:
        return Panel(frame, title, "".join(self.html), "\n".join(self.text),
                     "; ".join(self.spoken))


__all__ = ["Panel", "PanelWriter", "snapshot_saved", "saved_with_labels"]
