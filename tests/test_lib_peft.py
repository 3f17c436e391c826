"""peft (LoRA) under the drop-in runner: tiny GPT-2 and Llama models built from configs get LoRA adapters, report
their trainable parameters, train a few steps, save and reload the adapter, and merge it into the base model;
compared line by line with the same program under real torch (seeded initial weights draw torch's numbers).
"""
import os

from conftest import lib_program_vs_torch


def test_peft_lora_train_save_reload_merge_matches_torch():
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    _, ours = lib_program_vs_torch("lib_peft_lora.py", "torch", "transformers", "accelerate", "peft", env=env, timeout=900)
    for model in ("gpt2", "llama"):
        losses = [float(line.split()[-1]) for line in ours if line.startswith(f"{model} step")]
        assert len(losses) == 4 and losses[-1] < losses[0], (model, losses)
        assert f"{model} adapted equals base True" in ours
        assert f"{model} reload maxdiff 0.000000" in ours
        assert f"{model} merged maxdiff below 1e-4 True" in ours
