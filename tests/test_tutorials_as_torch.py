"""PyTorch tutorials, rewritten small, run with ``import torch`` meaning teachgrad.

Each program in ``fixtures/tutorial_programs`` is plain PyTorch code (``import torch``,
``import torch.nn.utils.prune as prune`` ...) redoing what a PyTorch tutorial shows: the
fundamentals of autograd, forward-mode AD and hooks, pruning, a training loop, "Learning
PyTorch with Examples", "What is torch.nn really?", the 60-minute blitz's network and
CIFAR-10 classifier, the tensors tutorial with many kinds of printed tensors, "A Gentle
Introduction to torch.autograd", the Autograd mechanics note, Deep Learning for NLP (word
embeddings, the LSTM tagger, the Bi-LSTM CRF), NLP From Scratch (classifying and
generating names, seq2seq translation), nn.Transformer language modelling and translation,
spatial transformers, neural style transfer, torch.func's Jacobians and Hessians,
pytorch/examples' MNIST, VAE, DCGAN, word language model, time-sequence prediction and
REINFORCE, Karpathy's makemore, GPT and micrograd, twenty-five learners' mistakes
with PyTorch's error messages, and programs pasted as learners paste them (the blitz, the
Quickstart series with whole-model saving, torch.autograd.functional, an LSTM name
classifier over packed batches, attention blocks, the data utilities and lr schedulers,
saving and loading models, extending PyTorch with autograd.Functions, the hooks of modules,
tensors and saved tensors, per-sample gradients and model ensembling with torch.func, the
blitz's LeNet and the fused convolution-batch-norm Function, the mixed-precision recipe with
torch.cuda.amp's GradScaler).
Downloads are replaced by small seeded random data or a few lines of text written in. It runs in
a fresh interpreter where PyTorch is hidden and ``teachgrad.install_as_torch()`` has run,
and must print exactly what the real PyTorch printed for it: the ``.out`` files next to
the programs are PyTorch 2.13's own output, recorded by ``fixtures/make_tutorial_outputs.py``.
Random numbers are seeded (teachgrad draws PyTorch's), so the printed values agree to the
digit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_as_torch import run_python

PROGRAMS = Path(__file__).resolve().parent / "fixtures" / "tutorial_programs"
NAMES = sorted(p.stem for p in PROGRAMS.glob("*.py"))


@pytest.mark.parametrize("name", NAMES)
def test_tutorial_program_prints_what_pytorch_printed(name):
    program = PROGRAMS / f"{name}.py"
    result = run_python(f"""
        import runpy
        import teachgrad
        teachgrad.install_as_torch()
        runpy.run_path({str(program)!r}, run_name="__main__")
    """, without_pytorch=True)
    assert result.returncode == 0, result.stderr
    expected = (PROGRAMS / f"{name}.out").read_text().splitlines()
    got = result.stdout.splitlines()
    for number, (line, want) in enumerate(zip(got, expected), start=1):
        assert line == want, f"{name}.py, output line {number}:\n got: {line!r}\nwant: {want!r}"
    assert len(got) == len(expected), f"{name}.py printed {len(got)} lines, PyTorch {len(expected)}"
