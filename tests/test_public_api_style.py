"""The house style, checked: what a learner can reach is documented and says what it returns.

Every public function and class in the public namespaces has a docstring, so has every public
method of those classes, and every public function that teachgrad defines has a return
annotation. "Public" is what ``dir(namespace)``
lists without a leading underscore (sub-modules aside): what tab completion shows a student.

The annotations cost nothing at run time (every module has ``from __future__ import
annotations``); this test only reads them.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import types

import pytest

NAMESPACES = (
    "teachgrad",
    "teachgrad.nn",
    "teachgrad.nn.functional",
    "teachgrad.linalg",
    "teachgrad.special",
    "teachgrad.optim",
    "teachgrad.autograd",
    "teachgrad.distributions",
    "teachgrad.func",
    "teachgrad.utils.data",
    "teachgrad.notebook",
)

# Functions allowed to lack a return annotation, by the module that defines them (None: all of
# that module's functions). Keep this short, each entry with its reason, and delete an entry
# once it is fixed (test_allow_list_is_not_stale fails when an entry is no longer needed).
RETURN_ANNOTATION_ALLOWED: dict = {}


def public_objects(namespace: types.ModuleType) -> list[tuple[str, object]]:
    """``(name, object)`` for each public function or class of ``namespace``."""
    found = []
    for name in sorted(dir(namespace)):
        if name.startswith("_"):
            continue
        obj = getattr(namespace, name)
        if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj):
            found.append((name, obj))
    return found


def missing_docstrings(namespace: types.ModuleType) -> list[str]:
    """The public functions and classes of ``namespace`` without a docstring of their own.

    ``obj.__doc__``, not ``inspect.getdoc``: a class does not inherit its base's docstring
    here, since the base's text describes the base.
    """
    return [name for name, obj in public_objects(namespace) if not (obj.__doc__ or "").strip()]


# Methods that follow their class's docstring instead of having their own: an Op's
# forward/backward (one documented pattern over NumPy arrays, see teachgrad/ops/op.py) and a
# Module's forward/extra_repr (the class docstring says what the layer computes).
METHODS_DOCUMENTED_BY_THEIR_CLASS = {"forward", "backward", "extra_repr"}


def methods_missing_docstrings(namespace: types.ModuleType) -> list[str]:
    """``Class.method`` for each public method or property, defined by a public teachgrad
    class of ``namespace``, that has no docstring (inherited methods count where defined)."""
    missing = []
    for class_name, cls in public_objects(namespace):
        if not inspect.isclass(cls) or not (cls.__module__ or "").startswith("teachgrad"):
            continue
        for name, attribute in vars(cls).items():
            if name.startswith("_") or name in METHODS_DOCUMENTED_BY_THEIR_CLASS:
                continue
            if isinstance(attribute, property):
                doc = attribute.__doc__  # property(f, doc=...) or f's own docstring
                if doc is None and attribute.fget is None:
                    continue
            else:
                # The function inside a staticmethod/classmethod, a distribution's
                # lazy_property (``wrapped``) or a functools.cached_property (``func``).
                function = (getattr(attribute, "__func__", None)
                            or getattr(attribute, "wrapped", None)
                            or getattr(attribute, "func", None) or attribute)
                if not inspect.isfunction(function):
                    continue  # a plain class attribute
                doc = function.__doc__
            if not (doc or "").strip():
                missing.append(f"{class_name}.{name}")
    return missing


def _allowed_without_return(function: types.FunctionType) -> bool:
    allowed = RETURN_ANNOTATION_ALLOWED.get(function.__module__, set())
    return allowed is None or function.__name__ in allowed


def missing_return_annotations(namespace: types.ModuleType) -> list[str]:
    """The public functions teachgrad defines (seen from ``namespace``) that do not say what
    they return, less the allowed ones."""
    return [
        name for name, obj in public_objects(namespace)
        if inspect.isfunction(obj)
        and (obj.__module__ or "").startswith("teachgrad")
        and "return" not in obj.__annotations__
        and not _allowed_without_return(obj)
    ]


@pytest.mark.parametrize("name", NAMESPACES)
def test_public_functions_and_classes_have_docstrings(name):
    assert missing_docstrings(importlib.import_module(name)) == []


@pytest.mark.parametrize("name", NAMESPACES)
def test_public_methods_have_docstrings(name):
    assert methods_missing_docstrings(importlib.import_module(name)) == []


@pytest.mark.parametrize("name", NAMESPACES)
def test_public_functions_say_what_they_return(name):
    assert missing_return_annotations(importlib.import_module(name)) == []


def test_the_checks_catch_what_they_are_for():
    namespace = types.ModuleType("teachgrad.fake_namespace")

    def documented() -> int:
        """Documented and annotated."""
        return 1

    def undocumented() -> int:
        return 2

    def unannotated():
        """Documented, but says nothing about what it returns."""

    class Undocumented:
        pass

    class Documented:
        """A class."""

        kind = "not a method"

        def forward(self) -> None:  # documented by the class, by convention
            pass

        def undocumented_method(self) -> None:
            pass

        @property
        def undocumented_property(self) -> int:
            return 0

        @functools.cached_property
        def undocumented_cached(self) -> int:
            return 0

        @staticmethod
        def undocumented_static() -> None:
            pass

        def _private(self) -> None:
            pass

    for function in (documented, undocumented, unannotated):
        function.__module__ = "teachgrad.fake_namespace"
        setattr(namespace, function.__name__, function)
    namespace.Undocumented = Undocumented
    for cls in (Undocumented, Documented):
        cls.__module__ = "teachgrad.fake_namespace"
    namespace.Documented = Documented
    namespace._private = undocumented  # private names are not checked
    assert missing_docstrings(namespace) == ["Undocumented", "undocumented"]
    assert missing_return_annotations(namespace) == ["unannotated"]
    assert methods_missing_docstrings(namespace) == [
        "Documented.undocumented_method", "Documented.undocumented_property",
        "Documented.undocumented_cached", "Documented.undocumented_static"]


def test_allow_list_is_not_stale():
    # Each allowed module is imported by some namespace, and each entry still excuses a
    # function that lacks its annotation: delete an entry when it is fixed.
    for module_name, names in RETURN_ANNOTATION_ALLOWED.items():
        module = importlib.import_module(module_name)
        unannotated = {
            name for name, obj in vars(module).items()
            if inspect.isfunction(obj) and obj.__module__ == module_name
            and not name.startswith("_") and "return" not in obj.__annotations__
        }
        if names is None:
            assert unannotated, f"{module_name}: every function is annotated now"
        else:
            assert names <= unannotated, f"{module_name}: {names - unannotated} are annotated now"


def test_the_annotations_resolve():
    # A hint naming something that is not imported would only fail when someone asks for it
    # (typing.get_type_hints, a documentation tool): ask for it here.
    import typing

    for name in NAMESPACES:
        for _, obj in public_objects(importlib.import_module(name)):
            if inspect.isfunction(obj) and (obj.__module__ or "").startswith("teachgrad"):
                typing.get_type_hints(obj)
