"""Inference tensors: what ``inference_mode()`` makes, and the rules PyTorch gives them.

Inside ``inference_mode()`` nothing is recorded (as under ``no_grad``), and every tensor
an op or a factory makes there is an *inference tensor*: PyTorch keeps no autograd state
and no version counter for it, which is what makes the mode fast. In exchange, outside
the block such a tensor may never take part in autograd:

* saving it for backward is refused (an op that needs its values for a gradient):
  "Inference tensors cannot be saved for backward ...";
* changing it in place is refused, even under ``no_grad``: its version is not counted,
  so a change could not be noticed ("Inplace update to inference tensor outside
  InferenceMode is not allowed ...");
* ``requires_grad_()`` on it is refused; ``t._version`` raises, in and out of the block.

Ops that only read it are fine, and make ordinary tensors (``t.clone()`` is the usual way
out). One made to require grad (``ones(2, requires_grad=True)`` in the block) is recorded
only by ops that also have an ordinary tensor among their inputs; a Python number counts
as one, as PyTorch wraps it into an ordinary tensor (``a + 1``); see
:class:`InferenceRequiringGrad`. A view of an inference tensor is one too. A view of
an *ordinary* tensor made in the block is ordinary, but marked like a view made under
``no_grad`` (see ``graph.NO_GRAD_VIEW``), with PyTorch's own wording for inference mode.

An inference tensor is recognised by its version counter, an :class:`InferenceVersion`
instead of a plain list, so ordinary tensors pay nothing for any of this: the checks
test ``type(t._vc) is not list`` where a check is needed at all, and saving needs none
(see :class:`InferenceVersion`).
"""

from __future__ import annotations

from .grad_mode import state as _grad_state

CANNOT_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make "
    "a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` "
    "instead of `torch.inference_mode()`."
    "\nHint: this tensor was made inside `with torch.inference_mode():`, and the op needs "
    "its values to compute a gradient. Use t.clone() here, or make it under no_grad."
)
INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
    "\nHint: this tensor was made inside `with torch.inference_mode():`; change a copy "
    "(t = t.clone()) or make it under no_grad instead."
)
REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
    "\nHint: t.clone().requires_grad_() gives an ordinary tensor that can require grad."
)
NO_VERSION = "Inference tensors do not track version counter."


class InferenceVersion(list):
    """The version counter of an inference tensor, which PyTorch does not keep.

    It still holds a number, so in-place changes inside ``inference_mode`` run the same
    code as for any tensor. Outside the block, reading it is refused with PyTorch's
    error for saving: recording an op reads the version of each tensor it saves (to
    catch a later in-place change, ``graph.record_saved``), and that is the one read
    that can happen there. (The other readers, the in-place ops and ``_version``, check
    for inference tensors first and raise their own errors.) So ordinary tensors, whose
    counter is a plain list, pay nothing for the check.
    """

    __slots__ = ()

    def __getitem__(self, index):
        if not _grad_state.inference:
            raise RuntimeError(CANNOT_SAVE)
        return list.__getitem__(self, index)


class InferenceRequiringGrad(InferenceVersion):
    """The version counter of an inference tensor made to require grad (``ones(2,
    requires_grad=True)`` inside ``inference_mode``).

    PyTorch keeps no autograd state for inference tensors, so an op all of whose tensor
    inputs are inference tensors is not recorded, even though this one requires grad.
    An op with an ordinary tensor among its inputs is recorded as usual, and a Python
    number counts as one: PyTorch wraps it into an ordinary tensor (``a + 1``, ``a * 2``).
    The tensor's AccumulateGrad is kept here (``accumulator``, a weak reference), not in
    its ``_accumulator``, so that ``Op.apply`` asks :func:`only_inference_tensors` at
    each op, on the branch it takes when it makes a leaf's node.
    """

    __slots__ = ("accumulator",)

    def __init__(self, values=(0,)):
        super().__init__(values)
        self.accumulator = None


