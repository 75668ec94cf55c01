"""Every ``>>>`` example in teachgrad's docstrings runs and prints what it says.

The docstrings are part of the "second textbook": an example that has drifted from the
code teaches something false. Each module with examples is one test; a failure shows
doctest's report (the example, what it promised, what it printed).
"""

from __future__ import annotations

import doctest
import functools
import importlib
import io
import pkgutil
import warnings

import pytest

import teachgrad


class _Finder(doctest.DocTestFinder):
    """doctest's finder, seeing ``cached_property`` docstrings too.

    Before Python 3.13 doctest skips them as "not from this module"
    (https://github.com/python/cpython/issues/107995); judge by the wrapped function.
    """

    def _from_module(self, module, obj) -> bool:
        if isinstance(obj, functools.cached_property):
            obj = obj.func
        return super()._from_module(module, obj)


def _modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(teachgrad.__path__, prefix="teachgrad."):
        if info.name.endswith("__main__"):
            continue  # (running it is the command line, not a library module)
        module = importlib.import_module(info.name)
        if any(test.examples for test in _Finder().find(module)):
            names.append(info.name)
    return names


MODULES = _modules_with_examples()


def test_there_are_examples_to_check():
    # Guards the collection above: if it found nothing, every test below would vanish.
    assert len(MODULES) > 50


def _global_state() -> dict:
    """The process-wide settings an example could change and forget to change back."""
    return {
        "grad mode": teachgrad.is_grad_enabled(),
        "default dtype": teachgrad.get_default_dtype(),
        "print options": teachgrad._printing.get_printoptions(),
        "anomaly mode": teachgrad.is_anomaly_enabled(),
        "deterministic": teachgrad.are_deterministic_algorithms_enabled(),
        "safe globals": teachgrad.serialization.get_safe_globals(),
    }


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_print_what_they_say(name):
    module = importlib.import_module(name)
    before = _global_state()
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        # Examples may show PyTorch's deprecation warnings on purpose (they go to stderr,
        # which doctest does not compare); they must not fail the run.
        warnings.simplefilter("ignore")
        for test in _Finder().find(module):
            runner.run(test, out=report.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed:\n" + (
        report.getvalue()
    )
    assert result.attempted > 0
    # The examples run in the test process: one that leaves a setting changed would
    # change every test after it.
    assert _global_state() == before
