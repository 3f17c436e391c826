"""timm 1.0.29 (with torchvision 0.28.0) under the drop-in runner, compared line by line with real torch:
``create_model`` (pretrained=False, small configurations) of ResNet, ResNet-D, ViT, ConvNeXt, Swin, EfficientNet and
MobileNetV3 in eval and train mode with ``default_cfg``, ``reset_classifier``, ``set_grad_checkpointing`` and
``features_only=True`` feature maps; ``timm.optim.create_optimizer_v2`` with ``timm.scheduler.create_scheduler_v2``,
``timm.data.Mixup`` with ``SoftTargetCrossEntropy``, ``LabelSmoothingCrossEntropy``, ``timm.utils.ModelEmaV3`` and
``timm.data.create_transform`` on a PIL image.

Found: nothing to fix; every line agrees at 4 significant digits. The tests skip where timm or torchvision is not
installed (neither is declared for CI: the only torchvision 0.28.0 wheel on this index is a CUDA build whose
``_C.so`` cannot load with the CPU torch, and then real torch's ``import torchvision`` raises "operator
torchvision::nms does not exist", which would break every library that imports torchvision when it is present).
The programs define the two operator schemas torchvision's import names before importing timm, so the oracle runs
(timm's models use no compiled torchvision operator)."""
from conftest import lib_program_vs_torch


def test_timm_models_like_torch():
    _, ours = lib_program_vs_torch("lib_timm_models.py", "timm", "torchvision", timeout=600, rtol=1e-3)
    assert len(ours) == 23, ours
    assert ours[0] == "resnet18 params 4908357 cfg (3, 224, 224) fc (0.485, 0.456, 0.406)", ours[0]
    for name in ("resnet18d", "vit_tiny_patch16_224", "convnext_atto"):
        assert any(line.startswith(f"{name} grad checkpointing") and line.endswith(" True") for line in ours), name
    assert sum(line.endswith("reset_classifier [4, 7] 7 Linear") for line in ours) == 5, ours


def test_timm_efficientnet_mobilenet_features_like_torch():
    _, ours = lib_program_vs_torch("lib_timm_mobile.py", "timm", "torchvision", timeout=600, rtol=1e-3)
    assert len(ours) == 12, ours
    assert ours[-1].startswith("mobilenetv3_small_050 features [[1, 16, 32, 32], [1, 8, 16, 16], [1, 16, 8, 8], "
                               "[1, 24, 4, 4], [1, 288, 2, 2]] [16, 8, 16, 24, 288] [2, 4, 8, 16, 32]"), ours[-1]


def test_timm_optim_scheduler_mixup_ema_transforms_like_torch():
    _, ours = lib_program_vs_torch("lib_timm_train.py", "timm", "torchvision", "PIL", timeout=600, rtol=1e-3)
    assert len(ours) == 15, ours
    assert ours[0] == "sgd SGD 4 [(29, 0.0), (15, 0.05)]", ours[0]
    assert ours[1].split(" lrs ")[1].startswith("[0.04268, 0.025, 0.007322]"), ours[1]
    assert [line.split()[0] for line in ours[6:10]] == ["mixup"] * 4, ours[6:10]
    assert ours[-1].startswith("train out [[3, 32, 32], [3, 32, 32], [3, 32, 32]]"), ours[-1]
