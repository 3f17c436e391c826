"""local-attention 1.11.2 (windowed attention, LocalTransformer with hyper-connections and kv-cached
generation) under the drop-in runner, compared line by line with the same program under real torch
(tests/programs/lib_local_attention.py)."""
from conftest import lib_program_vs_torch


def test_local_attention_and_local_transformer_like_torch():
    _, ours = lib_program_vs_torch("lib_local_attention.py", "torch", "local_attention", "hyper_connections")
    assert len(ours) == 14, ours
    # every window configuration equals the dense masked-softmax reference
    assert [text.split(" ")[-3] for text in ours[:4]] == ["True"] * 4, ours[:4]
    line = {text.split(" ")[0]: text for text in ours[4:]}
    assert line["transformer"] == "transformer losses [4.0887, 3.9887, 3.8877, 3.7849, 3.6793]"
    # greedy decoding with the kv cache gives the tokens of full recomputation
    assert line["greedy"] == "greedy [[12, 21, 28, 11, 44], [34, 41, 32, 34, 41]] True"
    assert line["sampled"] == "sampled [[22, 9, 42, 37], [12, 12, 5, 11]]"
    assert line["cache"] == "cache (1, 9, 50) 2 (2, 1, 2, 9, 16)"
