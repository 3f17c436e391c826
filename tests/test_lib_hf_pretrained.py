"""Fine-tuning Hugging Face models loaded by ``from_pretrained`` with their default dropout matches torch step by
step under the runner (the meta-device model build leaves torch's random stream untouched)."""
from conftest import lib_program_vs_torch


def test_pretrained_models_with_dropout_train_like_torch():
    theirs, ours = lib_program_vs_torch("hf_pretrained_dropout.py", "transformers", timeout=900, rtol=1e-4)
    assert len(ours) == 12 and all("loss" in line or "stream" in line for line in ours)


def test_vision_audio_models_reload_and_train_like_torch():
    """SigLIP (from_pretrained must not re-initialize its loaded nn.MultiheadAttention), Wav2Vec2 CTC
    (``torch.backends.cudnn.flags``) and Longformer (``new_ones(size=...)``), saved, reloaded and trained."""
    theirs, ours = lib_program_vs_torch("hf_vision_audio_models.py", "transformers", timeout=900, rtol=1e-4)
    assert len(ours) == 15 and ours[0] == theirs[0]  # the reloaded weights exactly
    for model in ("siglip", "wav2vec2", "longformer"):
        losses = [float(line.split()[-1]) for line in ours if line.startswith(f"{model} step")]
        assert len(losses) == 3 and losses[-1] < losses[0], (model, losses)
