"""linformer 0.2.3 and axial-attention 0.6.1 under the drop-in runner, compared line by line with real torch:
Linformer self-attention (plain, shared kv, one kv head, cross-attention context), LinformerLM trained with
dropout both plainly and reversibly (the reversible blocks save and restore the CPU RNG state so that backward's
recomputation repeats the dropout masks), AxialAttention's input gradients and a reversible AxialImageTransformer."""
from conftest import lib_program_vs_torch


def test_linformer_and_axial_attention_like_torch():
    _, ours = lib_program_vs_torch("lib_linformer.py", "linformer", "axial_attention", timeout=600, rtol=1e-4)
    assert len(ours) == 15, ours
    assert ours[0] == "selfattn [] (2, 16, 12) 716 0.0019 0.2766", ours[0]
    assert ours[10] == "lm True 1 3.6571 0.1799", ours[10]
    assert ours[-1] == "axial transformer 3.7111 19776", ours[-1]
