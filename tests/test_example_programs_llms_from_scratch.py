"""Programs in the style of Sebastian Raschka's "LLMs from scratch" (rasbt/LLMs-from-scratch) chapters 2-7 and
appendices D and E, run unmodified under the drop-in runner: the data pipeline, the attention classes, the GPT
model and its text generation, pretraining with sampling and checkpoints, loading GPT-2 style numpy weights,
the learning-rate schedule and gradient clipping by hand, classification and instruction finetuning, and
LoRA.

Each program in tests/programs/ex_llms_from_scratch_*.py (own code, synthetic data, no downloads) prints its
shapes, losses, accuracies and generated text one fact per line; it runs with plain python (real torch, the
oracle) and under ``python -m torchlike run``, and the printed lines must match, numbers within float32
tolerance (``conftest.lib_program_vs_torch``). The later chapters import the earlier ones' file, as the book's
scripts do with ``from previous_chapters import ...``.
"""
import pytest
from conftest import lib_program_vs_torch

PROGRAMS = {
    "ex_llms_from_scratch_ch02_ch04.py": [
        "vs nn.LayerNorm True",
        "Total number of parameters: 28,736",
        "buffers ['trf_blocks.0.att.mask', 'trf_blocks.1.att.mask'] 33",
    ],
    "ex_llms_from_scratch_ch05_appd.py": [
        "empty loader 0 nan",
        "optimizer state 31 ['exp_avg', 'exp_avg_sq', 'step'] tensor(54.) 0.004 0.1",
        # torch.tensor(q_w.T) of a column slice keeps its column-major strides in torch
        "q weight torch.Size([32, 32]) torch.float32 False Parameter -0.03416",
        "ValueError Shape mismatch. Left: torch.Size([24, 32]), Right: (46, 32)",
    ],
    "ex_llms_from_scratch_ch06_ch07_appe.py": [
        "loss_1 == loss_3: tensor(True)",
        "all ignored tensor(nan)",
        "Total trainable parameters after: 0",
        "          (lora): LoRALayer()",
    ],
}


@pytest.mark.parametrize("name", PROGRAMS, ids=[p[21:-3] for p in PROGRAMS])
def test_llms_from_scratch_program_matches_torch(name):
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    expected, ours = lib_program_vs_torch(name, timeout=600, rtol=0.0001)
    assert len(ours) >= 50, ours
    for line in PROGRAMS[name]:
        assert line in expected and line in ours, line
