"""poutyne 1.19.0 under the drop-in runner, compared line by line with real torch: Model.fit on tensors with string
optimizer/loss/metrics (accuracy, top-k, F1, a torchmetrics metric) and callbacks (ClipNorm, StepLR, EarlyStopping,
ModelCheckpoint, BestModelRestore, CSVLogger), evaluate/predict, a one-cycle OptimizerPolicy, fit_generator with
gradient accumulation and ReduceLROnPlateau, and a ModelBundle that trains in a directory and tests from its best
checkpoint."""
from conftest import lib_program_vs_torch


def test_poutyne_like_torch():
    _, ours = lib_program_vs_torch("lib_poutyne.py", "poutyne", "torchmetrics", timeout=600, rtol=1e-4)
    assert len(ours) == 21, ours
    assert ours[0].startswith("epochs 5 ['acc', 'epoch', 'fscore_macro'"), ours[0]
    assert ours[7] == "csv ['epoch', 'time', 'lr', 'loss'] 6", ours[7]
    assert ours[8] == "checkpoint True ['0.bias', '0.weight']", ours[8]
    assert ours[11].startswith("predict tensor Tensor "), ours[11]
    assert ours[17].startswith("bundle messages ['Epoch 1: val_acc improved"), ours[17]
