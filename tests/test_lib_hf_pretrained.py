"""Fine-tuning Hugging Face models loaded by ``from_pretrained`` with their default dropout matches torch step by
step under the runner (the meta-device model build leaves torch's random stream untouched)."""
from conftest import lib_program_vs_torch


def test_pretrained_models_with_dropout_train_like_torch():
    theirs, ours = lib_program_vs_torch("hf_pretrained_dropout.py", "transformers", timeout=900, rtol=1e-4)
    assert len(ours) == 12 and all("loss" in line or "stream" in line for line in ours)
