"""litgpt 0.5.13 (installed with --no-deps: it asks for huggingface-hub<1.4, transformers 5.24 for >=1.31) under the
drop-in runner, compared line by line with real torch: GPT models built from its Pythia, Llama 3.2, Gemma 2,
Phi-2, Mixtral and Qwen3 configs shrunk to two layers (forward, chunked_cross_entropy, AdamW steps), KV-cache
generate (greedy and seeded top-k/top-p sampling), a LoRA model trained and merged, and a state-dict round trip
through torch.save/torch.load into a meta-built model (to_empty) and a bfloat16 one."""
from conftest import lib_program_vs_torch


def test_litgpt_models_generate_lora_like_torch():
    theirs, ours = lib_program_vs_torch("lib_litgpt.py", "litgpt", timeout=600, rtol=2e-3)
    assert len(ours) == 23, ours
    assert ours[0].startswith("pythia-14m GptNeoxMLP LayerNorm 2 23296 (2, 12, 96) torch.float32"), ours[0]
    assert ours[4].startswith("gemma-2-2b GemmaMLP RMSNorm 8 21792 "), ours[4]
    assert ours[13] == theirs[13] == "greedy [3, 14, 15, 92, 65, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49]"
    assert ours[14] == theirs[14], (ours[14], theirs[14])  # the sampled tokens: the same seeded draws
    assert ours[16] == "greedy consistent True", ours[16]
    assert ours[17] == "lora trainable ['lora_A', 'lora_B'] 3584 23296", ours[17]
    assert ours[21].startswith("state 25 ['lm_head.bias', 'lm_head.weight', 'transformer.h.0.attn.proj.bias'] True"), \
        ours[21]
