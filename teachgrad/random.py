"""``torch.random``: the default random number generator's seed and state, and ``fork_rng``.

The functions are the ones at the top level (``torch.manual_seed`` is
``torch.random.manual_seed``); ``fork_rng`` is new here: random numbers drawn inside it do
not change the numbers drawn after it.

>>> import teachgrad as torch
>>> _ = torch.manual_seed(0)
>>> with torch.random.fork_rng():
...     inside = torch.rand(2)
>>> bool((torch.rand(2) == inside).all())   # the same numbers again after the block
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ._random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
           "fork_rng", "Generator", "default_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Save the default generator's state, run the block, then put the state back.

    ``enabled=False`` does nothing (to switch forking off without re-indenting). The
    ``devices`` and ``device_type`` arguments name accelerators, of which teachgrad has
    none: only the CPU generator is forked, as PyTorch always does.
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
