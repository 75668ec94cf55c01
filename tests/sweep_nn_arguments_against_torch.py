"""Call nn.functional and nn.init with bad arguments in both libraries and compare errors.

For each callable (``CALLS``, ``INIT``) with inputs that work, every listed parameter is
given, one at a time, values of the wrong kind for it (``BAD``: a complex number, a string,
None, a tuple of the wrong length, a negative number, a float for an int, a bool); the
error type and sentence (before teachgrad's ``Hint:`` line) must be PyTorch's, or both
calls must succeed. Explained differences are counted apart (``KNOWN``, with the reason).

Run ``python tests/sweep_nn_arguments_against_torch.py [--only NAME,...]``: it prints each
difference and the counts. tests/test_nn_argument_sweep.py runs it for the callables whose
wording is fixed, so that they stay fixed.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import warnings

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import teachgrad  # noqa: E402


def T(*shape):
    """A float32 tensor of standard normal values of this shape."""
    return ("t", shape)


# The parameters every max/avg pooling function takes (the 1-d to 3-d variants add some).
MAX_POOL = ["kernel_size:ints", "stride:ints", "padding:ints", "dilation:ints", "ceil_mode:bool"]
AVG_POOL = ["kernel_size:ints", "stride:ints", "padding:ints", "ceil_mode:bool",
            "count_include_pad:bool"]

CALLS = {
    # pooling
    "max_pool1d": (
        [T(1, 2, 8)],
        dict(kernel_size=2),
        [*MAX_POOL, "return_indices:bool"],
    ),
    "max_pool2d": (
        [T(1, 2, 8, 8)],
        dict(kernel_size=2),
        [*MAX_POOL, "return_indices:bool"],
    ),
    "max_pool3d": (
        [T(1, 1, 4, 4, 4)],
        dict(kernel_size=2),
        MAX_POOL,
    ),
    "avg_pool1d": (
        [T(1, 2, 8)],
        dict(kernel_size=2),
        AVG_POOL,
    ),
    "avg_pool2d": (
        [T(1, 2, 8, 8)],
        dict(kernel_size=2),
        [*AVG_POOL, "divisor_override:int"],
    ),
    "avg_pool3d": (
        [T(1, 1, 4, 4, 4)],
        dict(kernel_size=2),
        [*AVG_POOL, "divisor_override:int"],
    ),
    "lp_pool1d": (
        [T(1, 2, 8)],
        dict(norm_type=2, kernel_size=2),
        ["norm_type:float", "kernel_size:ints", "stride:ints", "ceil_mode:bool"],
    ),
    "lp_pool2d": (
        [T(1, 2, 8, 8)],
        dict(norm_type=2, kernel_size=2),
        ["norm_type:float", "kernel_size:ints", "stride:ints", "ceil_mode:bool"],
    ),
    "adaptive_avg_pool1d": ([T(1, 2, 8)], dict(output_size=2), ["output_size:ints"]),
    "adaptive_avg_pool2d": ([T(1, 2, 8, 8)], dict(output_size=2), ["output_size:ints"]),
    "adaptive_avg_pool3d": ([T(1, 1, 4, 4, 4)], dict(output_size=2), ["output_size:ints"]),
    "adaptive_max_pool1d": (
        [T(1, 2, 8)],
        dict(output_size=2),
        ["output_size:ints", "return_indices:bool"],
    ),
    "adaptive_max_pool2d": (
        [T(1, 2, 8, 8)],
        dict(output_size=2),
        ["output_size:ints", "return_indices:bool"],
    ),
    "adaptive_max_pool3d": ([T(1, 1, 4, 4, 4)], dict(output_size=2), ["output_size:ints"]),
    # conv
    "conv1d": (
        [T(1, 2, 8), T(3, 2, 3)],
        dict(),
        ["stride:ints", "padding:ints", "dilation:ints", "groups:int"],
    ),
    "conv2d": (
        [T(1, 2, 8, 8), T(3, 2, 3, 3)],
        dict(),
        ["stride:ints", "padding:ints", "dilation:ints", "groups:int"],
    ),
    "conv3d": (
        [T(1, 1, 4, 4, 4), T(2, 1, 2, 2, 2)],
        dict(),
        ["stride:ints", "padding:ints", "dilation:ints", "groups:int"],
    ),
    "conv_transpose1d": (
        [T(1, 2, 8), T(2, 3, 3)],
        dict(),
        ["stride:ints", "padding:ints", "output_padding:ints", "groups:int", "dilation:ints"],
    ),
    "conv_transpose2d": (
        [T(1, 2, 8, 8), T(2, 3, 3, 3)],
        dict(),
        ["stride:ints", "padding:ints", "output_padding:ints", "groups:int", "dilation:ints"],
    ),
    "unfold": (
        [T(1, 2, 6, 6)],
        dict(kernel_size=2),
        ["kernel_size:ints", "dilation:ints", "padding:ints", "stride:ints"],
    ),
    "fold": (
        [T(1, 8, 9)],
        dict(output_size=4, kernel_size=2),
        ["output_size:ints", "kernel_size:ints", "dilation:ints", "padding:ints", "stride:ints"],
    ),
    "pixel_shuffle": ([T(1, 4, 2, 2)], dict(upscale_factor=2), ["upscale_factor:int"]),
    "pixel_unshuffle": ([T(1, 1, 4, 4)], dict(downscale_factor=2), ["downscale_factor:int"]),
    # activations
    "softmax": ([T(2, 3)], dict(dim=1), ["dim:int"]),
    "log_softmax": ([T(2, 3)], dict(dim=1), ["dim:int"]),
    "softmin": ([T(2, 3)], dict(dim=1), ["dim:int"]),
    "glu": ([T(2, 4)], dict(), ["dim:int"]),
    "gumbel_softmax": ([T(2, 3)], dict(), ["tau:float", "hard:bool", "dim:int"]),
    "leaky_relu": ([T(2, 3)], dict(), ["negative_slope:float", "inplace:bool"]),
    "elu": ([T(2, 3)], dict(), ["alpha:float", "inplace:bool"]),
    "celu": ([T(2, 3)], dict(), ["alpha:float", "inplace:bool"]),
    "hardtanh": ([T(2, 3)], dict(), ["min_val:float", "max_val:float", "inplace:bool"]),
    "softplus": ([T(2, 3)], dict(), ["beta:float", "threshold:float"]),
    "threshold": (
        [T(2, 3)],
        dict(threshold=0.1, value=0.0),
        ["threshold:float", "value:float", "inplace:bool"],
    ),
    "rrelu": ([T(2, 3)], dict(), ["lower:float", "upper:float", "training:bool", "inplace:bool"]),
    "hardshrink": ([T(2, 3)], dict(), ["lambd:float"]),
    "softshrink": ([T(2, 3)], dict(), ["lambd:float"]),
    "gelu": ([T(2, 3)], dict(), ["approximate:str"]),
    "dropout": ([T(2, 3)], dict(), ["p:float", "training:bool", "inplace:bool"]),
    "dropout1d": ([T(2, 3, 4)], dict(), ["p:float", "training:bool", "inplace:bool"]),
    "dropout2d": ([T(2, 3, 4, 4)], dict(), ["p:float", "training:bool", "inplace:bool"]),
    "alpha_dropout": ([T(2, 3)], dict(), ["p:float", "training:bool", "inplace:bool"]),
    "normalize": ([T(2, 3)], dict(), ["p:float", "dim:int", "eps:float"]),
    "one_hot": ([("i", (2, 3))], dict(), ["num_classes:int"]),
    "layer_norm": ([T(2, 3)], dict(normalized_shape=(3,)), ["normalized_shape:ints", "eps:float"]),
    "group_norm": ([T(2, 4, 3)], dict(num_groups=2), ["num_groups:int", "eps:float"]),
    "local_response_norm": (
        [T(2, 4, 3)],
        dict(size=2),
        ["size:int", "alpha:float", "beta:float", "k:float"],
    ),
    "instance_norm": (
        [T(2, 4, 3)],
        dict(),
        ["use_input_stats:bool", "momentum:float", "eps:float"],
    ),
    "batch_norm": (
        [T(2, 4, 3), T(4), T(4)],
        dict(),
        ["training:bool", "momentum:float", "eps:float"],
    ),
    "pad": ([T(1, 2, 4)], dict(pad=(1, 1)), ["pad:ints", "mode:str", "value:float"]),
    "pairwise_distance": ([T(2, 3), T(2, 3)], dict(), ["p:float", "eps:float", "keepdim:bool"]),
    "cosine_similarity": ([T(2, 3), T(2, 3)], dict(), ["dim:int", "eps:float"]),
    "pdist": ([T(3, 3)], dict(), ["p:float"]),
    "embedding": (
        [("i", (2,)), T(4, 3)],
        dict(),
        [
            "padding_idx:int",
            "max_norm:float",
            "norm_type:float",
            "scale_grad_by_freq:bool",
            "sparse:bool",
        ],
    ),
    "cross_entropy": (
        [T(2, 3), ("i", (2,))],
        dict(),
        ["ignore_index:int", "reduction:str", "label_smoothing:float"],
    ),
    "nll_loss": ([T(2, 3), ("i", (2,))], dict(), ["ignore_index:int", "reduction:str"]),
    "mse_loss": ([T(2, 3), T(2, 3)], dict(), ["reduction:str"]),
    "l1_loss": ([T(2, 3), T(2, 3)], dict(), ["reduction:str"]),
    "smooth_l1_loss": ([T(2, 3), T(2, 3)], dict(), ["reduction:str", "beta:float"]),
    "huber_loss": ([T(2, 3), T(2, 3)], dict(), ["reduction:str", "delta:float"]),
    "kl_div": ([T(2, 3), T(2, 3)], dict(), ["reduction:str", "log_target:bool"]),
    "binary_cross_entropy_with_logits": ([T(2, 3), ("p", (2, 3))], dict(), ["reduction:str"]),
    "margin_ranking_loss": ([T(3), T(3), T(3)], dict(), ["margin:float", "reduction:str"]),
    "hinge_embedding_loss": ([T(3), T(3)], dict(), ["margin:float", "reduction:str"]),
    "triplet_margin_loss": (
        [T(2, 3), T(2, 3), T(2, 3)],
        dict(),
        ["margin:float", "p:float", "eps:float", "swap:bool", "reduction:str"],
    ),
    "poisson_nll_loss": (
        [T(2, 3), T(2, 3)],
        dict(),
        ["log_input:bool", "full:bool", "eps:float", "reduction:str"],
    ),
    "gaussian_nll_loss": (
        [T(2, 3), T(2, 3), ("p", (2, 3))],
        dict(),
        ["full:bool", "eps:float", "reduction:str"],
    ),
    "multi_margin_loss": (
        [T(2, 3), ("i", (2,))],
        dict(),
        ["p:int", "margin:float", "reduction:str"],
    ),
    "cosine_embedding_loss": ([T(2, 3), T(2, 3), T(2)], dict(), ["margin:float", "reduction:str"]),
    "soft_margin_loss": ([T(2, 3), T(2, 3)], dict(), ["reduction:str"]),
    "interpolate": ([T(1, 1, 4)], dict(size=2), ["size:ints", "mode:str"]),
    "affine_grid": ([T(1, 2, 3)], dict(size=(1, 1, 4, 4)), ["size:ints", "align_corners:bool"]),
    "grid_sample": (
        [T(1, 1, 4, 4), ("g", (1, 2, 2, 2))],
        dict(),
        ["mode:str", "padding_mode:str", "align_corners:bool"],
    ),
    "scaled_dot_product_attention": (
        [T(1, 2, 3), T(1, 2, 3), T(1, 2, 3)],
        dict(),
        ["dropout_p:float", "is_causal:bool", "scale:float"],
    ),
}
INIT = {
    "uniform_": ([T(3, 4)], dict(), ["a:float", "b:float"]),
    "normal_": ([T(3, 4)], dict(), ["mean:float", "std:float"]),
    "trunc_normal_": ([T(3, 4)], dict(), ["mean:float", "std:float", "a:float", "b:float"]),
    "constant_": ([T(3, 4)], dict(val=1.0), ["val:float"]),
    "xavier_uniform_": ([T(3, 4)], dict(), ["gain:float"]),
    "xavier_normal_": ([T(3, 4)], dict(), ["gain:float"]),
    "kaiming_uniform_": ([T(3, 4)], dict(), ["a:float", "mode:str", "nonlinearity:str"]),
    "kaiming_normal_": ([T(3, 4)], dict(), ["a:float", "mode:str", "nonlinearity:str"]),
    "orthogonal_": ([T(3, 4)], dict(), ["gain:float"]),
    "sparse_": ([T(3, 4)], dict(sparsity=0.5), ["sparsity:float", "std:float"]),
    "dirac_": ([T(3, 4, 3)], dict(), ["groups:int"]),
    "calculate_gain": ([], dict(nonlinearity="leaky_relu"), ["nonlinearity:str", "param:float"]),
}
BAD = {
    "ints": [1j, "a", None, (1, 2, 3, 4), (1,), -1, 1.5, (1.5, 2), True],
    "int": [1j, "a", None, -1, 1.5, True, (1, 2)],
    "float": [1j, "a", None, (1, 2), -1.0],
    "bool": [1j, "a", None, 1, 0.5],
    "str": [1j, 1, None, "nonsense"],
}


def make(lib, spec):
    """A fresh input tensor: "t" normal, "p" in (0.1, 0.9), "g" in (-0.9, 0.9) (a grid),
    "i" integers in [0, 3)."""
    kind, shape = spec
    rng = np.random.default_rng(0)
    if kind == "i":
        return lib.tensor(rng.integers(0, 3, shape))
    low, high = {"p": (0.1, 0.9), "g": (-0.9, 0.9)}.get(kind, (None, None))
    a = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    return lib.tensor(a.astype(np.float32))


def outcome(lib, namespace: str, name: str, tensors: list, kwargs: dict) -> tuple[str, str]:
    """("ok", "") or the error's type name and sentence (without a Hint line)."""
    function = getattr(lib.nn.functional if namespace == "F" else lib.nn.init, name)
    args = [make(lib, s) for s in tensors]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            function(*args, **kwargs)
        return ("ok", "")
    except Exception as e:  # noqa: BLE001 (any error is compared)
        return (type(e).__name__, str(e).split("\nHint:")[0].strip())


