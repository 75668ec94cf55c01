"""Run PyTorch's own docstring examples with PyTorch and with teachgrad, and compare.

PyTorch documents most of its functions with ``>>>`` examples. For every public name that
exists in both libraries (``torch``, ``Tensor`` methods, ``nn``, ``nn.functional``,
``linalg``, ``special``, ``autograd``, ``distributions`` ...) this script extracts the
examples of PyTorch's docstring with :class:`doctest.DocTestParser`, runs them twice in
fresh namespaces -- once with ``torch`` the real PyTorch, once with ``torch`` bound to
teachgrad (``import torch`` inside an example resolves to teachgrad too) -- and compares
what each statement displays, the way doctest would show it.

Both libraries start every example from the same seed, and teachgrad's random numbers are
PyTorch's own stream, so examples that draw random numbers are compared like the others.
Each example lands in one category:

* ``same``: every statement displayed the same text (PyTorch's formatting is the spec).
* ``random same``: the same, for an example with statements PyTorch itself prints
  differently under two seeds (its random numbers).
* ``rounding``: texts differ only in numbers within float rounding (rtol 1e-3, atol 1e-5
  of the largest magnitude): another summation order or LAPACK routine.
* ``differ``: some statement displayed different text.
* ``random differ``: a random statement displayed different text: teachgrad's random
  numbers are not PyTorch's there.
* ``teachgrad raised``: teachgrad raised where PyTorch did not.
* ``torch-only``: every statement uses a feature teachgrad deliberately lacks (CUDA,
  sparse or complex tensors, quantization, named tensors, TorchScript ...), or a variable
  made by such a statement; not run. In other examples those statements alone are skipped.
* ``torch raised``: the example does not run with PyTorch either (undefined names, files).

Run ``python tests/torch_doc_examples.py [--only NAME] [--verbose]`` (NAME may be a full
name such as ``torch.Tensor.index_add_`` or a bare one such as ``index_add_``). The
summary ends with one line per example that is not the same in both libraries.
"""

from __future__ import annotations

import argparse
import contextlib
import doctest
import io
import math
import re
import signal
import sys
import types
import warnings
from dataclasses import dataclass, field

# Tokens that mark a feature teachgrad does not have (it is a CPU, real, dense library).
TORCH_ONLY = {
    "cuda": r"cuda|\bmps\b|device\(['\"](?:cuda|mps|meta)|pin_memory|\.to\(['\"]meta",
    "sparse": r"sparse|to_sparse|\.coalesce\(|_nnz|crow_indices|indices\(\)",
    "complex": r"complex|cfloat|cdouble|chalf|\d(?:\.\d*)?j\b|\bj\)|1j|\.real\b|\.imag\b"
    r"|view_as_real|linalg\.eig\(|linalg\.eigvals\(",
    "quantized": r"quantiz|qint|quint|\bq_scale|dequantize",
    "named tensors": r"names=|refine_names|align_to|rename\(|\.names\b",
    "TorchScript / compile / fx": r"torch\.jit|script\(|torch\.compile|torch\.fx|torch\.export"
    r"|symbolic_trace|torch\._dynamo|torch\.onnx",
    "distributed / multiprocessing": r"torch\.distributed|torch\.multiprocessing|DataParallel"
    r"|DistributedSampler",
    "storage / memory format": r"untyped_storage|\.storage\(|channels_last|memory_format|"
    r"from_file|UntypedStorage|share_memory",
    "nested / masked tensors": r"nested|MaskedTensor|torch\.masked\.|masked_tensor",
    "float8 / low precision ints": r"float8|uint16|uint32|uint64|int4|bits8|float4",
}

# Statements that draw random numbers make an example "random" even if PyTorch happened to
# print the same text under two seeds (e.g. it prints only a shape).
RANDOM_CALL = re.compile(
    r"rand|normal_|uniform_|bernoulli|multinomial|poisson|exponential_|geometric_|cauchy_|"
    r"log_normal_|random_|[Dd]ropout|\.sample\(|rsample|manual_seed|seed\(|shuffle|"
    r"RandomSampler|random_split|init\.|nn\.[A-Z]\w*\("
)

STATEMENT_SECONDS = 10


@dataclass
class Example:
    """The examples of one docstring, under the first name that carries it."""

    name: str
    source_names: list[str]
    statements: list[doctest.Example]
    namespace: str = "torch"

    @property
    def source(self) -> str:
        return "".join(s.source for s in self.statements)


