"""rotary-embedding-torch (RotaryEmbedding: language/pixel/constant frequencies, xpos, cached keys, axial frequencies, learned-frequency gradients) under the drop-in runner,
compared line by line with the same program under real torch (fixed inputs; seeded parameters draw torch's numbers).
"""

from conftest import lib_program_vs_torch


def test_rotary_embedding_program_matches_torch():
    _, ours = lib_program_vs_torch("lib_rotary_embedding.py", "torch", "rotary_embedding_torch", timeout=600)
    assert len(ours) == 14
