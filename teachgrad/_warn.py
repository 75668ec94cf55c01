"""``warn_user``: a warning that points at the line of the user's code that caused it.

Python shows a warning with the file and line ``stacklevel`` frames up from the call to
``warnings.warn``. A fixed number is right for one way of getting there only: the same
deprecation reached through ``torch.softmax``, ``Tensor.softmax`` or ``nn.Softmax`` is
one, two or three frames deeper in teachgrad, and a learner would be shown a line of
teachgrad's source instead of their own. Here the level is counted when the warning
happens: the first frame outside the teachgrad package and NumPy (user code, including a user's
subclass of a teachgrad class) is the one shown.

>>> import warnings, teachgrad as torch
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     _ = torch.nn.functional.softmax(torch.ones(2))
>>> caught[0].filename == "<doctest teachgrad._warn[1]>"   # this example's line
True
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

#: Frames whose file is under this folder are teachgrad's own.
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: NumPy's frames are skipped too: the backward engine runs inside a NumPy ``errstate``
#: decorator, so a warning from a hook during ``loss.backward()`` would name NumPy's file.
_NUMPY = os.path.dirname(os.path.abspath(np.__file__)) + os.sep
_LIBRARIES = (_PACKAGE, _NUMPY)


def warn_user(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)``, shown at the first caller outside teachgrad."""
    frame = sys._getframe(1)  # whoever called warn_user: a teachgrad function
    level = 2  # (the stacklevel that names that frame)
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARIES):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
