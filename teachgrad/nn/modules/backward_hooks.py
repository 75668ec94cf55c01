"""Module backward hooks: ``register_full_backward_hook`` and ``..._pre_hook``, as PyTorch.

A module is many ops, so no single graph node has "the module's gradients". PyTorch (and
teachgrad, the same way) gets them with two identity nodes around the module's call:

* the tensors going **in** pass through ``BackwardHookFunction`` first, so one node sees
  the gradients with respect to the inputs (``grad_input``) on their way back;
* the tensors coming **out** pass through it too, so one node sees ``grad_output`` first.

In backward the output node runs first: it records ``grad_output`` and calls the backward
pre-hooks (which may replace it). When the input node runs, the full backward hooks get
``hook(module, grad_input, grad_output)`` and may return new ``grad_input``. Arguments
that are not tensors appear as ``None`` in those tuples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ..._warn import warn_user
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled


class BackwardHookFunction(Function):
    """Identity on any number of tensors: its node is where a module's hooks listen."""

    @staticmethod
    def forward(ctx, *args):
        """Return the tensors unchanged (those not requiring grad stay out of the graph)."""
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        """Pass the gradients through unchanged."""
        return grads


class BackwardHook:
    """One call's worth of backward hooks for ``module`` (PyTorch's ``BackwardHook``)."""

    def __init__(self, module: Any, user_hooks: list[Callable],
                 user_pre_hooks: list[Callable]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index: list[int] | None = None
        self.output_tensors_index: list[int] | None = None

    def setup_input_hook(self, args: tuple) -> tuple:
        """Route the tensor arguments through an identity node that calls the hooks."""
        result, self.input_tensors_index = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        return result

    def setup_output_hook(self, output: Any) -> Any:
        """Route the output tensors through an identity node that records grad_output."""
        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        result, self.output_tensors_index = self._apply_on_tensors(self._set_output_hook,
                                                                   outputs)
        self.n_outputs = len(outputs)
        return result if is_tuple else result[0]

    # --------------------------------------------------------------------------- internals
    def _apply_on_tensors(self, register: Callable, args: tuple) -> tuple:
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        register(next(t.grad_fn for t in new_tensors if t.grad_fn is not None))
        replaced = list(args)
        for i, t in zip(positions, new_tensors):
            replaced[i] = t
        return tuple(replaced), positions

    @staticmethod
    def _pack_with_none(indices, values, size: int) -> tuple:
        packed = [None] * size
        for i, v in zip(indices, values):
            packed[i] = v
        return tuple(packed)

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:  # the output node never ran: no gradient came
                return None
            result = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, result, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(result):
                    raise RuntimeError("Backward hook returned an invalid number of "
                                       f"grad_input, got {len(out)}, but expected "
                                       f"{len(result)}")
                result = out
            self.grad_outputs = None
            return tuple(result[i] for i in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _set_output_hook(self, grad_fn) -> None:
        def hook(_, grad_output):
            self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                     self.n_outputs)
            for pre_hook in self.user_pre_hooks:
                replaced = pre_hook(self.module, self.grad_outputs)
                if replaced is None:
                    continue
                if len(replaced) != len(self.grad_outputs):
                    raise RuntimeError("Backward pre hook returned an invalid number of "
                                       f"grad_output, got {len(replaced)}, but expected "
                                       f"{len(self.grad_outputs)}")
                self.grad_outputs = replaced
            local_grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:
                self._call_hooks_without_input_grads()
            return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

        grad_fn.register_hook(hook)

    def _call_hooks_without_input_grads(self) -> None:
        # No input requires grad, so no input node will run: call the hooks now, with
        # grad_input all None (PyTorch warns that they fire at the outputs).
        warn_user(
            "Full backward hook is firing when gradients are computed with respect to "
            "module outputs since no inputs require gradients. See "
            "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
            "#torch.nn.Module.register_full_backward_hook for more details."
        )
        grad_inputs = (None,) * self.n_inputs
        for user_hook in self.user_hooks:
            result = user_hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None and not (isinstance(result, tuple)
                                           and all(r is None for r in result)):
                raise RuntimeError("Backward hook for Modules where no input requires "
                                   "gradient should always return None or None for all "
                                   "gradients.")
        self.grad_outputs = None


# ----------------------------------------------------------------------------------------
# register_backward_hook (deprecated in PyTorch): a hook on the output's own grad_fn
# ----------------------------------------------------------------------------------------
def attach_non_full_hooks(module: Any, hooks: list[Callable], args: tuple,
                          output: Any) -> None:
    """Hang the old-style hooks on the ``grad_fn`` of the module's (first) output tensor.

    They see that one node's gradients only, so ``grad_input`` is the gradients of *that
    op's* inputs, not the module's; PyTorch warns when the two differ (see below).
    """
    tensor = output
    while not isinstance(tensor, Tensor):
        tensor = (next(v for v in tensor.values() if isinstance(v, Tensor))
                  if isinstance(tensor, dict) else tensor[0])
    grad_fn = tensor.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(lambda grad_input, grad_output, hook=hook:
                              hook(module, grad_input, grad_output))
    _warn_if_partial(args, output, grad_fn)


_DEPRECATED = " is deprecated and will be removed in future versions. "


def _warn_if_partial(inputs: tuple, result: Any, grad_fn) -> None:
    """PyTorch's FutureWarnings for the cases where the old hook misses gradients."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        warn_user("Using non-full backward hooks on a Module that does not return a single "
                  "Tensor or a tuple of Tensors" + _DEPRECATED + "This hook will be missing "
                  "some of the grad_output. Please use register_full_backward_hook to get "
                  "the documented behavior.", FutureWarning)
        return
    if not all(isinstance(i, Tensor) for i in inputs):
        warn_user("Using non-full backward hooks on a Module that does not take as input a "
                  "single Tensor or a tuple of Tensors" + _DEPRECATED + "This hook will be "
                  "missing some of the grad_input. Please use register_full_backward_hook to "
                  "get the documented behavior.", FutureWarning)
        return
    out_grad_fns = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_grad_fns or (len(out_grad_fns) == 1 and grad_fn not in out_grad_fns):
        warn_user("Using a non-full backward hook when outputs are nested in python data "
                  "structure" + _DEPRECATED + "This hook will be missing some grad_output.",
                  FutureWarning)
    elif len(out_grad_fns) > 1:
        warn_user("Using a non-full backward hook when outputs are generated by different "
                  "autograd Nodes" + _DEPRECATED + "This hook will be missing some "
                  "grad_output. Please use register_full_backward_hook to get the documented "
                  "behavior.", FutureWarning)
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {
            n[0] for n in grad_fn.next_functions}:
        warn_user("Using a non-full backward hook when the forward contains multiple "
                  "autograd Nodes" + _DEPRECATED + "This hook will be missing some "
                  "grad_input. Please use register_full_backward_hook to get the documented "
                  "behavior.", FutureWarning)
