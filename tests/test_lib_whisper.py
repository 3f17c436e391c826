"""openai-whisper 20250625 under the drop-in runner, compared line by line with real torch: a tiny random
multilingual model (no download), the log-Mel front end (torch.stft, packaged mel filters, pad_or_trim),
encoder/decoder logits with SDPA and the explicit attention path, language detection, decode (greedy, timestamps,
beam search, prompt, seeded sampling), find_alignment (DTW over cross-attention), decoder training with AdamW,
transcribe with word timestamps and temperature fallback, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_whisper_tiny_model_like_torch():
    _, ours = lib_program_vs_torch("lib_whisper.py", "whisper", "tiktoken", "numba", timeout=600, rtol=1e-3)
    assert len(ours) == 40, ours
    assert ours[0] == "params 3584576 True 99", ours[0]
    assert ours[10] == "language batch [50333, 50333]", ours[10]
    assert ours[12].startswith("timestamps [50364, 48160, 51803, 51803, 48160, 51857, 51857, 48160]"), ours[12]
    assert ours[15].startswith("sampled [12319, 18183, 49861, 6589, 17436, 12603, 27501, 2610]"), ours[15]
    assert ours[28].startswith("trained greedy [264, 1702, 6292, 21026] 'the quick brown fox'"), ours[28]
    assert ours[30] == "transcribe tt 8 ' Erfahrung tarde Eye auc Mountains Frei'", ours[30]
    assert ours[-1].endswith("<All keys matched successfully> True"), ours[-1]