@dataclass
class Outcome:
    """What one run displayed: per statement (kind, text, signature)."""

    steps: list[tuple[str, str, str]] = field(default_factory=list)

    def first_error(self) -> int | None:
        for i, (kind, _, _) in enumerate(self.steps):
            if kind == "exc":
                return i
        return None


# --------------------------------------------------------------------------- collecting


def _namespaces(torch, teachgrad) -> list[tuple[str, object, object]]:
    """(label, torch object, teachgrad object) for every namespace both libraries have."""
    pairs = [("torch", torch, teachgrad), ("torch.Tensor", torch.Tensor, teachgrad.Tensor)]
    for sub in ("nn", "nn.functional", "nn.init", "nn.utils", "nn.utils.rnn",
                "nn.utils.parametrizations", "nn.utils.parametrize", "nn.attention",
                "linalg", "special", "fft", "autograd", "autograd.functional",
                "autograd.forward_ad", "autograd.graph", "distributions",
                "distributions.constraints", "distributions.transforms", "func", "optim",
                "optim.lr_scheduler", "utils.data", "testing", "random", "backends",
                "serialization", "nn.parameter", "return_types"):
        theirs, ours = torch, teachgrad
        for part in sub.split("."):
            theirs = getattr(theirs, part, None)
            ours = getattr(ours, part, None)
        if theirs is not None and ours is not None:
            pairs.append((f"torch.{sub}", theirs, ours))
    return pairs


def _public_names(obj) -> list[str]:
    names = getattr(obj, "__all__", None)
    if names is None or isinstance(obj, type):
        names = dir(obj)
    return sorted(n for n in names if not n.startswith("_") or n in ("__getitem__",))


def _members(torch, teachgrad) -> list[tuple[str, str, str | None]]:
    """(namespace, qualified name, PyTorch docstring) of every public name both libraries have."""
    out = []
    for label, theirs, ours in _namespaces(torch, teachgrad):
        for name in _public_names(theirs):
            if not hasattr(ours, name):
                continue
            try:
                member = getattr(theirs, name)
            except Exception:
                continue
            if isinstance(member, types.ModuleType):
                continue
            doc = getattr(member, "__doc__", None)
            out.append((label, f"{label}.{name}", doc))
            if isinstance(member, type) and label != "torch.Tensor":
                # A class's methods (Module.forward, Distribution.log_prob ...) have examples too.
                ours_cls = getattr(ours, name)
                for meth in sorted(vars(member)):
                    if meth.startswith("_") or not hasattr(ours_cls, meth):
                        continue
                    m = vars(member)[meth]
                    mdoc = getattr(m, "__doc__", None)
                    if mdoc and ">>>" in mdoc:
                        out.append((label, f"{label}.{name}.{meth}", mdoc))
    return out


def collect_examples(torch, teachgrad) -> list[Example]:
    """One Example per distinct docstring that has ``>>>`` examples."""
    parser = doctest.DocTestParser()
    by_doc: dict[str, Example] = {}
    for label, qualname, doc in _members(torch, teachgrad):
        if not isinstance(doc, str) or ">>>" not in doc:
            continue
        if doc in by_doc:
            by_doc[doc].source_names.append(qualname)
            continue
        try:
            statements = parser.get_examples(doc)
        except ValueError:  # malformed indentation in the docstring
            continue
        if statements:
            by_doc[doc] = Example(qualname, [qualname], _join_continuations(statements), label)
    return list(by_doc.values())


def _join_continuations(statements: list[doctest.Example]) -> list[doctest.Example]:
    """Merge statements PyTorch wrote with ``>>>`` on every line (xdoctest style).

    ``>>> for p in model.parameters():`` followed by ``>>>     print(p)`` is one statement
    for Python: a line that is indented, or that follows one that does not compile on its
    own (an open bracket, a decorator), continues the previous statement.
    """
    joined: list[doctest.Example] = []
    for statement in statements:
        if joined and (statement.source[:1].isspace() or not _compiles(joined[-1].source)):
            last = joined[-1]
            joined[-1] = doctest.Example(last.source + statement.source, statement.want,
                                         statement.exc_msg, lineno=last.lineno)
        else:
            joined.append(statement)
    return joined


def _compiles(source: str) -> bool:
    try:
        compile(source, "<example>", "single")
    except SyntaxError:
        return False
    return True


# --------------------------------------------------------------------------- running


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout(f"statement took more than {STATEMENT_SECONDS} s")


