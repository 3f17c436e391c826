"""POT 0.9.7.post1 (Python Optimal Transport) on its torch backend under the drop-in runner, compared line by
line with the same program under real torch (tests/programs/lib_pot.py): exact, entropic, unbalanced, partial,
Gromov and sliced OT, their gradients, POT's backend functions, and training loops with OT losses.
"""
from conftest import lib_program_vs_torch


def test_pot_solvers_gradients_and_training_like_torch():
    _, ours = lib_program_vs_torch("lib_pot.py", "torch", "ot", timeout=900, rtol=1e-4)
    assert len(ours) == 33, ours
    line = {text.split(" ")[0] + " " + text.split(" ")[1]: text for text in ours}
    assert ours[0] == "backend torch TorchBackend", ours[0]
    assert line["emd Tensor"].startswith("emd Tensor torch.float64 (8, 6) 1.0 13 "), line["emd Tensor"]
    assert line["emd2 1.8494"].startswith("emd2 1.8494 True "), line
    assert line["float32 torch.float32"] == "float32 torch.float32 1.0"
    assert line["gromov2 grad"].startswith("gromov2 grad 0.1545 (8, 8) "), line["gromov2 grad"]
    assert line["backend dtypes"] == ("backend dtypes ['torch.bool', 'torch.float32', 'torch.float64', 'torch.int64'] "
                                      "32 CPU True False True"), line["backend dtypes"]
    assert line["domain adaptation"].startswith("domain adaptation Tensor (8, 2) "), line["domain adaptation"]
    train = next(text for text in ours if text.startswith("train ["))
    assert train.endswith(" True"), train
