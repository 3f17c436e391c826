"""pytorch-metric-learning (losses with and without miners, miners, distances, reducers; forward and backward) under the drop-in runner,
compared line by line with the same program under real torch (fixed inputs; seeded parameters draw torch's numbers).
"""

from conftest import lib_program_vs_torch


def test_metric_learning_program_matches_torch():
    expected, ours = lib_program_vs_torch("lib_metric_learning.py", "torch", "pytorch_metric_learning", timeout=600)
    # the miners' index tuples are integers: equal, not close
    assert [line for line in ours if line.startswith("miner")] == [line for line in expected if line.startswith("miner")]
