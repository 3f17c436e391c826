"""Hugging Face's Trainer (transformers + accelerate) on a tiny config-built GPT-2 under the runner: training
losses and learning rates per logging step, eval/predict losses and the saved model match torch's run."""
from conftest import lib_program_vs_torch


def test_trainer_matches_torch():
    theirs, ours = lib_program_vs_torch("hf_trainer_tiny.py", "transformers", "accelerate", rtol=1e-4)
    assert sum(ln.startswith("log ") for ln in ours) == 4
    assert any(ln.startswith("reload ") and "model.safetensors" in ln for ln in ours)