def _signature(value, tensor_types) -> str:
    """Shape and dtype of the tensors in a displayed value (for random examples)."""
    if isinstance(value, tensor_types):
        return f"T{tuple(value.shape)}:{str(value.dtype).split('.')[-1]}"
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_signature(v, tensor_types) for v in value) + ")"
    return type(value).__name__


_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _normalise(text: str) -> str:
    """Hide what may differ by design: addresses, and teachgrad's own name in reprs.

    teachgrad prints its own name (``dtype=teachgrad.float64``), four characters longer than
    PyTorch's, so a line can wrap earlier: where the name occurs, line breaks are not
    compared.
    """
    text = _ADDRESS.sub("0x…", text).rstrip()
    if "teachgrad" in text:
        text = re.sub(r"\s*\n\s*", " ", text.replace("teachgrad", "torch"))
    return text


@contextlib.contextmanager
def _as_torch(lib, name: str):
    """Make ``import torch`` (and ``import torch.x.y``) resolve to ``lib`` for the duration.

    For teachgrad, PyTorch's own modules are hidden from ``sys.modules`` and every loaded
    ``teachgrad.x.y`` module is entered as ``torch.x.y``, so an example that imports a
    submodule teachgrad does not have fails as it would for a learner.
    """
    if name == "torch":
        yield
        return
    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    for k in saved:
        del sys.modules[k]
    aliases = {"torch" + k[len(name):]: v for k, v in list(sys.modules.items())
               if k == name or k.startswith(name + ".")}
    sys.modules.update(aliases)
    try:
        yield
    finally:
        for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def _reset(lib, seed: int) -> None:
    """Undo what an example may have changed globally (print options, default dtype ...)."""
    lib.set_printoptions(profile="default")
    lib.set_default_dtype(lib.float32)
    lib.set_grad_enabled(True)
    lib.use_deterministic_algorithms(False)
    lib.autograd.set_detect_anomaly(False)
    lib.manual_seed(seed)
    import numpy as np
    np.random.seed(seed)
    import random
    random.seed(seed)


def _globals(lib, label: str) -> dict[str, object]:
    """The names an example may use without importing them.

    PyTorch runs its examples with the globals of the module that documents them (so the
    ``torch.distributions`` examples say ``Bernoulli(...)``); the standard modules they
    forget to import are added too.
    """
    import collections
    import functools
    import itertools
    import os
    import tempfile
    import typing

    import numpy as np

    namespace = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional, "math": math, "np": np,
                 "numpy": np, "io": io, "itertools": itertools, "functools": functools,
                 "os": os, "tempfile": tempfile, "namedtuple": collections.namedtuple,
                 "List": typing.List,  # noqa: UP006 - the examples annotate with it
                 "Optional": typing.Optional, "__name__": "__main__"}
    if label not in ("torch", "torch.Tensor"):
        module = lib
        for part in label.split(".")[1:]:
            module = getattr(module, part)
        namespace[label.rsplit(".", 1)[-1]] = module
        namespace.update({n: getattr(module, n) for n in dir(module) if not n.startswith("_")})
        namespace["torch"] = lib
    return namespace


class _Session:
    """One library's run of one example, a statement at a time."""

    def __init__(self, example: Example, lib, lib_name: str, seed: int) -> None:
        self.lib, self.lib_name, self.seed = lib, lib_name, seed
        self.namespace = _globals(lib, example.namespace)
        self.outcome = Outcome()
        _reset(lib, seed)

    def run(self, statement: doctest.Example, skip: str | None = None) -> None:
        """Run one statement; append what it displayed (or raised) to the outcome.
        A statement with a ``skip`` reason is not run."""
        if skip is not None:
            self.outcome.steps.append(("skip", skip, ""))
            return
        displayed: list[object] = []

        def hook(value):
            if value is not None:
                displayed.append(value)
                sys.stdout.write(repr(value) + "\n")

        buffer = io.StringIO()
        old_hook = sys.displayhook
        old_handler = signal.signal(signal.SIGALRM, _alarm)
        try:
            with _as_torch(self.lib, self.lib_name), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sys.displayhook = hook
                signal.alarm(STATEMENT_SECONDS)
                code = compile(statement.source, "<example>", "single")
                with contextlib.redirect_stdout(buffer):
                    exec(code, self.namespace)
            sig = ";".join(_signature(v, (self.lib.Tensor,)) for v in displayed)
            self.outcome.steps.append(("out", _normalise(buffer.getvalue()), sig))
        except BaseException as e:  # noqa: BLE001 - any failure is an outcome
            if isinstance(e, KeyboardInterrupt):
                raise
            self.outcome.steps.append(("exc", type(e).__name__, str(e).split("\n")[0]))
        finally:
            signal.alarm(0)
            sys.displayhook = old_hook
            signal.signal(signal.SIGALRM, old_handler)

    def close(self) -> None:
        _reset(self.lib, self.seed)


