"""wandb 0.31.0 (offline mode) under the drop-in runner, compared line by line with real torch:
``wandb.watch(model, log="all", log_graph=True)`` (parameter and gradient histograms from its hooks and
``histc``, the module graph), ``wandb.log`` of numbers, 0-d tensors, ``wandb.Histogram`` of tensors and numpy,
a Table, an artifact, the summary, and the records of the offline ``.wandb`` file read back."""
from conftest import lib_program_vs_torch


def test_wandb_offline_watch_log_histograms_like_torch():
    _, ours = lib_program_vs_torch("lib_wandb.py", "wandb", timeout=600, rtol=1e-4)
    assert len(ours) == 45, ours
    assert ours[4] == "history rows 4 [0, 1, 2, 3]", ours[4]
    assert ours[6] == "row 0 {'acc': 0.375, 'grad_norm': 0.1476, 'loss': 1.0254}", ours[6]
    hists = [text for text in ours if text.startswith("  hist ")]
    assert len(hists) == 31, hists  # 10 per training step (4 parameters, 4 gradients, 2 logged) + the last one
    assert "  hist gradients/2.weight (24, 64, -0.105, 0.127)" in hists
    assert ours[-4].startswith("graph graph-file [('0', 'Linear(in_features=5, out_features=8, bias=True)', "
                               "[['weight', [8, 5]], ['bias', [8]]], [[16, 8]], [40, 8])"), ours[-4]
    assert ours[-3].startswith("hist counts [1, 0, 0, 0, 1, "), ours[-3]
    assert ours[-2] == "table 4 2 [[0, 2], [1, 2], [2, 2], [3, 1]]", ours[-2]
