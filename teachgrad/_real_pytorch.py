"""When the real PyTorch's tensors meet teachgrad's.

A learner with PyTorch installed can end up with both libraries in one program without
meaning to: ``import teachgrad as torch`` names teachgrad ``torch`` in their own code only,
so a line copied from a tutorial, ``import torch.nn as nn``, still loads the real PyTorch.
Its ``nn.Linear`` then gets a teachgrad tensor, and each library names the other's tensor
"Tensor": PyTorch says ``linear(): argument 'input' (position 1) must be Tensor, not
Tensor``, which explains nothing.

The two never mix (neither can record the other's operations), so mixing stays an error;
this module makes it one that says what happened, in both directions:

* teachgrad given a real PyTorch tensor names its type ``torch.Tensor`` (see
  ``_tensor.python_type_name``) and adds :func:`real_pytorch_hint`;
* the real PyTorch given a teachgrad tensor asks it how to handle the call (PyTorch's
  ``__torch_function__`` protocol, which any object may implement); teachgrad's
  ``Tensor.__torch_function__`` answers with :func:`refused_by_real_pytorch`.

>>> from teachgrad._real_pytorch import is_real_pytorch
>>> is_real_pytorch([1.0])
False
"""

from __future__ import annotations

from . import _package_name

MIXING_HINT = (
    "\nHint: teachgrad's tensors and the real PyTorch's do not mix. `import teachgrad as "
    "torch` names teachgrad `torch` in your own code only: `import torch.nn as nn` or `from "
    "torch import ...` still load the real PyTorch. Use teachgrad's names (`nn = torch.nn` "
    "after `import teachgrad as torch`), or call teachgrad.install_as_torch() before any "
    "`import torch`, so that every import means teachgrad."
)


def is_real_pytorch(value) -> bool:
    """Is ``value`` an object of the real PyTorch (a ``torch.Tensor``, an ``nn.Parameter``)?

    The module of its type tells, except under ``install_as_torch()``: teachgrad's
    ``Tensor`` and ``Parameter`` then say they live in ``torch`` (so that they print as
    PyTorch's), and the real PyTorch cannot be loaded at all.
    """
    if _package_name.printed == "torch":  # (install_as_torch(): every torch is teachgrad)
        return False
    module = getattr(type(value), "__module__", None) or ""
    return module == "torch" or module.startswith("torch.")


def real_pytorch_hint(*values) -> str:
    """:data:`MIXING_HINT` if any of ``values`` (or an item of a list or tuple among them)
    is a real PyTorch object, else ``""``: for the end of a TypeError's message."""
    for value in values:
        items = value if isinstance(value, (list, tuple)) else (value,)
        if any(is_real_pytorch(item) for item in items):
            return MIXING_HINT
    return ""


def is_real_pytorch_function(func) -> bool:
    """Is ``func`` (handed to ``Tensor.__torch_function__``) one of the real PyTorch's: a
    function of its (``torch.add``, ``F.relu``), a method of its tensors, a property's
    getter? teachgrad's own functions and the user's are not."""
    if _package_name.printed == "torch":  # (install_as_torch(): no real PyTorch here)
        return False
    owner = getattr(func, "__self__", None)
    for obj in (func, getattr(func, "__objclass__", None), getattr(owner, "__objclass__", None)):
        module = getattr(obj, "__module__", None)
        if isinstance(module, str) and (module == "torch" or module.startswith("torch.")):
            return True
    return False


def refused_by_real_pytorch(func) -> TypeError:
    """The error for the real PyTorch's ``func`` called with a teachgrad tensor."""
    name = getattr(func, "__name__", None) or repr(func)
    return TypeError(
        f"{name}() of the real PyTorch got a teachgrad tensor: PyTorch's functions, methods "
        "and modules take PyTorch's tensors only" + MIXING_HINT
        + " (To hand a teachgrad tensor's values to PyTorch on purpose: "
        "torch.from_dlpack(t.detach()), which shares its memory.)"
    )