def cases(only: set[str] | None = None):
    """``(namespace, name, tensors, kwargs)`` of every call of the sweep."""
    for namespace, table in (("F", CALLS), ("init", INIT)):
        for name, (tensors, base, parameters) in table.items():
            if only is not None and name not in only:
                continue
            for parameter in parameters:
                pname, kind = parameter.split(":")
                for value in BAD[kind]:
                    yield namespace, name, tensors, {**base, pname: value}


def differences(torch, only: set[str] | None = None) -> tuple[int, list[str]]:
    """How many calls were made, and a line for each whose outcome differs."""
    total, found = 0, []
    for namespace, name, tensors, kwargs in cases(only):
        theirs = outcome(torch, namespace, name, tensors, kwargs)
        ours = outcome(teachgrad, namespace, name, tensors, kwargs)
        total += 1
        if theirs != ours:
            shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            found.append(f"{namespace}.{name}({shown}):\n   torch: {theirs}\n   ours : {ours}")
    return total, found


# Explained differences: a line of ``differences`` that contains the key -> the reason.
KNOWN = {
    # lp_pool's norm_type, gumbel_softmax's tau, local_response_norm's alpha/beta/k = 1j
    "teachgrad has no complex dtypes": "deliberate: no complex dtypes (README); PyTorch "
                                       "computes with the complex number or names its "
                                       "complex kernel",
}


def _known(line: str) -> str | None:
    """The reason a difference is known, or None."""
    return next((reason for key, reason in KNOWN.items() if key in line), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated names, e.g. max_pool2d,conv1d")
    options = parser.parse_args()
    import torch

    only = set(options.only.split(",")) if options.only else None
    total, found = differences(torch, only)
    known = collections.Counter(filter(None, map(_known, found)))
    found = [line for line in found if _known(line) is None]
    print("\n".join(found))
    print(f"calls {total}, differ {len(found)}; {sum(known.values())} known")
    for reason, count in known.most_common():
        print(f"  known {count:4d} {reason}")


if __name__ == "__main__":
    main()
