"""vit-pytorch (ViT, SimpleViT, DistillableViT + DistillWrapper, CaiT, CrossViT, MAE, NaViT on variable-resolution
batches; LeViT, MaxViT, MobileViT one step) trained a few steps under the drop-in runner, compared line by line with the same program under real
torch."""
from conftest import lib_program_vs_torch


def test_vit_pytorch_models_train_and_evaluate_like_torch():
    _, ours = lib_program_vs_torch("lib_vit_pytorch.py", "torch", "vit_pytorch", "torchvision", timeout=900,
                                   rtol=1e-4)
    assert len(ours) == 29, ours
    line = {" ".join(text.split(" ")[:2]): text for text in ours}  # the first two words name each line
    assert ours[0] == "vit params 24292 norm 32.9953", ours[0]
    assert line["vit reload"] == "vit reload same True"
    assert line["teacher grads"] == "teacher grads True"
    assert line["to_vit ViT"].startswith("to_vit ViT True [4, 32]"), line["to_vit ViT"]
    for name in ("vit losses", "simplevit losses", "distill soft", "cait losses", "crossvit losses", "mae losses",
                 "navit losses"):
        assert len(line[name].split("[")[1].split(",")) >= 2, line[name]
    assert line["navit eval"].startswith("navit eval [6, 5]"), line["navit eval"]
    assert line["navit groups"].startswith("navit groups [1, 3, 2] [6, 5]"), line["navit groups"]
    assert line["navit groups"].split("[6, 5] ")[1] == line["navit eval"].split("[6, 5] ")[1].split(" pred")[0]
    assert ours[25] == "navit packed vs single True"
    for name, params in (("levit", 371436), ("maxvit", 56592), ("mobilevit", 242344)):
        assert line[name + " params"].startswith(f"{name} params {params} [2, 4]"), line[name + " params"]
