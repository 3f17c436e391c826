"""SHAP 0.51.0's torch explainers under the drop-in runner, compared line by line with real torch: DeepExplainer
(its DeepLIFT backward hooks on Linear/ReLU/Tanh/Sigmoid/Softmax/Dropout/Conv2d/MaxPool2d, additivity checked,
ranked outputs, the Explanation object) on a trained MLP and a small CNN, and GradientExplainer (expected gradients,
seeded, with local smoothing and ranked outputs)."""
from conftest import lib_program_vs_torch


def test_shap_explainers_like_torch():
    _, ours = lib_program_vs_torch("lib_shap_torch.py", "shap", timeout=600, rtol=1e-4)
    assert len(ours) == 13, ours
    assert ours[2] == "deep shape (4, 6, 2)", ours[2]
    assert ours[4] == "additive True", ours[4]
    assert ours[5] == "top feature [0, 2, 4]", ours[5]
    assert ours[7].startswith("cnn deep (2, 1, 8, 8, 3)"), ours[7]
    assert ours[12].startswith("explanation Explanation (4, 6, 2)"), ours[12]
