"""rotary-embedding-torch (RotaryEmbedding: language/pixel/constant frequencies, xpos, cached keys, axial frequencies, learned-frequency gradients) under the drop-in runner,
compared line by line with the same program under real torch (fixed inputs; seeded parameters draw torch's numbers).
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


def test_rotary_embedding_program_matches_torch():
    _need("torch", "rotary_embedding_torch")
    script = os.path.join(PROGRAMS, "lib_rotary_embedding.py")
    expected = run_program([script], runner=False, timeout=600)
    ours = run_program([script], runner=True, timeout=600)
    same_printed_lines(expected, ours, rtol=1e-4)
    assert len(ours) == 14
