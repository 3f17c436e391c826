"""torchinfo (summary(): the layer table with input/output shapes, kernel shapes, parameter counts, mult-adds and
size estimates it measures with forward hooks, for a CNN, an LSTM model and a TransformerEncoder) under the drop-in
runner, compared line by line with the same program under real torch; then a few SGD steps of the CNN.
"""
from conftest import lib_program_vs_torch


def test_torchinfo_summaries_and_training_match_torch():
    expected, ours = lib_program_vs_torch("lib_torchinfo_summary.py", "torch", "torchinfo", timeout=600, rtol=1e-5)
    assert len(ours) == len(expected) > 80
    assert "Total params: 1,914" in ours and "total 17088 trainable 17088 mult_adds 17280" in ours
    losses = [float(line.split()[3]) for line in ours if line.startswith("step ")]
    assert len(losses) == 4 and losses[-1] < losses[0], losses
