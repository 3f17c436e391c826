"""TransformerLens 3.9.0 (the last release with HookedTransformer; 4.x replaced it with TransformerBridge, which
boots from the hub) under the drop-in runner, compared line by line with real torch: tiny HookedTransformers from
configs (attn-only, gelu/solu/gelu_new MLPs, LN/LNPre/RMS/no norm, rotary, grouped-query and local attention in
float64), run_with_cache, hooks (ablation, filters, backward), generate, AdamW training and the library's own
train loop, FactoredMatrix, weight processing, activation patching and the ActivationCache decompositions."""
from conftest import lib_program_vs_torch


def test_transformer_lens_hooked_transformer_like_torch():
    _, ours = lib_program_vs_torch("lib_transformer_lens.py", "transformer_lens", timeout=600, rtol=1e-4)
    assert len(ours) == 47, ours
    assert ours[5] == "pattern (2, 4, 8, 8) 64.0 0.4792", ours[5]
    assert ours[6] == "pattern upper triangle zero True", ours[6]
    assert ours[10] == ("act names blocks.0.attn.hook_pattern blocks.1.hook_resid_pre blocks.1.attn.hook_q "
                        "blocks.0.mlp.hook_post"), ours[10]
    assert ours[11] == "loss clean ablated 4.1341 4.1464", ours[11]
    assert ours[16] == "generate greedy [[45, 39, 24, 18, 19, 19, 46, 19, 40, 19]] False", ours[16]
    assert ours[19] == "train losses [4.2552, 4.272, 4.3099, 3.9176, 4.2351, 4.159]", ours[19]
    assert ours[21] == "load_state_dict <All keys matched successfully> 4.0233 4.0233", ours[21]
    assert ours[33] == "decompose sums to resid True", ours[33]