def run_example(example: Example, lib, lib_name: str, seed: int = 0,
                skip: dict[int, str] | None = None) -> Outcome:
    """Run the statements of ``example`` with ``torch`` bound to ``lib``."""
    session = _Session(example, lib, lib_name, seed)
    skip = skip or {}
    try:
        for i, statement in enumerate(example.statements):
            session.run(statement, skip.get(i))
    finally:
        session.close()
    return session.outcome


# --------------------------------------------------------------------------- pairing
# Both libraries start each example from the same seed. teachgrad's generator draws
# PyTorch's own numbers (the same Mersenne Twister / Philox streams, turned into floats
# the same way), so an example that draws random numbers prints the same text in both;
# where it does not, teachgrad's draws are not PyTorch's there ("random differ").


def run_paired(example: Example, torch, teachgrad,
               skip: dict[int, str] | None = None) -> tuple[Outcome, Outcome]:
    """Run ``example`` with both libraries, each from seed 0; returns both outcomes."""
    return (run_example(example, torch, "torch", skip=skip),
            run_example(example, teachgrad, "teachgrad", skip=skip))


# --------------------------------------------------------------------------- comparing


def _code_only(source: str) -> str:
    """``source`` without its comments (a comment may say "normally distributed")."""
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    for token in reversed(tokens):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col] + lines[row - 1][col + len(token.string):]
    return "".join(lines)


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a statement binds and the names it reads."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set()
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return bound, read


def torch_only_statements(example: Example) -> dict[int, str]:
    """The statements (by position) that use a feature teachgrad lacks, with the reason:
    those naming one, and those reading a variable such a statement made. They are run by
    neither library; the rest of the example is compared."""
    skipped: dict[int, str] = {}
    tainted: dict[str, str] = {}
    for i, statement in enumerate(example.statements):
        code = _code_only(statement.source)
        bound, read = _names(statement.source)
        reason = next((r for r, pattern in TORCH_ONLY.items() if re.search(pattern, code)), None)
        if reason is None:
            reason = next((tainted[n] for n in read if n in tainted), None)
        if reason is not None:
            skipped[i] = reason
            tainted.update(dict.fromkeys(bound, reason))
        else:  # rebinding a name frees it
            for n in bound:
                tainted.pop(n, None)
    return skipped


@dataclass
class Result:
    example: Example
    category: str
    detail: str = ""


def _expects_exception(statement: doctest.Example) -> bool:
    return statement.exc_msg is not None


def compare(example: Example, torch, teachgrad) -> Result:
    """Classify one example (see the module docstring for the categories).

    Every statement must display the same text. One whose text PyTorch itself prints
    differently under two seeds is random: a difference there means teachgrad drew other
    numbers than PyTorch ("random differ").
    """
    skip = torch_only_statements(example)
    if len(skip) == len(example.statements):
        return Result(example, "torch-only", sorted(set(skip.values()))[0])
    theirs, ours = run_paired(example, torch, teachgrad, skip)
    bad = theirs.first_error()
    if bad is not None and not _expects_exception(example.statements[bad]):
        kind, name, msg = theirs.steps[bad]
        return Result(example, "torch raised", f"{name}: {msg}")
    draws = bool(RANDOM_CALL.search(example.source))
    seeds = [run_example(example, torch, "torch", seed=s, skip=skip)
             for s in ((1, 2) if draws else (1,))]
    random = [any(run.steps[i][:2] != step[:2] for run in seeds)
              for i, step in enumerate(theirs.steps)]
    problems: list[tuple[str, str]] = []
    for i, (t, o) in enumerate(zip(theirs.steps, ours.steps)):
        src = example.statements[i].source.strip()
        if t[0] == "skip":
            continue
        if t[0] == "out" and o[0] == "exc":
            problems.append(("teachgrad raised", f"{src}\n    {o[1]}: {o[2]}"))
            break  # what follows depends on the failed statement
        if t[0] == "exc":
            if o[0] != "exc" or o[1] != t[1]:
                got = f"{o[1]}" if o[0] == "exc" else "no error"
                problems.append(("differ", f"{src}\n    torch raised {t[1]}, teachgrad: {got}"))
        elif t[1] == o[1] or re.sub(r"\s*\n\s*", " ", t[1]) == o[1]:
            continue
        elif _only_rounding(t[1], o[1]):
            problems.append(("rounding", f"{src}\n{_diff(t[1], o[1])}"))
        else:
            category = "random differ" if random[i] else "differ"
            problems.append((category, f"{src}\n{_diff(t[1], o[1])}"))
    partly = f"{len(skip)} torch-only statements skipped" if skip else ""
    if not problems:
        return Result(example, "random same" if any(random) else "same", partly)
    order = ("teachgrad raised", "differ", "random differ", "rounding")
    category = min((p[0] for p in problems), key=order.index)
    return Result(example, category, "\n  ".join(p[1] for p in problems[:4]))


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)")


