"""pytorch-metric-learning (losses with and without miners, miners, distances, reducers; forward and backward) under the drop-in runner,
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


def test_metric_learning_program_matches_torch():
    _need("torch", "pytorch_metric_learning")
    script = os.path.join(PROGRAMS, "lib_metric_learning.py")
    expected = run_program([script], runner=False, timeout=600)
    ours = run_program([script], runner=True, timeout=600)
    same_printed_lines(expected, ours, rtol=1e-4)
    # the miners' index tuples are integers: equal, not close
    assert [line for line in ours if line.startswith("miner")] == [line for line in expected if line.startswith("miner")]
