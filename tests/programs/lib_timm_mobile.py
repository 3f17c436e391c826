"""timm 1.0.29: ``timm.create_model`` with ``pretrained=False`` and small configurations of the EfficientNet
and MobileNetV3 families (timm's test_efficientnet, mobilenetv3_small_050), each from the same seed:
parameter count, eval forward, one forward/backward in train mode (loss, gradient norm), ``default_cfg`` fields and
``reset_classifier``; then ``features_only=True`` feature maps (channels, reductions, values) of ResNet, ConvNeXt,
EfficientNet and MobileNetV3.
Prints values rounded, to compare between real torch and ``python -m torchlike run``.

timm imports torchvision; the torchvision wheel here may be a CUDA build whose ``_C`` cannot load on a CPU-only
torch, so the two operator schemas its import names are defined first (tests/programs/_torchvision_schemas.py)."""

import torch
import torch.nn.functional as F


from _torchvision_schemas import load_or_define  # noqa: E402

_LIB = load_or_define()

import timm  # noqa: E402


def r(x, n=4):
    return float(f"{float(x):.{n}g}")


def rl(t, k=4):
    return [r(v) for v in t.detach().flatten()[:k]]


MODELS = [
    ("test_efficientnet", 32, {}),
    ("mobilenetv3_small_050", 32, {}),
]

for name, size, kw in MODELS:
    torch.manual_seed(0)
    m = timm.create_model(name, pretrained=False, num_classes=5, **kw)
    x = torch.randn(4, 3, size, size)
    y = torch.tensor([1, 3, 0, 4])
    cfg = m.default_cfg
    print(name, "params", sum(p.numel() for p in m.parameters()), "cfg", cfg.get("input_size"),
          cfg.get("classifier"), cfg.get("mean"))
    m.eval()
    with torch.no_grad():
        out = m(x)
    print(name, "eval", list(out.shape), rl(out))
    m.train()
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    gn = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in m.parameters() if p.grad is not None))
    print(name, "train loss", r(loss.detach()), "grad norm", r(gn))
    m.reset_classifier(7)
    m.eval()
    with torch.no_grad():
        print(name, "reset_classifier", list(m(x).shape), m.num_classes, type(m.get_classifier()).__name__)


for name, kw in (("resnet18", dict(out_indices=(1, 2, 3), layers=(1, 1, 1, 1))),
                 ("convnext_atto", dict(depths=(1, 1, 1, 1))), ("test_efficientnet", dict(out_indices=(2, 4))), ("mobilenetv3_small_050", {})):
    torch.manual_seed(0)
    f = timm.create_model(name, pretrained=False, features_only=True, **kw).eval()
    with torch.no_grad():
        feats = f(torch.randn(1, 3, 64, 64))
    print(name, "features", [list(t.shape) for t in feats], f.feature_info.channels(), f.feature_info.reduction(),
          [r(t.abs().mean()) for t in feats])
