"""reformer-pytorch 1.4.4 under the drop-in runner, compared line by line with real torch: a causal ReformerLM
(LSH attention over several hash rounds, reversible layers that replay the forward's RNG state in backward
through ``torch.random.fork_rng``/``set_rng_state``, chunked feed-forward, axial position embeddings, a local
attention head, a product-key-memory layer) trained through ``TrainingWrapper`` and sampled with top-k, a
standalone ``LSHAttention`` returning weights and buckets, ``Recorder`` + ``Autopadder``, a ReformerEncDec
step, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_reformer_lm_like_torch():
    _, ours = lib_program_vs_torch("lib_reformer.py", "reformer_pytorch", "product_key_memory", timeout=900,
                                   rtol=1e-4)
    assert len(ours) == 12, ours
    assert ours[0] == "params 111792", ours[0]
    assert ours[6] == "generate (2, 2) torch.int64 [[3, 13], [8, 12]]", ours[6]
    assert ours[7] == "lsh (2, 16, 8) -18.2999 (2, 16, 16) 1.0 (2, 48) 0 11 5.5104", ours[7]
    assert ours[9] == "recorder (1, 13, 16) 1 (1, 2, 16, 16) 32.0", ours[9]
