"""timm 1.0.29: ``timm.create_model`` with ``pretrained=False`` and small configurations of several architecture
families (ResNet, ResNet-D, ViT, ConvNeXt, Swin), each from the same seed:
parameter count, eval forward, one forward/backward in train mode (loss, gradient norm), ``default_cfg`` fields,
``reset_classifier`` and ``set_grad_checkpointing`` (same loss and gradients).
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
    ("resnet18", 32, dict(layers=(1, 1, 1, 1))),
    ("resnet18d", 32, dict(layers=(1, 1, 1, 1))),
    ("vit_tiny_patch16_224", 32, dict(img_size=32, patch_size=8, depth=2)),
    ("convnext_atto", 32, dict(depths=(1, 1, 1, 1))),
    ("swin_tiny_patch4_window7_224", 32, dict(img_size=32, window_size=4, embed_dim=24, depths=(1, 1),
                                              num_heads=(1, 2))),
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
    if name in ("resnet18d", "vit_tiny_patch16_224", "convnext_atto"):
        g0 = [p.grad.clone() for p in m.parameters()]
        m.zero_grad()
        m.set_grad_checkpointing(True)
        torch.manual_seed(1)
        loss2 = F.cross_entropy(m(x), y)
        loss2.backward()
        same = max(float((p.grad - g).abs().max()) for p, g in zip(m.parameters(), g0))
        print(name, "grad checkpointing", r(loss2.detach()), same < 1e-4)
    m.reset_classifier(7)
    m.eval()
    with torch.no_grad():
        print(name, "reset_classifier", list(m(x).shape), m.num_classes, type(m.get_classifier()).__name__)