class DetachedInferenceVersion(InferenceVersion):
    """The version counter of ``t.detach()`` or ``t.data`` of an inference tensor, made
    outside ``inference_mode``: still an inference tensor, but PyTorch gives it a version
    counter of its own, so it may be changed in place (which changes ``t``, whose storage
    it shares) and ``_version`` can be read."""

    __slots__ = ()
    __getitem__ = list.__getitem__


def new_version() -> InferenceVersion:
    """The version counter a tensor made inside ``inference_mode`` gets."""
    return InferenceVersion((0,))


def detached_version(t) -> InferenceVersion:
    """The version counter of ``t.detach()`` / ``t.data`` for the inference tensor ``t``:
    a new inference one inside ``inference_mode``, one that counts outside it."""
    return new_version() if _grad_state.inference else DetachedInferenceVersion((0,))


def is_inference_tensor(t) -> bool:
    """Was ``t`` made inside ``inference_mode`` (or is it a view of such a tensor)?"""
    return isinstance(t._vc, InferenceVersion)


def check_inplace(t) -> None:
    """Refuse an in-place change of the inference tensor ``t`` outside inference mode
    (a detached one may be changed: it counts its versions)."""
    if not _grad_state.inference and not counts_versions(t):
        raise RuntimeError(INPLACE)


def check_requires_grad(t, value: bool) -> None:
    """Refuse ``requires_grad=True`` on an inference tensor outside inference mode."""
    if value and isinstance(t._vc, InferenceVersion) and not _grad_state.inference:
        raise RuntimeError(REQUIRES_GRAD)


def set_requires_grad(t, value: bool) -> None:
    """``t.requires_grad = value`` for an inference tensor (inside ``inference_mode``, or
    ``False`` outside): see :class:`InferenceRequiringGrad`. (A view's own flag stays
    False: PyTorch's view of an inference tensor does not require grad.)"""
    t._requires_grad = value and t._base is None
    if value:
        if type(t._vc) is not InferenceRequiringGrad:
            t._vc = InferenceRequiringGrad(t._vc)
    elif type(t._vc) is InferenceRequiringGrad:
        t._vc = InferenceVersion(t._vc)


def wraps_the_number(t) -> bool:
    """Is ``t`` an inference tensor that requires grad, in an op with a Python number that
    PyTorch's kernel would wrap into an ordinary tensor (``t.fmod(2)``, ``1 - t``)? Then,
    outside ``inference_mode`` with grad mode on, PyTorch's autograd skips the op (its only
    tensor is an inference tensor), and its kernel calls the op of two tensors with the
    number wrapped: that op is recorded (``FmodBackward1``, ``SubBackward0`` ...)."""
    return type(t._vc) is InferenceRequiringGrad and _grad_state.enabled


def wrapped(number):
    """``number`` as the 0-d tensor PyTorch wraps it into (int64, float64, bool ...)."""
    import numpy as np

    from .._tensor import _make

    return _make(np.asarray(number))


def only_inference_tensors(inputs) -> bool:
    """Are all the tensors among an op's ``inputs`` inference tensors, with no Python
    number (which PyTorch wraps into an ordinary tensor)? Then PyTorch records nothing."""
    for x in inputs:
        version = getattr(x, "_vc", None)
        if version is None:
            if isinstance(x, (bool, int, float, complex)):
                return False
        elif not isinstance(version, InferenceVersion):
            return False
    return True


def counts_versions(t) -> bool:
    """Does the inference tensor ``t`` keep a version counter? A detached one does (not
    a view of it, which shares its counter here but has none in PyTorch)."""
    return type(t._vc) is DetachedInferenceVersion and t._base is None


def requires_grad(t) -> bool:
    """The public ``requires_grad`` of a tensor whose ``_requires_grad`` is False (a view
    shares its base's counter, but does not require grad: PyTorch's says False)."""
    return type(t._vc) is InferenceRequiringGrad and t._base is None
