"""peft (LoRA) under the drop-in runner: tiny GPT-2 and Llama models built from configs get LoRA adapters, report
their trainable parameters, train a few steps, save and reload the adapter, and merge it into the base model;
compared line by line with the same program under real torch (seeded initial weights draw torch's numbers).
"""
import importlib.util
import os

import pytest
from conftest import run_program, same_printed_lines

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")


def _need(*mods):
    for mod in mods:
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed")


def test_peft_lora_train_save_reload_merge_matches_torch():
    _need("torch", "transformers", "accelerate", "peft")
    script = os.path.join(PROGRAMS, "lib_peft_lora.py")
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    expected = run_program([script], runner=False, env=env, timeout=900)
    ours = run_program([script], runner=True, env=env, timeout=900)
    same_printed_lines(expected, ours, rtol=1e-4)
    for model in ("gpt2", "llama"):
        losses = [float(line.split()[-1]) for line in ours if line.startswith(f"{model} step")]
        assert len(losses) == 4 and losses[-1] < losses[0], (model, losses)
        assert f"{model} adapted equals base True" in ours
        assert f"{model} reload maxdiff 0.000000" in ours
        assert f"{model} merged maxdiff below 1e-4 True" in ours