def _only_rounding(theirs: str, ours: str, rtol: float = 1e-3, atol: float = 1e-5) -> bool:
    """Whether two texts differ only in numbers that are close (float rounding: another
    summation order, another LAPACK routine): same words, same count of numbers."""
    import numpy as np

    def split(text):
        text = re.sub(r"\s+", " ", text)
        return _NUMBER.sub("#", text), [float(n) for n in _NUMBER.findall(text)]

    (t_words, t_nums), (o_words, o_nums) = split(theirs), split(ours)
    if t_words != o_words or len(t_nums) != len(o_nums) or not t_nums:
        return False
    t_arr, o_arr = np.array(t_nums), np.array(o_nums)
    finite = np.abs(t_arr[np.isfinite(t_arr)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return bool(np.allclose(o_arr, t_arr, rtol=rtol, atol=atol * scale, equal_nan=True))


def _diff(theirs: str, ours: str) -> str:
    def indent(text):
        return "\n".join("      " + line for line in text.splitlines()[:12])

    return f"    torch:\n{indent(theirs)}\n    teachgrad:\n{indent(ours)}"


def sweep(only: list[str] | None = None) -> list[Result]:
    """Compare every example (or those whose names match ``only``); returns the results."""
    import torch

    import teachgrad

    torch.set_num_threads(1)
    examples = collect_examples(torch, teachgrad)
    if only:
        wanted = set(only)

        def matches(ex: Example) -> bool:
            return any(n in wanted or n.rsplit(".", 1)[-1] in wanted for n in ex.source_names)

        examples = [ex for ex in examples if matches(ex)]
    # Some examples write files (torch.save(x, 'tensor.pt')): run them in a scratch folder.
    import os
    import tempfile

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            return [compare(ex, torch, teachgrad) for ex in examples]
        finally:
            os.chdir(here)


CATEGORIES = ("same", "random same", "rounding", "differ", "random differ",
              "teachgrad raised", "torch-only", "torch raised")


def report(results: list[Result], verbose: bool = False) -> str:
    lines = [f"{len(results)} examples"]
    for cat in CATEGORIES:
        lines.append(f"  {cat:17s} {sum(r.category == cat for r in results)}")
    reasons: dict[str, int] = {}
    for r in results:
        if r.category == "torch-only":
            reasons[r.detail] = reasons.get(r.detail, 0) + 1
    if reasons:
        lines.append("torch-only examples (not run): " +
                     ", ".join(f"{k} ({v})" for k, v in sorted(reasons.items())))
    partly = [r for r in results if "torch-only statements skipped" in r.detail]
    if partly:
        lines.append(f"examples compared without their torch-only statements: {len(partly)}")
    shown = ("differ", "random differ", "teachgrad raised")
    if verbose:
        shown += ("rounding", "torch raised")
    for cat in shown:
        group = [r for r in results if r.category == cat]
        if group:
            lines.append(f"\n== {cat} ({len(group)})")
        for r in sorted(group, key=lambda r: r.example.name):
            lines.append(f"- {r.example.name}: {r.detail}")
    if verbose:
        lines.append("\n== same")
        lines.extend(f"- {r.example.name}" for r in results if r.category == "same")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="run only the examples of this name (repeatable)")
    parser.add_argument("--verbose", action="store_true",
                        help="also list PyTorch's own failures and the matching examples")
    args = parser.parse_args(argv)
    results = sweep(args.only)
    print(report(results, args.verbose))
    return 0


if __name__ == "__main__":
    sys.exit(main())
