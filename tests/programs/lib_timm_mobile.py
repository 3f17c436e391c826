"""timm 1.0.29: ``timm.create_model`` with ``pretrained=False`` and small configurations of the EfficientNet
and MobileNetV3 families (timm's test_efficientnet, mobilenetv3_small_050), each from the same seed:
parameter count, eval forward, one forward/backward in train mode (loss, gradient norm), ``default_cfg`` fields and
``reset_classifier``; then ``features_only=True`` feature maps (channels, reductions, values) of ResNet, ConvNeXt,
EfficientNet and MobileNetV3.
Prints values rounded, to compare between real torch and ``python -m torchlike run``.

The per-model check and the torchvision schemas timm's import needs on a CPU-only torch are in
tests/programs/_timm_common.py."""
import torch
from _timm_common import check_models, r

import timm

MODELS = [
    ("test_efficientnet", 32, {}),
    ("mobilenetv3_small_050", 32, {}),
]

check_models(MODELS)

for name, kw in (("resnet18", dict(out_indices=(1, 2, 3), layers=(1, 1, 1, 1))),
                 ("convnext_atto", dict(depths=(1, 1, 1, 1))), ("test_efficientnet", dict(out_indices=(2, 4))), ("mobilenetv3_small_050", {})):
    torch.manual_seed(0)
    f = timm.create_model(name, pretrained=False, features_only=True, **kw).eval()
    with torch.no_grad():
        feats = f(torch.randn(1, 3, 64, 64))
    print(name, "features", [list(t.shape) for t in feats], f.feature_info.channels(), f.feature_info.reduction(),
          [r(t.abs().mean()) for t in feats])
