"""rtdl_revisiting_models 0.0.2 (the reference MLP, ResNet and FT-Transformer for tabular data) under the
drop-in runner, compared line by line with real torch: training steps with the package's parameter groups and
default AdamW, ReGLU/ReLU feed-forward, Linformer key/value compression, the embedding modules, eval-mode
predictions (BatchNorm running statistics) and a state_dict round trip.

The ResNet trains with SGD: its input projection's bias only reaches the loss through BatchNorm, so its exact
gradient is zero and Adam would scale floating-point noise (different in torch's and XLA's kernels) to full steps."""
from conftest import lib_program_vs_torch


def test_rtdl_revisiting_models_like_torch():
    _, ours = lib_program_vs_torch("lib_rtdl_revisiting_models.py", "rtdl_revisiting_models", timeout=600,
                                   rtol=1e-4)
    assert len(ours) == 18, ours
    assert ours[0].startswith("mlp params 1538 ['blocks.0.linear.weight'"), ours[0]
    assert ours[3] == "resnet params 2482", ours[3]
    assert ours[8] == "ft groups 2 [8, 16] [None, 0.0]", ours[8]
    assert ours[9] == "ft optimizer AdamW [0.0001, 0.0001] [1e-05, 0.0]", ours[9]
    assert ours[16] == "reloaded matches True", ours[16]
